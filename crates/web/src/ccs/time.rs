//! The Contest API's two time formats: TIME, an absolute time with its offset
//! (`2026-11-01T09:00:00.000+08:00`), and RELTIME, a time relative to the contest's start
//! (`(-)h:mm:ss.uuu`). Milliseconds are always written, as the standard asks of a server that
//! writes them at all.

/// `ms` (Unix milliseconds) as a TIME at the contest's offset.
pub(crate) fn abs_time(ms: i64, offset_s: i32) -> String {
    let Ok(t) = time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000) else {
        return "1970-01-01T00:00:00.000Z".to_string();
    };
    let off = time::UtcOffset::from_whole_seconds(offset_s).unwrap_or(time::UtcOffset::UTC);
    let t = t.to_offset(off);
    let zone = if offset_s == 0 {
        "Z".to_string()
    } else {
        let sign = if offset_s < 0 { '-' } else { '+' };
        let a = offset_s.unsigned_abs();
        format!("{sign}{:02}:{:02}", a / 3600, a % 3600 / 60)
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}{zone}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// A duration or contest time in milliseconds as a RELTIME.
pub(crate) fn rel_time(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let a = ms.unsigned_abs();
    format!(
        "{sign}{}:{:02}:{:02}.{:03}",
        a / 3_600_000,
        a / 60_000 % 60,
        a / 1000 % 60,
        a % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(abs_time(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            abs_time(1_761_958_800_123, 8 * 3600),
            "2025-11-01T09:00:00.123+08:00"
        );
        assert_eq!(
            abs_time(0, -(5 * 3600 + 1800)),
            "1969-12-31T18:30:00.000-05:30"
        );
        assert_eq!(rel_time(0), "0:00:00.000");
        assert_eq!(rel_time(5 * 3_600_000), "5:00:00.000");
        assert_eq!(rel_time(-61_001), "-0:01:01.001");
        assert_eq!(rel_time(123 * 3_600_000 + 59_999), "123:00:59.999");
    }
}

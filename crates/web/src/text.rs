//! Plain text that pages, links and the command line share: times in UTC and percent-encoding.
//! (HTML is escaped by maud's templates alone.)

/// Unix milliseconds as "2026-11-29 12:24:39 UTC".
pub fn utc_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `s` percent-encoded for a query string or a path segment (RFC 3986's unreserved characters
/// stay as they are).
pub(crate) fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(1_798_547_079_000), "2026-12-29 12:24:39 UTC");
    }

    #[test]
    fn percent_encoding() {
        assert_eq!(urlencode("a-z_0.9~"), "a-z_0.9~");
        assert_eq!(
            urlencode("refused: a&b/c é"),
            "refused%3A%20a%26b%2Fc%20%C3%A9"
        );
    }
}

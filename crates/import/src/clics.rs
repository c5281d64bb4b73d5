//! The CLICS Contest Package format's scalars (ICPC ccs-specs, 2023-06): TIME and RELTIME
//! values, ids, and the YAML that `ojd contest export` writes. `ojd contest import|export`
//! (the binary) reads and writes the package's files with these.

use serde_json::Value;

/// A CLICS TIME (`2014-06-25T10:00:00+01`) as RFC 3339 (`…+01:00`).
pub fn rfc3339(time: &str) -> Option<String> {
    let t = time.trim();
    let fixed = match t.len().checked_sub(3).map(|i| t.split_at(i)) {
        Some((head, zone))
            if (zone.starts_with('+') || zone.starts_with('-'))
                && zone[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            format!("{head}{zone}:00")
        }
        _ => t.to_string(),
    };
    time::OffsetDateTime::parse(&fixed, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(|_| fixed)
}

/// A RELTIME (`5:00:00`, `1:30:00.000`) as an ojd span (`5h0m0s`).
pub fn span(reltime: &str) -> Option<String> {
    let parts: Vec<&str> = reltime.trim().split(':').collect();
    let [h, m, s] = parts[..] else { return None };
    let h: u64 = h.parse().ok()?;
    let m: u64 = m.parse().ok().filter(|m| *m < 60)?;
    let s: f64 = s.parse().ok().filter(|s| (0.0..60.0).contains(s))?;
    Some(format!("{h}h{m}m{}s", s.floor() as u64))
}

/// Seconds as a RELTIME (`5:01:01`).
pub fn reltime(secs: u64) -> String {
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// A string key of a YAML/JSON object (numbers written unquoted in YAML count too).
pub fn text(v: &Value, key: &str) -> Option<String> {
    match &v[key] {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An id the format and ojd both accept: 1–64 of `[A-Za-z0-9._-]`, not starting with `.` or `-`.
pub fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        && !s.starts_with(['.', '-'])
}

/// `v` (an object, or a list of objects, of scalars and lists) as YAML with every string
/// double-quoted: a YAML 1.1 reader would take an unquoted `5:00:00` for the number 18000.
/// A JSON string is a valid YAML double-quoted scalar, and a JSON array a flow sequence.
pub fn yaml(v: &Value) -> String {
    let fields = |o: &serde_json::Map<String, Value>, first: &str, rest: &str| {
        let mut out = String::new();
        for (i, (k, x)) in o.iter().enumerate() {
            let lead = if i == 0 { first } else { rest };
            out.push_str(&format!("{lead}{k}: {x}\n"));
        }
        out
    };
    match v {
        Value::Object(o) => fields(o, "", ""),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Object(o) => fields(o, "- ", "  "),
                x => format!("- {x}\n"),
            })
            .collect(),
        x => format!("{x}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_and_spans() {
        assert_eq!(
            rfc3339("2014-06-25T10:00:00+01").as_deref(),
            Some("2014-06-25T10:00:00+01:00")
        );
        assert_eq!(
            rfc3339("2014-06-25T10:00:00Z").as_deref(),
            Some("2014-06-25T10:00:00Z")
        );
        assert_eq!(
            rfc3339("2014-06-25T10:00:00.5-05:30").as_deref(),
            Some("2014-06-25T10:00:00.5-05:30")
        );
        assert_eq!(rfc3339("2014-06-25 10:00"), None);
        assert_eq!(span("5:00:00").as_deref(), Some("5h0m0s"));
        assert_eq!(span("1:30:15.250").as_deref(), Some("1h30m15s"));
        assert_eq!(span("1:75:00"), None);
        assert_eq!(span("90"), None);
        assert_eq!(reltime(5 * 3600 + 61), "5:01:01");
    }

    #[test]
    fn yaml_quotes_every_string_and_reads_back() {
        let v =
            json!({"duration": "5:00:00", "name": "a: \"b\"\n", "penalty_time": 20, "tags": ["x"]});
        let text = yaml(&v);
        assert!(text.contains("duration: \"5:00:00\"\n"), "{text}");
        let back: Value = serde_norway::from_str(&text).expect("YAML");
        assert_eq!(back, v);
        let list = json!([{"id": "a", "rgb": "#00f"}, {"id": "b", "ordinal": 2}]);
        let back: Value = serde_norway::from_str(&yaml(&list)).expect("YAML");
        assert_eq!(back, list);
    }
}

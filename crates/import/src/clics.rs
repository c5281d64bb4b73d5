//! The CLICS Contest Package format's scalars (ICPC ccs-specs, 2023-06): TIME and RELTIME
//! values, ids, and the YAML that `ojd contest export` writes ([`yaml`]). The package itself
//! is `ojd_service::package`'s, which checks the same scalars the same way; these stay for the
//! `contest_package` fuzz target, whose workspace builds no service (TODO: fuzz the service's
//! checks themselves, and keep one copy).

use serde_json::Value;

/// A CLICS TIME (`2014-06-25T10:00:00+01`) as RFC 3339 (`…+01:00`).
pub fn rfc3339(time: &str) -> Option<String> {
    let t = time.trim();
    // The last three bytes, when they are whole characters (a string ending in a multi-byte
    // character cannot be cut there, and is no TIME anyway).
    let cut = t.len().checked_sub(3).filter(|&i| t.is_char_boundary(i));
    let fixed = match cut.map(|i| t.split_at(i)) {
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

/// A problem's `rgb` as the standard writes it (`#rrggbb` or `#rgb`); a bare `rrggbb` (as
/// some older packages write it) gets its `#`. `None` when it is no colour.
pub fn rgb(v: &Value) -> Option<String> {
    let s = v.as_str()?.trim();
    let hex = s.strip_prefix('#').unwrap_or(s);
    ((hex.len() == 3 || hex.len() == 6) && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("#{hex}"))
}

/// What is wrong with property `key` of a team, organization or group (`ty` is the file's
/// name: `teams`, `organizations`, `groups`) that the Contest API would serve, if anything:
/// the value must be of the standard's type. Properties ojd does not serve are not checked.
pub fn property_error(ty: &str, key: &str, v: &Value) -> Option<&'static str> {
    let string = v.is_string();
    let string_or_null = string || v.is_null();
    let id = |v: &Value| v.as_str().is_some_and(valid_id);
    let ok = match (ty, key) {
        (_, "id") => id(v),
        (_, "name") | ("teams", "label") | ("organizations", "formal_name") => string,
        ("organizations", "country") => {
            v.is_null()
                || v.as_str()
                    .is_some_and(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()))
        }
        ("teams", "organization_id") => v.is_null() || id(v),
        ("teams", "group_ids") => {
            v.is_null()
                || v.as_array().is_some_and(|a| {
                    a.iter().all(id)
                        && a.iter().collect::<std::collections::HashSet<_>>().len() == a.len()
                })
        }
        ("teams", "hidden") => v.is_boolean() || v.is_null(),
        ("teams", "icpc_id" | "display_name")
        | ("groups", "icpc_id" | "type")
        | ("organizations", "icpc_id" | "url" | "twitter_hashtag" | "twitter_account") => {
            string_or_null
        }
        _ => true,
    };
    if ok {
        return None;
    }
    Some(match (ty, key) {
        (_, "id") => "is not an id (letters, digits, '.', '_', '-')",
        ("organizations", "country") => {
            "is not a country code (ISO 3166-1 alpha-3: three capitals)"
        }
        ("teams", "organization_id") => "is not an organization id",
        ("teams", "group_ids") => "is not a list of distinct group ids",
        ("teams", "hidden") => "is not true or false",
        (_, "name") | ("teams", "label") | ("organizations", "formal_name") => "is not a string",
        _ => "is not a string or null",
    })
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
        // Ending in a multi-byte character: no TIME, and no panic.
        for odd in [
            "2014-06-25T10:00:00+é",
            "2014-06-25T10:00:0€",
            "😀",
            "x😀",
            "é",
        ] {
            assert_eq!(rfc3339(odd), None, "{odd}");
        }
        assert_eq!(span("5:00:00").as_deref(), Some("5h0m0s"));
        assert_eq!(span("1:30:15.250").as_deref(), Some("1h30m15s"));
        assert_eq!(span("1:75:00"), None);
        assert_eq!(span("90"), None);
        assert_eq!(reltime(5 * 3600 + 61), "5:01:01");
    }

    #[test]
    fn colours_and_properties() {
        assert_eq!(rgb(&json!("#A953c2")).as_deref(), Some("#A953c2"));
        assert_eq!(rgb(&json!("ff0000")).as_deref(), Some("#ff0000"));
        assert_eq!(rgb(&json!("#00f")).as_deref(), Some("#00f"));
        assert_eq!(rgb(&json!("red")), None);
        assert_eq!(rgb(&json!("#ff00")), None);
        assert_eq!(rgb(&json!(255)), None);
        assert_eq!(
            property_error("organizations", "country", &json!("BEL")),
            None
        );
        assert!(property_error("organizations", "country", &json!("Belgium")).is_some());
        assert!(property_error("teams", "hidden", &json!("no")).is_some());
        assert!(property_error("teams", "group_ids", &json!(["a", "a"])).is_some());
        assert!(property_error("teams", "name", &json!(null)).is_some());
        assert_eq!(property_error("teams", "display_name", &json!(null)), None);
        assert_eq!(property_error("teams", "seat", &json!(12)), None);
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

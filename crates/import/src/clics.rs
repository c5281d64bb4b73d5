//! The YAML that `ojd contest export` writes ([`yaml`]) for the CLICS Contest Package format
//! (ICPC ccs-specs). Reading a package, and checking its scalars (TIME, RELTIME, ids, colours),
//! is `ojd_service::package`'s.

use serde_json::Value;

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

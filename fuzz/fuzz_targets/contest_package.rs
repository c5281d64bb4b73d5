//! A contest package's documents as `ojd contest import` reads them whole: `contest.yaml` (or
//! `contest.json`) and its lists (`problems`, `teams`, `groups`, `organizations`), parsed by the
//! same libraries, then every value the import reads taken through the same checks (ids, the
//! start TIME, RELTIMEs, colours, each object's property checks) and written back as YAML. The
//! input is one document, as JSON when it starts with `{` or `[`, else as YAML. Never a panic.
#![no_main]

use ojd_import::clics;
use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let doc: Value = if text.trim_start().starts_with(['{', '[']) {
        match serde_json::from_str(text) {
            Ok(v) => v,
            Err(_) => return,
        }
    } else {
        match serde_norway::from_str(text) {
            Ok(v) => v,
            Err(_) => return,
        }
    };
    let _ = clics::yaml(&doc);
    match &doc {
        Value::Array(items) => {
            for ty in ["problems", "teams", "groups", "organizations"] {
                list(ty, items);
            }
        }
        Value::Object(_) => contest(&doc),
        _ => {}
    }
});

/// What the import reads of `contest.yaml`.
fn contest(c: &Value) {
    if let Some(id) = clics::text(c, "id") {
        let _ = clics::valid_id(&id);
    }
    let _ = clics::text(c, "name");
    if let Some(t) = clics::text(c, "start_time") {
        let _ = clics::rfc3339(&t);
    }
    for key in ["duration", "scoreboard_freeze_duration"] {
        if let Some(t) = clics::text(c, key) {
            let _ = clics::span(&t);
        }
    }
    let _ = clics::text(c, "scoreboard_type");
    if let Some(map) = c.as_object() {
        for (k, v) in map {
            let _ = clics::property_error("contest", k, v);
        }
    }
}

/// What the import reads of each object of a list file.
fn list(ty: &str, items: &[Value]) {
    for o in items {
        if let Some(id) = clics::text(o, "id") {
            let _ = clics::valid_id(&id);
        }
        if let Some(c) = o.get("rgb").or_else(|| o.get("color")) {
            let _ = clics::rgb(c);
        }
        if let Some(map) = o.as_object() {
            for (k, v) in map {
                let _ = clics::property_error(ty, k, v);
            }
        }
    }
}

//! A contest package's values as `ojd contest import` reads them: CLICS times (`start_time`),
//! RELTIMEs (`duration`), colours and ids, and the YAML/JSON property checks. A time ending in
//! a multi-byte character once panicked.
#![no_main]

use ojd_import::clics;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = clics::rfc3339(text);
    let _ = clics::span(text);
    let _ = clics::valid_id(text);
    let value = serde_json::Value::String(text.to_string());
    let _ = clics::rgb(&value);
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = clics::yaml(&doc);
        if let Some(map) = doc.as_object() {
            for (key, v) in map {
                for ty in ["contest", "problems", "teams", "groups", "organizations"] {
                    let _ = clics::property_error(ty, key, v);
                }
                let _ = clics::text(&doc, key);
            }
        }
    }
});

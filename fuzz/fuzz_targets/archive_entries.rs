//! The rule every uploaded or imported archive is unpacked by: each line is an entry's name
//! (a trailing `/` makes it a folder). Accepted paths stay inside, and files and folders never
//! pass the cap, however many folders the names imply.
#![no_main]

use std::path::Component;

use ojd_judge::archive::{entry_path, Entries};

const CAP: usize = 64;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut entries = Entries::new(CAP);
    // Distinct paths accepted: each counts once at least (a name may repeat).
    let mut accepted = std::collections::HashSet::new();
    for name in text.split('\n') {
        let Ok(rel) = entry_path(name) else {
            continue;
        };
        assert!(
            rel.components().all(|c| matches!(c, Component::Normal(_))),
            "{name:?} -> {rel:?} leaves its folder"
        );
        if entries.add(&rel, name.ends_with('/')).is_err() {
            return;
        }
        accepted.insert(rel);
        assert!(accepted.len() <= CAP, "{} paths under a cap of {CAP}", accepted.len());
    }
});

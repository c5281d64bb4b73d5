//! The statement renderer (Markdown with maths) on any text: it must never panic nor spin, and
//! never pass a `<script>` through. `$\é$` once crashed the daemon at every start.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/web/src/statement/mod.rs"]
mod statement;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for drop_samples in [false, true] {
        let html = statement::render(text, drop_samples);
        assert!(!html.contains("<script"), "raw HTML passed through: {html}");
    }
});

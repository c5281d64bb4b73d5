//! What a checker or validator says, as the judge reads it: its message (`judgemessage.txt`,
//! standard error; the last lines kept), a score as points, and the built-in comparisons of a
//! submission's output with the answer (tokens, exact, lines, floats, the Kattis default
//! validator's flags). The input is the output, then (after a zero byte) the answer, then
//! (after another) the validator flags, one per line. Never a panic.
#![no_main]

use ojd_judge::{compare, CheckerSpec, DefaultFlags};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == 0);
    let output = parts.next().unwrap_or_default();
    let answer = parts.next().unwrap_or_default();
    let flags = parts.next().unwrap_or_default();
    let text = String::from_utf8_lossy(output);
    let message = ojd_judge::checker_message(&text);
    assert!(message.chars().count() <= 600, "a message is bounded");
    if let Some(x) = text.split_whitespace().next().and_then(|t| t.parse::<f64>().ok()) {
        if let Some(milli) = ojd_judge::points::from_f64(x) {
            let _ = ojd_judge::points::to_text(milli);
        }
    }
    let mut specs = vec![
        CheckerSpec::Tokens,
        CheckerSpec::Exact,
        CheckerSpec::Lines,
        CheckerSpec::Float {
            abs: 1e-6,
            rel: 1e-6,
        },
    ];
    let flags: Vec<String> = String::from_utf8_lossy(flags)
        .lines()
        .map(str::to_string)
        .collect();
    if let Ok(f) = DefaultFlags::parse(&flags) {
        specs.push(CheckerSpec::KattisDefault(f));
    }
    for spec in &specs {
        let _ = compare(spec, output, answer);
    }
});

// Input validator of "Sum of a List" (made by `ojd new`): exit 0 for a valid input; otherwise
// a message naming the line on stderr and exit 1. It reads the input exactly: a line with n,
// a line with n integers separated by single spaces, each line ending in '\n', nothing else.
use std::io::{self, Read};
use std::process::exit;

fn fail(msg: String) -> ! {
    eprintln!("{msg}");
    exit(1);
}

/// An integer written the canonical way (no '+', no leading zeros, no "-0") within `lo..=hi`.
fn int(line: usize, s: &str, lo: i64, hi: i64) -> i64 {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && s != "-0";
    match s.parse::<i64>() {
        Ok(v) if canonical && (lo..=hi).contains(&v) => v,
        _ => fail(format!("line {line}: expected an integer in {lo}..={hi}, got {s:?}")),
    }
}

fn main() {
    let mut raw = String::new();
    if io::stdin().read_to_string(&mut raw).is_err() {
        fail("the input is not UTF-8".into());
    }
    let Some(body) = raw.strip_suffix('\n') else {
        fail("the last line does not end with a newline".into());
    };
    let lines: Vec<&str> = body.split('\n').collect();
    if lines.len() != 2 {
        fail(format!("expected 2 lines, found {}", lines.len()));
    }
    let n = int(1, lines[0], 1, 200_000) as usize;
    let values: Vec<&str> = lines[1].split(' ').collect();
    if values.len() != n {
        fail(format!("line 2: expected {n} integers, found {}", values.len()));
    }
    for v in values {
        int(2, v, -1_000_000_000, 1_000_000_000);
    }
}

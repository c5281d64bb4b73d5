// Validator for 骑士精神 (SCOI 2005).
// Format: a line with T (1 <= T <= 10), then 5*T lines of exactly five
// characters from {0, 1, *}; no blank lines anywhere.  Each board holds
// twelve '0', twelve '1' and one '*'.  The last line may or may not end with
// a newline; nothing else (no spaces, no '\r', no extra lines) is allowed.
use std::io::{self, Read};
use std::process::exit;

fn fail(msg: String) -> ! {
    eprintln!("{}", msg);
    exit(1);
}

fn main() {
    let mut raw = Vec::new();
    io::stdin().read_to_end(&mut raw).unwrap();
    let text = match String::from_utf8(raw) {
        Ok(s) => s,
        Err(_) => fail("input is not UTF-8".into()),
    };
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let lines: Vec<&str> = body.split('\n').collect();

    let first = lines[0];
    if first.is_empty()
        || !first.bytes().all(|b| b.is_ascii_digit())
        || (first.len() > 1 && first.starts_with('0'))
        || first.len() > 2
    {
        fail(format!("line 1: expected T, got {:?}", first));
    }
    let t: usize = first.parse().unwrap();
    if !(1..=10).contains(&t) {
        fail(format!("T = {} out of range 1..=10", t));
    }
    if lines.len() != 1 + 5 * t {
        fail(format!("expected {} lines, found {}", 1 + 5 * t, lines.len()));
    }
    for k in 0..t {
        let (mut zeros, mut ones, mut blanks) = (0, 0, 0);
        for r in 0..5 {
            let no = 2 + 5 * k + r;
            let line = lines[no - 1];
            if line.len() != 5 {
                fail(format!("line {}: expected 5 characters, got {:?}", no, line));
            }
            for ch in line.bytes() {
                match ch {
                    b'0' => zeros += 1,
                    b'1' => ones += 1,
                    b'*' => blanks += 1,
                    _ => fail(format!("line {}: bad character {:?}", no, ch as char)),
                }
            }
        }
        if zeros != 12 || ones != 12 || blanks != 1 {
            fail(format!(
                "board {}: {} '0', {} '1', {} '*' (need 12, 12, 1)",
                k + 1,
                zeros,
                ones,
                blanks
            ));
        }
    }
}

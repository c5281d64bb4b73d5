// Validator for 骑士 (FZU 2180).
// Format: the first line holds T (1 <= T <= 10).  Then 5*T board lines of
// exactly five characters from {0, 1, *}.  Empty lines (nothing at all on
// them) may appear anywhere after the first line, since the original data
// separates boards by blank lines, but the file must end with a board line
// (followed by at most one newline).  No spaces, tabs or '\r' anywhere.
// Each board holds twelve '0', twelve '1' and one '*'.
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
    if lines.len() > 1 && lines[lines.len() - 1].is_empty() {
        fail("the file ends with a blank line".into());
    }

    let mut rows: Vec<(usize, &str)> = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(1) {
        if line.is_empty() {
            continue;
        }
        if line.len() != 5 || !line.bytes().all(|b| b == b'0' || b == b'1' || b == b'*') {
            fail(format!("line {}: expected 5 characters from 0, 1, *, got {:?}", i + 1, line));
        }
        rows.push((i + 1, line));
    }
    if rows.len() != 5 * t {
        fail(format!("expected {} board lines, found {}", 5 * t, rows.len()));
    }
    for k in 0..t {
        let (mut zeros, mut ones, mut blanks) = (0, 0, 0);
        for &(_, line) in &rows[5 * k..5 * k + 5] {
            for ch in line.bytes() {
                match ch {
                    b'0' => zeros += 1,
                    b'1' => ones += 1,
                    _ => blanks += 1,
                }
            }
        }
        if zeros != 12 || ones != 12 || blanks != 1 {
            fail(format!(
                "board {} (from line {}): {} '0', {} '1', {} '*' (need 12, 12, 1)",
                k + 1,
                rows[5 * k].0,
                zeros,
                ones,
                blanks
            ));
        }
    }
}

// Validator for 推箱子: reads one test input on stdin, exit 0 if valid, else reason on stderr + exit 1.
// Format: line "T" (1..=20); per room a line "M N" (2..=7 each) and M lines of N digits from
// 0..=4 separated by single spaces, with exactly one 2 (box), one 3 (target), one 4 (pusher).
// No blank lines, no extra spaces; the file must end with a single newline.
use std::io::{self, Read};
use std::process::exit;

fn fail(msg: String) -> ! {
    eprintln!("{}", msg);
    exit(1);
}

fn ints(line: &str, lineno: usize, count: usize) -> Vec<i64> {
    let parts: Vec<&str> = line.split(' ').collect();
    if parts.len() != count {
        fail(format!("line {}: expected {} tokens separated by single spaces, got {:?}", lineno, count, line));
    }
    parts
        .iter()
        .map(|p| {
            if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) || (p.len() > 1 && p.starts_with('0')) {
                fail(format!("line {}: bad integer {:?}", lineno, p));
            }
            p.parse::<i64>().unwrap()
        })
        .collect()
}

fn main() {
    let mut s = String::new();
    if io::stdin().read_to_string(&mut s).is_err() {
        fail("input is not UTF-8".into());
    }
    if s.contains('\r') {
        fail("carriage return found".into());
    }
    if !s.ends_with('\n') {
        fail("file must end with a newline".into());
    }
    let lines: Vec<&str> = s[..s.len() - 1].split('\n').collect();
    let mut li = 0;
    let next = |li: &mut usize| -> (&str, usize) {
        if *li >= lines.len() {
            fail(format!("unexpected end of file after line {}", *li));
        }
        *li += 1;
        (lines[*li - 1], *li)
    };
    let (l, n) = next(&mut li);
    let t = ints(l, n, 1)[0];
    if !(1..=20).contains(&t) {
        fail(format!("T = {} out of range 1..=20", t));
    }
    for case in 1..=t {
        let (l, n) = next(&mut li);
        let mn = ints(l, n, 2);
        let (m, w) = (mn[0], mn[1]);
        if !(2..=7).contains(&m) || !(2..=7).contains(&w) {
            fail(format!("case {}: M = {}, N = {} out of range 2..=7", case, m, w));
        }
        let mut count = [0usize; 5];
        for _ in 0..m {
            let (l, n) = next(&mut li);
            for v in ints(l, n, w as usize) {
                if !(0..=4).contains(&v) {
                    fail(format!("line {}: cell value {} not in 0..=4", n, v));
                }
                count[v as usize] += 1;
            }
        }
        for (v, what) in [(2, "box (2)"), (3, "target (3)"), (4, "pusher (4)")] {
            if count[v] != 1 {
                fail(format!("case {}: expected exactly one {}, found {}", case, what, count[v]));
            }
        }
    }
    if li != lines.len() {
        fail(format!("extra content after the last room (line {})", li + 1));
    }
}

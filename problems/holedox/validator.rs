// Validator for Holedox Moving: reads one test input on stdin, exit 0 if valid, else reason on
// stderr + exit 1.
// Format: one or more cases (at most 100), then the line "0 0 0". Each case is
//   "n m L"            1 <= n, m <= 20, 2 <= L <= 8
//   L lines "r c"      the body, head first; inside the lair, pairwise distinct, each block
//                      4-adjacent to the next
//   "K"                0 <= K <= n*m
//   K lines "r c"      stones: inside the lair, pairwise distinct, not on the body, not (1,1)
//   one empty line     separates the cases (as in the original input)
// Integers are separated by single spaces, no leading/trailing spaces, no '\r';
// the file ends with "0 0 0" and a single newline.
use std::io::{self, Read};
use std::process::exit;

fn fail(msg: String) -> ! {
    eprintln!("{}", msg);
    exit(1);
}

fn ints(line: &str, lineno: usize, count: usize) -> Vec<i64> {
    let parts: Vec<&str> = line.split(' ').collect();
    if parts.len() != count {
        fail(format!("line {}: expected {} integers separated by single spaces, got {:?}", lineno, count, line));
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
    let mut li = 0usize;
    let next = |li: &mut usize| -> (&str, usize) {
        if *li >= lines.len() {
            fail(format!("unexpected end of file after line {}", *li));
        }
        *li += 1;
        (lines[*li - 1], *li)
    };
    let mut cases = 0;
    loop {
        let (l, ln) = next(&mut li);
        let h = ints(l, ln, 3);
        let (n, m, len) = (h[0], h[1], h[2]);
        if n == 0 && m == 0 && len == 0 {
            break;
        }
        cases += 1;
        if cases > 100 {
            fail("more than 100 cases".into());
        }
        if !(1..=20).contains(&n) || !(1..=20).contains(&m) || !(2..=8).contains(&len) {
            fail(format!("line {}: n = {}, m = {}, L = {} out of range", ln, n, m, len));
        }
        let inside = |r: i64, c: i64| (1..=n).contains(&r) && (1..=m).contains(&c);
        let mut body: Vec<(i64, i64)> = Vec::new();
        for i in 0..len {
            let (l, ln) = next(&mut li);
            let p = ints(l, ln, 2);
            let b = (p[0], p[1]);
            if !inside(b.0, b.1) {
                fail(format!("line {}: body block {:?} outside the {}x{} lair", ln, b, n, m));
            }
            if body.contains(&b) {
                fail(format!("line {}: body block {:?} repeated", ln, b));
            }
            if i > 0 {
                let prev = body[body.len() - 1];
                if (prev.0 - b.0).abs() + (prev.1 - b.1).abs() != 1 {
                    fail(format!("line {}: body block {:?} not adjacent to {:?}", ln, b, prev));
                }
            }
            body.push(b);
        }
        let (l, ln) = next(&mut li);
        let k = ints(l, ln, 1)[0];
        if k > n * m {
            fail(format!("line {}: K = {} larger than n*m", ln, k));
        }
        let mut stones = vec![false; (n * m) as usize];
        for _ in 0..k {
            let (l, ln) = next(&mut li);
            let p = ints(l, ln, 2);
            let st = (p[0], p[1]);
            if !inside(st.0, st.1) {
                fail(format!("line {}: stone {:?} outside the lair", ln, st));
            }
            if st == (1, 1) {
                fail(format!("line {}: stone on the exit (1,1)", ln));
            }
            if body.contains(&st) {
                fail(format!("line {}: stone {:?} on the body", ln, st));
            }
            let idx = ((st.0 - 1) * m + st.1 - 1) as usize;
            if stones[idx] {
                fail(format!("line {}: stone {:?} repeated", ln, st));
            }
            stones[idx] = true;
        }
        let (l, ln) = next(&mut li);
        if !l.is_empty() {
            fail(format!("line {}: expected an empty line after the case, got {:?}", ln, l));
        }
    }
    if cases == 0 {
        fail("no test case before 0 0 0".into());
    }
    if li != lines.len() {
        fail(format!("extra content after 0 0 0 (line {})", li + 1));
    }
}

// Validator for 华容道.  Reads one test input on stdin.
//
// Format (strict):
//   line 1: n m q                      1 <= n, m <= 30, 1 <= q <= 500
//   n lines: m integers, each 0 or 1, single spaces
//   q lines: EX EY SX SY TX TY         1 <= EX, SX, TX <= n, 1 <= EY, SY, TY <= m
// Extra guarantees checked: E, S, T are movable cells (value 1), E != S.
// Lines end with '\n'; the final newline may be missing; nothing else allowed.

use std::io::{self, Read};
use std::process::exit;

fn fail(msg: String) -> ! {
    eprintln!("{}", msg);
    exit(1);
}

fn parse_int(tok: &str, line_no: usize) -> i64 {
    let ok = !tok.is_empty()
        && tok.len() <= 4
        && tok.bytes().all(|b| b.is_ascii_digit())
        && !(tok.len() > 1 && tok.starts_with('0'));
    if !ok {
        fail(format!("line {}: bad integer token {:?}", line_no, tok));
    }
    tok.parse().unwrap()
}

fn parse_line(line: &str, line_no: usize, count: usize) -> Vec<i64> {
    let toks: Vec<&str> = line.split(' ').collect();
    if toks.len() != count {
        fail(format!(
            "line {}: expected {} integers separated by single spaces, got {:?}",
            line_no, count, line
        ));
    }
    toks.iter().map(|t| parse_int(t, line_no)).collect()
}

fn main() {
    let mut bytes = Vec::new();
    io::stdin().read_to_end(&mut bytes).unwrap();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => fail("input is not UTF-8".to_string()),
    };
    if text.contains('\r') {
        fail("carriage return in input".to_string());
    }
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let lines: Vec<&str> = body.split('\n').collect();

    let head = parse_line(lines[0], 1, 3);
    let (n, m, q) = (head[0], head[1], head[2]);
    if !(1..=30).contains(&n) || !(1..=30).contains(&m) {
        fail(format!("n = {}, m = {} out of [1, 30]", n, m));
    }
    if !(1..=500).contains(&q) {
        fail(format!("q = {} out of [1, 500]", q));
    }
    let (n, m, q) = (n as usize, m as usize, q as usize);
    if lines.len() != 1 + n + q {
        fail(format!("expected {} lines, got {}", 1 + n + q, lines.len()));
    }

    let mut grid = vec![vec![0i64; m]; n];
    for r in 0..n {
        let row = parse_line(lines[1 + r], 2 + r, m);
        for c in 0..m {
            if row[c] != 0 && row[c] != 1 {
                fail(format!("line {}: cell value {} is not 0 or 1", 2 + r, row[c]));
            }
            grid[r][c] = row[c];
        }
    }

    for i in 0..q {
        let line_no = 2 + n + i;
        let v = parse_line(lines[1 + n + i], line_no, 6);
        for k in 0..3 {
            let (x, y) = (v[2 * k], v[2 * k + 1]);
            if x < 1 || x > n as i64 || y < 1 || y > m as i64 {
                fail(format!("line {}: cell ({}, {}) outside the board", line_no, x, y));
            }
            if grid[x as usize - 1][y as usize - 1] != 1 {
                fail(format!("line {}: cell ({}, {}) is a fixed cell", line_no, x, y));
            }
        }
        if v[0] == v[2] && v[1] == v[3] {
            fail(format!("line {}: blank and piece on the same cell", line_no));
        }
    }
}

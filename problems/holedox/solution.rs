// Holedox Moving (POJ 1324) — reference solution.
//
// State = (head cell, body code). The body code stores, for every block after the
// head, the direction (2 bits) from the previous block to it, so a snake of length L
// has 4^(L-1) codes. The head moves into a neighbouring cell that is neither a stone
// nor any block of the body (the tail included); the new code is
//     (old code << 2 | direction from the new head back to the old head), cut to L-1 digits.
// Plain BFS over these states; visited is a bitset of n*m*4^(L-1) bits (at most 800 KB).

use std::collections::VecDeque;
use std::io::{self, Read, Write};

const DR: [i32; 4] = [-1, 1, 0, 0];
const DC: [i32; 4] = [0, 0, -1, 1];

fn opposite(d: usize) -> usize {
    d ^ 1 // 0 <-> 1 (up/down), 2 <-> 3 (left/right)
}

fn direction(dr: i32, dc: i32) -> usize {
    (0..4).find(|&d| DR[d] == dr && DC[d] == dc).expect("body blocks must be adjacent")
}

struct Lair {
    rows: i32,
    cols: i32,
    stone: Vec<bool>,
}

/// Minimum number of steps for the head to reach (0, 0), or -1.
fn solve(lair: &Lair, body: &[(i32, i32)]) -> i64 {
    let len = body.len();
    if body[0] == (0, 0) {
        return 0;
    }
    let segs = len - 1;
    let codes = 1usize << (2 * segs);
    let mask = codes - 1;
    let mut code = 0usize;
    for i in (1..len).rev() {
        let d = direction(body[i].0 - body[i - 1].0, body[i].1 - body[i - 1].1);
        code = (code << 2) | d; // the segment next to the head ends up in the lowest bits
    }
    let cells = (lair.rows * lair.cols) as usize;
    let mut visited = vec![0u64; (cells * codes + 63) / 64];
    let mark = |v: &mut Vec<u64>, s: usize| -> bool {
        let fresh = v[s / 64] >> (s % 64) & 1 == 0;
        v[s / 64] |= 1 << (s % 64);
        fresh
    };
    let head0 = (body[0].0 * lair.cols + body[0].1) as usize;
    mark(&mut visited, head0 * codes + code);
    let mut queue: VecDeque<(u32, u32)> = VecDeque::new();
    queue.push_back((head0 as u32, code as u32));
    let mut dist = 0i64;
    let mut blocks = vec![(0i32, 0i32); len];
    while !queue.is_empty() {
        dist += 1;
        for _ in 0..queue.len() {
            let (head, code) = queue.pop_front().unwrap();
            let (head, code) = (head as usize, code as usize);
            // Rebuild the body cells from the head and the code.
            let (mut r, mut c) = (head as i32 / lair.cols, head as i32 % lair.cols);
            blocks[0] = (r, c);
            for (i, block) in blocks.iter_mut().enumerate().skip(1) {
                let d = (code >> (2 * (i - 1))) & 3;
                r += DR[d];
                c += DC[d];
                *block = (r, c);
            }
            let (hr, hc) = blocks[0];
            for d in 0..4 {
                let (nr, nc) = (hr + DR[d], hc + DC[d]);
                if nr < 0 || nc < 0 || nr >= lair.rows || nc >= lair.cols {
                    continue;
                }
                let cell = (nr * lair.cols + nc) as usize;
                if lair.stone[cell] || blocks.contains(&(nr, nc)) {
                    continue;
                }
                let ncode = ((code << 2) | opposite(d)) & mask;
                if !mark(&mut visited, cell * codes + ncode) {
                    continue;
                }
                if (nr, nc) == (0, 0) {
                    return dist;
                }
                queue.push_back((cell as u32, ncode as u32));
            }
        }
    }
    -1
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut tok = input.split_ascii_whitespace().map(|t| t.parse::<i32>().unwrap());
    let mut out = String::new();
    let mut case = 0;
    loop {
        let (rows, cols, len) = match (tok.next(), tok.next(), tok.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => break,
        };
        if rows == 0 && cols == 0 && len == 0 {
            break;
        }
        case += 1;
        let body: Vec<(i32, i32)> = (0..len)
            .map(|_| (tok.next().unwrap() - 1, tok.next().unwrap() - 1))
            .collect();
        let k = tok.next().unwrap();
        let mut stone = vec![false; (rows * cols) as usize];
        for _ in 0..k {
            let (r, c) = (tok.next().unwrap() - 1, tok.next().unwrap() - 1);
            stone[(r * cols + c) as usize] = true;
        }
        let lair = Lair { rows, cols, stone };
        out.push_str(&format!("Case {}: {}\n", case, solve(&lair, &body)));
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

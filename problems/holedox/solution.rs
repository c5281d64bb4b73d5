// Holedox Moving (POJ 1324) — reference solution.
//
// State = (head cell, body code). The body code stores, for every block after the
// head, the direction (2 bits) from the previous block to it, so a snake of length L
// has 4^(L-1) codes. The head moves into a neighbouring cell that is neither a stone
// nor any block of the body (the tail included); the new code is
//     (old code << 2 | direction from the new head back to the old head), cut to L-1 digits.
// Which of the four moves the body itself blocks depends on the code alone, so it is
// remembered per length and code: a 4-bit mask, computed the first time it is needed.
//
// Search: A* with h(head) = the distance from the head's cell to the exit on the map
// of stones alone (one BFS from the exit per case), which ignores the body and so
// never overestimates.  If the exit is not even reachable on that map the answer is
// -1 at once.  A step moves the head to a neighbouring cell, so h changes by exactly
// one (the grid is bipartite) and f = g + h either stays or grows by 2: the open list
// is two stacks, the states with the current f and the states with f + 2.  h is
// consistent, so a state's g is final when it is taken off the current stack (closed
// is a bitset of cells * 4^(L-1) bits); a state may sit in the next stack and be
// found again with the current f, so closed is checked when a state is taken, too.
// The first time the head can step onto the exit, g + 1 is the answer: that state's f
// equals the current f, the smallest in the open list.

use std::io::{self, Read, Write};

const DR: [i32; 4] = [-1, 1, 0, 0];
const DC: [i32; 4] = [0, 0, -1, 1];
const FAR: u16 = u16::MAX;

fn direction(dr: i32, dc: i32) -> usize {
    (0..4)
        .find(|&d| DR[d] == dr && DC[d] == dc)
        .expect("body blocks must be adjacent")
}

/// The moves of the head (bit d) that run into a body of `segs` segments with this code.
fn blocked_moves(segs: usize, code: usize) -> u8 {
    let (mut r, mut c) = (0, 0);
    let mut mask = 0u8;
    for i in 0..segs {
        let d = (code >> (2 * i)) & 3;
        r += DR[d];
        c += DC[d];
        if let Some(hit) = (0..4).find(|&d| (DR[d], DC[d]) == (r, c)) {
            mask |= 1 << hit;
        }
    }
    mask
}

const UNKNOWN: u8 = 0xff;

struct Search {
    blocked: Vec<Vec<u8>>, // [segments][code]: blocked_moves, or UNKNOWN until first needed
    closed: Vec<u64>,
    current: Vec<u32>,
    next: Vec<u32>,
}

impl Search {
    /// Minimum number of steps for the head to reach (0, 0), or -1.
    fn solve(&mut self, rows: usize, cols: usize, stone: &[bool], body: &[(i32, i32)]) -> i64 {
        if body[0] == (0, 0) {
            return 0;
        }
        // Padded map: a ring of stones around the lair.
        let width = cols + 2;
        let cells = (rows + 2) * width;
        let off = [0usize.wrapping_sub(width), width, usize::MAX, 1];
        let mut wall = vec![true; cells];
        for r in 0..rows {
            for c in 0..cols {
                wall[(r + 1) * width + c + 1] = stone[r * cols + c];
            }
        }
        let at = |(r, c): (i32, i32)| (r as usize + 1) * width + c as usize + 1;
        let exit = at((0, 0));

        // h: BFS distance to the exit over the stones alone.
        let mut h = vec![FAR; cells];
        let mut queue = vec![exit];
        h[exit] = 0;
        let mut i = 0;
        while i < queue.len() {
            let u = queue[i];
            i += 1;
            for o in off {
                let v = u.wrapping_add(o);
                if !wall[v] && h[v] == FAR {
                    h[v] = h[u] + 1;
                    queue.push(v);
                }
            }
        }
        let head0 = at(body[0]);
        if h[head0] == FAR {
            return -1;
        }

        let segs = body.len() - 1;
        if self.blocked.len() <= segs {
            self.blocked.resize(segs + 1, Vec::new());
        }
        if self.blocked[segs].is_empty() {
            self.blocked[segs] = vec![UNKNOWN; 1 << (2 * segs)];
        }
        let blocked = &mut self.blocked[segs];
        let shift = 2 * segs;
        let mask = (1usize << shift) - 1;
        let mut code = 0usize;
        for i in (1..body.len()).rev() {
            let d = direction(body[i].0 - body[i - 1].0, body[i].1 - body[i - 1].1);
            code = (code << 2) | d; // the segment next to the head ends up in the lowest bits
        }

        // closed holds the states whose head is on the lair (not on the padding
        // before its first cell): bit state - base.
        let base = (width + 1) << shift;
        self.closed.clear();
        self.closed
            .resize(((cells - 2 * width - 2) << shift).div_ceil(64), 0);
        self.current.clear();
        self.next.clear();
        self.current.push((head0 << shift | code) as u32);
        let mut f = h[head0] as i64;
        loop {
            while let Some(state) = self.current.pop() {
                let state = state as usize;
                let bit = state - base;
                let word = &mut self.closed[bit / 64];
                if *word >> (bit % 64) & 1 == 1 {
                    continue;
                }
                *word |= 1 << (bit % 64);
                let (head, code) = (state >> shift, state & mask);
                let g = f - h[head] as i64;
                if blocked[code] == UNKNOWN {
                    blocked[code] = blocked_moves(segs, code);
                }
                let free = !blocked[code];
                for d in 0..4 {
                    let v = head.wrapping_add(off[d]);
                    if free >> d & 1 == 0 || wall[v] {
                        continue;
                    }
                    if v == exit {
                        return g + 1;
                    }
                    let next = v << shift | ((code << 2 | (d ^ 1)) & mask);
                    let bit = next - base;
                    if self.closed[bit / 64] >> (bit % 64) & 1 == 1 {
                        continue;
                    }
                    if h[v] < h[head] {
                        self.current.push(next as u32);
                    } else {
                        self.next.push(next as u32);
                    }
                }
            }
            if self.next.is_empty() {
                return -1;
            }
            std::mem::swap(&mut self.current, &mut self.next);
            f += 2;
        }
    }
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut tok = input
        .split_ascii_whitespace()
        .map(|t| t.parse::<i32>().unwrap());
    let mut out = String::new();
    let mut case = 0;
    let mut search = Search {
        blocked: Vec::new(),
        closed: Vec::new(),
        current: Vec::new(),
        next: Vec::new(),
    };
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
        let steps = search.solve(rows as usize, cols as usize, &stone, &body);
        out.push_str(&format!("Case {}: {}\n", case, steps));
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

// 骑士 (FZU 2180) — WRONG: the reference solver, but it prints -1 (the answer
// of the SCOI version of this problem) instead of "Bored!".
use std::io::{self, Read, Write};

const MAX_DEPTH: u32 = 15;
const BLANK: u8 = 2;

const TARGET: [&str; 5] = ["11111", "01111", "00*11", "00001", "00000"];

struct Solver {
    target: [u8; 25],
    moves: Vec<Vec<usize>>, // moves[c] = cells a knight's move away from c
    board: [u8; 25],
}

fn cell_value(ch: u8) -> u8 {
    match ch {
        b'0' => 0,
        b'1' => 1,
        _ => BLANK,
    }
}

impl Solver {
    fn new() -> Solver {
        let mut target = [0u8; 25];
        for (r, row) in TARGET.iter().enumerate() {
            for (c, ch) in row.bytes().enumerate() {
                target[r * 5 + c] = cell_value(ch);
            }
        }
        let mut moves = vec![Vec::new(); 25];
        let deltas = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)];
        for cell in 0..25 {
            let (r, c) = ((cell / 5) as i32, (cell % 5) as i32);
            for &(dr, dc) in deltas.iter() {
                let (nr, nc) = (r + dr, c + dc);
                if (0..5).contains(&nr) && (0..5).contains(&nc) {
                    moves[cell].push((nr * 5 + nc) as usize);
                }
            }
        }
        Solver { target, moves, board: [0; 25] }
    }

    /// Is the knight on `cell` misplaced? (The blank never counts.)
    fn wrong(&self, cell: usize) -> u32 {
        let v = self.board[cell];
        (v != BLANK && v != self.target[cell]) as u32
    }

    fn misplaced(&self) -> u32 {
        (0..25).map(|c| self.wrong(c)).sum()
    }

    /// Depth-first search below the current board.  `g` moves made so far,
    /// `h` misplaced knights of the current board, `prev` the blank's previous
    /// cell (moving straight back is useless).
    fn dfs(&mut self, blank: usize, prev: usize, g: u32, h: u32, limit: u32) -> bool {
        if h == 0 {
            return true;
        }
        if g + h > limit {
            return false;
        }
        for i in 0..self.moves[blank].len() {
            let next = self.moves[blank][i];
            if next == prev {
                continue;
            }
            // The knight on `next` jumps into `blank`.
            let before = self.wrong(next);
            self.board.swap(blank, next);
            let after = self.wrong(blank);
            let found = self.dfs(next, blank, g + 1, h - before + after, limit);
            self.board.swap(blank, next);
            if found {
                return true;
            }
        }
        false
    }

    /// Minimum number of moves if it is at most MAX_DEPTH, otherwise None.
    fn solve(&mut self, start: [u8; 25]) -> Option<u32> {
        self.board = start;
        let blank = (0..25).find(|&c| start[c] == BLANK).expect("board without blank");
        let h = self.misplaced();
        for limit in h..=MAX_DEPTH {
            if self.dfs(blank, usize::MAX, 0, h, limit) {
                return Some(limit);
            }
        }
        None
    }
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut tokens = input.split_ascii_whitespace();
    let t: usize = tokens.next().unwrap().parse().unwrap();
    let mut solver = Solver::new();
    let mut out = String::new();
    for _ in 0..t {
        let mut board = [0u8; 25];
        for r in 0..5 {
            let row = tokens.next().unwrap().as_bytes();
            for c in 0..5 {
                board[r * 5 + c] = cell_value(row[c]);
            }
        }
        match solver.solve(board) {
            Some(steps) => out.push_str(&format!("{}\n", steps)),
            None => out.push_str("-1\n"),
        }
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

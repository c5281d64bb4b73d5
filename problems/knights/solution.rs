// 骑士精神 (SCOI 2005) — reference solution.
//
// IDA* over board states, with an exact table near the target.  Instead of
// moving knights we move the blank: from the blank's cell it can swap with any
// knight a knight's move away.  A state is a u32: bit c set when a white knight
// ('1') stands on cell c, and the blank's cell in the bits from 25 up.
//
// The table: a BFS from the target stores the exact distance of every state
// at most NEAR moves from it (an open-addressing hash table).  Then for a board:
//   * a state found in the table has its exact distance: the search does not go
//     below it, and the path through it costs g + table[state];
//   * a state not in the table is more than NEAR moves from the target, so
//     h = max(NEAR + 1, misplaced knights) never overestimates.  The misplaced
//     count (the blank not counted) is admissible because one move relocates
//     exactly one knight, so it fixes at most one misplaced knight.
// IDA* raises the limit from the start's h to 15; a branch is pruned when
// g + h > limit, so with NEAR = 8 the search never goes deeper than 7 moves.
// A board more than 15 misplaced knights away needs no search, and answers of
// at most QUICK moves are found by the plain IDA* (misplaced count alone)
// before the table is built, so easy files do not pay for it.
//
// Answers are only wanted up to 15; if no solution of length <= 15 exists the
// answer is -1.
use std::cell::OnceCell;
use std::io::{self, Read, Write};

const MAX_DEPTH: u32 = 15;
/// States at most NEAR moves from the target are in the table.
const NEAR: u32 = 8;
/// Answers up to QUICK moves are first looked for without the table.
const QUICK: u32 = 6;
const TARGET: [&str; 5] = ["11111", "01111", "00*11", "00001", "00000"];
const KNIGHTS: u32 = (1 << 25) - 1;
const EMPTY: u32 = u32::MAX;

/// Encodes a board given as five rows of '0', '1' and '*'.
fn encode(rows: [&[u8]; 5]) -> u32 {
    let mut state = 0u32;
    for (r, row) in rows.iter().enumerate() {
        for (c, &ch) in row.iter().take(5).enumerate() {
            match ch {
                b'1' => state |= 1 << (r * 5 + c),
                b'0' => {}
                _ => state |= ((r * 5 + c) as u32) << 25,
            }
        }
    }
    state
}

/// The state after the knight on `to` jumps into the blank.
fn jump(state: u32, to: usize) -> u32 {
    let blank = (state >> 25) as usize;
    let knights = state & KNIGHTS;
    let white = (knights >> to) & 1;
    (knights & !(1 << to)) | (white << blank) | ((to as u32) << 25)
}

/// Open addressing, linear probing: state -> distance to the target.
struct Table {
    keys: Vec<u32>,
    dist: Vec<u8>,
    shift: u32,
}

impl Table {
    fn with_capacity_log2(bits: u32) -> Table {
        Table {
            keys: vec![EMPTY; 1 << bits],
            dist: vec![0; 1 << bits],
            shift: 32 - bits,
        }
    }

    fn slot(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B1) >> self.shift) as usize
    }

    fn get(&self, key: u32) -> Option<u32> {
        let mask = self.keys.len() - 1;
        let mut i = self.slot(key);
        loop {
            match self.keys[i] {
                k if k == key => return Some(self.dist[i] as u32),
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Inserts `key` unless present; true if it was new.
    fn insert(&mut self, key: u32, dist: u32) -> bool {
        let mask = self.keys.len() - 1;
        let mut i = self.slot(key);
        loop {
            match self.keys[i] {
                k if k == key => return false,
                EMPTY => {
                    self.keys[i] = key;
                    self.dist[i] = dist as u8;
                    return true;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }
}

struct Solver {
    target: u32,
    moves: [Vec<usize>; 25], // moves[c] = cells a knight's move away from c
    near: OnceCell<Table>,   // built when a board first needs it
}

impl Solver {
    fn new() -> Solver {
        let rows = TARGET.map(str::as_bytes);
        let moves: [Vec<usize>; 25] = std::array::from_fn(|cell| {
            let (r, c) = ((cell / 5) as i32, (cell % 5) as i32);
            let deltas = [
                (1, 2),
                (2, 1),
                (-1, 2),
                (-2, 1),
                (1, -2),
                (2, -1),
                (-1, -2),
                (-2, -1),
            ];
            deltas
                .iter()
                .map(|&(dr, dc)| (r + dr, c + dc))
                .filter(|&(nr, nc)| (0..5).contains(&nr) && (0..5).contains(&nc))
                .map(|(nr, nc)| (nr * 5 + nc) as usize)
                .collect()
        });
        Solver {
            target: encode(rows),
            moves,
            near: OnceCell::new(),
        }
    }

    /// The table of the states at most NEAR moves from the target.
    fn near(&self) -> &Table {
        self.near.get_or_init(|| {
            // BFS from the target, NEAR levels: 10 486 states in a table of 2^15 slots.
            let mut near = Table::with_capacity_log2(15);
            near.insert(self.target, 0);
            let mut level = vec![self.target];
            for d in 1..=NEAR {
                let mut next = Vec::new();
                for &s in &level {
                    for &to in &self.moves[(s >> 25) as usize] {
                        let n = jump(s, to);
                        if near.insert(n, d) {
                            next.push(n);
                        }
                    }
                }
                level = next;
            }
            near
        })
    }

    /// Knights (the blank not counted) on a cell whose target colour differs.
    fn misplaced(&self, state: u32) -> u32 {
        let blank = state >> 25;
        let differ = (state ^ self.target) & KNIGHTS;
        // A knight on the target's blank cell is misplaced whatever its colour;
        // the cell of the state's blank never counts.
        let centre = self.target >> 25;
        let mut wrong = differ & !(1 << centre) & !(1 << blank);
        if blank != centre {
            wrong |= 1 << centre;
        }
        wrong.count_ones()
    }

    /// Is there a path of at most `limit` moves below `state`, reached in `g`
    /// moves?  `prev` is the blank's previous cell (moving straight back is useless).
    fn dfs(&self, near: &Table, state: u32, prev: usize, g: u32, limit: u32) -> bool {
        if let Some(d) = near.get(state) {
            return g + d <= limit;
        }
        if g + (NEAR + 1).max(self.misplaced(state)) > limit {
            return false;
        }
        let blank = (state >> 25) as usize;
        self.moves[blank]
            .iter()
            .any(|&to| to != prev && self.dfs(near, jump(state, to), blank, g + 1, limit))
    }

    /// The same search with the misplaced count alone, for short answers.
    fn dfs_plain(&self, state: u32, prev: usize, g: u32, limit: u32) -> bool {
        let h = self.misplaced(state);
        if h == 0 {
            return true;
        }
        if g + h > limit {
            return false;
        }
        let blank = (state >> 25) as usize;
        self.moves[blank]
            .iter()
            .any(|&to| to != prev && self.dfs_plain(jump(state, to), blank, g + 1, limit))
    }

    /// Minimum number of moves if it is at most MAX_DEPTH, otherwise None.
    fn solve(&self, start: u32) -> Option<u32> {
        // h == 0 means every knight is correct, which forces the blank to the
        // centre (a knight there would be misplaced): the board is the target.
        let h = self.misplaced(start);
        if h > MAX_DEPTH {
            return None;
        }
        if let Some(d) = (h..=QUICK).find(|&limit| self.dfs_plain(start, usize::MAX, 0, limit)) {
            return Some(d);
        }
        let near = self.near();
        if let Some(d) = near.get(start) {
            return Some(d);
        }
        let h = (NEAR + 1).max(h);
        (h..=MAX_DEPTH).find(|&limit| self.dfs(near, start, usize::MAX, 0, limit))
    }
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut tokens = input.split_ascii_whitespace();
    let t: usize = tokens.next().unwrap().parse().unwrap();
    let solver = Solver::new();
    let mut out = String::new();
    for _ in 0..t {
        let rows: [&[u8]; 5] = std::array::from_fn(|_| tokens.next().unwrap().as_bytes());
        match solver.solve(encode(rows)) {
            Some(steps) => out.push_str(&format!("{}\n", steps)),
            None => out.push_str("-1\n"),
        }
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

// Test generator for 骑士 (FZU 2180).
//
// Every invocation starts with a LAYOUT argument that decides where blank
// lines go (the original data separates boards by blank lines):
//   between  blank line between consecutive boards only
//   after-t  blank line after T and between consecutive boards
//   every    blank line between any two lines (as the published sample shows)
//   none     no blank lines at all
//
//   boards LAYOUT walk T LO HI BIAS SEED
//       T boards whose exact minimum number of moves lies in [LO, HI]
//       (17 stands for "more than 16").  Boards come from random walks of the
//       blank starting at the target; with probability BIAS% a step prefers a
//       move that does not increase the number of misplaced knights, which
//       yields boards that look almost solved but are far away (the slow
//       case for IDA*).
//   boards LAYOUT random T SEED
//       T uniformly random boards (12 white, 12 black, one blank).
//   boards LAYOUT small SEED
//       1..=3 boards for the brute-force cross-check: mostly short random
//       walks from the target, sometimes a uniformly random board.
//
// Output: T, then T boards of five lines each, blank lines as LAYOUT says.
use std::collections::HashMap;

const TARGET: &[u8; 25] = b"1111101111002110000100000";

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

type Board = [u8; 25]; // b'0', b'1', b'2' (= blank)

fn target() -> Board {
    *TARGET
}

fn knight_moves(cell: usize) -> Vec<usize> {
    let (r, c) = ((cell / 5) as i32, (cell % 5) as i32);
    let mut v = Vec::new();
    for (dr, dc) in [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)] {
        let (nr, nc) = (r + dr, c + dc);
        if (0..5).contains(&nr) && (0..5).contains(&nc) {
            v.push((nr * 5 + nc) as usize);
        }
    }
    v
}

fn blank_of(b: &Board) -> usize {
    b.iter().position(|&x| x == b'2').unwrap()
}

fn misplaced(b: &Board) -> usize {
    (0..25).filter(|&i| b[i] != b'2' && b[i] != TARGET[i]).count()
}

/// A board as a number: bit i set for a white knight ('1') on cell i, the blank's cell above
/// bit 25. Searches work on these; the answers are the same as on the text boards.
type Key = u32;

fn key(b: &Board) -> Key {
    let whites = (0..25).filter(|&i| b[i] == b'1').fold(0u32, |m, i| m | 1 << i);
    whites | (blank_of(b) as u32) << 25
}

/// Moves the knight on `m` into the blank (on `k`): the blank goes to `m`.
fn step(s: Key, k: usize, m: usize) -> Key {
    let mut whites = s & ((1 << 25) - 1);
    if whites & 1 << m != 0 {
        whites = whites & !(1 << m) | 1 << k;
    }
    whites | (m as u32) << 25
}

/// Hashes a key with one multiplication (std's default SipHash made this generator slow).
#[derive(Default)]
struct KeyHasher(u64);
impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u32 keys are hashed")
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
type Table = HashMap<Key, u8, std::hash::BuildHasherDefault<KeyHasher>>;

/// Knight moves from every cell.
fn moves() -> Vec<Vec<usize>> {
    (0..25).map(knight_moves).collect()
}

/// All states within `depth` moves of `start`, with their distance.
fn ball(start: Board, depth: usize, moves: &[Vec<usize>]) -> Table {
    let mut dist = Table::default();
    let start = key(&start);
    dist.insert(start, 0);
    let mut layer = vec![start];
    for d in 1..=depth {
        let mut next = Vec::new();
        for &s in &layer {
            let k = (s >> 25) as usize;
            for &m in &moves[k] {
                let n = step(s, k, m);
                if !dist.contains_key(&n) {
                    dist.insert(n, d as u8);
                    next.push(n);
                }
            }
        }
        layer = next;
    }
    dist
}

/// Exact distance to the target if it is at most 16, otherwise 17 (meet in the middle: every
/// path of up to 6 moves from `board`, each end looked up among the states 10 moves or fewer
/// from the target, so a path of D <= 16 moves is found at its cell max(0, D - 10) moves in; a
/// shortest path never steps straight back).
fn exact(board: Board, near_target: &Table, moves: &[Vec<usize>]) -> usize {
    fn walk(s: Key, from: usize, a: usize, best: &mut usize, near: &Table, moves: &[Vec<usize>]) {
        if a >= *best {
            return;
        }
        if let Some(&t) = near.get(&s) {
            *best = (*best).min(a + t as usize);
        }
        if a == 6 {
            return;
        }
        let k = (s >> 25) as usize;
        for &m in &moves[k] {
            if m != from {
                walk(step(s, k, m), k, a + 1, best, near, moves);
            }
        }
    }
    let mut best = 17;
    walk(key(&board), usize::MAX, 0, &mut best, near_target, moves);
    best
}

fn random_walk(rng: &mut Rng, len: usize, bias: u64) -> Board {
    let mut b = target();
    let mut prev = usize::MAX;
    for _ in 0..len {
        let k = blank_of(&b);
        let moves: Vec<usize> = knight_moves(k).into_iter().filter(|&m| m != prev).collect();
        let h = misplaced(&b);
        let good: Vec<usize> = moves
            .iter()
            .copied()
            .filter(|&m| {
                let mut nb = b;
                nb.swap(k, m);
                misplaced(&nb) <= h
            })
            .collect();
        let pool = if !good.is_empty() && rng.below(100) < bias { &good } else { &moves };
        let m = pool[rng.below(pool.len() as u64) as usize];
        b.swap(k, m);
        prev = k;
    }
    b
}

fn random_board(rng: &mut Rng) -> Board {
    let mut b = target();
    for i in (1..25).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        b.swap(i, j);
    }
    b
}

fn print(boards: &[Board], layout: &str) {
    let mut lines = vec![boards.len().to_string()];
    for (k, b) in boards.iter().enumerate() {
        if (k > 0 && layout != "none") || (k == 0 && layout == "after-t") {
            lines.push(String::new());
        }
        for r in 0..5 {
            let row: String = (0..5)
                .map(|c| if b[r * 5 + c] == b'2' { '*' } else { b[r * 5 + c] as char })
                .collect();
            lines.push(row);
        }
    }
    let sep = if layout == "every" { "\n\n" } else { "\n" };
    let lines: Vec<String> = lines.into_iter().filter(|l| layout != "every" || !l.is_empty()).collect();
    print!("{}\n", lines.join(sep));
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let layout = all[0].clone();
    if !["between", "after-t", "every", "none"].contains(&layout.as_str()) {
        panic!("unknown layout {}", layout);
    }
    let args: Vec<String> = all[1..].to_vec();
    let num = |i: usize| -> u64 { args[i].parse().expect("numeric argument") };
    let mut boards = Vec::new();
    match args[0].as_str() {
        "walk" => {
            let (t, lo, hi, bias) = (num(1) as usize, num(2) as usize, num(3) as usize, num(4));
            let mut rng = Rng(num(5));
            let moves = moves();
            let near = ball(target(), 10, &moves);
            while boards.len() < t {
                let len = lo + rng.below(12) as usize;
                let b = random_walk(&mut rng, len, bias);
                let d = exact(b, &near, &moves);
                if lo <= d && d <= hi {
                    boards.push(b);
                }
            }
        }
        "random" => {
            let t = num(1) as usize;
            let mut rng = Rng(num(2));
            for _ in 0..t {
                boards.push(random_board(&mut rng));
            }
        }
        "small" => {
            let mut rng = Rng(num(1));
            let t = 1 + rng.below(3) as usize;
            for _ in 0..t {
                if rng.below(10) == 0 {
                    boards.push(random_board(&mut rng));
                } else {
                    let len = rng.below(15) as usize;
                    let bias = rng.below(2) * 80;
                    boards.push(random_walk(&mut rng, len, bias));
                }
            }
        }
        other => panic!("unknown mode {}", other),
    }
    print(&boards, &layout);
}

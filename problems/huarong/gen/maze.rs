// Maze-like boards for 华容道.
//
//   maze N M Q EXTRA_PERCENT SEED [QUERIES]
//
// Cells with both coordinates even (0-based) are rooms, joined by a random
// spanning tree (corridors of width 1).  Then every still-closed wall cell
// between two rooms is opened with probability EXTRA_PERCENT %, which adds
// cycles (without cycles the piece can hardly move in a width-1 corridor).
// Cells with both coordinates odd stay fixed.
// QUERIES: "far" (default) -- S and T far apart; "mixed" -- uniform, with
// some S = T and some blanks next to the piece.
// Every query has E, S, T on movable cells and E != S.

use std::env;

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
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn seed_from(args: &[String]) -> u64 {
    let mut h: u64 = 1469598103934665603;
    for a in args {
        for b in a.bytes().chain(std::iter::once(0u8)) {
            h ^= b as u64;
            h = h.wrapping_mul(1099511628211);
        }
    }
    h
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    let mut rng = Rng(seed_from(&args));
    let n: usize = args[0].parse().unwrap();
    let m: usize = args[1].parse().unwrap();
    let q: usize = args[2].parse().unwrap();
    let extra: usize = args[3].parse().unwrap();
    let mode = args.get(5).cloned().unwrap_or_else(|| "far".to_string());
    assert!(n * m >= 2, "need at least two cells");

    let mut grid = vec![0u8; n * m];
    // Randomised DFS over rooms (even, even).
    let (rn, rm) = ((n + 1) / 2, (m + 1) / 2);
    let mut seen = vec![false; rn * rm];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    grid[0] = 1;
    while let Some(&(r, c)) = stack.last() {
        let mut options = Vec::new();
        if r > 0 && !seen[(r - 1) * rm + c] {
            options.push((r - 1, c));
        }
        if r + 1 < rn && !seen[(r + 1) * rm + c] {
            options.push((r + 1, c));
        }
        if c > 0 && !seen[r * rm + c - 1] {
            options.push((r, c - 1));
        }
        if c + 1 < rm && !seen[r * rm + c + 1] {
            options.push((r, c + 1));
        }
        if options.is_empty() {
            stack.pop();
            continue;
        }
        let (nr, nc) = options[rng.below(options.len())];
        seen[nr * rm + nc] = true;
        grid[(2 * nr) * m + 2 * nc] = 1;
        grid[(r + nr) * m + (c + nc)] = 1; // wall cell between the two rooms
        stack.push((nr, nc));
    }
    // Extra openings: wall cells with exactly one odd coordinate.
    for r in 0..n {
        for c in 0..m {
            if (r % 2 == 1) != (c % 2 == 1) && grid[r * m + c] == 0 && rng.below(100) < extra {
                grid[r * m + c] = 1;
            }
        }
    }
    let open: Vec<usize> = (0..n * m).filter(|&i| grid[i] == 1).collect();
    assert!(open.len() >= 2, "board too small for a maze");

    let neighbors = |cell: usize| -> Vec<usize> {
        let (r, c) = (cell / m, cell % m);
        let mut v = Vec::new();
        if r > 0 {
            v.push(cell - m);
        }
        if r + 1 < n {
            v.push(cell + m);
        }
        if c > 0 {
            v.push(cell - 1);
        }
        if c + 1 < m {
            v.push(cell + 1);
        }
        v.into_iter().filter(|&x| grid[x] == 1).collect()
    };
    let manhattan = |a: usize, b: usize| -> usize {
        (a / m).abs_diff(b / m) + (a % m).abs_diff(b % m)
    };

    let mut out = format!("{} {} {}\n", n, m, q);
    for r in 0..n {
        let row: Vec<String> = (0..m).map(|c| grid[r * m + c].to_string()).collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    for _ in 0..q {
        let (e, s, t);
        if mode == "far" {
            let mut best = (open[0], open[1]);
            let mut best_d = 0;
            for _ in 0..40 {
                let a = open[rng.below(open.len())];
                let b = open[rng.below(open.len())];
                if a != b && manhattan(a, b) >= best_d {
                    best = (a, b);
                    best_d = manhattan(a, b);
                }
            }
            s = best.0;
            t = best.1;
            let mut x = open[rng.below(open.len())];
            while x == s {
                x = open[rng.below(open.len())];
            }
            e = x;
        } else {
            let sc = open[rng.below(open.len())];
            let nb = neighbors(sc);
            let ec = if !nb.is_empty() && rng.below(4) == 0 {
                nb[rng.below(nb.len())]
            } else {
                let mut x = open[rng.below(open.len())];
                while x == sc {
                    x = open[rng.below(open.len())];
                }
                x
            };
            let tc = if rng.below(10) == 0 { sc } else { open[rng.below(open.len())] };
            e = ec;
            s = sc;
            t = tc;
        }
        out.push_str(&format!(
            "{} {} {} {} {} {}\n",
            e / m + 1,
            e % m + 1,
            s / m + 1,
            s % m + 1,
            t / m + 1,
            t % m + 1
        ));
    }
    print!("{}", out);
}

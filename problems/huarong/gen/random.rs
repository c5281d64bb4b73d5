// Random boards for 华容道.
//
//   random small SEED
//       tiny board (1..=6 x 1..=6), 1..=6 queries; used by the stress test.
//   random N M Q WALL_PERCENT SEED [QUERIES]
//       N x M board, each cell fixed with probability WALL_PERCENT %.
//       QUERIES: "mixed" (default) -- random E, S, T with some S = T and
//                some blanks next to the piece;
//                "far" -- S and T far apart, E anywhere.
//
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
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
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
    let (n, m, q, wall, mode) = if args[0] == "small" {
        let (mut n, mut m) = (1, 1);
        while n * m < 2 {
            n = rng.range(1, 6);
            m = rng.range(1, 6);
        }
        let q = rng.range(1, 6);
        let wall = [0, 10, 20, 30, 40][rng.below(5)];
        (n, m, q, wall, "mixed".to_string())
    } else {
        let n: usize = args[0].parse().unwrap();
        let m: usize = args[1].parse().unwrap();
        let q: usize = args[2].parse().unwrap();
        let wall: usize = args[3].parse().unwrap();
        let mode = args.get(5).cloned().unwrap_or_else(|| "mixed".to_string());
        (n, m, q, wall, mode)
    };
    assert!(n * m >= 2, "need at least two cells");

    let mut grid = vec![0u8; n * m];
    for c in grid.iter_mut() {
        *c = if rng.below(100) < wall { 0 } else { 1 };
    }
    // At least two movable cells, so that E != S is possible.
    while grid.iter().filter(|&&c| c == 1).count() < 2 {
        let i = rng.below(n * m);
        grid[i] = 1;
    }
    let open: Vec<usize> = (0..n * m).filter(|&i| grid[i] == 1).collect();

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
            // best of a few random pairs for S, T; E anywhere else
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
            let tc = match rng.below(10) {
                0 => sc,
                1 | 2 if !neighbors(sc).is_empty() => {
                    let nb = neighbors(sc);
                    nb[rng.below(nb.len())]
                }
                _ => open[rng.below(open.len())],
            };
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

// Boards built to be hard for 华容道 solvers.
//
//   hard serpentine N M Q BAND WALL_PERCENT SEED
//       Fixed rows every BAND + 1 rows, each with a 2-wide gap at alternating
//       ends, make one winding corridor of height BAND; then each cell of the
//       corridor is fixed with probability WALL_PERCENT % (never in a gap).
//       S is in the first band and T in the last one (or the other way round),
//       so the piece must travel the whole winding way: a search guided by the
//       straight-line distance to T explores nearly every state first, and so
//       does a plain shortest-path search.  E is anywhere.
//   hard pockets N M Q SEED
//       An open board with dead ends of width 1 along the top and bottom edges:
//       a pocket cell behind a corridor cell.  The piece can enter a pocket only
//       if the blank starts inside it, so most queries aimed at a pocket are
//       impossible (-1) although the pocket is connected to the board: a
//       solver that does not see it searches the whole board every time.
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

fn pick(rng: &mut Rng, cells: &[usize], not: usize) -> usize {
    loop {
        let x = cells[rng.below(cells.len())];
        if x != not {
            return x;
        }
    }
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    let mut rng = Rng(seed_from(&args));
    let mode = args[0].as_str();
    let num = |i: usize| -> usize { args[i].parse().expect("numeric argument") };
    let (n, m, q) = (num(1), num(2), num(3));
    assert!(n >= 3 && m >= 4, "the board must be at least 3 x 4");
    let mut grid = vec![1u8; n * m];
    // (cells where S may start, cells where T may be)
    let (from, to): (Vec<usize>, Vec<usize>);
    match mode {
        "serpentine" => {
            let (band, wall) = (num(4), num(5));
            let mut gaps = Vec::new();
            let mut right = true;
            let mut r = band;
            while r < n {
                for c in 0..m {
                    grid[r * m + c] = 0;
                }
                let g = if right { m - 2 } else { 0 };
                grid[r * m + g] = 1;
                grid[r * m + g + 1] = 1;
                gaps.extend([r * m + g, r * m + g + 1]);
                right = !right;
                r += band + 1;
            }
            for i in 0..n * m {
                if grid[i] == 1 && !gaps.contains(&i) && rng.below(100) < wall {
                    grid[i] = 0;
                }
            }
            let open = |lo: usize, hi: usize| -> Vec<usize> {
                (lo * m..hi.min(n) * m).filter(|&i| grid[i] == 1).collect()
            };
            // The last band: the last start row (a multiple of BAND + 1) on the board.
            let last = (n - 1) / (band + 1) * (band + 1);
            from = open(0, band);
            to = open(last, last + band);
        }
        "pockets" => {
            let mut pockets = Vec::new();
            let mut c = 1;
            while c + 1 < m {
                for (pocket, corridor) in [(c, m + c), ((n - 1) * m + c, (n - 2) * m + c)] {
                    for x in [pocket, corridor] {
                        grid[x - 1] = 0;
                        grid[x + 1] = 0;
                    }
                    pockets.extend([pocket, corridor]);
                }
                c += 3;
            }
            from = (0..n * m)
                .filter(|&i| grid[i] == 1 && !pockets.contains(&i))
                .collect();
            to = pockets;
        }
        _ => panic!("unknown mode {mode}"),
    }
    assert!(
        !from.is_empty() && !to.is_empty(),
        "no room for the queries"
    );
    let open: Vec<usize> = (0..n * m).filter(|&i| grid[i] == 1).collect();

    let mut out = format!("{} {} {}\n", n, m, q);
    for r in 0..n {
        let row: Vec<String> = (0..m).map(|c| grid[r * m + c].to_string()).collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    for i in 0..q {
        let (mut s, mut t) = (from[rng.below(from.len())], to[rng.below(to.len())]);
        if mode == "serpentine" && i % 2 == 1 {
            std::mem::swap(&mut s, &mut t);
        }
        // In pockets mode, one query in eight starts the blank inside a pocket.
        let e = if mode == "pockets" && i % 8 == 7 {
            pick(&mut rng, &to, s)
        } else {
            pick(&mut rng, &open, s)
        };
        let cell = |x: usize| format!("{} {}", x / m + 1, x % m + 1);
        out.push_str(&format!("{} {} {}\n", cell(e), cell(s), cell(t)));
    }
    print!("{}", out);
}

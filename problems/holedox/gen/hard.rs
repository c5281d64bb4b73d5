// Lairs built to be hard for Holedox Moving solvers (20 x 20).
//
//   hard serpentine CASES BAND L SEED
//       Rows of stones every BAND + 1 rows, each with a one-cell gap at
//       alternating ends, make one winding corridor of height BAND from the
//       exit's band to the last one; the snake (length L) starts in the last
//       band.  A search guided by the straight-line distance to the exit
//       explores nearly every state first.
//   hard turnaround CASES L DEPTH STONEPCT SEED
//       The exit is at the end of a dead-end corridor of width 1 along the
//       first column (rows 1..DEPTH, stones beside it).  The snake lies in it,
//       head down, facing away from the exit: it must crawl out, turn round in
//       the room and come back, while the distance of its head to the exit
//       (through its own body) says it is close.  Other cells of the room are
//       stones with probability STONEPCT %, never next to the corridor's mouth.
//
// Output: CASES cases in the package's format, then "0 0 0".

use std::env;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
}

const N: usize = 20;
const DR: [isize; 4] = [-1, 1, 0, 0];
const DC: [isize; 4] = [0, 0, -1, 1];

/// A random self-avoiding walk of `len` free cells inside rows `rows`, or None.
fn snake(
    rng: &mut Rng,
    stone: &[bool],
    rows: (usize, usize),
    len: usize,
) -> Option<Vec<(usize, usize)>> {
    for _ in 0..2000 {
        let (r, c) = (rng.range(rows.0, rows.1), rng.range(0, N - 1));
        if stone[r * N + c] || (r, c) == (0, 0) {
            continue;
        }
        let mut body = vec![(r, c)];
        while body.len() < len {
            let (r, c) = *body.last().unwrap();
            let options: Vec<(usize, usize)> = (0..4)
                .filter_map(|d| {
                    let (nr, nc) = (r as isize + DR[d], c as isize + DC[d]);
                    if nr < rows.0 as isize || nr > rows.1 as isize || nc < 0 || nc >= N as isize {
                        return None;
                    }
                    let (nr, nc) = (nr as usize, nc as usize);
                    (!stone[nr * N + nc] && (nr, nc) != (0, 0) && !body.contains(&(nr, nc)))
                        .then_some((nr, nc))
                })
                .collect();
            if options.is_empty() {
                break;
            }
            body.push(options[rng.range(0, options.len() - 1)]);
        }
        if body.len() == len {
            return Some(body);
        }
    }
    None
}

fn print_case(out: &mut String, stone: &[bool], body: &[(usize, usize)]) {
    out.push_str(&format!("{} {} {}\n", N, N, body.len()));
    for &(r, c) in body {
        out.push_str(&format!("{} {}\n", r + 1, c + 1));
    }
    let list: Vec<usize> = (0..N * N).filter(|&i| stone[i]).collect();
    out.push_str(&format!("{}\n", list.len()));
    for i in list {
        out.push_str(&format!("{} {}\n", i / N + 1, i % N + 1));
    }
    out.push('\n');
}

fn main() {
    let a: Vec<String> = env::args().skip(1).collect();
    let num = |i: usize| -> usize { a[i].parse().expect("numeric argument") };
    let cases = num(1);
    let mut out = String::new();
    match a[0].as_str() {
        "serpentine" => {
            let (band, len) = (num(2), num(3));
            let mut rng = Rng(num(4) as u64);
            let mut stone = vec![false; N * N];
            let mut right = true;
            let mut r = band;
            while r < N {
                for c in 0..N {
                    stone[r * N + c] = c != if right { N - 1 } else { 0 };
                }
                right = !right;
                r += band + 1;
            }
            let last = (N - 1) / (band + 1) * (band + 1);
            for _ in 0..cases {
                let body = snake(&mut rng, &stone, (last, (last + band - 1).min(N - 1)), len)
                    .expect("room for the snake in the last band");
                print_case(&mut out, &stone, &body);
            }
        }
        "turnaround" => {
            let (len, depth, pct) = (num(2), num(3), num(4));
            assert!(depth > len && depth + 2 < N, "need L < DEPTH < {}", N - 2);
            let mut rng = Rng(num(5) as u64);
            for _ in 0..cases {
                let mut stone = vec![false; N * N];
                for r in 0..depth {
                    stone[r * N + 1] = true;
                }
                for r in 0..N {
                    for c in 0..N {
                        let corridor = c == 0 && r < depth;
                        let mouth = r >= depth && r <= depth + 2 && c <= 2;
                        if !corridor && !mouth && c != 1 && rng.range(0, 99) < pct {
                            stone[r * N + c] = true;
                        }
                    }
                }
                let head = rng.range(len, depth - 1);
                let body: Vec<(usize, usize)> = (0..len).map(|i| (head - i, 0)).collect();
                print_case(&mut out, &stone, &body);
            }
        }
        m => panic!("unknown mode {m}"),
    }
    out.push_str("0 0 0\n");
    print!("{}", out);
}

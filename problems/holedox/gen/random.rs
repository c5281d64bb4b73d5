// Random lairs for Holedox Moving.
//   random small SEED
//       1..4 small cases (n, m <= 7), for the stress test
//   random CASES MINN MAXN MINM MAXM MINL MAXL STONEPCT SEED [closed|far]
//       CASES cases; sizes and snake length drawn from the ranges, each free cell
//       becomes a stone with probability STONEPCT %.
//       closed: stones on (1,2) and (2,1) so that the exit can never be reached
//               (the search must explore everything it can reach).
//       far:    the head starts in the last row or column half farthest from the exit.
// The snake is a random self-avoiding walk; stones never cover it or (1,1).
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
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

const DR: [i64; 4] = [-1, 1, 0, 0];
const DC: [i64; 4] = [0, 0, -1, 1];

/// A random self-avoiding walk of `len` cells (0-based), head first, or None.
fn snake(rng: &mut Rng, n: i64, m: i64, len: usize, blocked: &dyn Fn(i64, i64) -> bool, far: bool) -> Option<Vec<(i64, i64)>> {
    for _ in 0..2000 {
        let (r, c) = if far {
            if rng.range(0, 1) == 0 {
                (n - 1 - rng.range(0, (n as u64 - 1) / 3) as i64, rng.range(0, m as u64 - 1) as i64)
            } else {
                (rng.range(0, n as u64 - 1) as i64, m - 1 - rng.range(0, (m as u64 - 1) / 3) as i64)
            }
        } else {
            (rng.range(0, n as u64 - 1) as i64, rng.range(0, m as u64 - 1) as i64)
        };
        if blocked(r, c) {
            continue;
        }
        let mut body = vec![(r, c)];
        while body.len() < len {
            let (lr, lc) = *body.last().unwrap();
            let opts: Vec<(i64, i64)> = (0..4)
                .map(|d| (lr + DR[d], lc + DC[d]))
                .filter(|&(a, b)| a >= 0 && b >= 0 && a < n && b < m && !blocked(a, b) && !body.contains(&(a, b)))
                .collect();
            if opts.is_empty() {
                break;
            }
            body.push(opts[rng.range(0, opts.len() as u64 - 1) as usize]);
        }
        if body.len() == len {
            return Some(body);
        }
    }
    None
}

fn case(rng: &mut Rng, n: i64, m: i64, mut len: usize, pct: u64, closed: bool, far: bool) -> String {
    let cells = (n * m) as usize;
    if len > cells {
        len = cells;
    }
    let mut stone = vec![false; cells];
    if closed {
        if m > 1 { stone[1] = true; }
        if n > 1 { stone[m as usize] = true; }
    }
    let body = loop {
        let st = stone.clone();
        let blocked = move |r: i64, c: i64| st[(r * m + c) as usize];
        if let Some(b) = snake(rng, n, m, len, &blocked, far) {
            break b;
        }
        if len > 2 {
            len -= 1; // board too cramped for this length
        } else {
            stone = vec![false; cells]; // the closing stones left no room for a snake
        }
    };
    for i in 0..cells {
        let (r, c) = (i as i64 / m, i as i64 % m);
        if i != 0 && !body.contains(&(r, c)) && rng.range(0, 99) < pct {
            stone[i] = true;
        }
    }
    let mut s = format!("{} {} {}\n", n, m, body.len());
    for &(r, c) in &body {
        s.push_str(&format!("{} {}\n", r + 1, c + 1));
    }
    let list: Vec<usize> = (0..cells).filter(|&i| stone[i]).collect();
    s.push_str(&format!("{}\n", list.len()));
    for i in list {
        s.push_str(&format!("{} {}\n", i as i64 / m + 1, i as i64 % m + 1));
    }
    s.push('\n');
    s
}

fn main() {
    let a: Vec<String> = env::args().skip(1).collect();
    let mut out = String::new();
    if a[0] == "small" {
        let seed: u64 = a[1].parse().unwrap();
        let mut rng = Rng(seed.wrapping_mul(7919).wrapping_add(3));
        let t = rng.range(1, 4);
        for _ in 0..t {
            let n = if rng.range(0, 5) == 0 { 1 } else { rng.range(2, 7) as i64 };
            let m = if n > 1 && rng.range(0, 5) == 0 { 1 } else { rng.range(2, 7) as i64 };
            let len = rng.range(2, 8.min((n * m / 2).max(2)) as u64) as usize;
            let pct = rng.range(0, 35);
            let closed = rng.range(0, 9) == 0;
            out.push_str(&case(&mut rng, n, m, len, pct, closed, false));
        }
    } else {
        let p: Vec<u64> = a[..9].iter().map(|x| x.parse().unwrap()).collect();
        let flag = a.get(9).map(|s| s.as_str()).unwrap_or("");
        let mut rng = Rng(p[8]);
        for _ in 0..p[0] {
            let n = rng.range(p[1], p[2]) as i64;
            let m = rng.range(p[3].max(if n == 1 { 2 } else { 1 }), p[4]) as i64;
            let len = rng.range(p[5], p[6]) as usize;
            out.push_str(&case(&mut rng, n, m, len, p[7], flag == "closed", flag == "far"));
        }
    }
    out.push_str("0 0 0\n");
    print!("{}", out);
}

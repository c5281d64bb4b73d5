// Maze lairs for Holedox Moving.
//   maze CASES N M L BRAID SEED
// Carves a perfect maze (corridors one cell wide, passages on even 0-based coordinates, so
// (1,1) is always a passage), then knocks out BRAID % of the remaining inner walls that
// separate two passages, which creates loops the snake can turn around in. The snake is a
// random self-avoiding walk whose head lies in the half of the lair far from the exit.
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

fn one(rng: &mut Rng, n: i64, m: i64, len: usize, braid: u64) -> String {
    let idx = |r: i64, c: i64| (r * m + c) as usize;
    let inside = |r: i64, c: i64| r >= 0 && c >= 0 && r < n && c < m;
    let mut stone = vec![true; (n * m) as usize];
    // iterative DFS maze over the even cells
    let mut stack = vec![(0i64, 0i64)];
    stone[0] = false;
    while let Some(&(r, c)) = stack.last() {
        let opts: Vec<usize> = (0..4)
            .filter(|&d| inside(r + 2 * DR[d], c + 2 * DC[d]) && stone[idx(r + 2 * DR[d], c + 2 * DC[d])])
            .collect();
        if opts.is_empty() {
            stack.pop();
            continue;
        }
        let d = opts[rng.range(0, opts.len() as u64 - 1) as usize];
        stone[idx(r + DR[d], c + DC[d])] = false;
        stone[idx(r + 2 * DR[d], c + 2 * DC[d])] = false;
        stack.push((r + 2 * DR[d], c + 2 * DC[d]));
    }
    // odd cells on the border row/column (when n or m is even) stay stones unless braided
    for r in 0..n {
        for c in 0..m {
            if !stone[idx(r, c)] || (r % 2 == 0) == (c % 2 == 0) {
                continue; // passage, or a pillar (both odd) / cell (both even)
            }
            // a wall between two passages: horizontal or vertical neighbours both open
            let h = inside(r, c - 1) && inside(r, c + 1) && !stone[idx(r, c - 1)] && !stone[idx(r, c + 1)];
            let v = inside(r - 1, c) && inside(r + 1, c) && !stone[idx(r - 1, c)] && !stone[idx(r + 1, c)];
            if (h || v) && rng.range(0, 99) < braid {
                stone[idx(r, c)] = false;
            }
        }
    }
    // snake: head in the far half, random self-avoiding walk over passages
    let free: Vec<(i64, i64)> = (0..n * m)
        .map(|i| (i / m, i % m))
        .filter(|&(r, c)| !stone[idx(r, c)] && (r + c) * 2 >= n + m - 2)
        .collect();
    let mut body: Vec<(i64, i64)>;
    let mut want = len;
    'outer: loop {
        for _ in 0..3000 {
            let start = free[rng.range(0, free.len() as u64 - 1) as usize];
            body = vec![start];
            while body.len() < want {
                let (lr, lc) = *body.last().unwrap();
                let opts: Vec<(i64, i64)> = (0..4)
                    .map(|d| (lr + DR[d], lc + DC[d]))
                    .filter(|&(a, b)| inside(a, b) && !stone[idx(a, b)] && !body.contains(&(a, b)))
                    .collect();
                if opts.is_empty() {
                    break;
                }
                body.push(opts[rng.range(0, opts.len() as u64 - 1) as usize]);
            }
            if body.len() == want {
                break 'outer;
            }
        }
        want -= 1;
    }
    let mut s = format!("{} {} {}\n", n, m, body.len());
    for &(r, c) in &body {
        s.push_str(&format!("{} {}\n", r + 1, c + 1));
    }
    let list: Vec<usize> = (0..(n * m) as usize).filter(|&i| stone[i]).collect();
    s.push_str(&format!("{}\n", list.len()));
    for i in list {
        s.push_str(&format!("{} {}\n", i as i64 / m + 1, i as i64 % m + 1));
    }
    s.push('\n');
    s
}

fn main() {
    let p: Vec<u64> = env::args().skip(1).map(|x| x.parse().unwrap()).collect();
    let (cases, n, m, len, braid, seed) = (p[0], p[1] as i64, p[2] as i64, p[3] as usize, p[4], p[5]);
    let mut rng = Rng(seed);
    let mut out = String::new();
    for _ in 0..cases {
        out.push_str(&one(&mut rng, n, m, len, braid));
    }
    out.push_str("0 0 0\n");
    print!("{}", out);
}

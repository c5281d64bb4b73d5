// Hard rooms for 推箱子: for each of the T rooms, try TRIES random rooms of size R x C
// and keep the one that needs the most pushes (a small solver is built in).
//   hard T R C WALLPCT TRIES SEED
use std::collections::VecDeque;
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

// 0-1 BFS over (box, pusher); returns the minimum number of pushes or -1.
fn pushes(g: &[u8], r: usize, c: usize) -> i64 {
    let n = r * c;
    let find = |v: u8| g.iter().position(|&x| x == v).unwrap();
    let (b0, tg, m0) = (find(2), find(3), find(4));
    let step = |i: usize, d: usize| -> Option<usize> {
        let (y, x) = ((i / c) as i64, (i % c) as i64);
        let (y, x) = match d { 0 => (y - 1, x), 1 => (y + 1, x), 2 => (y, x - 1), _ => (y, x + 1) };
        if y < 0 || x < 0 || y >= r as i64 || x >= c as i64 { return None; }
        let j = y as usize * c + x as usize;
        if g[j] == 1 { None } else { Some(j) }
    };
    let mut dist = vec![i64::MAX; n * n];
    let mut dq = VecDeque::new();
    dist[b0 * n + m0] = 0;
    dq.push_back((b0, m0));
    while let Some((b, m)) = dq.pop_front() {
        let d = dist[b * n + m];
        if b == tg { return d; }
        for dir in 0..4 {
            if let Some(nm) = step(m, dir) {
                if nm == b {
                    if let Some(nb) = step(b, dir) {
                        if d + 1 < dist[nb * n + nm] { dist[nb * n + nm] = d + 1; dq.push_back((nb, nm)); }
                    }
                } else if d < dist[b * n + nm] {
                    dist[b * n + nm] = d;
                    dq.push_front((b, nm));
                }
            }
        }
    }
    -1
}

fn room(rng: &mut Rng, r: usize, c: usize, wall_pct: u64) -> Vec<u8> {
    let n = r * c;
    let mut g = vec![0u8; n];
    for x in g.iter_mut() {
        if rng.range(0, 99) < wall_pct { *x = 1; }
    }
    let mut cells: Vec<usize> = (0..n).collect();
    for i in 0..3 {
        let j = rng.range(i as u64, (n - 1) as u64) as usize;
        cells.swap(i, j);
    }
    g[cells[0]] = 2;
    g[cells[1]] = 3;
    g[cells[2]] = 4;
    g
}

fn main() {
    let p: Vec<u64> = env::args().skip(1).map(|x| x.parse().unwrap()).collect();
    let (t, r, c, wall, tries, seed) = (p[0], p[1] as usize, p[2] as usize, p[3], p[4], p[5]);
    let mut rng = Rng(seed);
    let mut out = format!("{}\n", t);
    for _ in 0..t {
        let mut best = room(&mut rng, r, c, wall);
        let mut best_v = pushes(&best, r, c);
        for _ in 1..tries {
            let g = room(&mut rng, r, c, wall);
            let v = pushes(&g, r, c);
            if v > best_v { best = g; best_v = v; }
        }
        out.push_str(&format!("{} {}\n", r, c));
        for i in 0..r {
            let row: Vec<String> = (0..c).map(|j| best[i * c + j].to_string()).collect();
            out.push_str(&row.join(" "));
            out.push('\n');
        }
    }
    print!("{}", out);
}

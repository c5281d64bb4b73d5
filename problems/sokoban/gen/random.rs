// Random rooms for 推箱子.
//   random small SEED                                 1..5 small rooms (for the stress test)
//   random T MINR MAXR MINC MAXC WALLPCT SEED         T rooms, sizes in the given ranges
// Box (2), target (3) and pusher (4) are put on distinct random cells.
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

fn room(rng: &mut Rng, r: usize, c: usize, wall_pct: u64) -> String {
    let n = r * c;
    let mut g = vec![0u8; n];
    for x in g.iter_mut() {
        if rng.range(0, 99) < wall_pct {
            *x = 1;
        }
    }
    // pick three distinct cells for box, target, pusher (they become floor)
    let mut cells: Vec<usize> = (0..n).collect();
    for i in 0..3 {
        let j = rng.range(i as u64, (n - 1) as u64) as usize;
        cells.swap(i, j);
    }
    g[cells[0]] = 2;
    g[cells[1]] = 3;
    g[cells[2]] = 4;
    let mut s = format!("{} {}\n", r, c);
    for i in 0..r {
        let row: Vec<String> = (0..c).map(|j| g[i * c + j].to_string()).collect();
        s.push_str(&row.join(" "));
        s.push('\n');
    }
    s
}

fn main() {
    let a: Vec<String> = env::args().skip(1).collect();
    let mut out = String::new();
    if a[0] == "small" {
        let seed: u64 = a[1].parse().unwrap();
        let mut rng = Rng(seed.wrapping_mul(1000003).wrapping_add(17));
        let t = rng.range(1, 5);
        out.push_str(&format!("{}\n", t));
        for _ in 0..t {
            let r = rng.range(2, 5) as usize;
            let c = rng.range(2, 5) as usize;
            let w = rng.range(0, 40);
            out.push_str(&room(&mut rng, r, c, w));
        }
    } else {
        let p: Vec<u64> = a.iter().map(|x| x.parse().unwrap()).collect();
        let (t, minr, maxr, minc, maxc, wall, seed) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
        let mut rng = Rng(seed);
        out.push_str(&format!("{}\n", t));
        for _ in 0..t {
            let r = rng.range(minr, maxr) as usize;
            let c = rng.range(minc, maxc) as usize;
            out.push_str(&room(&mut rng, r, c, wall));
        }
    }
    print!("{}", out);
}

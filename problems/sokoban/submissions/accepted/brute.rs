// Brute force: 0-1 BFS over the full state (box cell, pusher cell).
// A pusher step onto a free cell costs 0, a push (pusher steps onto the box,
// box moves one cell further) costs 1.
use std::collections::VecDeque;
use std::io::{self, Read};

fn main() {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<usize> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let mut k = 0;
    let t = v[k];
    k += 1;
    for _ in 0..t {
        let (h, w) = (v[k], v[k + 1]);
        k += 2;
        let g: Vec<Vec<usize>> = (0..h).map(|r| v[k + r * w..k + r * w + w].to_vec()).collect();
        k += h * w;
        let mut bx = (0, 0);
        let mut tg = (0, 0);
        let mut mn = (0, 0);
        for r in 0..h {
            for c in 0..w {
                match g[r][c] {
                    2 => bx = (r, c),
                    3 => tg = (r, c),
                    4 => mn = (r, c),
                    _ => {}
                }
            }
        }
        let ok = |r: i64, c: i64| r >= 0 && c >= 0 && (r as usize) < h && (c as usize) < w && g[r as usize][c as usize] != 1;
        // dist[box r][box c][man r][man c]
        let inf = usize::MAX;
        let mut dist = vec![vec![vec![vec![inf; w]; h]; w]; h];
        let mut dq = VecDeque::new();
        dist[bx.0][bx.1][mn.0][mn.1] = 0;
        dq.push_back((bx, mn, 0usize));
        let mut ans: i64 = -1;
        while let Some((b, m, d)) = dq.pop_front() {
            if d != dist[b.0][b.1][m.0][m.1] {
                continue;
            }
            if b == tg {
                ans = d as i64;
                break;
            }
            for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let nr = m.0 as i64 + dr;
                let nc = m.1 as i64 + dc;
                if !ok(nr, nc) {
                    continue;
                }
                let nm = (nr as usize, nc as usize);
                if nm == b {
                    let br = b.0 as i64 + dr;
                    let bc = b.1 as i64 + dc;
                    if !ok(br, bc) {
                        continue;
                    }
                    let nb = (br as usize, bc as usize);
                    if d + 1 < dist[nb.0][nb.1][nm.0][nm.1] {
                        dist[nb.0][nb.1][nm.0][nm.1] = d + 1;
                        dq.push_back((nb, nm, d + 1));
                    }
                } else if d < dist[b.0][b.1][nm.0][nm.1] {
                    dist[b.0][b.1][nm.0][nm.1] = d;
                    dq.push_front((b, nm, d));
                }
            }
        }
        println!("{}", ans);
    }
}

// Brute force, the stress oracle (`ojd stress`): BFS over the full list of body
// cells, states kept in a HashSet. Independent of the reference's encoding, and
// 11 to 13 times slower per state: too slow for several 20x20, L = 8 open lairs
// in one file, but only by a constant factor (problem.toml says why it is not a
// time_limit_exceeded/ submission).
use std::collections::{HashSet, VecDeque};
use std::io::{self, Read};

fn main() {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let mut k = 0;
    let mut case = 0;
    while k + 2 < v.len() {
        let (n, m, l) = (v[k], v[k + 1], v[k + 2] as usize);
        k += 3;
        if n == 0 && m == 0 && l == 0 {
            break;
        }
        case += 1;
        // full state: the L body cells (1-based), head first; unused slots stay (0, 0)
        let mut body = [(0u8, 0u8); 8];
        for b in body.iter_mut().take(l) {
            *b = (v[k] as u8, v[k + 1] as u8);
            k += 2;
        }
        let ks = v[k] as usize;
        k += 1;
        let mut stones = HashSet::new();
        for _ in 0..ks {
            stones.insert((v[k] as u8, v[k + 1] as u8));
            k += 2;
        }
        let mut seen: HashSet<[(u8, u8); 8]> = HashSet::new();
        let mut q = VecDeque::new();
        seen.insert(body);
        q.push_back((body, 0i64));
        let mut ans = -1;
        while let Some((b, d)) = q.pop_front() {
            if b[0] == (1, 1) {
                ans = d;
                break;
            }
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let (hr, hc) = (b[0].0 as i64 + dr, b[0].1 as i64 + dc);
                if hr < 1 || hc < 1 || hr > n || hc > m {
                    continue;
                }
                let h = (hr as u8, hc as u8);
                if stones.contains(&h) {
                    continue;
                }
                if b[..l].contains(&h) {
                    continue;
                }
                let mut nb = [(0u8, 0u8); 8];
                nb[0] = h;
                nb[1..l].copy_from_slice(&b[..l - 1]);
                if seen.insert(nb) {
                    q.push_back((nb, d + 1));
                }
            }
        }
        println!("Case {}: {}", case, ans);
    }
}

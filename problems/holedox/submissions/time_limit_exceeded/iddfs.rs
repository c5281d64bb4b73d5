// Iterative deepening over the snake's moves, with no memory of the states seen: each round
// searches every move sequence up to a depth one longer than the last, skipping only a state
// already on the current path. Correct (a round in which no path was cut off by the depth has
// tried every simple path, so the exit is unreachable), but exponential in the answer: fine
// on the small lairs, hopeless on the 20 x 20 open ones (three choices a step, 30+ steps).
use std::io::{self, Read};

type Body = [(u8, u8); 8];

struct Lair {
    n: i64,
    m: i64,
    l: usize,
    stone: Vec<Vec<bool>>,
}

/// Whether the exit is reached within `left` more moves; `cut` records that some path was
/// stopped by the depth (so a deeper round may still find one).
fn dfs(z: &Lair, path: &mut Vec<Body>, left: u32, cut: &mut bool) -> bool {
    let b = *path.last().unwrap();
    if b[0] == (1, 1) {
        return true;
    }
    if left == 0 {
        *cut = true;
        return false;
    }
    for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
        let (hr, hc) = (b[0].0 as i64 + dr, b[0].1 as i64 + dc);
        if hr < 1 || hc < 1 || hr > z.n || hc > z.m || z.stone[hr as usize][hc as usize] {
            continue;
        }
        let h = (hr as u8, hc as u8);
        if b[..z.l].contains(&h) {
            continue;
        }
        let mut nb = [(0u8, 0u8); 8];
        nb[0] = h;
        nb[1..z.l].copy_from_slice(&b[..z.l - 1]);
        if path.contains(&nb) {
            continue;
        }
        path.push(nb);
        let found = dfs(z, path, left - 1, cut);
        path.pop();
        if found {
            return true;
        }
    }
    false
}

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
        let mut body = [(0u8, 0u8); 8];
        for b in body.iter_mut().take(l) {
            *b = (v[k] as u8, v[k + 1] as u8);
            k += 2;
        }
        let ks = v[k] as usize;
        k += 1;
        let mut stone = vec![vec![false; m as usize + 2]; n as usize + 2];
        for _ in 0..ks {
            stone[v[k] as usize][v[k + 1] as usize] = true;
            k += 2;
        }
        let z = Lair { n, m, l, stone };
        let mut ans = -1i64;
        for depth in 0.. {
            let (mut path, mut cut) = (vec![body], false);
            if dfs(&z, &mut path, depth, &mut cut) {
                ans = depth as i64;
                break;
            }
            if !cut {
                break;
            }
        }
        println!("Case {}: {}", case, ans);
    }
}

// Iterative deepening over the pushes, with no memory of the states seen: each round tries
// every sequence of pushes up to one more than the last (the worker walks freely between
// pushes, a flood fill), even one that undoes an earlier push. Whether the target can be
// reached at all is decided first, by a search over the states that does remember them (so
// that an unreachable target is answered -1 at once). Correct, but the minimum costs about
// 3^pushes: fine while the answers are short, hopeless on the 7 x 7 rooms that need 10 to 18
// pushes.
use std::io::{self, Read};

struct Room {
    h: usize,
    w: usize,
    wall: Vec<Vec<bool>>,
    target: (usize, usize),
}

const DIRS: [(i64, i64); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

impl Room {
    fn free(&self, r: i64, c: i64) -> bool {
        r >= 0 && c >= 0 && (r as usize) < self.h && (c as usize) < self.w && !self.wall[r as usize][c as usize]
    }

    /// The cells the worker reaches from `man` without passing the box, as a bit set.
    fn reach(&self, bx: (usize, usize), man: (usize, usize)) -> u64 {
        let bit = |r: usize, c: usize| 1u64 << (r * self.w + c);
        let mut seen = bit(man.0, man.1);
        let mut stack = vec![man];
        while let Some((r, c)) = stack.pop() {
            for (dr, dc) in DIRS {
                let (nr, nc) = (r as i64 + dr, c as i64 + dc);
                if !self.free(nr, nc) || (nr as usize, nc as usize) == bx {
                    continue;
                }
                let b = bit(nr as usize, nc as usize);
                if seen & b == 0 {
                    seen |= b;
                    stack.push((nr as usize, nc as usize));
                }
            }
        }
        seen
    }
}

/// A state: the box's cell and the worker's reachable area (which is all a push needs).
type State = ((usize, usize), u64);

/// Whether the box reaches the target with at most `left` more pushes.
fn dfs(room: &Room, (bx, area): State, left: u32) -> bool {
    if bx == room.target {
        return true;
    }
    if left == 0 {
        return false;
    }
    for (dr, dc) in DIRS {
        // The worker stands behind the box and pushes it one cell on.
        let (sr, sc) = (bx.0 as i64 - dr, bx.1 as i64 - dc);
        let (nr, nc) = (bx.0 as i64 + dr, bx.1 as i64 + dc);
        if !room.free(sr, sc) || !room.free(nr, nc) {
            continue;
        }
        if area & (1u64 << (sr as usize * room.w + sc as usize)) == 0 {
            continue;
        }
        let nb = (nr as usize, nc as usize);
        if dfs(room, (nb, room.reach(nb, bx)), left - 1) {
            return true;
        }
    }
    false
}

/// Whether any sequence of pushes brings the box onto the target: a depth-first search over
/// the states, each visited once.
fn reachable(room: &Room, start: State) -> bool {
    let mut seen = vec![start];
    let mut stack = vec![start];
    while let Some((bx, area)) = stack.pop() {
        if bx == room.target {
            return true;
        }
        for (dr, dc) in DIRS {
            let (sr, sc) = (bx.0 as i64 - dr, bx.1 as i64 - dc);
            let (nr, nc) = (bx.0 as i64 + dr, bx.1 as i64 + dc);
            if !room.free(sr, sc) || !room.free(nr, nc) {
                continue;
            }
            if area & (1u64 << (sr as usize * room.w + sc as usize)) == 0 {
                continue;
            }
            let nb = (nr as usize, nc as usize);
            let next = (nb, room.reach(nb, bx));
            if !seen.contains(&next) {
                seen.push(next);
                stack.push(next);
            }
        }
    }
    false
}

fn main() {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<usize> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let mut k = 1;
    for _ in 0..v[0] {
        let (h, w) = (v[k], v[k + 1]);
        k += 2;
        let (mut bx, mut target, mut man) = ((0, 0), (0, 0), (0, 0));
        let mut wall = vec![vec![false; w]; h];
        for r in 0..h {
            for c in 0..w {
                match v[k + r * w + c] {
                    1 => wall[r][c] = true,
                    2 => bx = (r, c),
                    3 => target = (r, c),
                    4 => man = (r, c),
                    _ => {}
                }
            }
        }
        k += h * w;
        let room = Room { h, w, wall, target };
        let start = (bx, room.reach(bx, man));
        let mut ans = -1i64;
        if reachable(&room, start) {
            ans = (0..).find(|&pushes| dfs(&room, start, pushes)).unwrap() as i64;
        }
        println!("{}", ans);
    }
}

// WRONG: in the precomputation the blank may walk THROUGH the piece's cell
// when it goes from one side of the piece to another.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::{self, Read, Write};

const INF: i32 = i32::MAX / 4;
// Directions: 0 up, 1 down, 2 left, 3 right; the opposite of d is d ^ 1.
const DR: [i64; 4] = [-1, 1, 0, 0];
const DC: [i64; 4] = [0, 0, -1, 1];

struct Board {
    n: usize,
    m: usize,
    movable: Vec<bool>, // cell index r * m + c
}

impl Board {
    /// The neighbour of `cell` in direction `d`, if it is on the board and movable.
    fn neighbor(&self, cell: usize, d: usize) -> Option<usize> {
        let r = (cell / self.m) as i64 + DR[d];
        let c = (cell % self.m) as i64 + DC[d];
        if r < 0 || c < 0 || r >= self.n as i64 || c >= self.m as i64 {
            return None;
        }
        let id = r as usize * self.m + c as usize;
        if self.movable[id] {
            Some(id)
        } else {
            None
        }
    }

    /// Distances of the blank from `src` to every cell, never entering `blocked`
    /// (the cell of the designated piece).  Unreachable cells get INF.
    fn bfs(&self, src: usize, blocked: usize) -> Vec<i32> {
        let mut dist = vec![INF; self.n * self.m];
        let mut queue = VecDeque::new();
        dist[src] = 0;
        queue.push_back(src);
        while let Some(u) = queue.pop_front() {
            for d in 0..4 {
                if let Some(v) = self.neighbor(u, d) {
                    if v != blocked && dist[v] == INF {
                        dist[v] = dist[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
        }
        dist
    }
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut it = input.split_ascii_whitespace().map(|t| t.parse::<i64>().unwrap());
    let n = it.next().unwrap() as usize;
    let m = it.next().unwrap() as usize;
    let q = it.next().unwrap() as usize;
    let movable: Vec<bool> = (0..n * m).map(|_| it.next().unwrap() == 1).collect();
    let board = Board { n, m, movable };
    let cells = n * m;

    // step[p][k][j]: blank moves from side k of p to side j of p, p blocked.
    let mut step = vec![[[INF; 4]; 4]; cells];
    for p in 0..cells {
        if !board.movable[p] {
            continue;
        }
        for k in 0..4 {
            if let Some(from) = board.neighbor(p, k) {
                let dist = board.bfs(from, usize::MAX);
                for j in 0..4 {
                    if let Some(to) = board.neighbor(p, j) {
                        step[p][k][j] = dist[to];
                    }
                }
            }
        }
    }

    let mut out = String::new();
    let mut dist = vec![INF; cells * 4];
    for _ in 0..q {
        let mut read_cell = || {
            let r = it.next().unwrap() as usize - 1;
            let c = it.next().unwrap() as usize - 1;
            r * m + c
        };
        let e = read_cell();
        let s = read_cell();
        let t = read_cell();
        if s == t {
            out.push_str("0\n");
            continue;
        }

        // Initial states: the blank walks to a side of S without touching S.
        dist.iter_mut().for_each(|x| *x = INF);
        let mut heap = BinaryHeap::new();
        let from_e = board.bfs(e, s);
        for k in 0..4 {
            if let Some(side) = board.neighbor(s, k) {
                if from_e[side] < INF {
                    dist[s * 4 + k] = from_e[side];
                    heap.push(Reverse((from_e[side], s * 4 + k)));
                }
            }
        }

        // Dijkstra over (piece cell, blank side) states.
        while let Some(Reverse((d, state))) = heap.pop() {
            if d > dist[state] {
                continue;
            }
            let (p, k) = (state / 4, state % 4);
            for j in 0..4 {
                let walk = step[p][k][j];
                if walk >= INF {
                    continue;
                }
                // step[p][k][j] < INF implies the neighbour in direction j exists.
                let np = board.neighbor(p, j).unwrap();
                let ns = np * 4 + (j ^ 1);
                let nd = d + walk + 1;
                if nd < dist[ns] {
                    dist[ns] = nd;
                    heap.push(Reverse((nd, ns)));
                }
            }
        }

        let best = (0..4).map(|k| dist[t * 4 + k]).min().unwrap();
        if best >= INF {
            out.push_str("-1\n");
        } else {
            out.push_str(&format!("{}\n", best));
        }
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

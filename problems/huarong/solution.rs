// 华容道 (Huarong Road), NOIP 2013 提高组 Day 2 -- reference solution.
//
// Only the blank ever "moves": one second = the blank swaps with a movable
// neighbour.  The designated piece moves exactly when the blank swaps with it.
//
// State graph
// -----------
// Whenever the piece moves, the blank ends up right next to it (on the cell
// the piece just left).  So between moves of the piece the interesting state
// is (cell of the piece, side of the piece where the blank is):
//     state (p, k)  =  piece on cell p, blank on the neighbour of p in direction k.
// From (p, k) the piece can step in direction j:
//     1. walk the blank from side k to side j of p without passing through p
//        (cost step[p][k][j], a BFS distance on the board with p blocked),
//     2. swap the piece with the blank (cost 1).
// The piece is then on q = p + dir j and the blank on p, i.e. on side
// opposite(j) of q: edge (p, k) -> (q, opposite(j)) with weight step[p][k][j] + 1.
// step[][][] depends only on the board, so it is computed once and shared by
// all queries.  step[p][k][j] = step[p][j][k], so three BFS runs per cell
// suffice, and each stops as soon as it has reached the sides it looks for.
//
// A query (E, S, T):
//   * S == T: the piece is already there, answer 0 (whatever the blank does).
//   * otherwise BFS the blank from E with S blocked; every side k of S the
//     blank can reach gives an initial state (S, k) with that distance.
//   * if no initial state is connected to a state on T, the answer is -1 (see
//     below); otherwise A* over the states, stopped when the first state on T
//     leaves the heap.
//
// Which states are connected does not depend on the query.  Reachability
// between states is symmetric: the edge (p, k) -> (q, opposite(j)) is undone
// by moving the piece back (the blank is right there, cost 1), which gives
// (p, j), and (p, j) reaches (p, k) by stepping towards k and back
// (step[p][j][k] = step[p][k][j]).  So the states reachable from a state form
// its component in the undirected graph that links (p, k) with (p, j) when
// step[p][k][j] is finite, and (p, j) with (p + dir j, opposite(j)) when both
// cells are movable; a union-find over it answers the impossible queries (a
// target the piece can never enter) without searching the whole board.
//
// The A* heuristic.  Let D be the Manhattan distance from p to T.  The blank
// needs at least 2 moves to go from one side of p to a perpendicular side and
// at least 4 to the opposite side, so a piece move costs at least 1 when the
// blank is already on the side it moves to, 3 when it is on a perpendicular
// side and 5 on the opposite side; after a move the blank is behind the piece.
//     h(p, k) = 0 if p = T, else 3D - 2 if side k points towards T, else 3D.
// h is consistent (h(before) <= cost + h(after)): a move towards T costs >= 1
// when the blank was on that side (h falls from 3D - 2 to 3D - 3, or from 1
// to 0), and >= 3 otherwise (h falls by at most 3); a move away from T makes D
// larger.  So the first state on T to leave the heap has the shortest distance.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Read, Write};

const INF: u32 = u32::MAX / 4;

struct Board {
    width: usize,    // m + 2: the board is padded with a ring of fixed cells
    off: [usize; 4], // cell offsets of the four directions (wrapping): up, down, left, right
    movable: Vec<bool>,
    // BFS scratch: a cell's distance is valid when its stamp is the current one.
    stamp: Vec<u32>,
    dist: Vec<u32>,
    queue: Vec<u32>,
    round: u32,
}

impl Board {
    /// The neighbour of `cell` in direction `d` (the padding keeps it on the board).
    fn next(&self, cell: usize, d: usize) -> usize {
        cell.wrapping_add(self.off[d])
    }

    /// BFS distances of the blank from `src` to each of `targets` (None = not
    /// wanted), never entering `blocked`; stops once all wanted ones are found.
    fn reach(&mut self, src: usize, blocked: usize, targets: &[Option<usize>; 4]) -> [u32; 4] {
        let mut found = [INF; 4];
        let mut left = targets.iter().flatten().count();
        for (j, t) in targets.iter().enumerate() {
            if *t == Some(src) {
                found[j] = 0;
                left -= 1;
            }
        }
        if left == 0 {
            return found;
        }
        self.round += 1;
        let round = self.round;
        self.stamp[src] = round;
        self.stamp[blocked] = round;
        self.dist[src] = 0;
        self.queue.clear();
        self.queue.push(src as u32);
        let mut head = 0;
        while head < self.queue.len() {
            let u = self.queue[head] as usize;
            head += 1;
            let du = self.dist[u] + 1;
            for d in 0..4 {
                let v = self.next(u, d);
                if !self.movable[v] || self.stamp[v] == round {
                    continue;
                }
                self.stamp[v] = round;
                self.dist[v] = du;
                self.queue.push(v as u32);
                for (j, t) in targets.iter().enumerate() {
                    if *t == Some(v) {
                        found[j] = du;
                        left -= 1;
                        if left == 0 {
                            return found;
                        }
                    }
                }
            }
        }
        found
    }

    /// The movable neighbours of `p`, by direction.
    fn sides(&self, p: usize) -> [Option<usize>; 4] {
        let mut sides = [None; 4];
        for (d, side) in sides.iter_mut().enumerate() {
            let v = self.next(p, d);
            if self.movable[v] {
                *side = Some(v);
            }
        }
        sides
    }
}

/// Union-find over the states, with path halving.
fn find(parent: &mut [u32], mut x: usize) -> usize {
    while parent[x] as usize != x {
        parent[x] = parent[parent[x] as usize];
        x = parent[x] as usize;
    }
    x
}

fn union(parent: &mut [u32], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    parent[ra] = rb as u32;
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut it = input
        .split_ascii_whitespace()
        .map(|t| t.parse::<usize>().unwrap());
    let n = it.next().unwrap();
    let m = it.next().unwrap();
    let q = it.next().unwrap();
    let width = m + 2;
    let cells = (n + 2) * width;
    let mut movable = vec![false; cells];
    for r in 1..=n {
        for c in 1..=m {
            movable[r * width + c] = it.next().unwrap() == 1;
        }
    }
    let mut board = Board {
        width,
        off: [0usize.wrapping_sub(width), width, usize::MAX, 1],
        movable,
        stamp: vec![0; cells],
        dist: vec![0; cells],
        queue: Vec::with_capacity(cells),
        round: 0,
    };

    // step[p * 16 + k * 4 + j]: blank from side k to side j of p, p blocked.
    let mut step = vec![INF; cells * 16];
    for p in 0..cells {
        if !board.movable[p] {
            continue;
        }
        let sides = board.sides(p);
        for k in 0..4 {
            let Some(from) = sides[k] else { continue };
            step[p * 16 + k * 5] = 0;
            let mut targets = [None; 4];
            targets[k + 1..].copy_from_slice(&sides[k + 1..]);
            if targets.iter().all(Option::is_none) {
                continue;
            }
            let found = board.reach(from, p, &targets);
            for j in k + 1..4 {
                step[p * 16 + k * 4 + j] = found[j];
                step[p * 16 + j * 4 + k] = found[j];
            }
        }
    }

    // Components of the states (see the top of the file).
    let mut parent: Vec<u32> = (0..cells as u32 * 4).collect();
    for p in 0..cells {
        if !board.movable[p] {
            continue;
        }
        for k in 0..4 {
            let q = board.next(p, k);
            if board.movable[q] {
                union(&mut parent, p * 4 + k, q * 4 + (k ^ 1));
            }
            for j in k + 1..4 {
                if step[p * 16 + k * 4 + j] < INF {
                    union(&mut parent, p * 4 + k, p * 4 + j);
                }
            }
        }
    }
    let component: Vec<u32> = (0..cells * 4)
        .map(|x| find(&mut parent, x) as u32)
        .collect();

    let mut out = String::new();
    let mut dist = vec![INF; cells * 4];
    let mut heap: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    for _ in 0..q {
        let mut read_cell = || {
            let r = it.next().unwrap();
            let c = it.next().unwrap();
            r * board.width + c
        };
        let e = read_cell();
        let s = read_cell();
        let t = read_cell();
        if s == t {
            out.push_str("0\n");
            continue;
        }
        let (tr, tc) = (t / width, t % width);
        // h(state) as described at the top of the file.
        let h = |state: usize| -> u32 {
            let p = state / 4;
            let (pr, pc) = (p / width, p % width);
            if p == t {
                return 0;
            }
            let towards = match state % 4 {
                0 => pr > tr,
                1 => pr < tr,
                2 => pc > tc,
                _ => pc < tc,
            };
            let d = (pr.abs_diff(tr) + pc.abs_diff(tc)) as u32;
            3 * d - if towards { 2 } else { 0 }
        };

        // Initial states: the blank walks to a side of S without touching S.
        dist.iter_mut().for_each(|x| *x = INF);
        heap.clear();
        let sides = board.sides(s);
        let from_e = board.reach(e, s, &sides);
        let connected = (0..4).any(|k| {
            from_e[k] < INF && (0..4).any(|j| component[s * 4 + k] == component[t * 4 + j])
        });
        if !connected {
            out.push_str("-1\n");
            continue;
        }
        for k in 0..4 {
            if from_e[k] < INF {
                let state = s * 4 + k;
                dist[state] = from_e[k];
                heap.push(Reverse(
                    ((from_e[k] + h(state)) as u64) << 32 | state as u64,
                ));
            }
        }

        let mut best = INF;
        while let Some(Reverse(key)) = heap.pop() {
            let state = (key & 0xffff_ffff) as usize;
            let g = (key >> 32) as u32 - h(state);
            if g > dist[state] {
                continue;
            }
            let (p, k) = (state / 4, state % 4);
            if p == t {
                best = g;
                break;
            }
            let row = &step[p * 16 + k * 4..p * 16 + k * 4 + 4];
            for (j, &walk) in row.iter().enumerate() {
                if walk >= INF {
                    continue;
                }
                // step < INF implies the neighbour in direction j is movable.
                let ns = board.next(p, j) * 4 + (j ^ 1);
                let nd = g + walk + 1;
                if nd < dist[ns] {
                    dist[ns] = nd;
                    heap.push(Reverse(((nd + h(ns)) as u64) << 32 | ns as u64));
                }
            }
        }

        if best >= INF {
            out.push_str("-1\n");
        } else {
            out.push_str(&format!("{}\n", best));
        }
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

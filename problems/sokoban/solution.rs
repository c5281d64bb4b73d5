// 推箱子 (HDU 1254) — reference solution.
//
// A state is (box cell, direction of the last push). After a push in direction d
// the pusher stands on the cell the box just left, i.e. right behind the box.
// Every edge of the BFS is exactly one push, so BFS depth = number of pushes.
// Before a push in direction p the pusher must walk (without pushing) from where
// he stands to the cell behind the box (box - p); that walk is a flood fill in
// which walls AND the box itself are obstacles.

use std::collections::VecDeque;
use std::io::{self, Read, Write};

const DR: [i32; 4] = [-1, 1, 0, 0];
const DC: [i32; 4] = [0, 0, -1, 1];

struct Room {
    rows: i32,
    cols: i32,
    wall: Vec<bool>, // rows * cols
}

impl Room {
    /// Cell index of (r, c) if it lies inside the room and is not a wall.
    fn free(&self, r: i32, c: i32) -> Option<usize> {
        if r < 0 || c < 0 || r >= self.rows || c >= self.cols {
            return None;
        }
        let i = (r * self.cols + c) as usize;
        if self.wall[i] {
            None
        } else {
            Some(i)
        }
    }

    fn pos(&self, i: usize) -> (i32, i32) {
        (i as i32 / self.cols, i as i32 % self.cols)
    }

    /// Can the pusher walk from `from` to `to` while the box stands on `boxc`?
    fn walkable(&self, from: usize, to: usize, boxc: usize) -> bool {
        if from == to {
            return true;
        }
        let mut seen = vec![false; self.wall.len()];
        seen[from] = true;
        seen[boxc] = true; // the box is an obstacle for the pusher
        let mut stack = vec![from];
        while let Some(cur) = stack.pop() {
            let (r, c) = self.pos(cur);
            for d in 0..4 {
                if let Some(n) = self.free(r + DR[d], c + DC[d]) {
                    if !seen[n] {
                        if n == to {
                            return true;
                        }
                        seen[n] = true;
                        stack.push(n);
                    }
                }
            }
        }
        false
    }
}

/// Minimum number of pushes, or -1.
fn solve(room: &Room, box0: usize, target: usize, man0: usize) -> i64 {
    if box0 == target {
        return 0;
    }
    let cells = room.wall.len();
    // visited[box * 4 + d]: box on `box`, last push in direction d.
    let mut visited = vec![false; cells * 4];
    // queue items: (box cell, pusher cell, pushes so far)
    let mut queue: VecDeque<(usize, usize, i64)> = VecDeque::new();
    queue.push_back((box0, man0, 0));
    while let Some((b, man, dist)) = queue.pop_front() {
        let (br, bc) = room.pos(b);
        for p in 0..4 {
            // The box goes to b + p; the pusher must stand on b - p.
            let dest = match room.free(br + DR[p], bc + DC[p]) {
                Some(x) => x,
                None => continue,
            };
            let behind = match room.free(br - DR[p], bc - DC[p]) {
                Some(x) => x,
                None => continue,
            };
            if visited[dest * 4 + p] || !room.walkable(man, behind, b) {
                continue;
            }
            if dest == target {
                return dist + 1;
            }
            visited[dest * 4 + p] = true;
            queue.push_back((dest, b, dist + 1));
        }
    }
    -1
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut tok = input.split_ascii_whitespace().map(|t| t.parse::<i32>().unwrap());
    let t = tok.next().unwrap();
    let mut out = String::new();
    for _ in 0..t {
        let rows = tok.next().unwrap();
        let cols = tok.next().unwrap();
        let mut wall = vec![false; (rows * cols) as usize];
        let (mut box0, mut target, mut man0) = (0, 0, 0);
        for i in 0..(rows * cols) as usize {
            match tok.next().unwrap() {
                1 => wall[i] = true,
                2 => box0 = i,   // box start
                3 => target = i, // where the box must go
                4 => man0 = i,   // pusher start
                _ => {}
            }
        }
        let room = Room { rows, cols, wall };
        out.push_str(&format!("{}\n", solve(&room, box0, target, man0)));
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

// Brute force for 华容道: plain BFS over the whole state
// (blank position, designated piece position).  One move = the blank swaps
// with a movable neighbour; if that neighbour is the designated piece, the
// piece moves onto the blank's old cell.  Exact, but up to 900 * 900 states
// per query, so it is far too slow for 30 x 30 boards with 500 queries.

use std::collections::VecDeque;
use std::io::{self, Read, Write};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let v: Vec<i64> = input.split_ascii_whitespace().map(|t| t.parse().unwrap()).collect();
    let (n, m, q) = (v[0] as usize, v[1] as usize, v[2] as usize);
    let grid: Vec<i64> = v[3..3 + n * m].to_vec();
    let mut pos = 3 + n * m;
    let cells = n * m;

    // Adjacency list of movable cells.
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); cells];
    for r in 0..n {
        for c in 0..m {
            let id = r * m + c;
            if grid[id] != 1 {
                continue;
            }
            if r > 0 && grid[id - m] == 1 {
                adj[id].push(id - m);
            }
            if r + 1 < n && grid[id + m] == 1 {
                adj[id].push(id + m);
            }
            if c > 0 && grid[id - 1] == 1 {
                adj[id].push(id - 1);
            }
            if c + 1 < m && grid[id + 1] == 1 {
                adj[id].push(id + 1);
            }
        }
    }

    let mut out = String::new();
    for _ in 0..q {
        let a: Vec<usize> = v[pos..pos + 6].iter().map(|&x| x as usize - 1).collect();
        pos += 6;
        let e = a[0] * m + a[1];
        let s = a[2] * m + a[3];
        let t = a[4] * m + a[5];
        if s == t {
            out.push_str("0\n");
            continue;
        }
        // state = blank * cells + piece
        let mut dist = vec![-1i32; cells * cells];
        let mut queue = VecDeque::new();
        dist[e * cells + s] = 0;
        queue.push_back((e, s));
        let mut answer = -1;
        'bfs: while let Some((blank, piece)) = queue.pop_front() {
            let d = dist[blank * cells + piece];
            for &nb in &adj[blank] {
                let (nblank, npiece) = if nb == piece { (nb, blank) } else { (nb, piece) };
                let id = nblank * cells + npiece;
                if dist[id] < 0 {
                    dist[id] = d + 1;
                    if npiece == t {
                        answer = d + 1;
                        break 'bfs;
                    }
                    queue.push_back((nblank, npiece));
                }
            }
        }
        out.push_str(&format!("{}\n", answer));
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

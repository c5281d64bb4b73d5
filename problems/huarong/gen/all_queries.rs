// Exhaustive queries on a tiny board for 华容道.
//
//   all_queries N M [R,C ...]
//
// N x M board, all cells movable except the listed fixed cells (1-based).
// Prints every query (E, S, T) with E, S, T movable and E != S, in
// lexicographic order, at most 500 of them (the first 500).

use std::env;

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    let n: usize = args[0].parse().unwrap();
    let m: usize = args[1].parse().unwrap();
    let mut grid = vec![1u8; n * m];
    for a in &args[2..] {
        let mut it = a.split(',').map(|x| x.parse::<usize>().unwrap());
        let (r, c) = (it.next().unwrap(), it.next().unwrap());
        grid[(r - 1) * m + (c - 1)] = 0;
    }
    let open: Vec<usize> = (0..n * m).filter(|&i| grid[i] == 1).collect();
    let mut queries = Vec::new();
    for &e in &open {
        for &s in &open {
            if e == s {
                continue;
            }
            for &t in &open {
                if queries.len() < 500 {
                    queries.push((e, s, t));
                }
            }
        }
    }
    assert!(!queries.is_empty(), "no valid query on this board");
    let mut out = format!("{} {} {}\n", n, m, queries.len());
    for r in 0..n {
        let row: Vec<String> = (0..m).map(|c| grid[r * m + c].to_string()).collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    for (e, s, t) in queries {
        out.push_str(&format!(
            "{} {} {} {} {} {}\n",
            e / m + 1,
            e % m + 1,
            s / m + 1,
            s % m + 1,
            t / m + 1,
            t % m + 1
        ));
    }
    print!("{}", out);
}

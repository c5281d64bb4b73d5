// Deep recursion that fits in memory, in Rust: a million frames on the main thread's stack, some
// 100 MiB, under a 256 MiB memory limit.
// Verdict: AC (the stack limit is the memory limit).
// Harm it must not do: none; a default 8 MiB stack would crash it with a stack overflow.
use std::hint::black_box;

#[inline(never)]
fn depth(n: u64) -> u64 {
    let pad = black_box([n as u8; 80]);
    if n == 0 {
        return 0;
    }
    depth(n - 1) + (black_box(&pad)[0] & 1) as u64
}

fn main() {
    println!("{}", depth(black_box(1_000_000)));
}

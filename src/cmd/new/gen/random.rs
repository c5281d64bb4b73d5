// Generator of "Sum of a List" (made by `ojd new`): `random N MAX SEED` prints N integers in
// -MAX..=MAX. A single file, standard library only; its randomness comes from SEED alone (a
// splitmix64 sequence), so a test is the same every time it is generated.
use std::io::{self, BufWriter, Write};

/// splitmix64: a small, good, seeded generator (no crate needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in lo..=hi.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, max, seed] = args.as_slice() else {
        eprintln!("usage: random N MAX SEED");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("N");
    let max: i64 = max.parse().expect("MAX");
    let mut rng = Rng(seed.parse().expect("SEED"));
    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(out, "{n}").unwrap();
    let values: Vec<String> = (0..n).map(|_| rng.range(-max, max).to_string()).collect();
    writeln!(out, "{}", values.join(" ")).unwrap();
}

// Compile-time hang: include_bytes! of /dev/urandom, which never ends.
// Verdict: CE, "compilation exceeded its time limit" (or its memory limit).
// Harm it must not do: hang the judge: it must end by the compile time limit.
const NOISE: &[u8] = include_bytes!("/dev/urandom");

fn main() {
    println!("{}", NOISE.len());
}

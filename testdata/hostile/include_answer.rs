// Compile-time leak: include_str! and include_bytes! of a test answer by its absolute path on the
// host. The test writes the real path in place of @ANSWER@ at test time.
// Verdict: CE (the path does not exist inside the sandbox).
// Harm it must not do: put the answer into the compile-error text.
const ANSWER: &str = include_str!("@ANSWER@");
const BYTES: &[u8] = include_bytes!("@ANSWER@");

fn main() {
    println!("{ANSWER} {}", BYTES.len());
}

// Compile-time leak: include_str! of the host's /etc/shadow.
// Verdict: CE.
// Harm it must not do: put any of the host's shadow file into the compile-error text.
const SHADOW: &str = include_str!("/etc/shadow");

fn main() {
    println!("{SHADOW}");
}

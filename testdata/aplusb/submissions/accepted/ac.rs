use std::io::{Read, Write};

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_ascii_whitespace().map(|x| x.parse::<i128>().unwrap());
    let t = it.next().unwrap();
    let mut out = String::new();
    for _ in 0..t {
        let (a, b) = (it.next().unwrap(), it.next().unwrap());
        out.push_str(&format!("{}\n", a + b));
    }
    std::io::stdout().write_all(out.as_bytes()).unwrap();
}

// Reference solution of "Sum of a List" (made by `ojd new`): `ojd gen` writes every answer
// with it. A single file, standard library only.
use std::io::{self, Read, Write};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut words = input.split_ascii_whitespace();
    let n: usize = words.next().unwrap().parse().unwrap();
    // Up to 2e5 values of 1e9: the sum needs 64 bits.
    let sum: i64 = (0..n)
        .map(|_| words.next().unwrap().parse::<i64>().unwrap())
        .sum();
    writeln!(io::stdout(), "{sum}").unwrap();
}

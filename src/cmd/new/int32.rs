// A wrong answer (made by `ojd new`): the sum in 32 bits overflows on large tests. Each file in
// submissions/<verdict>/ must get that verdict on some test and nothing worse on the others.
use std::io::{self, Read};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut words = input.split_ascii_whitespace();
    let n: usize = words.next().unwrap().parse().unwrap();
    let mut sum: i32 = 0;
    for _ in 0..n {
        sum = sum.wrapping_add(words.next().unwrap().parse::<i32>().unwrap());
    }
    println!("{sum}");
}

//! A generator command of generators.yaml as BAPCtools runs it: its seed and its arguments.

/// BAPCtools' seed of a command: SHA-512 of the salt (with `:<count - 1>` after it for a
/// `count` value other than 1) and the command (its surrounding spaces trimmed) read as a
/// number, modulo 2^31.
pub(super) fn seed(salt: &str, command: &str, count: i64) -> u32 {
    use sha2::{Digest, Sha512};
    let salt = match count {
        1 => salt.to_string(),
        c => format!("{salt}:{}", c - 1),
    };
    let h = Sha512::digest(format!("{salt}{}", command.trim()));
    let low: [u8; 4] = h[60..].try_into().expect("4 of 64 bytes");
    u32::from_be_bytes(low) & 0x7fff_ffff
}

/// The arguments of a command, `{seed}` / `{seed:N}` and `{name}` put in.
pub(super) fn arguments(words: &[&str], seed: u32) -> Vec<String> {
    words
        .iter()
        .map(|w| {
            let mut out = String::new();
            let mut rest = *w;
            while let Some(at) = rest.find("{seed") {
                out += &rest[..at];
                match rest[at..].find('}') {
                    Some(end) => {
                        out += &seed.to_string();
                        rest = &rest[at + end + 1..];
                    }
                    None => {
                        out += &rest[at..];
                        rest = "";
                    }
                }
            }
            out += rest;
            out.replace("{name}", "testcase")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_and_arguments_as_bapctools() {
        // BAPCtools: int(sha512(salt + command).hexdigest(), 16) % 2**31.
        let s = seed("", "gen.py 10 {seed}", 1);
        assert_eq!(s, 1_481_847_763);
        assert_ne!(s, seed("salt", "gen.py 10 {seed}", 1));
        assert_eq!(s, seed("", "  gen.py 10 {seed} ", 1));
        // A count's values but 1 salt the seed with `:<value - 1>`.
        assert_eq!(
            seed("", "gen.py 10 {seed}", 3),
            seed(":2", "gen.py 10 {seed}", 1)
        );
        assert_eq!(
            arguments(&["10", "{seed}", "x{seed:3}y", "{name}.in"], 7),
            ["10", "7", "x7y", "testcase.in"]
        );
    }
}

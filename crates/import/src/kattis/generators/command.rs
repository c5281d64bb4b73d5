//! A generator command of generators.yaml as BAPCtools runs it: split into words as a POSIX
//! shell would (Python's `shlex.split`: quotes, backslashes; no pipes, redirects or variables,
//! which stay words), its seed, and `{seed}` / `{seed:N}` / `{name}` put into its arguments.

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

/// The words of `command` as Python's `shlex.split` makes them (what BAPCtools runs): split at
/// white space; `'...'` keeps everything; `"..."` keeps everything but a backslash before `"` or
/// `\`; a backslash outside quotes keeps the next character. `Err` says what is wrong.
pub(super) fn split(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("no closing quotation (')".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err("no closing quotation (\")".into()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("no closing quotation (\")".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a backslash at the end escapes nothing".into()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err("an empty command".into());
    }
    let seeds: usize = words.iter().map(|w| seed_marks(w).len()).sum();
    if seeds > 1 {
        return Err("{seed} (or {seed:N}) may appear at most once (BAPCtools' rule)".into());
    }
    Ok(words)
}

/// Where BAPCtools' `\{seed(:[0-9]+)?\}` matches in `word`: (start, end) byte ranges.
fn seed_marks(word: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = word[from..].find("{seed").map(|i| i + from) {
        let rest = &word[at + 5..];
        let end = if rest.starts_with('}') {
            Some(at + 6)
        } else if let Some(digits) = rest.strip_prefix(':') {
            let n = digits.chars().take_while(char::is_ascii_digit).count();
            (n > 0 && digits[n..].starts_with('}')).then_some(at + 5 + 1 + n + 1)
        } else {
            None
        };
        match end {
            Some(end) => {
                out.push((at, end));
                from = end;
            }
            None => from = at + 5,
        }
    }
    out
}

/// The arguments of a command, `{seed}` / `{seed:N}` (the seed) and `{name}` (`testcase`, the
/// name BAPCtools gives the files a generator may write) put in.
pub(super) fn arguments(words: &[String], seed: u32) -> Vec<String> {
    words
        .iter()
        .map(|w| {
            let mut out = String::new();
            let mut last = 0;
            for (at, end) in seed_marks(w) {
                out += &w[last..at];
                out += &seed.to_string();
                last = end;
            }
            out += &w[last..];
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
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            arguments(
                &words(&["10", "x{seed:3}y", "{name}.in", "{seedx}", "{seed:}"]),
                7
            ),
            ["10", "x7y", "testcase.in", "{seedx}", "{seed:}"]
        );
    }

    /// Commands are split as Python's `shlex.split` splits them (BAPCtools' own reading).
    #[test]
    fn commands_split_as_shlex_does() {
        let ok = |c: &str| split(c).unwrap();
        assert_eq!(ok("gen.py  10\t{seed}\n"), ["gen.py", "10", "{seed}"]);
        assert_eq!(
            ok("tree \"a b\" 'c  d' e\\ f"),
            ["tree", "a b", "c  d", "e f"]
        );
        assert_eq!(ok("g \"x\\\"y\\n\" ''"), ["g", "x\"y\\n", ""]);
        assert_eq!(ok("g a|b >c"), ["g", "a|b", ">c"]);
        assert_eq!(ok("g pre'fix'\"ed\""), ["g", "prefixed"]);
        for bad in ["g 'open", "g \"open", "g end\\", "  ", "g {seed} {seed:2}"] {
            assert!(split(bad).is_err(), "{bad:?}");
        }
    }
}

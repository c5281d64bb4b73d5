//! The built-in checkers: `tokens` (the default), `exact`, `lines`, `float`, and
//! `kattis-default` (the Kattis default output validator with its flags, [`DefaultFlags`]). A
//! UTF-8 BOM and CRLF line ends never make an answer wrong under any of them, nor does a missing
//! or extra final newline.

use super::CheckOutcome;
use crate::problem::{CheckerSpec, DefaultFlags};
use crate::text::normalize;

/// A token with its 1-based line and column.
struct Token<'a> {
    text: &'a [u8],
    line: usize,
    column: usize,
}

fn tokens(data: &[u8]) -> impl Iterator<Item = Token<'_>> {
    let mut i = 0;
    let mut line = 1;
    let mut line_start = 0;
    std::iter::from_fn(move || {
        while i < data.len() && data[i].is_ascii_whitespace() {
            if data[i] == b'\n' {
                line += 1;
                line_start = i + 1;
            }
            i += 1;
        }
        if i >= data.len() {
            return None;
        }
        let start = i;
        while i < data.len() && !data[i].is_ascii_whitespace() {
            i += 1;
        }
        Some(Token {
            text: &data[start..i],
            line,
            column: start - line_start + 1,
        })
    })
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

fn compare_tokens(
    output: &[u8],
    answer: &[u8],
    equal: impl Fn(&[u8], &[u8]) -> bool,
) -> CheckOutcome {
    let mut out = tokens(output);
    let mut ans = tokens(answer);
    let mut n = 0;
    loop {
        n += 1;
        match (out.next(), ans.next()) {
            (None, None) => return CheckOutcome::Accepted,
            (Some(o), Some(a)) => {
                if !equal(o.text, a.text) {
                    // The column of the first character that differs, as the report's diff
                    // names it: `13` for `12` differs at the token's second character.
                    let same = o
                        .text
                        .iter()
                        .zip(a.text)
                        .take_while(|(x, y)| x == y)
                        .count();
                    let column =
                        o.column + String::from_utf8_lossy(&o.text[..same]).chars().count();
                    return CheckOutcome::Wrong(format!(
                        "line {}, column {column}: expected `{}`, found `{}` (token {n})",
                        o.line,
                        show(a.text),
                        show(o.text)
                    ));
                }
            }
            (None, Some(a)) => {
                return CheckOutcome::Wrong(format!(
                    "output ends early: expected `{}` (token {n}, answer line {})",
                    show(a.text),
                    a.line
                ))
            }
            (Some(o), None) => {
                return CheckOutcome::Wrong(format!(
                    "line {}, column {}: extra output `{}` (token {n})",
                    o.line,
                    o.column,
                    show(o.text)
                ))
            }
        }
    }
}

fn floats_equal(o: &[u8], a: &[u8], abs: f64, rel: f64) -> bool {
    if o == a {
        return true;
    }
    let parse = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()?
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
    };
    match (parse(o), parse(a)) {
        (Some(x), Some(y)) => {
            let d = (x - y).abs();
            d <= abs || d <= rel * y.abs()
        }
        _ => false,
    }
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .map(|l| l.trim_ascii_end())
        .collect();
    while v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// Compares with a built-in checker. `Program` and `Kattis` checkers are run by the judge instead.
pub fn compare(spec: &CheckerSpec, output: &[u8], answer: &[u8]) -> CheckOutcome {
    let output = normalize(output);
    let answer = normalize(answer);
    match spec {
        CheckerSpec::Tokens => compare_tokens(&output, &answer, |a, b| a == b),
        CheckerSpec::Float { abs, rel } => {
            compare_tokens(&output, &answer, |a, b| floats_equal(a, b, *abs, *rel))
        }
        CheckerSpec::Exact => {
            let trim = |d: &[u8]| -> Vec<u8> { d.strip_suffix(b"\n").unwrap_or(d).to_vec() };
            let (o, a) = (trim(&output), trim(&answer));
            if o == a {
                return CheckOutcome::Accepted;
            }
            let at = o
                .iter()
                .zip(&a)
                .position(|(x, y)| x != y)
                .unwrap_or(o.len().min(a.len()));
            let line = o[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let col = at
                - o[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1)
                + 1;
            CheckOutcome::Wrong(format!(
                "line {line}, column {col}: output differs from the answer (exact comparison)"
            ))
        }
        CheckerSpec::Lines => {
            let (o, a) = (lines(&output), lines(&answer));
            for (i, (x, y)) in o.iter().zip(&a).enumerate() {
                if x != y {
                    return CheckOutcome::Wrong(format!(
                        "line {}: expected `{}`, found `{}`",
                        i + 1,
                        show(y),
                        show(x)
                    ));
                }
            }
            match o.len().cmp(&a.len()) {
                std::cmp::Ordering::Equal => CheckOutcome::Accepted,
                std::cmp::Ordering::Less => CheckOutcome::Wrong(format!(
                    "output ends early after {} lines, expected {}",
                    o.len(),
                    a.len()
                )),
                std::cmp::Ordering::Greater => CheckOutcome::Wrong(format!(
                    "line {}: extra output `{}`",
                    a.len() + 1,
                    show(o[a.len()])
                )),
            }
        }
        CheckerSpec::KattisDefault(flags) => compare_default(flags, &output, &answer),
        CheckerSpec::Program { .. } | CheckerSpec::Kattis { .. } | CheckerSpec::Cms { .. } => {
            CheckOutcome::Failed("external checkers are run by the judge".into())
        }
    }
}

/// The Kattis default validator: tokens (case-insensitive unless `case_sensitive`), numbers of
/// the answer within a tolerance when one is given, and with `space_change_sensitive` the
/// whitespace between tokens byte for byte (after CRLF and final-newline normalisation).
fn compare_default(flags: &DefaultFlags, output: &[u8], answer: &[u8]) -> CheckOutcome {
    let floats =
        flags.float_absolute_tolerance.is_some() || flags.float_relative_tolerance.is_some();
    let equal = |o: &[u8], a: &[u8]| {
        let same = if flags.case_sensitive {
            o == a
        } else {
            o.eq_ignore_ascii_case(a)
        };
        if same || !floats {
            return same;
        }
        let (Some(y), Some(x)) = (parse_float(a), parse_float(o)) else {
            return false;
        };
        let d = (x - y).abs();
        flags.float_absolute_tolerance.is_some_and(|e| d <= e)
            || flags
                .float_relative_tolerance
                .is_some_and(|e| d <= e * y.abs())
    };
    let verdict = compare_tokens(output, answer, equal);
    if verdict != CheckOutcome::Accepted || !flags.space_change_sensitive {
        return verdict;
    }
    let (o, a) = (whitespace_runs(output), whitespace_runs(answer));
    if o == a {
        return CheckOutcome::Accepted;
    }
    let at = o.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(0);
    CheckOutcome::Wrong(format!(
        "whitespace differs before token {} (space_change_sensitive)",
        at + 1
    ))
}

/// The whitespace before each token (and after the last), with a final newline dropped.
fn whitespace_runs(data: &[u8]) -> Vec<&[u8]> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    let mut runs = Vec::new();
    let mut i = 0;
    loop {
        let start = i;
        while i < data.len() && data[i].is_ascii_whitespace() {
            i += 1;
        }
        runs.push(&data[start..i]);
        if i == data.len() {
            return runs;
        }
        while i < data.len() && !data[i].is_ascii_whitespace() {
            i += 1;
        }
    }
}

fn parse_float(b: &[u8]) -> Option<f64> {
    std::str::from_utf8(b)
        .ok()?
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    /// The WA message and the report's diff name the same column: the first character that
    /// differs, not the start of the token.
    #[test]
    fn message_and_diff_agree_on_the_column() {
        let (out, ans) = (b"7 1234 9\n".as_slice(), b"7 1299 9\n".as_slice());
        let CheckOutcome::Wrong(m) = super::compare(&crate::problem::CheckerSpec::Tokens, out, ans)
        else {
            panic!("a wrong answer");
        };
        let d = crate::diff::diff(ans, out).expect("a diff");
        assert_eq!((d.line, d.column), (1, 5));
        assert!(
            m.starts_with("line 1, column 5: expected `1299`, found `1234`"),
            "{m}"
        );
    }

    use super::*;
    use CheckOutcome::*;

    fn wrong(o: CheckOutcome) -> String {
        match o {
            Wrong(m) => m,
            other => panic!("expected WA, got {other:?}"),
        }
    }

    #[test]
    fn tokens_forgive_whitespace_crlf_and_bom() {
        let ok = [
            ("3\n", "3\n"),
            ("3", "3\n"),
            ("\u{feff}3\r\n", "3\n"),
            ("1  2\n\n", "1 2\n"),
            ("1 2   \r\n3\r\n", "1 2\n3\n"),
            ("", ""),
        ];
        for (o, a) in ok {
            assert_eq!(
                compare(&CheckerSpec::Tokens, o.as_bytes(), a.as_bytes()),
                Accepted,
                "{o:?} vs {a:?}"
            );
        }
    }

    #[test]
    fn tokens_name_the_difference() {
        let m = wrong(compare(&CheckerSpec::Tokens, b"1\n2 5\n", b"1\n2 4\n"));
        assert_eq!(m, "line 2, column 3: expected `4`, found `5` (token 3)");
        let m = wrong(compare(&CheckerSpec::Tokens, b"1\n", b"1\n2\n"));
        assert_eq!(
            m,
            "output ends early: expected `2` (token 2, answer line 2)"
        );
        let m = wrong(compare(&CheckerSpec::Tokens, b"1 2", b"1"));
        assert_eq!(m, "line 1, column 3: extra output `2` (token 2)");
    }

    #[test]
    fn exact_and_lines() {
        assert_eq!(compare(&CheckerSpec::Exact, b"a b\r\n", b"a b\n"), Accepted);
        assert_eq!(compare(&CheckerSpec::Exact, b"a b", b"a b\n"), Accepted);
        assert_eq!(
            wrong(compare(&CheckerSpec::Exact, b"a  b\n", b"a b\n")),
            "line 1, column 3: output differs from the answer (exact comparison)"
        );
        assert_eq!(
            compare(&CheckerSpec::Lines, b"a b  \n\n\n", b"a b\n"),
            Accepted
        );
        assert_eq!(
            wrong(compare(&CheckerSpec::Lines, b"a\nb c\n", b"a\nb  c\n")),
            "line 2: expected `b  c`, found `b c`"
        );
    }

    #[test]
    fn floats() {
        let spec = CheckerSpec::Float {
            abs: 1e-6,
            rel: 1e-6,
        };
        assert_eq!(compare(&spec, b"0.3333333", b"0.33333333"), Accepted);
        assert_eq!(
            compare(&spec, b"1000000.5", b"1000000"),
            Accepted,
            "relative"
        );
        assert_eq!(compare(&spec, b"abc 1.0", b"abc 1"), Accepted);
        assert!(matches!(compare(&spec, b"0.34", b"0.33"), Wrong(_)));
        assert!(
            matches!(compare(&spec, b"nan", b"nan"), Accepted),
            "identical tokens"
        );
        assert!(matches!(compare(&spec, b"inf", b"1e308"), Wrong(_)));
    }

    #[test]
    fn kattis_default_flags_as_the_spec_says() {
        let f = |flags: &[&str]| {
            let v: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
            CheckerSpec::KattisDefault(DefaultFlags::parse(&v).unwrap())
        };
        let none = f(&[]);
        assert_eq!(
            compare(&none, b"Yes\n", b"yes\n"),
            Accepted,
            "case-insensitive by default"
        );
        assert_eq!(compare(&none, b"yes   no\n\n", b"yes no\n"), Accepted);
        assert!(
            matches!(compare(&none, b"1.0\n", b"1\n"), Wrong(_)),
            "no tolerance: strings"
        );
        let cs = f(&["case_sensitive"]);
        assert!(matches!(compare(&cs, b"Yes\n", b"yes\n"), Wrong(_)));
        let sp = f(&["space_change_sensitive"]);
        assert!(matches!(compare(&sp, b"a  b\n", b"a b\n"), Wrong(_)));
        assert!(
            matches!(compare(&sp, b"a b \n", b"a b\n"), Wrong(_)),
            "trailing space"
        );
        assert_eq!(
            compare(&sp, b"A b", b"a b\n"),
            Accepted,
            "final newline forgiven"
        );
        assert_eq!(
            compare(&sp, b"a b\r\nc\r\n", b"a b\nc\n"),
            Accepted,
            "CRLF forgiven"
        );
        let abs = f(&["float_absolute_tolerance", "0.01"]);
        assert_eq!(compare(&abs, b"1.005 x\n", b"1 X\n"), Accepted);
        assert!(
            matches!(compare(&abs, b"100.5\n", b"100\n"), Wrong(_)),
            "abs only"
        );
        let rel = f(&["float_relative_tolerance", "0.01"]);
        assert_eq!(compare(&rel, b"100.5\n", b"100\n"), Accepted);
        assert!(
            matches!(compare(&rel, b"0.005\n", b"0\n"), Wrong(_)),
            "rel only"
        );
        assert!(matches!(compare(&rel, b"abc\n", b"100\n"), Wrong(_)));
        let both = f(&["float_tolerance", "1e-3"]);
        assert_eq!(compare(&both, b"0.0005 1000.5\n", b"0 1000\n"), Accepted);
        assert_eq!(
            DefaultFlags::parse(&["colour".into()]),
            Err(crate::FlagError::Unknown {
                flag: "colour".into()
            })
        );
        assert_eq!(
            DefaultFlags::parse(&["float_tolerance".into()]),
            Err(crate::FlagError::NoNumber {
                flag: "float_tolerance"
            })
        );
        let bad = DefaultFlags::parse(&["float_relative_tolerance".into(), "-1".into()]);
        assert_eq!(
            bad.map_err(|e| e.to_string()),
            Err("float_relative_tolerance: expected a non-negative number, found \"-1\"".into())
        );
    }
}

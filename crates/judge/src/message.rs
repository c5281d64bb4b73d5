//! What a program said, as one bounded line for a verdict's message: a checker's, validator's or
//! converter's output may be many lines (a Python traceback starts with "Traceback (most recent
//! call last):" and says what went wrong only at its end), so the message keeps its **last**
//! lines, not its first.

/// The last `max_lines` non-empty lines of `text`, trimmed and joined by " | ", at most
/// `max_chars` characters (the end kept); "… " in front when something was left out. Empty when
/// `text` has no visible line.
pub(crate) fn last_lines(text: &str, max_lines: usize, max_chars: usize) -> String {
    let all: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let kept = &all[all.len().saturating_sub(max_lines)..];
    let joined = kept.join(" | ");
    let count = joined.chars().count();
    if count > max_chars {
        let tail: String = joined.chars().skip(count - max_chars).collect();
        format!("… {tail}")
    } else if kept.len() < all.len() {
        format!("… {joined}")
    } else {
        joined
    }
}

/// The lines and characters a checker's message keeps ([`last_lines`]).
pub(crate) const CHECKER_LINES: usize = 4;
pub(crate) const CHECKER_CHARS: usize = 500;

/// A checker's (or validator's) message: `last_lines` with the checkers' bounds.
pub fn checker_message(text: &str) -> String {
    last_lines(text, CHECKER_LINES, CHECKER_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_keeps_what_went_wrong() {
        let tb = "Traceback (most recent call last):\n  File \"/prog/main.py\", line 9, in <module>\n    main()\n  File \"/prog/main.py\", line 5, in main\n    x = int(open('output').read())\nValueError: invalid literal for int() with base 10: 'abc'\n";
        let m = checker_message(tb);
        assert!(
            m.ends_with("ValueError: invalid literal for int() with base 10: 'abc'"),
            "{m}"
        );
        assert!(m.starts_with("… "), "lines were left out: {m}");
        assert!(!m.contains("Traceback"), "{m}");
    }

    #[test]
    fn one_line_is_itself_and_the_bounds_hold() {
        assert_eq!(
            checker_message("wrong answer 3rd number\n"),
            "wrong answer 3rd number"
        );
        assert_eq!(checker_message("\n  \n"), "");
        assert_eq!(last_lines("a\n\nb\n", 4, 100), "a | b");
        let long = "x".repeat(2000);
        let m = last_lines(&format!("first\n{long}end\n"), 4, 50);
        assert_eq!(m.chars().count(), 52, "{m}");
        assert!(m.ends_with("xend"), "{m}");
    }
}

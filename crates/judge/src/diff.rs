//! Readable diffs of expected answer against output, made with `similar`.
//!
//! Only a window around the first differing line is diffed (a few lines before, up to
//! `WINDOW_AFTER` after), so a 64 MiB output costs one linear scan, not a quadratic diff.
//! Long lines are cut around the first differing column. Changed characters inside a line are
//! marked, for highlighting in the terminal and on the web page.

use anstyle::{AnsiColor, Color, Style};
use similar::{ChangeTag, TextDiff};

use crate::text::normalize;
use crate::verdict::{Diff, DiffLine};

/// How a diff looks in colour: lines of the answer red, lines of the output green, and the
/// characters that differ in bold on a red or green ground.
const EXPECTED: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Red)));
const OUTPUT: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Green)));
const EXPECTED_CHANGE: Style = Style::new()
    .bold()
    .bg_color(Some(Color::Ansi(AnsiColor::Red)));
const OUTPUT_CHANGE: Style = Style::new()
    .bold()
    .bg_color(Some(Color::Ansi(AnsiColor::Green)));

const CONTEXT_BEFORE: usize = 3;
const WINDOW_AFTER: usize = 12;
const MAX_LINE: usize = 160;

fn split_lines(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.split('\n').collect();
    if v.last() == Some(&"") {
        v.pop();
    }
    v
}

/// Cuts a long line to about `MAX_LINE` characters around `column` (0-based, in chars).
fn cut(line: &str, column: usize) -> String {
    let n = line.chars().count();
    if n <= MAX_LINE {
        return line.to_string();
    }
    let start = column.saturating_sub(MAX_LINE / 4).min(n - MAX_LINE);
    let body: String = line.chars().skip(start).take(MAX_LINE).collect();
    format!(
        "{}{}{}",
        if start > 0 { "…" } else { "" },
        body,
        if start + MAX_LINE < n { "…" } else { "" }
    )
}

/// Diffs `expected` against `output`; `None` when they are equal line by line.
pub(crate) fn diff(expected: &[u8], output: &[u8]) -> Option<Diff> {
    let e = String::from_utf8_lossy(&normalize(expected)).into_owned();
    let o = String::from_utf8_lossy(&normalize(output)).into_owned();
    let (el, ol) = (split_lines(&e), split_lines(&o));
    let first = (0..el.len().max(ol.len())).find(|&i| el.get(i) != ol.get(i))?;
    let column = match (el.get(first), ol.get(first)) {
        (Some(a), Some(b)) => a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count(),
        _ => 0,
    };
    let start = first.saturating_sub(CONTEXT_BEFORE);
    let end_e = (first + WINDOW_AFTER).min(el.len());
    let end_o = (first + WINDOW_AFTER).min(ol.len());
    let window = |lines: &[&str], end: usize| -> String {
        lines
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .map(|l| format!("{}\n", cut(l, column)))
            .collect()
    };
    let (we, wo) = (window(&el, end_e), window(&ol, end_o));
    let td = TextDiff::from_lines(&we, &wo);
    let mut lines = Vec::new();
    for op in td.ops() {
        for change in td.iter_inline_changes(op) {
            let tag = match change.tag() {
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
                ChangeTag::Equal => ' ',
            };
            let segments = change
                .iter_strings_lossy()
                .map(|(emph, s)| (emph, s.trim_end_matches('\n').to_string()))
                .filter(|(_, s)| !s.is_empty())
                .collect();
            lines.push(DiffLine {
                tag,
                expected_line: change.old_index().map(|i| start + i + 1),
                output_line: change.new_index().map(|i| start + i + 1),
                segments,
            });
        }
    }
    // Keep a little context after the last change, not the whole window.
    let last_change = lines.iter().rposition(|l| l.tag != ' ').unwrap_or(0);
    let cut_tail = lines.len() > last_change + 1 + CONTEXT_BEFORE;
    lines.truncate((last_change + 1 + CONTEXT_BEFORE).min(lines.len()));
    let trimmed = start > 0 || end_e < el.len() || end_o < ol.len() || cut_tail;
    Some(Diff {
        line: first + 1,
        column: column + 1,
        lines,
        trimmed,
    })
}

/// Renders a diff as text: a header naming the first difference, then `-`/`+` lines, with the
/// differing characters wrapped in `[...]` (or coloured when `color`).
pub fn render(d: &Diff, color: bool) -> String {
    let mut out = format!(
        "first difference at line {}, column {} (- expected, + output)\n",
        d.line, d.column
    );
    if d.trimmed {
        out.push_str("  (only the lines around the first difference are shown)\n");
    }
    for l in &d.lines {
        let no = match l.tag {
            '-' => l.expected_line,
            _ => l.output_line,
        };
        out.push_str(&format!(
            "{:>5} {} ",
            no.map(|n| n.to_string()).unwrap_or_default(),
            l.tag
        ));
        for (emph, s) in &l.segments {
            // Program output: shown, never obeyed by the terminal.
            let s = crate::escape::terminal(s);
            let paint = |style: Style| format!("{style}{s}{style:#}");
            match (*emph && l.tag != ' ', color, l.tag) {
                (true, true, '-') => out.push_str(&paint(EXPECTED_CHANGE)),
                (true, true, _) => out.push_str(&paint(OUTPUT_CHANGE)),
                (true, false, _) => out.push_str(&format!("[{s}]")),
                (false, true, '-') => out.push_str(&paint(EXPECTED)),
                (false, true, '+') => out.push_str(&paint(OUTPUT)),
                _ => out.push_str(&s),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_first_difference() {
        let d = diff(b"1\n2\n3\n4\n", b"1\n2\n5\n4\n").unwrap();
        assert_eq!((d.line, d.column), (3, 1));
        let text = render(&d, false);
        assert!(
            text.starts_with("first difference at line 3, column 1"),
            "{text}"
        );
        assert!(text.contains("    3 - [3]"), "{text}");
        assert!(text.contains("    3 + [5]"), "{text}");
        assert!(text.contains("    1   1"), "{text}");
    }

    #[test]
    fn colours_are_styles() {
        let d = diff(b"1\n2\n", b"1\n3\n").unwrap();
        let text = render(&d, true);
        assert!(text.contains("    1   1\n"), "{text:?}");
        assert!(
            text.contains("    2 - \x1b[1m\x1b[41m2\x1b[0m\n"),
            "{text:?}"
        );
        assert!(
            text.contains("    2 + \x1b[1m\x1b[42m3\x1b[0m\n"),
            "{text:?}"
        );
        let d = diff(b"x y\n", b"x z\n").unwrap();
        let text = render(&d, true);
        assert!(
            text.contains("- \x1b[31mx \x1b[0m\x1b[1m\x1b[41my\x1b[0m"),
            "{text:?}"
        );
        assert!(
            text.contains("+ \x1b[32mx \x1b[0m\x1b[1m\x1b[42mz\x1b[0m"),
            "{text:?}"
        );
        assert!(!render(&d, false).contains('\x1b'));
    }

    #[test]
    fn equal_after_normalising() {
        assert!(diff(b"1\r\n2\r\n", b"\xEF\xBB\xBF1\n2").is_none());
    }

    #[test]
    fn missing_and_extra_lines() {
        let d = diff(b"a\nb\n", b"a\n").unwrap();
        assert_eq!(d.line, 2);
        assert!(d
            .lines
            .iter()
            .any(|l| l.tag == '-' && l.expected_line == Some(2)));
        let d = diff(b"a\n", b"a\nzzz\n").unwrap();
        assert!(d
            .lines
            .iter()
            .any(|l| l.tag == '+' && l.output_line == Some(2)));
    }

    #[test]
    fn long_outputs_are_windowed_and_long_lines_cut() {
        let expected: String = (0..100_000).map(|i| format!("{i}\n")).collect();
        let mut output = expected.clone();
        output = output.replacen("50000\n", "50001\n", 1);
        let d = diff(expected.as_bytes(), output.as_bytes()).unwrap();
        assert_eq!(d.line, 50_001);
        assert!(d.trimmed);
        assert!(d.lines.len() <= 2 * WINDOW_AFTER + CONTEXT_BEFORE);
        let long_e = format!("{}x{}\n", "a".repeat(5000), "b".repeat(5000));
        let long_o = format!("{}y{}\n", "a".repeat(5000), "b".repeat(5000));
        let d = diff(long_e.as_bytes(), long_o.as_bytes()).unwrap();
        assert_eq!(d.column, 5001);
        let text = render(&d, false);
        assert!(
            text.lines().all(|l| l.chars().count() < MAX_LINE + 20),
            "{text}"
        );
    }
}

//! Human-readable reports: the per-test table, diffs of wrong answers and the summary line.
//! Machine-readable output is the JSON serialisation of [`JudgeReport`] itself.

use anstyle::{AnsiColor, Color, Style};

use crate::verdict::{JudgeReport, Verdict};

/// One test's diff, as [`render`] shows it under a wrong answer.
pub use crate::diff::render as render_diff;

/// A verdict in colour (when `color`): accepted green, skipped dim, a judge error magenta, any
/// other failure red.
fn paint(text: &str, verdict: Verdict, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let fg = |c: AnsiColor| Style::new().fg_color(Some(Color::Ansi(c)));
    let style = match verdict {
        Verdict::Accepted => fg(AnsiColor::Green),
        Verdict::Skipped => Style::new().dimmed(),
        Verdict::JudgeError => fg(AnsiColor::Magenta),
        _ => fg(AnsiColor::Red),
    };
    format!("{style}{text}{style:#}")
}

/// Formats a size in KiB as "812 KiB" or "12.3 MiB".
pub fn kib(k: u64) -> String {
    if k < 1024 {
        format!("{k} KiB")
    } else {
        format!("{:.1} MiB", k as f64 / 1024.0)
    }
}

/// The table, the diffs and the summary, as `ojd judge` prints them.
pub fn render(report: &JudgeReport, color: bool) -> String {
    let mut out = String::new();
    for w in &report.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    if report.verdict == Verdict::CompileError {
        out.push_str(&paint("Compile Error", Verdict::CompileError, color));
        out.push('\n');
        out.push_str(&crate::escape::terminal(report.compile_output.trim_end()));
        out.push('\n');
        return out;
    }
    let width = report
        .tests
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!(
        "{:<width$}  {:<7} {:>7} {:>8} {:>10}  {}\n",
        "test", "verdict", "cpu ms", "wall ms", "memory", "details"
    ));
    for t in &report.tests {
        let code = format!("{:<7}", t.verdict.code());
        out.push_str(&format!(
            "{:<width$}  {} {:>7} {:>8} {:>10}  {}\n",
            t.name,
            paint(&code, t.verdict, color),
            t.cpu_ms,
            t.wall_ms,
            kib(t.memory_kib),
            crate::escape::terminal(&t.message)
        ));
    }
    for (t, diff) in report
        .tests
        .iter()
        .filter_map(|t| t.diff.as_ref().map(|d| (t, d)))
    {
        out.push_str(&format!("\n--- test {} ---\n", t.name));
        out.push_str(&crate::diff::render(diff, color));
    }
    let first_bad = report
        .tests
        .iter()
        .find(|t| t.verdict == report.verdict && t.verdict != Verdict::Accepted);
    out.push_str(&format!(
        "\n{}{}: score {}, max CPU {} ms, max memory {}\n",
        paint(report.verdict.name(), report.verdict, color),
        first_bad
            .map(|t| format!(" on test {}", t.name))
            .unwrap_or_default(),
        score_text(report),
        report.max_cpu_ms,
        kib(report.max_memory_kib)
    ));
    out
}

/// The score as a line shows it: whole points, and the exact ones when they differ
/// ("37 (37.5 exactly)").
pub(crate) fn score_text(report: &JudgeReport) -> String {
    let exact = crate::points::to_text(report.score_milli.min(u32::MAX as u64) as u32);
    if report.score_milli == report.score as u64 * crate::points::MILLI as u64 {
        report.score.to_string()
    } else {
        format!("{} ({exact} exactly)", report.score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_colours() {
        assert_eq!(paint("AC", Verdict::Accepted, true), "\x1b[32mAC\x1b[0m");
        assert_eq!(paint("SK", Verdict::Skipped, true), "\x1b[2mSK\x1b[0m");
        assert_eq!(paint("JE", Verdict::JudgeError, true), "\x1b[35mJE\x1b[0m");
        assert_eq!(paint("WA", Verdict::WrongAnswer, true), "\x1b[31mWA\x1b[0m");
        assert_eq!(paint("WA", Verdict::WrongAnswer, false), "WA");
    }
}

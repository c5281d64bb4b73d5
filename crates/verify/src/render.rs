//! How a [`VerifyReport`] is shown: the invocation matrix for people ([`render_text`]), the
//! baseline diff ([`render_baseline_diff`]) and JUnit XML for CI systems ([`junit`]).
//! JSON is the serialisation of the report itself.
//!
//! The matrix lists tests down and submissions across (as Polygon's invocation table does), since
//! test names are short and a problem has more tests than submissions; each submission is named
//! once in a numbered legend above it, with what it was expected to get and whether it did.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};

use super::{BaselineDiff, Cell, ProblemReport, SubmissionReport, VerifyReport};
use ojd_judge::Verdict;

const GREEN: Style = AnsiColor::Green.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();
const RED: Style = AnsiColor::Red.on_default();
const MAGENTA: Style = AnsiColor::Magenta.on_default();
const BOLD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();
const BOLD_GREEN: Style = GREEN.bold();
const BOLD_RED: Style = RED.bold();

/// `text` in `style` when `color`; the binary prints through anstream, which strips the codes
/// again wherever colour is off.
fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// Green AC, yellow for the verdict the folder promises, red for anything else.
fn cell_color(v: Verdict, expected: Verdict) -> Style {
    match v {
        Verdict::Accepted => GREEN,
        v if v == expected => YELLOW,
        Verdict::JudgeError => MAGENTA,
        Verdict::Skipped => DIM,
        _ => RED,
    }
}

/// "AC    12 ", "TLE >1000 ", "WA   830*": verdict, CPU ms (a TLE shows the limit it passed), and
/// `*` when the run was repeated alone; "-" for a cell not run (after a brute force's first clear
/// TLE), "~" after the time for one derived from the run at the package's own limits.
fn cell_text(c: &Cell, limit_ms: u64) -> String {
    if c.not_run {
        return "-".to_string();
    }
    let time = match c.result.verdict {
        Verdict::TimeLimitExceeded => format!(">{limit_ms}"),
        Verdict::JudgeError => String::new(),
        _ => c.result.cpu_ms.to_string(),
    };
    format!(
        "{:<3} {:>5}{}",
        c.result.verdict.code(),
        time,
        match (c.rerun, c.derived) {
            (true, _) => '*',
            (false, true) => '~',
            (false, false) => ' ',
        }
    )
}

const CELL: usize = 10;

/// The whole human report: per problem its errors, warnings, legend, matrix and diffs; then the
/// baseline diff and a summary line.
pub fn render_text(report: &VerifyReport, color: bool) -> String {
    let mut out = String::new();
    for w in &report.warnings {
        let _ = writeln!(out, "{} {w}", paint("warning:", YELLOW, color));
    }
    for e in &report.judge_errors {
        let _ = writeln!(out, "{} {e}", paint("judge error:", MAGENTA, color));
    }
    for p in &report.problems {
        render_problem(&mut out, p, color);
    }
    if let Some(d) = &report.baseline {
        out.push_str(&render_baseline_diff(d, color));
        out.push('\n');
    }
    out.push_str(&summary(report, color));
    out
}

fn render_problem(out: &mut String, p: &ProblemReport, color: bool) {
    let failed = p.submissions.iter().filter(|s| !s.ok).count();
    let state = match (p.errors.len() + p.judge_errors.len(), failed) {
        (0, 0) => paint("ok", GREEN, color),
        (0, n) => paint(&format!("{n} not as expected"), BOLD_RED, color),
        (n, _) => paint(
            &format!("{n} error{}", if n == 1 { "" } else { "s" }),
            BOLD_RED,
            color,
        ),
    };
    let _ = writeln!(
        out,
        "{}: {} tests, time limit {} ms, {} submissions, {} inputs validated: {state}",
        paint(&p.problem, BOLD, color),
        p.tests.len(),
        p.time_limit_ms,
        p.submissions.len(),
        p.inputs_validated
    );
    for e in &p.judge_errors {
        let _ = writeln!(
            out,
            "  {} {}",
            paint("judge error:", MAGENTA, color),
            indent(e, 4)
        );
    }
    for e in &p.errors {
        let _ = writeln!(out, "  {} {}", paint("error:", RED, color), indent(e, 4));
    }
    for w in &p.warnings {
        let _ = writeln!(out, "  {} {w}", paint("warning:", YELLOW, color));
    }
    if !p.submissions.is_empty() {
        legend(out, p, color);
        if p.judged {
            matrix(out, p, color);
        }
        details(out, p, color);
    }
    skipped(out, p, color);
    out.push('\n');
}

/// Known submissions in languages this host lacks, one line each, numbered after the matrix's.
fn skipped(out: &mut String, p: &ProblemReport, color: bool) {
    for (i, s) in p.skipped.iter().enumerate() {
        let _ = writeln!(
            out,
            "  [{}] {}  expects {}  {} language {} unavailable: {}",
            p.submissions.len() + i + 1,
            s.name,
            super::expect::label(s.expected, s.promise),
            paint("SKIPPED:", YELLOW, color),
            s.language,
            s.reason
        );
    }
}

fn legend(out: &mut String, p: &ProblemReport, color: bool) {
    let width = p
        .submissions
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let expects = |s: &super::SubmissionReport| match s.reference {
        true => "reference".to_string(),
        false => format!("expects {}", super::expect::label(s.expected, s.promise)),
    };
    // As wide as the widest ("expects partially_accepted" is wider than a verdict's).
    let ew = p
        .submissions
        .iter()
        .map(|s| expects(s).len())
        .max()
        .unwrap_or(0)
        .max(12);
    for (i, s) in p.submissions.iter().enumerate() {
        let expected = expects(s);
        let verdict = paint(
            &format!("{:<3}", s.verdict.code()),
            cell_color(s.verdict, s.expected),
            color,
        );
        let state = if s.ok {
            paint("ok", GREEN, color)
        } else {
            paint(
                &format!("FAILED: {}", s.failures.join("; ")),
                BOLD_RED,
                color,
            )
        };
        let _ = writeln!(
            out,
            "  [{}] {:<width$}  {:<ew$} {verdict}  {state}",
            i + 1,
            s.name,
            expected
        );
    }
}

fn matrix(out: &mut String, p: &ProblemReport, color: bool) {
    let width = p
        .tests
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut head = format!("  {:<width$}", "test");
    for i in 0..p.submissions.len() {
        let _ = write!(head, " {:<CELL$}", format!("[{}]", i + 1));
    }
    let _ = writeln!(out, "{}", head.trim_end());
    for test in &p.tests {
        let mut row = format!("  {test:<width$}");
        for s in &p.submissions {
            let cell = s.tests.iter().find(|c| c.result.name == *test);
            let (text, verdict) = match (s.verdict, cell) {
                (_, Some(c)) => (cell_text(c, s.limit_ms), c.result.verdict),
                (Verdict::CompileError, None) => ("CE".to_string(), Verdict::CompileError),
                _ => ("-".to_string(), Verdict::Skipped),
            };
            // Pad before painting, so that colour codes do not upset the columns.
            let padded = format!("{text:<CELL$}");
            let _ = write!(
                row,
                " {}",
                paint(&padded, cell_color(verdict, s.expected), color)
            );
        }
        let _ = writeln!(out, "{}", row.trim_end());
    }
}

/// For each submission not as expected: the runs that broke the promise, with a diff of the
/// first wrong answer, or the compiler's message.
fn details(out: &mut String, p: &ProblemReport, color: bool) {
    for (i, s) in p.submissions.iter().enumerate().filter(|(_, s)| !s.ok) {
        let _ = writeln!(out, "  [{}] {}:", i + 1, s.name);
        if s.verdict == Verdict::CompileError {
            let _ = writeln!(
                out,
                "      {}",
                indent(
                    &ojd_judge::escape_terminal(first_lines(&s.compile_output, 10).trim_end()),
                    6
                )
            );
            continue;
        }
        let unexpected = |c: &&Cell| match s.expected {
            Verdict::Accepted => c.result.verdict != Verdict::Accepted,
            Verdict::WrongAnswer => {
                !matches!(c.result.verdict, Verdict::Accepted | Verdict::WrongAnswer)
            }
            _ => c.result.verdict == Verdict::WrongAnswer,
        };
        for c in s.tests.iter().filter(unexpected).take(5) {
            let _ = writeln!(
                out,
                "      {} {}: {}",
                c.result.verdict.code(),
                c.result.name,
                ojd_judge::escape_terminal(&c.result.message)
            );
        }
        if let Some(d) = s
            .tests
            .iter()
            .filter(unexpected)
            .find_map(|c| c.result.diff.as_ref())
        {
            let _ = writeln!(
                out,
                "      {}",
                indent(ojd_judge::report::render_diff(d, color).trim_end(), 6)
            );
        }
    }
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

fn indent(text: &str, n: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(n)))
}

/// The changes since a baseline, one per line, verdict flips first.
fn render_baseline_diff(d: &BaselineDiff, color: bool) -> String {
    let plural = if d.changed.len() == 1 { "" } else { "s" };
    let head = format!(
        "baseline {}: {} verdict{plural} changed, {} removed, {} added, {} slower, {} near the limit",
        d.file,
        d.changed.len(),
        d.removed.len(),
        d.added.len(),
        d.slower.len(),
        d.near_limit.len()
    );
    let mut out = paint(&head, if d.fails() { BOLD_RED } else { BOLD }, color) + "\n";
    let row = |k: &super::Key| format!("{}  {}  {}", k.problem, k.submission, k.test);
    let mut line = |label: &str, style: Style, text: String| {
        let _ = writeln!(out, "  {}  {text}", paint(label, style, color));
    };
    for c in &d.changed {
        line(
            "changed",
            RED,
            format!(
                "{}  {} -> {}",
                row(&c.key),
                c.before.verdict,
                c.after.verdict
            ),
        );
    }
    for (k, r) in &d.removed {
        line(
            "removed",
            RED,
            format!("{}  (was {}, {} ms)", row(k), r.verdict, r.cpu_ms),
        );
    }
    for (k, r) in &d.added {
        line(
            "added  ",
            RED,
            format!("{}  (now {}, {} ms)", row(k), r.verdict, r.cpu_ms),
        );
    }
    for c in &d.slower {
        let pct = (c.after.cpu_ms as f64 / c.before.cpu_ms.max(1) as f64 - 1.0) * 100.0;
        let (a, b) = (c.before.cpu_ms, c.after.cpu_ms);
        line(
            "slower ",
            YELLOW,
            format!("{}  {a} ms -> {b} ms (+{pct:.0}%)", row(&c.key)),
        );
    }
    for c in &d.near_limit {
        let (b, a) = (&c.before, &c.after);
        let text = format!(
            "{}  {} {} ms -> {} {} ms (timing noise, not a failure)",
            row(&c.key),
            b.verdict,
            b.cpu_ms,
            a.verdict,
            a.cpu_ms
        );
        line("near the limit", YELLOW, text);
    }
    for p in &d.not_compared {
        line(
            "not compared",
            YELLOW,
            format!("{p} (not judged in this run)"),
        );
    }
    if d.fails() {
        out.push_str(
            "  (if these changes are intended, save the baseline again with --save-baseline)\n",
        );
    }
    out
}

fn summary(r: &VerifyReport, color: bool) -> String {
    let subs: Vec<&SubmissionReport> = r.problems.iter().flat_map(|p| &p.submissions).collect();
    let s = &r.stats;
    let mut what = Vec::new();
    let failed = subs.iter().filter(|s| !s.ok).count();
    let errors: usize = r.problems.iter().map(|p| p.errors.len()).sum();
    let judge_errors: usize = r.judge_errors.len()
        + r.problems
            .iter()
            .map(|p| p.judge_errors.len())
            .sum::<usize>();
    if judge_errors > 0 {
        what.push(format!(
            "{judge_errors} judge error{}",
            if judge_errors == 1 { "" } else { "s" }
        ));
    }
    if errors > 0 {
        what.push(format!(
            "{errors} package error{}",
            if errors == 1 { "" } else { "s" }
        ));
    }
    if failed > 0 {
        what.push(format!(
            "{failed} submission{} not as expected",
            if failed == 1 { "" } else { "s" }
        ));
    }
    if r.baseline.as_ref().is_some_and(BaselineDiff::fails) {
        what.push("verdicts differ from the baseline".to_string());
    }
    let mut verdict = if what.is_empty() {
        paint("all as expected", BOLD_GREEN, color)
    } else {
        paint(&what.join(", "), BOLD_RED, color)
    };
    let skipped: usize = r.problems.iter().map(|p| p.skipped.len()).sum();
    if skipped > 0 {
        let note =
            format!("; {skipped} skipped: language unavailable (--strict makes it an error)");
        verdict.push_str(&paint(&note, YELLOW, color));
    }
    let scale = scale_note(s.time_scale);
    let mut work = vec![format!(
        "{} test runs + {} alone for {} near the limit",
        s.test_runs, s.reruns, s.rerun_tests
    )];
    let mut count = |n: usize, what: &str| {
        let cells = if n == 1 { "cell" } else { "cells" };
        if n > 0 {
            work.push(format!("{n} {}", what.replace("cells", cells)));
        }
    };
    count(
        s.gen_check_cells,
        "cells of the reference judged on gen --check's runs",
    );
    count(
        s.starved_cells,
        "cells starved of CPU by the host's load, judged again alone",
    );
    count(s.reused_cells, "cells reused from the cache");
    count(
        s.derived_cells,
        "cells derived from the run at the package's own limits",
    );
    count(s.reused_gen_checks, "gen --check reused from the cache");
    count(s.not_run_cells, "cells not run after a clear TLE");
    format!(
        "verify: {} problems, {} submissions: {}{}; {}; {} compilations, {} workers{scale}, {:.1} s{}: {verdict}\n",
        r.problems.len(),
        subs.len(),
        promises(subs.len(), failed),
        r.baseline.as_ref().map(baseline_words).unwrap_or_default(),
        work.join(", "),
        s.compilations,
        s.workers,
        s.seconds,
        phase_note(&s.phases)
    )
}

/// "all 6 submissions keep their folders' promises", or how many break them.
fn promises(subs: usize, failed: usize) -> String {
    match (subs, failed) {
        (0, _) => "none judged".to_string(),
        (_, 0) => format!("all {subs} keep their folders' promises"),
        (_, f) => format!("{f} of {subs} break their folders' promises"),
    }
}

/// The baseline compare in words: what changed (fails), and what is only timing (does not).
fn baseline_words(d: &BaselineDiff) -> String {
    let mut out = match d.changed.len() + d.added.len() + d.removed.len() {
        0 => "; no verdict changed from the baseline".to_string(),
        _ => format!(
            "; {} verdict{} changed, {} added, {} removed since the baseline (failures)",
            d.changed.len(),
            if d.changed.len() == 1 { "" } else { "s" },
            d.added.len(),
            d.removed.len()
        ),
    };
    if !d.near_limit.is_empty() {
        out.push_str(&format!(
            ", {} flip{} at the limit only timing (listed, not failures)",
            d.near_limit.len(),
            if d.near_limit.len() == 1 { "" } else { "s" }
        ));
    }
    if !d.slower.is_empty() {
        out.push_str(&format!(", {} slower (timing only)", d.slower.len()));
    }
    out
}

/// " (compile 10.8 s, parallel 50.8 s, alone 14.4 s)": the wall time of each phase that ran one
/// after the other (the shares within "parallel" are in `--json`), or nothing when none is known.
fn phase_note(phases: &[crate::PhaseTime]) -> String {
    let parts: Vec<String> = phases
        .iter()
        .filter(|p| !p.phase.contains(':'))
        .map(|p| format!("{} {:.1} s", p.phase, p.seconds))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// The summary's note of a `--time-scale` other than 1 (none at 1, or unset in a report).
fn scale_note(f: f64) -> String {
    if f == 1.0 || f <= 0.0 {
        String::new()
    } else if f < 1.0 {
        format!(
            ", time scale {f}× (every limit ×{f}: as on a machine {} as slow)",
            times(1.0 / f)
        )
    } else {
        format!(
            ", time scale {f}× (every limit ×{f}: as on a machine {} as fast)",
            times(f)
        )
    }
}

/// "twice", or "3×", "1.25×".
fn times(x: f64) -> String {
    if x == 2.0 {
        "twice".into()
    } else {
        format!("{}×", (x * 100.0).round() / 100.0)
    }
}

/// One `<testcase>`: its name, time, and a failure or error (message, body) if any.
struct Case {
    name: String,
    seconds: f64,
    failure: Option<(String, String)>,
    error: Option<(String, String)>,
    /// Not run, and why (a language this host lacks).
    skipped: Option<String>,
    out: String,
}

/// JUnit XML: a test suite per problem, a test case per submission (failures carry the runs
/// that broke the promise, their diffs and the submission's baseline changes), plus a
/// `package` case for package or judge errors and a `baseline` case for baseline entries of
/// submissions that are gone.
pub fn junit(r: &VerifyReport) -> Result<String, quick_junit::SerializeError> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    use std::time::Duration;
    let mut report = Report::new("ojd verify");
    report.set_time(Duration::from_secs_f64(r.stats.seconds.max(0.0)));
    for p in &r.problems {
        let cases = cases(p, r.baseline.as_ref());
        let mut suite = TestSuite::new(p.problem.as_str());
        suite.set_time(Duration::from_secs_f64(
            cases.iter().map(|c| c.seconds).sum::<f64>(),
        ));
        for c in cases {
            let status = match (&c.failure, &c.error, &c.skipped) {
                (Some((message, body)), _, _) | (None, Some((message, body)), _) => {
                    let kind = if c.failure.is_some() {
                        NonSuccessKind::Failure
                    } else {
                        NonSuccessKind::Error
                    };
                    let mut s = TestCaseStatus::non_success(kind);
                    s.set_message(message.as_str())
                        .set_description(body.as_str());
                    s
                }
                (None, None, Some(why)) => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(why.as_str());
                    s
                }
                (None, None, None) => TestCaseStatus::success(),
            };
            let mut case = TestCase::new(c.name.as_str(), status);
            case.set_classname(p.problem.as_str())
                .set_time(Duration::from_secs_f64(c.seconds));
            if !c.out.is_empty() {
                case.set_system_out(c.out.as_str());
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

fn cases(p: &ProblemReport, baseline: Option<&BaselineDiff>) -> Vec<Case> {
    let mut cases = Vec::new();
    if !p.errors.is_empty() || !p.judge_errors.is_empty() {
        let all: Vec<&String> = p.judge_errors.iter().chain(&p.errors).collect();
        let first = all
            .first()
            .map(|e| e.lines().next().unwrap_or_default().to_string())
            .unwrap_or_default();
        let body = all
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        cases.push(Case {
            name: "package".into(),
            seconds: 0.0,
            failure: None,
            error: Some((first, body)),
            skipped: None,
            out: String::new(),
        });
    }
    for s in &p.submissions {
        cases.push(submission_case(p, s, baseline));
    }
    for s in &p.skipped {
        cases.push(Case {
            name: s.name.clone(),
            seconds: 0.0,
            failure: None,
            error: None,
            skipped: Some(format!("language {} unavailable: {}", s.language, s.reason)),
            out: String::new(),
        });
    }
    if let Some(d) = baseline {
        let gone: Vec<String> = d
            .removed
            .iter()
            .filter(|(k, _)| {
                k.problem == p.problem && !p.submissions.iter().any(|s| s.name == k.submission)
            })
            .map(|(k, r)| {
                format!(
                    "removed {} {} (was {}, {} ms)",
                    k.submission, k.test, r.verdict, r.cpu_ms
                )
            })
            .collect();
        if !gone.is_empty() {
            let message = format!(
                "{} baseline entries of submissions that are gone",
                gone.len()
            );
            cases.push(Case {
                name: "baseline".into(),
                seconds: 0.0,
                failure: Some((message, gone.join("\n"))),
                error: None,
                skipped: None,
                out: String::new(),
            });
        }
    }
    cases
}

fn submission_case(
    p: &ProblemReport,
    s: &SubmissionReport,
    baseline: Option<&BaselineDiff>,
) -> Case {
    let mut out = String::new();
    for c in &s.tests {
        let r = &c.result;
        let rerun = if c.not_run {
            " (not run: an earlier test was a clear TLE)"
        } else if c.reused {
            " (reused from the cache)"
        } else if c.derived {
            " (derived from the run at the package's own limits)"
        } else if c.rerun {
            " (judged alone)"
        } else if c.from_gen_check {
            " (judged on the run gen --check made of the reference)"
        } else {
            ""
        };
        let _ = write!(
            out,
            "{} {} cpu {} ms wall {} ms {} KiB{rerun}",
            r.name, r.verdict, r.cpu_ms, r.wall_ms, r.memory_kib
        );
        let _ = writeln!(
            out,
            "{}{}",
            if r.message.is_empty() { "" } else { ": " },
            r.message
        );
    }
    let mine = |k: &super::Key| k.problem == p.problem && k.submission == s.name;
    let mut changes = Vec::new();
    if let Some(d) = baseline {
        changes.extend(d.changed.iter().filter(|c| mine(&c.key)).map(|c| {
            format!(
                "{}: {} -> {}",
                c.key.test, c.before.verdict, c.after.verdict
            )
        }));
        changes.extend(
            d.removed
                .iter()
                .filter(|(k, _)| mine(k))
                .map(|(k, r)| format!("{}: removed (was {})", k.test, r.verdict)),
        );
        changes.extend(
            d.added
                .iter()
                .filter(|(k, _)| mine(k))
                .map(|(k, r)| format!("{}: added (now {})", k.test, r.verdict)),
        );
    }
    let mut failure = None;
    if !s.ok || !changes.is_empty() {
        let mut message = s.failures.join("; ");
        if !changes.is_empty() {
            message = [
                message,
                format!("{} change(s) from the baseline", changes.len()),
            ]
            .join("; ")
            .trim_start_matches("; ")
            .to_string();
        }
        let mut body = String::new();
        let mut plain = ProblemReport {
            submissions: vec![s.clone()],
            ..p.clone()
        };
        plain.errors.clear();
        details(&mut body, &plain, false);
        if !changes.is_empty() {
            let _ = writeln!(body, "baseline changes:\n{}", changes.join("\n"));
        }
        failure = Some((message, body));
    }
    let seconds = s.tests.iter().map(|c| c.result.wall_ms).sum::<u64>() as f64 / 1000.0;
    Case {
        name: s.name.clone(),
        seconds,
        failure,
        error: None,
        skipped: None,
        out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_each_phase_that_ran_in_turn() {
        let phase = |name: &str, seconds: f64| crate::PhaseTime {
            phase: name.into(),
            seconds,
            busy_seconds: seconds,
        };
        assert_eq!(phase_note(&[]), "");
        assert_eq!(
            phase_note(&[
                phase("compile", 10.84),
                phase("parallel", 50.8),
                phase("alone", 14.4),
                phase("parallel: gen --check", 16.4),
            ]),
            " (compile 10.8 s, parallel 50.8 s, alone 14.4 s)"
        );
    }

    #[test]
    fn the_summary_line_says_what_passed_changed_is_timing_and_was_reused() {
        use crate::baseline::{Change, Record};
        use crate::Key;
        let rec = |verdict, cpu_ms| Record { verdict, cpu_ms };
        let change = |before, after| Change {
            key: Key {
                problem: "p".into(),
                submission: "s".into(),
                test: "t".into(),
            },
            before,
            after,
        };
        let mut r = VerifyReport::default();
        r.stats.test_runs = 40;
        r.stats.workers = 2;
        r.stats.time_scale = 1.0;
        r.stats.reused_cells = 7;
        r.stats.derived_cells = 30;
        r.stats.not_run_cells = 12;
        r.stats.gen_check_cells = 9;
        r.stats.starved_cells = 1;
        r.baseline = Some(BaselineDiff {
            near_limit: vec![change(
                rec(Verdict::TimeLimitExceeded, 1500),
                rec(Verdict::Accepted, 900),
            )],
            ..Default::default()
        });
        let line = summary(&r, false);
        for part in [
            "all 0 keep",
            "none judged",
            "no verdict changed from the baseline",
            "1 flip at the limit only timing (listed, not failures)",
            "40 test runs + 0 alone for 0 near the limit",
            "7 cells reused from the cache",
            "30 cells derived from the run at the package's own limits",
            "12 cells not run after a clear TLE",
            "9 cells of the reference judged on gen --check's runs",
            "1 cell starved of CPU by the host's load, judged again alone",
            ": all as expected",
        ] {
            assert_eq!(
                line.contains(part),
                part != "all 0 keep",
                "{part:?} in {line}"
            );
        }
        r.baseline = Some(BaselineDiff {
            changed: vec![change(
                rec(Verdict::Accepted, 5),
                rec(Verdict::WrongAnswer, 5),
            )],
            ..Default::default()
        });
        let line = summary(&r, false);
        assert!(
            line.contains("1 verdict changed, 0 added, 0 removed since the baseline (failures)"),
            "{line}"
        );
        assert!(
            line.ends_with(": verdicts differ from the baseline\n"),
            "{line}"
        );
        assert_eq!(promises(6, 0), "all 6 keep their folders' promises");
        assert_eq!(promises(6, 2), "2 of 6 break their folders' promises");
    }

    #[test]
    fn scale_note_table() {
        for (f, want) in [
            (1.0, ""),
            (0.0, ""),
            (
                0.5,
                ", time scale 0.5× (every limit ×0.5: as on a machine twice as slow)",
            ),
            (
                2.0,
                ", time scale 2× (every limit ×2: as on a machine twice as fast)",
            ),
            (
                0.25,
                ", time scale 0.25× (every limit ×0.25: as on a machine 4× as slow)",
            ),
            (
                3.0,
                ", time scale 3× (every limit ×3: as on a machine 3× as fast)",
            ),
        ] {
            assert_eq!(scale_note(f), want, "{f}");
        }
    }

    #[test]
    fn colour_codes_only_when_asked() {
        let r = VerifyReport {
            warnings: vec!["isolation degraded".into()],
            ..Default::default()
        };
        let plain = render_text(&r, false);
        assert!(
            plain.starts_with("warning: isolation degraded\n"),
            "{plain:?}"
        );
        assert!(!plain.contains('\x1b'), "{plain:?}");
        let coloured = render_text(&r, true);
        assert!(
            coloured.starts_with("\x1b[33mwarning:\x1b[0m isolation degraded\n"),
            "{coloured:?}"
        );
        assert!(
            coloured.contains("\x1b[1m\x1b[32mall as expected\x1b[0m"),
            "{coloured:?}"
        );
    }

    #[test]
    fn junit_escapes_and_drops_control_characters() {
        let mut s = super::super::SubmissionReport {
            name: "wrong_answer/a<b>.c".into(),
            reference: false,
            expected: Verdict::WrongAnswer,
            promise: Default::default(),
            language: "c".into(),
            limit_ms: 1000,
            source_hash: 0,
            verdict: Verdict::Accepted,
            compile_output: String::new(),
            tests: Vec::new(),
            ok: false,
            failures: vec!["expected \"WA\" & got 'AC'\x1b[0m\x01".into()],
            timing_fragile: Vec::new(),
        };
        s.tests
            .push(super::super::Cell::judged(ojd_judge::TestResult {
                name: "01".into(),
                sample: false,
                verdict: Verdict::Accepted,
                cpu_ms: 5,
                wall_ms: 7,
                memory_kib: 100,
                exit: None,
                message: String::new(),
                diff: None,
            }));
        let r = VerifyReport {
            problems: vec![ProblemReport {
                problem: "p".into(),
                tests: vec!["01".into()],
                judged: true,
                submissions: vec![s],
                ..Default::default()
            }],
            ..Default::default()
        };
        let xml = junit(&r).unwrap();
        assert!(xml.contains("name=\"wrong_answer/a&lt;b&gt;.c\""), "{xml}");
        assert!(
            xml.contains("message=\"expected &quot;WA&quot; &amp; got &apos;AC&apos;\""),
            "{xml}"
        );
        assert!(!xml.contains('\x1b') && !xml.contains('\x01'), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), 1, "{xml}");
        assert!(xml.contains("tests=\"1\""), "{xml}");
        assert!(xml.contains("failures=\"1\""), "{xml}");
        assert!(xml.contains("01 AC cpu 5 ms wall 7 ms 100 KiB"), "{xml}");
    }
}

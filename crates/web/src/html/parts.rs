//! The pieces pages are made of, as maud templates (which escape every interpolated value):
//! verdict badges, times, result tables, diffs with the differing characters marked, the
//! submissions table and source listings.

use maud::{html, Markup};

use crate::text::utc_time;
use crate::view::{SubmissionView, SummaryView};
use ojd_judge::{Diff, TestResult, Verdict};
use ojd_service::contest::standings::points_text;
use ojd_service::contest::Feedback;
use ojd_service::SubmissionState as SubState;

/// A verdict (or the state while there is none) as a coloured badge.
pub(crate) fn badge(verdict: Option<Verdict>, state: SubState) -> Markup {
    match verdict {
        Some(v) => html! {
            span class={ "badge v-" (v.code()) } title=(v.name()) { (v.name()) }
        },
        None => html! {
            span.badge.pending {
                @if state == SubState::Judging { "Judging…" } @else { "Queued" }
            }
        },
    }
}

/// A time element: UTC in the text and tooltip; `site.js` shows it in the reader's zone.
pub(crate) fn time_el(ms: i64) -> Markup {
    let utc = utc_time(ms);
    html! { time datetime=(ms) title=(utc) { (utc) } }
}

pub(crate) fn kib(k: u64) -> String {
    ojd_judge::report::kib(k)
}

/// One diff: expected (−) and output (+) lines, differing characters in `<mark>`. `own`: the
/// viewer wrote the program ("your output"), else "program output".
pub(crate) fn diff(d: &Diff, own: bool) -> Markup {
    html! {
        div.diff {
            div.diff-head {
                "First difference at line " (d.line) ", column " (d.column) ". "
                span.legend {
                    span.del { "− expected" } " "
                    span.ins { @if own { "+ your output" } @else { "+ program output" } }
                }
            }
            div.scroll { table {
                @for l in &d.lines {
                    @let (class, sign) = match l.tag { '-' => ("del", "−"), '+' => ("ins", "+"), _ => ("same", " ") };
                    tr class=(class) {
                        td.ln { @if let Some(n) = l.expected_line { (n) } }
                        td.ln { @if let Some(n) = l.output_line { (n) } }
                        td.sign { (sign) }
                        td.code {
                            @for (emph, text) in &l.segments {
                                @let text = text.strip_suffix('\n').unwrap_or(text);
                                @if *emph { mark { (text) } } @else { (text) }
                            }
                        }
                    }
                }
                @if d.trimmed {
                    tr.same { td {} td {} td {} td.code.muted { "…" } }
                }
            } }
        }
    }
}

fn test_row(index: usize, name: &str, sample: bool, t: Option<&TestResult>) -> Markup {
    html! {
        tr id={ "t-" (index) } {
            td { (index + 1) }
            td { (name) @if sample { " " span.tag { "sample" } } }
            @match t {
                Some(t) => {
                    // The name, or on a phone the short code, so the details column fits.
                    td.v { span class={ "badge v-" (t.verdict.code()) } title=(t.verdict.name()) {
                        span.long { (t.verdict.name()) } span.short { (t.verdict.code()) }
                    } }
                    td.num.cpu { (t.cpu_ms) " ms" }
                    td.num.mem.opt { (kib(t.memory_kib)) }
                    td.msg { (t.message) }
                }
                None => {
                    td.v { span.badge.pending { "Waiting" } }
                    td.num.cpu {} td.num.mem.opt {} td.msg {}
                }
            }
        }
    }
}

/// How the score is shown: points where the problem has groups, else tests passed.
fn score_text(v: &SubmissionView, groups: bool) -> Option<String> {
    let verdict = v.info.verdict?;
    if verdict == Verdict::CompileError || verdict == Verdict::JudgeError {
        return None;
    }
    if groups {
        let milli = (v.info.score_milli).unwrap_or(u64::from(v.info.score.unwrap_or(0)) * 1000);
        return Some(format!("{} points", points_text(milli)));
    }
    if v.feedback.is_some() {
        // The contest's feedback policy hides some tests: a count of those shown would mislead.
        return None;
    }
    let passed = v
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Accepted)
        .count();
    Some(format!("passed {passed} of {} tests", v.tests.len()))
}

/// The results section of a submission page. While judging, rows for `tests` (name, sample)
/// are shown as waiting and `live.js` fills them in; once done, it fetches this section again.
/// `groups`: the problem scores by groups (points are shown, not a share of tests).
/// One scoring group as a submission's page shows it: its name, the points it earned, its
/// points.
pub(crate) struct GroupRow {
    pub(crate) name: String,
    /// Thousandths of a point.
    pub(crate) earned: u64,
    /// Thousandths of a point.
    pub(crate) points: u64,
}

pub(crate) fn results(
    v: &SubmissionView,
    tests: &[(String, bool)],
    groups: bool,
    group_rows: &[GroupRow],
) -> Markup {
    let done = v.info.state == SubState::Done;
    let ran = done && v.info.verdict != Some(Verdict::CompileError);
    let body = html! {
        div.summary {
            span #status { (badge(v.info.verdict, v.info.state)) }
            @if done {
                @if let Some(s) = score_text(v, groups) { span { (s) } }
                @if ran && !v.tests.is_empty() {
                    span { "max CPU " (v.info.max_cpu_ms.unwrap_or(0)) " ms" }
                    span { "max memory " (kib(v.info.max_memory_kib.unwrap_or(0))) }
                }
            }
        }
        @if v.info.verdict == Some(Verdict::JudgeError) {
            p.note { "The judge itself failed on this submission. This is not your fault: an admin has been told and can rejudge it." }
            @if let Some(m) = &v.judge_message { pre.out { (m) } }
        }
        @if !v.compile_output.trim().is_empty() {
            h2 { @if v.info.verdict == Some(Verdict::CompileError) { "Compiler output" } @else { "Compiler messages" } }
            pre.out { (v.compile_output) }
        }
        @if done && !group_rows.is_empty() && v.info.verdict != Some(Verdict::CompileError) {
            // Which group earned the points (a group scores when every test in it passes).
            table.list.groups #groups {
                thead { tr { th { "Group" } th.num { "Points" } } }
                tbody { @for g in group_rows {
                    tr class=(if g.earned > 0 { "earned" } else { "missed" }) {
                        td { (g.name) } td.num { (points_text(g.earned)) " / " (points_text(g.points)) }
                    }
                } }
            }
        }
        @if let Some(f) = v.feedback {
            p.muted #feedback-note { @match f {
                Feedback::Verdict => "This contest shows the final verdict only: no test results.",
                _ => "This contest shows the tests up to the first failing one.",
            } }
        }
        @if v.info.verdict != Some(Verdict::CompileError) && v.feedback != Some(Feedback::Verdict) {
            div.scroll { table.tests {
                thead { tr { th { "#" } th { "Test" } th { "Verdict" } th { "CPU" } th.opt { "Memory" } th.msg { "Details" } } }
                tbody {
                    @if done {
                        @for (i, t) in v.tests.iter().enumerate() { (test_row(i, &t.name, t.sample, Some(t))) }
                    } @else {
                        @for (i, (name, sample)) in tests.iter().enumerate() { (test_row(i, name, *sample, None)) }
                    }
                }
            } }
        }
        @for (i, t) in v.tests.iter().enumerate() {
            @if let Some(d) = &t.diff {
                h2 id={ "diff-" (i) } { "Test " (t.name) ": " (t.verdict.name()) }
                @if !t.message.is_empty() { p.muted { (t.message) } }
                (diff(d, v.own))
            }
        }
    };
    if done {
        html! { section #results { (body) } }
    } else {
        html! { section #live data-id=(v.info.id) { (body) } }
    }
}

/// A list of submissions as a table; `language` gives a language's display name.
pub(crate) fn submissions_table(
    rows: &[SummaryView],
    show_user: bool,
    language: &dyn Fn(&str) -> String,
) -> Markup {
    if rows.is_empty() {
        return html! { p.muted { "No submissions match." } };
    }
    html! {
        div.scroll { table.list.submissions {
            thead { tr {
                th { "#" }
                @if show_user { th { "User" } }
                th { "Problem" } th.opt { "Contest" } th.opt { "Language" } th { "Verdict" }
                th.num.opt { "Time" } th.num.opt { "Memory" } th.opt { "Submitted" }
            } }
            tbody {
                @for r in rows {
                    @let i = &r.info;
                    tr {
                        td { a href=(r.url) { (i.id) } }
                        @if show_user { td { (i.user) } }
                        td { a href={ "/problems/" (i.problem) } { (i.problem) } }
                        td.opt.contest { @match &r.contest {
                            Some(c) => a href={ "/contests/" (c) } { (c) },
                            None => span.muted { "practice" },
                        } }
                        td.opt { (language(&i.language)) }
                        td { a href=(r.url) { (badge(i.verdict, i.state)) }
                            @if let Some(p) = r.points { " " span.muted.points { (points_text(p)) } } }
                        td.num.opt { @if let Some(ms) = i.max_cpu_ms { (ms) " ms" } }
                        td.num.opt { @if let Some(k) = i.max_memory_kib { (kib(k)) } }
                        td.opt { (time_el(i.queued_at)) }
                    }
                }
            }
        } }
    }
}

/// Source code with line numbers (a table, so copying the code leaves the numbers behind).
pub(crate) fn source_listing(source: &str) -> Markup {
    html! {
        div.scroll { table.source {
            @for (n, line) in source.lines().enumerate() {
                tr { td.ln { (n + 1) } td.code { (line) } }
            }
        } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_judge::DiffLine;

    #[test]
    fn diff_marks_the_differing_characters() {
        let d = Diff {
            line: 2,
            column: 1,
            trimmed: false,
            lines: vec![
                DiffLine {
                    tag: '-',
                    expected_line: Some(2),
                    output_line: None,
                    segments: vec![(true, "5".into()), (false, "<\n".into())],
                },
                DiffLine {
                    tag: '+',
                    expected_line: None,
                    output_line: Some(2),
                    segments: vec![(true, "6".into()), (false, "<\n".into())],
                },
            ],
        };
        let html = diff(&d, true).into_string();
        assert!(
            html.contains("<td class=\"code\"><mark>5</mark>&lt;</td>"),
            "{html}"
        );
        assert!(html.contains("your output"), "{html}");
        assert!(diff(&d, false).into_string().contains("program output"));
    }
}

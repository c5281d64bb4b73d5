//! The pieces of every page, as maud templates (which escape every interpolated value): the
//! frame with its navigation, verdict badges, times, result tables, diffs with the differing
//! characters marked, and the submissions table. Pages are assembled in [`super::pages`] and
//! [`super::admin`]; no script is inline (the Content-Security-Policy forbids it).

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::auth::User;
use super::view::{SubmissionView, SummaryView};
use ojd_judge::verdict::{Diff, TestResult, Verdict};
use ojd_store::State as SubState;

/// The page frame: head, navigation (what the viewer may use), body.
pub fn page(title: &str, user: Option<&User>, body: Markup) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="zh-CN" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · ojd" }
                link rel="stylesheet" href="/static/style.css";
                script src="/static/site.js" defer {}
                script src="/static/live.js" defer {}
            }
            body {
                header { nav {
                    a.brand href="/" { "ojd" }
                    a href="/" { "Problems" }
                    a href="/contests" { "Contests" }
                    @match user {
                        Some(u) if u.admin => {
                            a href="/admin/rejudgings" { "Rejudgings" }
                            a href="/submissions" { "All submissions" }
                            a href="/admin/queue" { "Queue" }
                            a href="/admin/problems" { "Manage problems" }
                            a href="/admin/users" { "Users" }
                        }
                        Some(_) => { a href="/submissions" { "My submissions" } }
                        None => {}
                    }
                    span.spacer {}
                    @match user {
                        Some(u) => {
                            span.who { (u.name) }
                            @if u.admin { span.role { "admin" } }
                            form.inline method="post" action="/logout" {
                                button.link { "Log out" }
                            }
                        }
                        None => { a href="/login" { "Log in" } }
                    }
                } }
                main { (body) }
            }
        }
    };
    markup.into_string()
}

/// A verdict (or the state while there is none) as a coloured badge.
pub fn badge(verdict: Option<Verdict>, state: SubState) -> Markup {
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

/// Unix milliseconds as "2026-11-29 12:24:39 UTC".
pub fn time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A time element: UTC in the text and tooltip; `site.js` shows it in the reader's zone.
pub fn time_el(ms: i64) -> Markup {
    let utc = time(ms);
    html! { time datetime=(ms) title=(utc) { (utc) } }
}

pub fn kib(k: u64) -> String {
    ojd_judge::report::kib(k)
}

/// One diff: expected (−) and output (+) lines, differing characters in `<mark>`. `own`: the
/// viewer wrote the program ("your output"), else "program output".
pub fn diff(d: &Diff, own: bool) -> Markup {
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
        return Some(format!("{} points", v.info.score.unwrap_or(0)));
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
pub fn results(v: &SubmissionView, tests: &[(String, bool)], groups: bool) -> Markup {
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
        @if v.info.verdict != Some(Verdict::CompileError) {
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
pub fn submissions_table(
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
                th { "Problem" } th.opt { "Language" } th { "Verdict" }
                th.num.opt { "Time" } th.num.opt { "Memory" } th.opt { "Submitted" }
            } }
            tbody {
                @for r in rows {
                    @let i = &r.info;
                    tr {
                        td { a href=(r.url) { (i.id) } }
                        @if show_user { td { (i.user) } }
                        td { a href={ "/problems/" (i.problem) } { (i.problem) } }
                        td.opt { (language(&i.language)) }
                        td { a href=(r.url) { (badge(i.verdict, i.state)) } }
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
pub fn source_listing(source: &str) -> Markup {
    html! {
        div.scroll { table.source {
            @for (n, line) in source.lines().enumerate() {
                tr { td.ln { (n + 1) } td.code { (line) } }
            }
        } }
    }
}

/// Trusted HTML (rendered Markdown, already made safe) to put in a template.
pub fn trusted(html: &str) -> PreEscaped<&str> {
    PreEscaped(html)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_judge::verdict::DiffLine;

    #[test]
    fn templates_escape_and_time() {
        let who = User {
            name: "<script>x</script>".into(),
            admin: false,
        };
        let p = page("a<b", Some(&who), html! { p { "'&'" } });
        assert!(p.contains("&lt;script&gt;x&lt;/script&gt;"), "{p}");
        assert!(p.contains("a&lt;b · ojd"), "{p}");
        assert!(!p.contains("<script>x"), "{p}");
        assert_eq!(time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(time(1_798_547_079_000), "2026-12-29 12:24:39 UTC");
    }

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

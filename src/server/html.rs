//! HTML for the students' pages: escaping, the page frame, verdict badges, result tables and
//! diffs with the differing characters marked. Plain `format!` over escaped values, no template
//! engine: the pages are few and small, and every interpolated value goes through [`esc`].

use std::fmt::Write;

use super::api::SubmissionView;
use super::auth::User;
use crate::store::State as SubState;
use crate::verdict::{Diff, TestResult, Verdict};

/// Escapes text for HTML content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page frame: head, navigation, body.
pub fn page(title: &str, user: Option<&User>, body: &str) -> String {
    let who = match user {
        Some(u) => format!(
            "<span class=\"who\">{}{}</span><form method=\"post\" action=\"/logout\" class=\"inline\"><button class=\"link\">Log out</button></form>",
            esc(&u.name),
            if u.admin { " (admin)" } else { "" }
        ),
        None => "<a href=\"/login\">Log in</a>".to_string(),
    };
    format!(
        "<!doctype html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title} · ojd</title><link rel=\"stylesheet\" href=\"/static/style.css\"></head>\
<body><header><nav><a class=\"brand\" href=\"/\">ojd</a><a href=\"/\">Problems</a>\
<a href=\"/submissions\">My submissions</a><span class=\"spacer\"></span>{who}</nav></header>\
<main>{body}</main><script src=\"/static/live.js\" defer></script></body></html>\n",
        title = esc(title),
    )
}

/// A verdict (or the state while there is none) as a coloured badge.
pub fn badge(verdict: Option<Verdict>, state: SubState) -> String {
    match verdict {
        Some(v) => format!(
            "<span class=\"badge v-{}\" title=\"{}\">{}</span>",
            v.code(),
            v.name(),
            v.name()
        ),
        None => {
            let text = if state == SubState::Judging {
                "Judging…"
            } else {
                "Queued"
            };
            format!("<span class=\"badge pending\">{text}</span>")
        }
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

pub fn kib(k: u64) -> String {
    crate::report::kib(k)
}

/// One diff: a table of expected (−) and output (+) lines, differing characters in `<mark>`.
pub fn diff(d: &Diff) -> String {
    let mut out = format!(
        "<div class=\"diff\"><div class=\"diff-head\">First difference at line {}, column {}. \
<span class=\"legend\"><span class=\"del\">− expected</span> <span class=\"ins\">+ your output</span></span></div><table>",
        d.line, d.column
    );
    for l in &d.lines {
        let (class, sign) = match l.tag {
            '-' => ("del", "−"),
            '+' => ("ins", "+"),
            _ => ("same", " "),
        };
        let num = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
        let mut code = String::new();
        for (emph, text) in &l.segments {
            let text = text.strip_suffix('\n').unwrap_or(text);
            if *emph {
                let _ = write!(code, "<mark>{}</mark>", esc(text));
            } else {
                code.push_str(&esc(text));
            }
        }
        let _ = write!(
            out,
            "<tr class=\"{class}\"><td class=\"ln\">{}</td><td class=\"ln\">{}</td><td class=\"sign\">{sign}</td><td class=\"code\">{code}</td></tr>",
            num(l.expected_line),
            num(l.output_line)
        );
    }
    if d.trimmed {
        out.push_str(
            "<tr class=\"same\"><td></td><td></td><td></td><td class=\"code muted\">…</td></tr>",
        );
    }
    out.push_str("</table></div>");
    out
}

fn test_row(index: usize, name: &str, sample: bool, t: Option<&TestResult>) -> String {
    let label = format!(
        "{}{}",
        esc(name),
        if sample {
            " <span class=\"tag\">sample</span>"
        } else {
            ""
        }
    );
    match t {
        Some(t) => format!(
            "<tr id=\"t-{index}\"><td>{}</td><td>{label}</td><td class=\"v\">{}</td><td class=\"num cpu\">{} ms</td><td class=\"num mem\">{}</td><td class=\"msg\">{}</td></tr>",
            index + 1,
            badge(Some(t.verdict), SubState::Done),
            t.cpu_ms,
            kib(t.memory_kib),
            esc(&t.message)
        ),
        None => format!(
            "<tr id=\"t-{index}\"><td>{}</td><td>{label}</td><td class=\"v\"><span class=\"badge pending\">Waiting</span></td><td class=\"num cpu\"></td><td class=\"num mem\"></td><td class=\"msg\"></td></tr>",
            index + 1
        ),
    }
}

/// The results section of a submission page. While judging, rows for `tests` (name, sample)
/// are shown as waiting and `live.js` fills them in; once done, it fetches this section again.
pub fn results(v: &SubmissionView, tests: &[(String, bool)]) -> String {
    let done = v.info.state == SubState::Done;
    let mut out = if done {
        "<section id=\"results\">".to_string()
    } else {
        format!("<section id=\"live\" data-id=\"{}\">", v.info.id)
    };
    let _ = write!(
        out,
        "<div class=\"summary\"><span id=\"status\">{}</span>",
        badge(v.info.verdict, v.info.state)
    );
    if done {
        let _ = write!(
            out,
            "<span>score <b>{}</b></span><span>max CPU {} ms</span><span>max memory {}</span>",
            v.info.score.unwrap_or(0),
            v.info.max_cpu_ms.unwrap_or(0),
            kib(v.info.max_memory_kib.unwrap_or(0))
        );
    }
    out.push_str("</div>");
    if v.info.verdict == Some(Verdict::JudgeError) {
        out.push_str("<p class=\"note\">The judge itself failed on this submission. This is not your fault: an admin has been told and can rejudge it.</p>");
        if let Some(m) = &v.judge_message {
            let _ = write!(out, "<pre class=\"out\">{}</pre>", esc(m));
        }
    }
    if !v.compile_output.trim().is_empty() {
        let title = if v.info.verdict == Some(Verdict::CompileError) {
            "Compiler output"
        } else {
            "Compiler messages"
        };
        let _ = write!(
            out,
            "<h2>{title}</h2><pre class=\"out\">{}</pre>",
            esc(&v.compile_output)
        );
    }
    if v.info.verdict != Some(Verdict::CompileError) {
        out.push_str("<table class=\"tests\"><thead><tr><th>#</th><th>Test</th><th>Verdict</th><th>CPU</th><th>Memory</th><th>Details</th></tr></thead><tbody>");
        if done {
            for (i, t) in v.tests.iter().enumerate() {
                out.push_str(&test_row(i, &t.name, t.sample, Some(t)));
            }
        } else {
            for (i, (name, sample)) in tests.iter().enumerate() {
                out.push_str(&test_row(i, name, *sample, None));
            }
        }
        out.push_str("</tbody></table>");
    }
    for (i, t) in v.tests.iter().enumerate() {
        if let Some(d) = &t.diff {
            let _ = write!(
                out,
                "<h2 id=\"diff-{i}\">Test {}: {}</h2>",
                esc(&t.name),
                t.verdict.name()
            );
            if !t.message.is_empty() {
                let _ = write!(out, "<p class=\"muted\">{}</p>", esc(&t.message));
            }
            out.push_str(&diff(d));
        }
    }
    out.push_str("</section>");
    out
}

/// A list of submissions as a table.
pub fn submissions_table(rows: &[super::api::SummaryView], show_user: bool) -> String {
    if rows.is_empty() {
        return "<p class=\"muted\">No submissions yet.</p>".to_string();
    }
    let mut out = String::from("<table class=\"list\"><thead><tr><th>#</th>");
    if show_user {
        out.push_str("<th>User</th>");
    }
    out.push_str("<th>Problem</th><th>Language</th><th>Verdict</th><th>Score</th><th>Submitted</th></tr></thead><tbody>");
    for r in rows {
        let i = &r.info;
        let _ = write!(out, "<tr><td><a href=\"{}\">{}</a></td>", r.url, i.id);
        if show_user {
            let _ = write!(out, "<td>{}</td>", esc(&i.user));
        }
        let _ = write!(
            out,
            "<td><a href=\"/problems/{p}\">{p}</a></td><td>{}</td><td><a href=\"{}\">{}</a></td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&i.language),
            r.url,
            badge(i.verdict, i.state),
            i.score.map(|s| s.to_string()).unwrap_or_default(),
            time(i.queued_at),
            p = esc(&i.problem),
        );
    }
    out.push_str("</tbody></table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::DiffLine;

    #[test]
    fn escaping_and_time() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
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
        let html = diff(&d);
        assert!(
            html.contains("<td class=\"code\"><mark>5</mark>&lt;</td>"),
            "{html}"
        );
        assert!(html.contains("class=\"ins\""), "{html}");
    }
}

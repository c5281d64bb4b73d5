//! A statement's Markdown as safe HTML for the problem page.
//!
//! - Raw HTML in the Markdown is shown as text, never passed through.
//! - Links and images keep only `http:`, `https:` or relative targets; any other scheme
//!   (`javascript:`, `data:`, `vbscript:` …) turns the link into its plain text.
//! - Maths (`$…$`, `$$…$$`) is rendered on the server ([`math`]) into HTML with sub- and
//!   superscripts and the usual symbols; bare subscripts in prose such as `EX_i` or `a_{n}`
//!   get the same.
//! - The page shows the title, the limits, the source and the samples itself: the statement's
//!   own sample sections (a heading with "Sample" or "样例") and the lines that repeat source or
//!   limits before the first section are left out, so nothing appears twice.

mod math;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Whether a link or image target is allowed: http(s), or relative (no scheme).
fn safe_url(url: &str) -> bool {
    let u = url.trim();
    let lower = u.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return true;
    }
    // A scheme is letters, digits, `+ - .` before the first `:`, and before any `/ ? #`.
    let head = u.split(['/', '?', '#']).next().unwrap_or("");
    !head.contains(':') && !u.starts_with("//") && !u.chars().any(|c| c.is_control())
}

/// Renders `text` (Markdown) for the problem page; `drop_samples`: the page shows the samples
/// itself, so the statement's sample sections are left out.
pub fn render(text: &str, drop_samples: bool) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_MATH);
    let events: Vec<Event> = Parser::new_ext(text, options).collect();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    // Skipping state: inside a dropped section (until a heading of this level or higher).
    let mut skip_until: Option<HeadingLevel> = None;
    let mut first_h1_done = false;
    let mut seen_h2 = false;
    // Links whose target is refused: their End is dropped too.
    let mut refused_links: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let e = &events[i];
        if let Event::Start(Tag::Heading { level, .. }) = e {
            let title = heading_text(&events[i..]);
            if let Some(l) = skip_until {
                if *level <= l {
                    skip_until = None;
                }
            }
            if *level == HeadingLevel::H1 && !first_h1_done {
                // The page shows the title as its own heading.
                first_h1_done = true;
                i = skip_to_end(&events, i);
                continue;
            }
            if *level >= HeadingLevel::H2 {
                seen_h2 = true;
            }
            if skip_until.is_none() && drop_samples && is_sample_heading(&title) {
                skip_until = Some(*level);
            }
        }
        if skip_until.is_some() {
            i += 1;
            continue;
        }
        // Before the first section: paragraphs that repeat source or limits.
        if !seen_h2 && matches!(e, Event::Start(Tag::Paragraph)) {
            let para = paragraph_text(&events[i..]);
            if repeats_header(&para) {
                i = skip_to_end(&events, i);
                continue;
            }
        }
        match e {
            Event::Html(h) | Event::InlineHtml(h) => out.push(Event::Text(h.clone())),
            Event::Start(Tag::Link { dest_url, .. }) if !safe_url(dest_url) => {
                refused_links.push(true);
            }
            Event::Start(Tag::Link { .. }) => {
                refused_links.push(false);
                out.push(e.clone());
            }
            Event::End(TagEnd::Link) => {
                if !refused_links.pop().unwrap_or(false) {
                    out.push(e.clone());
                }
            }
            Event::Start(Tag::Image { dest_url, .. }) if !safe_url(dest_url) => {
                // The alt text stays, as text.
                let end = skip_to_end(&events, i);
                for inner in &events[i + 1..end.saturating_sub(1)] {
                    if let Event::Text(t) = inner {
                        out.push(Event::Text(t.clone()));
                    }
                }
                i = end;
                continue;
            }
            Event::InlineMath(m) => out.push(Event::InlineHtml(CowStr::from(format!(
                "<span class=\"math\">{}</span>",
                math::render(m)
            )))),
            Event::DisplayMath(m) => out.push(Event::Html(CowStr::from(format!(
                "<div class=\"math display\">{}</div>",
                math::render(m)
            )))),
            Event::Text(t) => match math::prose_subscripts(t) {
                Some(html) => out.push(Event::InlineHtml(CowStr::from(html))),
                None => out.push(e.clone()),
            },
            _ => out.push(e.clone()),
        }
        i += 1;
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    html
}

/// The index just past the end of the element that starts at `start`.
fn skip_to_end(events: &[Event], start: usize) -> usize {
    let mut depth = 0usize;
    for (k, e) in events.iter().enumerate().skip(start) {
        match e {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    events.len()
}

fn text_until_end(events: &[Event]) -> String {
    let end = skip_to_end(events, 0);
    let mut s = String::new();
    for e in &events[..end] {
        if let Event::Text(t) | Event::Code(t) = e {
            s.push_str(t);
        }
    }
    s
}

fn heading_text(events: &[Event]) -> String {
    text_until_end(events)
}

fn paragraph_text(events: &[Event]) -> String {
    text_until_end(events)
}

fn is_sample_heading(title: &str) -> bool {
    let t = title.to_lowercase();
    t.contains("sample") || t.contains("样例") || t.contains("example")
}

fn repeats_header(para: &str) -> bool {
    let p = para.trim_start();
    ["来源", "Source:", "时间限制", "Time limit", "内存限制"]
        .iter()
        .any(|prefix| p.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_escaped_and_markdown_kept() {
        let html = render(
            "# 题目\n\n<script>alert(1)</script>\n\nA <b>bold</b> `x<y`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            true,
        );
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("<code>x&lt;y</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
        assert!(
            !html.contains("题目"),
            "the title is the page's own heading: {html}"
        );
    }

    #[test]
    fn links_keep_only_safe_targets() {
        let cases = [
            ("[a](javascript:alert(1))", false),
            ("[a](JavaScript:alert(1))", false),
            ("[a](data:text/html,x)", false),
            ("[a](vbscript:x)", false),
            ("[a](//evil.example/x)", false),
            ("![i](javascript:alert(1))", false),
            ("[a](https://example.com/x)", true),
            ("[a](http://example.com/x)", true),
            ("[a](/problems/x)", true),
            ("[a](pic.png)", true),
            ("[a](#sec)", true),
        ];
        for (md, ok) in cases {
            let html = render(md, false);
            assert_eq!(
                html.contains("href=") || html.contains("src="),
                ok,
                "{md}: {html}"
            );
            assert!(
                !html.to_lowercase().contains("javascript:alert"),
                "{md}: {html}"
            );
        }
    }

    #[test]
    fn samples_and_repeated_header_lines_are_left_out() {
        let md = "# T\n\n来源 / Source: X\n\n时间限制 / Time limit: 1 s\n\nI/O: stdin\n\n## 题目描述\n\ntext\n\n## 样例\n\n```\n1 2\n```\n\n## 数据范围\n\nn ≤ 5\n\n## Sample\n\n### Input\n\n```\n1 2\n```\n\n## Notes\n\nend\n";
        let html = render(md, true);
        assert!(
            !html.contains("Source") && !html.contains("Time limit"),
            "{html}"
        );
        assert!(
            html.contains("I/O: stdin") && html.contains("数据范围") && html.contains("end"),
            "{html}"
        );
        assert!(!html.contains("1 2") && !html.contains("样例"), "{html}");
        let kept = render(md, false);
        assert!(
            kept.contains("1 2"),
            "no sample tests: the statement keeps its own"
        );
    }

    #[test]
    fn maths_and_subscripts() {
        let html = render("第 EX_i 行, $a_{i} \\le 10^9$ and snake_case stays", false);
        assert!(html.contains("EX<sub>i</sub>"), "{html}");
        assert!(html.contains("a<sub>i</sub> ≤ 10<sup>9</sup>"), "{html}");
        assert!(html.contains("snake_case"), "{html}");
    }

    #[test]
    fn markup_characters_in_maths_and_prose_are_escaped() {
        let html = render(r#"Let $a < b \& "c"$ where x_i < "y" & z."#, false);
        assert!(
            html.contains(r#"<span class="math">a &lt; b &amp; &quot;c&quot;</span>"#),
            "{html}"
        );
        // Markdown splits the prose at `<`: what follows is escaped by the Markdown renderer,
        // which leaves quotes alone in text.
        assert!(
            html.contains(r#"x<sub>i</sub> &lt; "y" &amp; z."#),
            "{html}"
        );
        assert!(!html.contains("< ") && !html.contains(" & "), "{html}");
    }
}

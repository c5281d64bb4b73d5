//! LaTeX statements as Markdown ([`latex_to_markdown`]): Kattis and Polygon packages write their
//! statements in LaTeX, ojd shows Markdown, so an import keeps the source and adds a readable
//! rendering (not a typesetter: math stays LaTeX between `$` signs).

/// A readable Markdown rendering of a Kattis LaTeX statement: `\problemname` and sections
/// become headings, emphasis and code their Markdown forms, lists bullets, tables rows of `|`,
/// math stays between `$` signs; unknown commands keep their argument text.
pub(crate) fn latex_to_markdown(tex: &str) -> String {
    let mut out = String::new();
    for raw in tex.lines() {
        let line = raw.trim_end();
        let t = line.trim_start();
        if t.starts_with('%') {
            continue;
        }
        let (heading, rest) = if let Some(r) = t.strip_prefix("\\problemname") {
            ("# ", r)
        } else if let Some(r) = t
            .strip_prefix("\\section*")
            .or_else(|| t.strip_prefix("\\section"))
        {
            ("## ", r)
        } else if let Some(r) = t
            .strip_prefix("\\subsection*")
            .or_else(|| t.strip_prefix("\\subsection"))
        {
            ("### ", r)
        } else {
            ("", t)
        };
        if !heading.is_empty() {
            out += heading;
            out += &inline(braced(rest).unwrap_or(rest));
            out += "\n";
            continue;
        }
        if t.starts_with("\\begin{") || t.starts_with("\\end{") {
            if t.starts_with("\\begin{tabular}") || t.starts_with("\\end{") {
                out.push('\n');
            }
            continue;
        }
        if matches!(
            t,
            "\\noindent" | "\\hline" | "\\centering" | "\\medskip" | "\\bigskip" | "\\smallskip"
        ) {
            continue;
        }
        if let Some(item) = t.strip_prefix("\\item") {
            out += "- ";
            out += inline(item.trim_start()).trim();
            out.push('\n');
            continue;
        }
        if t.contains(" & ")
            || t.ends_with("\\\\ \\hline")
            || t.ends_with("\\\\") && t.contains('&')
        {
            let row = t
                .trim_end_matches("\\hline")
                .trim_end()
                .trim_end_matches("\\\\")
                .trim_start_matches("\\hline");
            let cells: Vec<String> = row.split('&').map(|c| inline(c.trim())).collect();
            out += &format!("| {} |\n", cells.join(" | "));
            continue;
        }
        out += &inline(t);
        out.push('\n');
    }
    // Collapse runs of blank lines.
    let mut clean = String::new();
    let mut blank = 0;
    for l in out.lines() {
        if l.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        clean += l;
        clean.push('\n');
    }
    clean
}

/// The text of a `{...}` group at the start of `s` (after spaces).
fn braced(s: &str) -> Option<&str> {
    let s = s.trim_start().strip_prefix('{')?;
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Inline LaTeX: `\emph{x}` → `*x*`, `\textbf{x}` → `**x**`, `\texttt{x}` → `` `x` ``,
/// `\(x\)` → `$x$`, `\[x\]` → `$$x$$`, `~` → a space, `\\` → a line break; other commands with
/// an argument keep the argument.
fn inline(s: &str) -> String {
    let s = s
        .replace("\\(", "$")
        .replace("\\)", "$")
        .replace("\\[", "$$")
        .replace("\\]", "$$")
        .replace("``", "\u{201c}")
        .replace("''", "\u{201d}");
    let mut out = String::new();
    let mut rest = s.as_str();
    let mut in_math = false;
    while let Some(c) = rest.chars().next() {
        if c == '$' {
            in_math = !in_math;
            out.push(c);
            rest = &rest[1..];
            continue;
        }
        if in_math {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '~' {
            out.push(' ');
            rest = &rest[1..];
            continue;
        }
        if let Some(r) = rest.strip_prefix("\\\\") {
            out += "  \n";
            rest = r;
            continue;
        }
        if let Some(r) = rest.strip_prefix('\\') {
            let name: String = r.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            let after = &r[name.len()..];
            if name.is_empty() {
                // An escaped character: \% \& \$ \_ \{ \}.
                if let Some(ch) = after.chars().next() {
                    out.push(ch);
                    rest = &after[ch.len_utf8()..];
                } else {
                    rest = after;
                }
                continue;
            }
            if let Some(arg) = braced(after) {
                let consumed = after.len() - after.trim_start().len() + arg.len() + 2;
                let inner = inline(arg);
                out += &match name.as_str() {
                    "emph" | "textit" => format!("*{inner}*"),
                    "textbf" => format!("**{inner}**"),
                    "texttt" | "verb" => format!("`{inner}`"),
                    "url" | "href" => format!("<{inner}>"),
                    "illustration" | "includegraphics" | "label" | "ref" | "cite" => String::new(),
                    _ => inner,
                };
                rest = &after[consumed..];
            } else {
                rest = after;
            }
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_reads_as_markdown() {
        let tex = "\\problemname{Odd Echo}\n% a comment\nSay \\emph{every} word, \\textbf{twice}: \\texttt{ECHO}~now.\n\n\\section*{Input}\nAn integer \\(N\\) (\\(1 \\le N \\le 10\\)), 50\\% of them.\n\\begin{itemize}\n\\item first\n\\end{itemize}\n  Group & Points \\\\ \\hline\n";
        let md = latex_to_markdown(tex);
        assert!(md.starts_with("# Odd Echo\n"), "{md}");
        assert!(
            md.contains("Say *every* word, **twice**: `ECHO` now."),
            "{md}"
        );
        assert!(md.contains("## Input\n"), "{md}");
        assert!(
            md.contains("An integer $N$ ($1 \\le N \\le 10$), 50% of them."),
            "{md}"
        );
        assert!(md.contains("- first\n"), "{md}");
        assert!(md.contains("| Group | Points |"), "{md}");
        assert!(!md.contains("comment"));
    }
}

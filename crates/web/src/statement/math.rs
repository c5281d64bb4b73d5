//! Maths in statements, rendered on the server (no script, no CDN): a small subset of TeX —
//! sub- and superscripts, groups, `\frac`, `\sqrt`, text commands and the usual symbols —
//! into escaped HTML with `<sub>` and `<sup>`. Anything it does not know is shown as written.

use std::fmt::Write;

use maud::Escaper;

/// Appends `s` to `out` escaped for HTML, by maud's escaper: the same escaping as every
/// template of the site, so the rendered maths cannot differ from it.
fn esc(s: &str, out: &mut String) {
    // Writing into a String cannot fail.
    let _ = Escaper::new(out).write_str(s);
}

fn symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "le" | "leq" | "leqslant" => "≤",
        "ge" | "geq" | "geqslant" => "≥",
        "ne" | "neq" => "≠",
        "lt" => "<",
        "gt" => ">",
        "times" => "×",
        "cdot" => "·",
        "div" => "÷",
        "pm" => "±",
        "ldots" | "dots" | "cdots" => "…",
        "infty" => "∞",
        "sum" => "∑",
        "prod" => "∏",
        "to" | "rightarrow" => "→",
        "leftarrow" => "←",
        "Rightarrow" | "implies" => "⇒",
        "in" => "∈",
        "notin" => "∉",
        "subseteq" => "⊆",
        "subset" => "⊂",
        "cup" => "∪",
        "cap" => "∩",
        "forall" => "∀",
        "exists" => "∃",
        "lfloor" => "⌊",
        "rfloor" => "⌋",
        "lceil" => "⌈",
        "rceil" => "⌉",
        "mid" | "vert" | "lvert" | "rvert" => "|",
        "approx" => "≈",
        "equiv" => "≡",
        "oplus" => "⊕",
        "land" | "wedge" => "∧",
        "lor" | "vee" => "∨",
        "neg" | "lnot" => "¬",
        "alpha" => "α",
        "beta" => "β",
        "gamma" => "γ",
        "delta" => "δ",
        "epsilon" | "varepsilon" => "ε",
        "lambda" => "λ",
        "mu" => "μ",
        "pi" => "π",
        "sigma" => "σ",
        "phi" | "varphi" => "φ",
        "omega" => "ω",
        "Delta" => "Δ",
        "Sigma" => "Σ",
        "quad" | "qquad" => "\u{2003}",
        "," | ";" | ":" | " " => "\u{2009}",
        "{" => "{",
        "}" => "}",
        "%" => "%",
        "$" => "$",
        "#" => "#",
        "_" => "_",
        "&" => "&",
        "left" | "right" | "displaystyle" | "limits" => "",
        "max" => "max",
        "min" => "min",
        "log" => "log",
        "gcd" => "gcd",
        "bmod" | "mod" => " mod ",
        _ => return None,
    })
}

struct Tex<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
}

impl<'a> Tex<'a> {
    /// Renders until the end or an unmatched `}`.
    fn seq(&mut self, out: &mut String, depth: usize) {
        while self.at < self.s.len() {
            match self.s[self.at] {
                b'}' if depth > 0 => return,
                b'}' => {
                    out.push('}');
                    self.at += 1;
                }
                b'_' | b'^' => {
                    let tag = if self.s[self.at] == b'_' {
                        "sub"
                    } else {
                        "sup"
                    };
                    self.at += 1;
                    out.push_str(&format!("<{tag}>"));
                    self.atom(out, depth);
                    out.push_str(&format!("</{tag}>"));
                }
                _ => self.atom(out, depth),
            }
        }
    }

    fn group(&mut self, out: &mut String, depth: usize) {
        // At `{`.
        self.at += 1;
        self.seq(out, depth + 1);
        if self.at < self.s.len() {
            self.at += 1; // the `}`
        }
    }

    /// One unit: a group, a command with its arguments, or one character.
    fn atom(&mut self, out: &mut String, depth: usize) {
        if self.at >= self.s.len() {
            return;
        }
        if depth > 32 {
            // Too deep to follow: one character as written, so that the caller's loop moves on
            // (returning without consuming would spin it forever).
            self.literal(out);
            return;
        }
        match self.s[self.at] {
            b'{' => self.group(out, depth),
            b'\\' => {
                let start = self.at + 1;
                let mut end = start;
                while end < self.s.len() && self.s[end].is_ascii_alphabetic() {
                    end += 1;
                }
                if end == start && end < self.s.len() {
                    // A one-character command such as `\{` or `\,`: one character, not one
                    // byte (`\é` must not cut `é` in two).
                    end += self.text[start..].chars().next().map_or(1, char::len_utf8);
                }
                let name = &self.text[start..end];
                self.at = end;
                match name {
                    "frac" => {
                        out.push('(');
                        self.atom(out, depth + 1);
                        out.push_str(")/(");
                        self.atom(out, depth + 1);
                        out.push(')');
                    }
                    "sqrt" => {
                        out.push_str("√(");
                        self.atom(out, depth + 1);
                        out.push(')');
                    }
                    "text" | "mathrm" | "texttt" | "textbf" | "mathbf" | "operatorname"
                    | "mathit" | "textit" => self.atom(out, depth + 1),
                    _ => match symbol(name) {
                        Some(sym) => esc(sym, out),
                        None => esc(&format!("\\{name}"), out),
                    },
                }
                // Spaces after a command name only end it.
                while self.at < self.s.len()
                    && self.s[self.at] == b' '
                    && name.chars().all(|c| c.is_ascii_alphabetic())
                {
                    self.at += 1;
                    if !out.ends_with(' ') && symbol(name).is_some_and(|s| !s.is_empty()) {
                        out.push(' ');
                    }
                }
            }
            _ => self.literal(out),
        }
    }

    /// The character at the cursor, as written.
    fn literal(&mut self, out: &mut String) {
        let c = self.text[self.at..].chars().next().unwrap_or(' ');
        self.at += c.len_utf8();
        let mut buf = [0u8; 4];
        esc(c.encode_utf8(&mut buf), out);
    }
}

/// TeX (the inside of `$…$`) as escaped HTML.
pub(crate) fn render(tex: &str) -> String {
    let mut out = String::new();
    let mut t = Tex {
        s: tex.as_bytes(),
        text: tex,
        at: 0,
    };
    t.seq(&mut out, 0);
    out
}

/// Prose with bare subscripts (`EX_i`, `a_1`, `x_{n}`) as escaped HTML, or `None` when the
/// text has none (identifiers such as `snake_case` are left alone).
pub(crate) fn prose_subscripts(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut last = 0;
    let mut found = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'_' || i == 0 {
            i += 1;
            continue;
        }
        // The base: 1 to 4 ASCII letters starting at a word boundary.
        let mut start = i;
        while start > 0 && b[start - 1].is_ascii_alphabetic() {
            start -= 1;
        }
        let base_len = i - start;
        let bounded_left =
            start == 0 || !(b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_');
        // The subscript: one letter or digit followed by a boundary, or `{…}`.
        let (sub_start, sub_end, next) = if b.get(i + 1) == Some(&b'{') {
            match text[i + 2..].find('}') {
                Some(k) if k > 0 && k <= 16 => (i + 2, i + 2 + k, i + 3 + k),
                _ => (0, 0, 0),
            }
        } else if b.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric())
            && b.get(i + 2)
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        {
            (i + 1, i + 2, i + 2)
        } else {
            (0, 0, 0)
        };
        if (1..=4).contains(&base_len) && bounded_left && next > 0 {
            esc(&text[last..i], &mut out);
            out.push_str("<sub>");
            esc(&text[sub_start..sub_end], &mut out);
            out.push_str("</sub>");
            last = next;
            i = next;
            found = true;
        } else {
            i += 1;
        }
    }
    if !found {
        return None;
    }
    esc(&text[last..], &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tex_subset() {
        let cases = [
            ("a_{i} \\le 10^9", "a<sub>i</sub> ≤ 10<sup>9</sup>"),
            ("x_1 + y^{2k}", "x<sub>1</sub> + y<sup>2k</sup>"),
            ("1 \\le n, m \\le 20", "1 ≤ n, m ≤ 20"),
            ("\\frac{a}{b}", "(a)/(b)"),
            ("a<b", "a&lt;b"),
            ("\\unknown", "\\unknown"),
            ("\\text{EX}_i", "EX<sub>i</sub>"),
        ];
        for (tex, want) in cases {
            assert_eq!(render(tex), want, "{tex}");
        }
    }

    #[test]
    fn a_command_of_one_multibyte_character_is_shown_as_written() {
        assert_eq!(render("\\é"), "\\é");
        assert_eq!(render("a\\€b"), "a\\€b");
        assert_eq!(render("x_\\я^\\😀"), "x<sub>\\я</sub><sup>\\😀</sup>");
        assert_eq!(render("\\"), "\\");
    }

    #[test]
    fn groups_nested_past_the_limit_end() {
        // Past the depth limit the rest is shown as written, and rendering ends.
        let deep = format!("{}a{}", "{".repeat(40), "}".repeat(40));
        let html = render(&deep);
        assert!(html.contains('a'), "{html}");
        let unclosed = "{_".repeat(100);
        render(&unclosed);
        let carets = "^".repeat(100_000);
        render(&carets);
    }

    #[test]
    fn prose() {
        assert_eq!(
            prose_subscripts("第 EX_i 行第 EY_i 列").as_deref(),
            Some("第 EX<sub>i</sub> 行第 EY<sub>i</sub> 列")
        );
        assert_eq!(
            prose_subscripts("a_{n+1} <").as_deref(),
            Some("a<sub>n+1</sub> &lt;")
        );
        assert_eq!(prose_subscripts("snake_case and my_id"), None);
        assert_eq!(prose_subscripts("no subscripts"), None);
    }

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            render(r#"a<b \& "c" \lt d"#),
            "a&lt;b &amp; &quot;c&quot; &lt; d"
        );
        assert_eq!(
            render(r#"x_{"<&>"}"#),
            "x<sub>&quot;&lt;&amp;&gt;&quot;</sub>"
        );
        assert_eq!(
            prose_subscripts(r#"x_i < "y" & z_{"&<}"#).as_deref(),
            Some("x<sub>i</sub> &lt; &quot;y&quot; &amp; z<sub>&quot;&amp;&lt;</sub>")
        );
    }
}

//! The entry class of a Java source, found as Kattis does: the public top-level class (whose
//! name the file must bear), else the top-level class declaring `main`, else `Main`; with its
//! package, if the source declares one.

/// The fully qualified name of the class to run, e.g. `Main` or `contest.Solution`.
pub(crate) fn main_class(source: &str) -> String {
    let code = strip(source);
    let tokens = tokenize(&code);
    let package = tokens
        .iter()
        .position(|t| t.text == "package" && t.depth == 0)
        .map(|i| {
            tokens[i + 1..]
                .iter()
                .take_while(|t| t.text != ";")
                .map(|t| t.text)
                .collect::<String>()
        })
        .filter(|p| !p.is_empty());
    let class = public_class(&tokens)
        .or_else(|| class_with_main(&tokens))
        .unwrap_or("Main");
    match package {
        Some(p) => format!("{p}.{class}"),
        None => class.to_string(),
    }
}

/// Whether a top-level class of the source declares a `static` `main` method.
pub(crate) fn declares_main(source: &str) -> bool {
    class_with_main(&tokenize(&strip(source))).is_some()
}

/// The simple name of the class (the file must be named `<simple>.java`).
pub(crate) fn simple_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

struct Token<'a> {
    text: &'a str,
    /// Brace depth before the token.
    depth: u32,
}

const TYPE_WORDS: &[&str] = &["class", "interface", "enum", "record"];

fn public_class<'a>(tokens: &[Token<'a>]) -> Option<&'a str> {
    for (i, t) in tokens.iter().enumerate() {
        if t.depth != 0 || !TYPE_WORDS.contains(&t.text) {
            continue;
        }
        let modifiers = tokens[..i]
            .iter()
            .rev()
            .take_while(|m| m.depth == 0 && !matches!(m.text, ";" | "}" | "{"));
        if modifiers.into_iter().any(|m| m.text == "public") {
            return tokens.get(i + 1).map(|n| n.text).filter(|n| is_ident(n));
        }
    }
    None
}

fn class_with_main<'a>(tokens: &[Token<'a>]) -> Option<&'a str> {
    let mut current = None;
    for (i, t) in tokens.iter().enumerate() {
        if t.depth == 0 && TYPE_WORDS.contains(&t.text) {
            current = tokens.get(i + 1).map(|n| n.text).filter(|n| is_ident(n));
        }
        if t.depth == 1
            && t.text == "main"
            && tokens.get(i + 1).is_some_and(|n| n.text == "(")
            && tokens[..i].iter().rev().take(4).any(|m| m.text == "static")
        {
            return current;
        }
    }
    None
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

fn tokenize(code: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut start = None;
    for (i, c) in code.char_indices() {
        let word = c.is_alphanumeric() || c == '_' || c == '$';
        if word {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(Token {
                text: &code[s..i],
                depth,
            });
        }
        if c.is_whitespace() {
            continue;
        }
        let text = &code[i..i + c.len_utf8()];
        if c == '}' {
            depth = depth.saturating_sub(1);
        }
        out.push(Token { text, depth });
        if c == '{' {
            depth += 1;
        }
    }
    if let Some(s) = start {
        out.push(Token {
            text: &code[s..],
            depth,
        });
    }
    out
}

/// The source with comments, string and character literals replaced by spaces.
fn strip(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
            out.push(b' ');
        } else if b[i..].starts_with(b"\"\"\"") {
            i += 3;
            while i < b.len() && !b[i..].starts_with(b"\"\"\"") {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 3;
            out.push(b' ');
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            i += 1;
            while i < b.len() && b[i] != q && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(b' ');
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    // Only ASCII bytes were removed or added, so the rest stays valid UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_classes() {
        let table = [
            ("public class Main { public static void main(String[] a) {} }", "Main"),
            (
                "import java.util.*;\n// public class Fake {\nclass Helper {}\npublic final class Sol { static class Inner {} }",
                "Sol",
            ),
            ("/* public class A */ class B { public static void main(String[] x) {} }", "B"),
            (
                "class Pair {}\nclass Runner { String s = \"public class Q {\"; static public void main(String[] a) {} }",
                "Runner",
            ),
            ("package contest.a;\npublic class Kattio {}", "contest.a.Kattio"),
            ("class Nothing {}", "Main"),
            ("public record Point(int x, int y) {}", "Point"),
            ("class A { public class Inner {} }\npublic class Outer {}", "Outer"),
        ];
        for (src, want) in table {
            assert_eq!(main_class(src), want, "{src}");
        }
        assert_eq!(simple_name("contest.a.Kattio"), "Kattio");
        assert_eq!(simple_name("Main"), "Main");
    }
}

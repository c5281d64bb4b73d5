//! Terminal-safe printing of untrusted text (program output, diffs, compiler and checker
//! messages): [`terminal`] shows control characters as visible escapes, so a submission cannot
//! move the cursor, clear the screen, retitle the window or hide text in the operator's
//! terminal. Line feeds and tabs are kept; everything else below U+0020, DEL, the C1 controls
//! (U+0080–U+009F, which some terminals obey as escape sequences) and the bidirectional
//! overrides that reorder what is shown (U+202A–U+202E, U+2066–U+2069) are written as `\xHH` or
//! `\u{HHHH}`.

use std::borrow::Cow;

fn unsafe_char(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `text` with control characters escaped (borrowed when there are none).
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if c == '\r' {
            out.push_str("\\r");
        } else if (c as u32) < 0x100 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_not_obeyed() {
        let cases = [
            ("plain text\n\twith tab", "plain text\n\twith tab"),
            ("\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07"),
            ("a\rb", "a\\rb"),
            ("\u{9b}31m", "\\x9b31m"),
            ("x\u{202e}gnp.exe", "x\\u{202e}gnp.exe"),
            ("中文 ok", "中文 ok"),
            ("del\u{7f}", "del\\x7f"),
        ];
        for (input, want) in cases {
            assert_eq!(terminal(input), want, "{input:?}");
        }
        assert!(matches!(terminal("fine"), Cow::Borrowed(_)));
    }
}

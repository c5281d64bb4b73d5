//! The text rules every comparison of an output with its answer shares, the checkers' and the
//! diffs': a UTF-8 BOM and CRLF (or lone CR) line ends are never a difference, so a diff never
//! shows one that no checker would see.

/// Strips a UTF-8 BOM and turns CRLF (and lone CR) into LF.
pub(crate) fn normalize(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    if !data.contains(&b'\r') {
        return std::borrow::Cow::Borrowed(data);
    }
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\r' {
            out.push(b'\n');
            if data.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else {
            out.push(data[i]);
        }
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_line_ends() {
        assert_eq!(&*normalize(b"\xEF\xBB\xBFa\r\nb\rc\n"), b"a\nb\nc\n");
        assert!(matches!(
            normalize(b"plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}

//! Small file helpers shared by the judge, the generators and the pages.

use std::path::Path;

/// Reads at most `limit` bytes of a text file, marking a cut. A missing or unreadable file reads
/// as empty: callers use this for logs and previews, where absence is not an error.
pub fn read_capped(path: &Path, limit: u64) -> String {
    let Ok(f) = std::fs::File::open(path) else {
        return String::new();
    };
    let mut buf = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(f, limit + 1), &mut buf);
    let cut = buf.len() as u64 > limit;
    buf.truncate(limit as usize);
    let mut s = String::from_utf8_lossy(&buf).into_owned();
    if cut {
        s.push_str("\n… (truncated)\n");
    }
    s
}

/// Reads at most the last `limit` bytes of a text file: where a program's message ends (a
/// traceback's exception, the last thing a checker said). Missing or unreadable reads as empty.
pub fn read_tail(path: &Path, limit: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > limit && f.seek(SeekFrom::Start(len - limit)).is_err() {
        return String::new();
    }
    let mut buf = Vec::new();
    let _ = f.take(limit).read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Sets a file's permission bits.
pub(crate) fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_capped_marks_the_cut() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, "abcdef").unwrap();
        assert_eq!(read_capped(&p, 6), "abcdef");
        assert_eq!(read_capped(&p, 3), "abc\n… (truncated)\n");
        assert_eq!(read_capped(&d.path().join("missing"), 3), "");
        assert_eq!(read_tail(&p, 3), "def");
        assert_eq!(read_tail(&p, 10), "abcdef");
        assert_eq!(read_tail(&d.path().join("missing"), 3), "");
    }
}

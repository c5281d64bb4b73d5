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
///
/// What it reads was written by a package's program (a checker's, validator's or interactor's
/// message, in a folder it could write), so only a regular file is read: a link is never
/// followed (it could name a host file, and the judge reads as root) and a FIFO is never waited
/// on; either reads as empty.
pub(crate) fn read_tail(path: &Path, limit: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(mut f) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    else {
        return String::new();
    };
    let Ok(meta) = f.metadata() else {
        return String::new();
    };
    if !meta.is_file() {
        return String::new();
    }
    let len = meta.len();
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

    /// A message file a package's program left as a link or a FIFO is never followed nor
    /// waited on: it reads as empty.
    #[test]
    fn read_tail_reads_regular_files_only() {
        let d = tempfile::tempdir().unwrap();
        let secret = d.path().join("secret");
        std::fs::write(&secret, "host secret").unwrap();
        let link = d.path().join("teammessage.txt");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        assert_eq!(read_tail(&link, 100), "");
        let fifo = d.path().join("judgemessage.txt");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Without O_NONBLOCK and the file-type check this open would wait for a writer for ever.
        assert_eq!(read_tail(&fifo, 100), "");
        assert_eq!(read_tail(&secret, 100), "host secret");
    }
}

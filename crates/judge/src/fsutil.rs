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

/// Flags of a folder opened to be walked: never through a link.
fn dir_flags() -> rustix::fs::OFlags {
    use rustix::fs::OFlags;
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Opens the folder `name` in `dir`; one that its maker shut (mode 0) is opened up first.
fn open_dir_at(
    dir: rustix::fd::BorrowedFd<'_>,
    name: &std::ffi::CStr,
) -> std::io::Result<rustix::fd::OwnedFd> {
    use rustix::fs::{chmodat, openat, AtFlags, Mode};
    match openat(dir, name, dir_flags(), Mode::empty()) {
        Err(rustix::io::Errno::ACCESS) => {
            chmodat(dir, name, Mode::from_raw_mode(0o700), AtFlags::empty())?;
            Ok(openat(dir, name, dir_flags(), Mode::empty())?)
        }
        r => Ok(r?),
    }
}

/// Whether the entry `name` of `dir` is a folder (not a link to one).
fn is_dir_entry(
    dir: rustix::fd::BorrowedFd<'_>,
    entry: &rustix::fs::DirEntry,
) -> std::io::Result<bool> {
    use rustix::fs::{statat, AtFlags, FileType};
    Ok(match entry.file_type() {
        FileType::Directory => true,
        FileType::Unknown => {
            let st = statat(dir, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)?;
            FileType::from_raw_mode(st.st_mode).is_dir()
        }
        _ => false,
    })
}

/// Removes `path` and everything under it, without recursion and without following a link:
/// the tree may have been built by a sandboxed program (a validator's feedback folder), which
/// can make it any depth. `std::fs::remove_dir_all` recurses once per level and overflows the
/// thread's stack on a chain of 70,000 folders; paths that long are refused by the kernel too.
///
/// Every step is relative to an open folder (`openat`, `unlinkat`), so no path grows with the
/// depth, and one folder is open at a time: the walk goes down by name and back up by `..`,
/// checking that `..` is the folder it came from (by device and inode), so a tree moved while
/// it is removed stops the walk instead of leading it elsewhere. Missing is success.
pub(crate) fn remove_tree(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(m) if !m.is_dir() => return std::fs::remove_file(path),
        Ok(_) => {}
    }
    let root = rustix::fs::open(path, dir_flags(), rustix::fs::Mode::empty())?;
    empty_dir(root)?;
    std::fs::remove_dir(path)
}

/// A folder's identity: its device and inode.
fn identity(fd: &rustix::fd::OwnedFd) -> std::io::Result<(u64, u64)> {
    let st = rustix::fs::fstat(fd)?;
    Ok((st.st_dev, st.st_ino))
}

/// Removes everything inside the open folder `root` (see [`remove_tree`]).
fn empty_dir(root: rustix::fd::OwnedFd) -> std::io::Result<()> {
    use rustix::fs::{openat, unlinkat, AtFlags, Dir, Mode};
    use rustix::io::Errno;
    use std::ffi::CString;
    let top = identity(&root)?;
    // The folders entered below `root`: each one's name in the one before, and its identity.
    let mut below: Vec<(CString, (u64, u64))> = Vec::new();
    let mut here = root;
    loop {
        // One pass: files and links go; the first folder found is entered.
        let mut sub: Option<CString> = None;
        for entry in Dir::read_from(&here)? {
            let entry = entry?;
            let name = entry.file_name();
            if name == c"." || name == c".." {
                continue;
            }
            if is_dir_entry(rustix::fd::AsFd::as_fd(&here), &entry)? {
                sub = Some(name.to_owned());
                break;
            }
            match unlinkat(&here, name, AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if let Some(name) = sub {
            let child = open_dir_at(rustix::fd::AsFd::as_fd(&here), &name)?;
            below.push((name, identity(&child)?));
            here = child;
            continue;
        }
        // `here` is empty: back up one level and remove it.
        let Some((name, _)) = below.pop() else {
            return Ok(());
        };
        let parent = openat(&here, c"..", dir_flags(), Mode::empty())?;
        let expected = below.last().map_or(top, |(_, id)| *id);
        if identity(&parent)? != expected {
            return Err(std::io::Error::other(
                "the tree was moved while it was being removed",
            ));
        }
        here = parent;
        unlinkat(&here, &name, AtFlags::REMOVEDIR)?;
    }
}

/// What a tree built by a sandboxed program may hold at most: it is read and copied by the
/// judge (as root), so its shape is bounded before anything walks it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TreeCaps {
    /// Levels of folders below the top.
    pub(crate) depth: usize,
    /// Files, folders and links, all counted.
    pub(crate) inodes: u64,
    /// Bytes of the files' contents.
    pub(crate) bytes: u64,
}

/// Checks the tree at `path` against `caps` without recursion or following links, and without
/// walking past the first cap it breaks; `Err` says which cap and where (relative to `path`).
/// A missing `path` is an empty tree.
pub(crate) fn check_tree(path: &Path, caps: TreeCaps) -> Result<(), String> {
    use rustix::fd::AsFd;
    use rustix::fs::{statat, AtFlags, Dir, FileType};
    let io = |e: std::io::Error| format!("{} cannot be read: {e}", path.display());
    let root = match rustix::fs::open(path, dir_flags(), rustix::fs::Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(()),
        Err(e) => return Err(io(e.into())),
    };
    // Depth-first, one open folder (and its listing) per level: at most `caps.depth + 1`.
    let mut stack: Vec<(rustix::fd::OwnedFd, Dir, String)> = Vec::new();
    let listing = Dir::read_from(&root).map_err(|e| io(e.into()))?;
    stack.push((root, listing, String::new()));
    let (mut inodes, mut bytes) = (0u64, 0u64);
    loop {
        let depth = stack.len();
        let Some((fd, dir, at)) = stack.last_mut() else {
            return Ok(());
        };
        let Some(entry) = dir.next() else {
            stack.pop();
            continue;
        };
        let entry = entry.map_err(|e| io(e.into()))?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        let rel = format!("{at}{}", name.to_string_lossy());
        inodes += 1;
        if inodes > caps.inodes {
            return Err(format!(
                "holds more than {} files and folders (at {rel})",
                caps.inodes
            ));
        }
        let st = statat(&*fd, name, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| io(e.into()))?;
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => {
                if depth > caps.depth {
                    return Err(format!(
                        "is more than {} folders deep (at {rel})",
                        caps.depth
                    ));
                }
                let sub = open_dir_at(fd.as_fd(), name).map_err(io)?;
                let listing = Dir::read_from(&sub).map_err(|e| io(e.into()))?;
                stack.push((sub, listing, format!("{rel}/")));
            }
            _ => {
                bytes = bytes.saturating_add(u64::try_from(st.st_size).unwrap_or(0));
                if bytes > caps.bytes {
                    return Err(format!("holds more than {} bytes (at {rel})", caps.bytes));
                }
            }
        }
    }
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

    /// A chain of `levels` folders `d/d/…` under `top`, a file at its bottom, built the way a
    /// validator can (one level at a time, relative to the last).
    fn chain(top: &Path, levels: usize) {
        use rustix::fs::{mkdirat, openat, Mode, OFlags};
        std::fs::create_dir_all(top).unwrap();
        let mut fd = rustix::fs::open(top, dir_flags(), Mode::empty()).unwrap();
        for _ in 0..levels {
            mkdirat(&fd, "d", Mode::from_raw_mode(0o755)).unwrap();
            fd = openat(&fd, "d", dir_flags(), Mode::empty()).unwrap();
        }
        openat(
            &fd,
            "f",
            OFlags::CREATE | OFlags::WRONLY,
            Mode::from_raw_mode(0o644),
        )
        .unwrap();
    }

    /// 20,000 levels on a 256 KiB stack: `std::fs::remove_dir_all` recurses once per level and
    /// overflows it (70,000 levels overflowed a judging thread's 8 MiB stack), and the paths
    /// are far past the kernel's limit; the walk here uses neither. In memory when the host
    /// has a tmpfs at /dev/shm: a disk's journal can take milliseconds per removed folder.
    #[test]
    fn a_chain_of_folders_far_deeper_than_the_stack_is_checked_and_removed() {
        let shm = Path::new("/dev/shm");
        let d = if shm.is_dir() {
            tempfile::tempdir_in(shm).unwrap()
        } else {
            tempfile::tempdir().unwrap()
        };
        let top = d.path().join("feedback");
        chain(&top, 20_000);
        let caps = TreeCaps {
            depth: 16,
            inodes: 1 << 20,
            bytes: 1 << 20,
        };
        let t = top.clone();
        let (checked, removed) = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || (check_tree(&t, caps), remove_tree(&t)))
            .unwrap()
            .join()
            .unwrap();
        let why = checked.unwrap_err();
        assert!(why.contains("more than 16 folders deep"), "{why}");
        removed.unwrap();
        assert!(!top.exists());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_tree_is_checked_against_each_cap_and_removed_without_following_links() {
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), "host file").unwrap();
        let top = d.path().join("tree");
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        for i in 0..50 {
            std::fs::write(top.join(format!("a/f{i}")), "0123456789").unwrap();
        }
        std::os::unix::fs::symlink(&outside, top.join("a/b/link")).unwrap();
        // A folder its maker shut.
        std::fs::create_dir(top.join("a/shut")).unwrap();
        std::fs::write(top.join("a/shut/x"), "x").unwrap();
        set_mode(&top.join("a/shut"), 0).unwrap();
        let caps = TreeCaps {
            depth: 4,
            inodes: 100,
            bytes: 1000,
        };
        check_tree(&top, caps).unwrap();
        let few = check_tree(&top, TreeCaps { inodes: 20, ..caps }).unwrap_err();
        assert!(few.contains("more than 20 files"), "{few}");
        let small = check_tree(&top, TreeCaps { bytes: 100, ..caps }).unwrap_err();
        assert!(small.contains("more than 100 bytes"), "{small}");
        let shallow = check_tree(&top, TreeCaps { depth: 1, ..caps }).unwrap_err();
        assert!(shallow.contains("folders deep (at a/"), "{shallow}");
        assert_eq!(check_tree(&d.path().join("missing"), caps), Ok(()));
        remove_tree(&top).unwrap();
        assert!(!top.exists());
        assert_eq!(
            std::fs::read_to_string(outside.join("keep")).unwrap(),
            "host file"
        );
        remove_tree(&top).unwrap();
        // A file or a link is removed itself, never what a link names.
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        remove_tree(&link).unwrap();
        assert!(outside.join("keep").exists() && !link.exists());
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

//! The feedback folder of each try of a multi-pass pass ([`TryFeedback`]): a copy of the
//! pass's folder, handed back only by the try that counts.

use std::path::{Path, PathBuf};

use super::super::JudgeError;

/// The feedback folder of one try of a multi-pass pass: a new folder holding a copy of the
/// pass's folder (`kept`, the caller's, which no try writes). The try that counts hands its
/// folder's contents back to `kept` ([`TryFeedback::keep`]); a starved try's folder is dropped
/// (removed) with whatever its interactor left there.
///
/// The copy keeps what the interactor may rely on between passes: folders, files with their
/// modes, and their owners (the interactor runs as a sandbox uid and must still be able to
/// write what it wrote before); a symbolic link is copied as a link, never followed (the
/// interactor made it, and the judge copies as root); anything else (a FIFO, a socket) is left
/// out.
pub(super) struct TryFeedback {
    pub(super) dir: PathBuf,
}

impl TryFeedback {
    /// A copy of `kept` in `dir`, a new empty folder of the judge's (made if missing).
    pub(super) fn new(kept: &Path, dir: PathBuf) -> Result<TryFeedback, JudgeError> {
        std::fs::create_dir_all(&dir).map_err(super::super::host::file_fault("create", &dir))?;
        let f = TryFeedback { dir };
        copy_mode_and_owner(kept, &f.dir)?;
        copy_tree(kept, &f.dir)?;
        Ok(f)
    }

    /// This try counts: `kept` becomes what the try left in its folder.
    pub(super) fn keep(self, kept: &Path) -> Result<(), JudgeError> {
        let entries = std::fs::read_dir(kept).map_err(super::super::host::file_fault(
            "list the feedback folder",
            kept,
        ))?;
        for e in entries {
            let e = e.map_err(super::super::host::file_fault(
                "list the feedback folder",
                kept,
            ))?;
            let path = e.path();
            let gone = crate::fsutil::remove_tree(&path);
            gone.map_err(super::super::host::file_fault("remove", &path))?;
        }
        copy_tree(&self.dir, kept)
    }
}

impl Drop for TryFeedback {
    fn drop(&mut self) {
        let _ = crate::fsutil::remove_tree(&self.dir);
    }
}

/// Gives `to` the mode and owner of `from` (owner only where they differ: a judge that is not
/// root owns everything it could copy).
pub(super) fn copy_mode_and_owner(from: &Path, to: &Path) -> Result<(), JudgeError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let m = std::fs::symlink_metadata(from)
        .map_err(super::super::host::file_fault("read the metadata of", from))?;
    let t = std::fs::symlink_metadata(to)
        .map_err(super::super::host::file_fault("read the metadata of", to))?;
    if !m.file_type().is_symlink() {
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(m.mode() & 0o7777))
            .map_err(super::super::host::file_fault("set the mode of", to))?;
    }
    if (m.uid(), m.gid()) != (t.uid(), t.gid()) {
        std::os::unix::fs::lchown(to, Some(m.uid()), Some(m.gid()))
            .map_err(super::super::host::file_fault("set the owner of", to))?;
    }
    Ok(())
}

/// Copies the contents of folder `from` into folder `to` (see [`TryFeedback`] for what is kept),
/// without recursion: the tree was checked against the feedback caps, and a work list instead
/// of the stack keeps it so even if it were not.
pub(super) fn copy_tree(from: &Path, to: &Path) -> Result<(), JudgeError> {
    let mut work = vec![(from.to_path_buf(), to.to_path_buf())];
    let mut dirs = Vec::new();
    while let Some((from, to)) = work.pop() {
        copy_level(&from, &to, &mut work)?;
        dirs.push((from, to));
    }
    // A folder's mode and owner once its contents are in (a read-only one could not take
    // them after), deepest first; the top is the caller's.
    for (src, dst) in dirs.iter().skip(1).rev() {
        copy_mode_and_owner(src, dst)?;
    }
    Ok(())
}

/// Copies the files and links of folder `from` into `to`, creating its sub-folders there and
/// adding them to `work`.
pub(super) fn copy_level(
    from: &Path,
    to: &Path,
    work: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), JudgeError> {
    let entries = std::fs::read_dir(from).map_err(super::super::host::file_fault(
        "list the feedback folder",
        from,
    ))?;
    for e in entries {
        let e = e.map_err(super::super::host::file_fault(
            "list the feedback folder",
            from,
        ))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e
            .file_type()
            .map_err(super::super::host::file_fault("read the type of", &src))?;
        if kind.is_dir() {
            std::fs::create_dir(&dst).map_err(super::super::host::file_fault("create", &dst))?;
            work.push((src, dst));
            continue;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).map_err(super::super::host::file_fault("copy", &src))?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&src)
                .map_err(super::super::host::file_fault("read the link", &src))?;
            std::os::unix::fs::symlink(&target, &dst)
                .map_err(super::super::host::file_fault("create the link", &dst))?;
        } else {
            continue;
        }
        copy_mode_and_owner(&src, &dst)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A multi-pass pass run again after starvation: the try after a starved one starts from the
    /// feedback folder as it was before the pass, whatever the starved try's interactor wrote
    /// there (a `nextpass.in`, changed state, a new file); the try that counts hands its folder
    /// back. With the one folder shared by every try, the second try found the first one's
    /// `nextpass.in` and state.
    #[test]
    fn every_try_of_a_pass_starts_from_the_pass_feedback() {
        let tmp = tempfile::tempdir().unwrap();
        let kept = tmp.path().join("feedback");
        std::fs::create_dir(&kept).unwrap();
        std::fs::write(kept.join("state"), "after pass 1").unwrap();
        std::fs::create_dir(kept.join("sub")).unwrap();
        std::fs::write(kept.join("sub/deep"), "kept too").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", kept.join("link")).unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();

        // The starved try: its interactor asks for another pass and changes its state.
        let starved = TryFeedback::new(&kept, tmp.path().join("try-1")).unwrap();
        assert_ne!(starved.dir, kept);
        std::fs::write(starved.dir.join("nextpass.in"), "stale").unwrap();
        std::fs::write(starved.dir.join("state"), "changed by a starved try").unwrap();
        std::fs::write(starved.dir.join("junk"), "").unwrap();
        let starved_dir = starved.dir.clone();
        drop(starved);
        assert!(!starved_dir.exists(), "a dropped try's folder is removed");

        // The try after: the pass's folder as it was, nothing of the starved try.
        let again = TryFeedback::new(&kept, tmp.path().join("try-2")).unwrap();
        assert!(!again.dir.join("nextpass.in").exists());
        assert!(!again.dir.join("junk").exists());
        assert_eq!(read(&again.dir.join("state")), "after pass 1");
        assert_eq!(read(&again.dir.join("sub/deep")), "kept too");
        let link = std::fs::symlink_metadata(again.dir.join("link")).unwrap();
        assert!(link.file_type().is_symlink(), "a link is copied as a link");
        // It counts: the caller's folder becomes what it left.
        std::fs::write(again.dir.join("state"), "after pass 2").unwrap();
        std::fs::remove_file(again.dir.join("sub/deep")).unwrap();
        again.keep(&kept).unwrap();
        assert_eq!(read(&kept.join("state")), "after pass 2");
        assert!(!kept.join("sub/deep").exists() && kept.join("sub").is_dir());
        assert!(!kept.join("nextpass.in").exists());
        assert!(!tmp.path().join("try-2").exists());
    }
}

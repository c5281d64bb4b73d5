//! The box between runs: fresh `/box` and `/tmp` mounts, the per-run binds, the network
//! namespace, and the files copied into the box before a run and out of it after.

use super::*;

impl Keeper {
    /// Mounts the spec's capped binds (with namespaces; see `capped.rs`), each a fresh tmpfs
    /// holding a copy of its host folder: (target in the root, host, cap) of each.
    pub(super) fn mount_capped(
        &mut self,
        spec: &RunSpec,
    ) -> Result<Vec<(PathBuf, PathBuf, crate::Cap)>, String> {
        let mut capped = Vec::new();
        if !self.namespaces {
            return Ok(capped);
        }
        let owner = (self.config.uid, self.config.gid);
        for b in spec.binds.iter().filter(|b| b.writable) {
            let Some(cap) = b.cap else { continue };
            let target = self
                .config
                .root_dir
                .join(b.inside.strip_prefix("/").unwrap_or(&b.inside));
            if let Err(e) = crate::capped::mount_capped(&target, &b.host, &cap, owner) {
                for (t, ..) in &capped {
                    crate::capped::unmount(t);
                }
                crate::capped::unmount(&target);
                return Err(e);
            }
            capped.push((target, b.host.clone(), cap));
        }
        Ok(capped)
    }

    /// Gives the run an empty `/box` and `/tmp` that nothing of an earlier run changed. With
    /// namespaces, a folder whose state differs in anything from right after its mount (an entry,
    /// its mode or owner, a timestamp, an extended attribute: see `ScratchState`) gets a fresh
    /// tmpfs: the cost never depends on what was left there. Without them the box is a plain
    /// folder, emptied file by file.
    pub(super) fn clear_scratch(&mut self) -> Result<(), String> {
        if !self.namespaces {
            return empty_dir(&self.box_dir);
        }
        let fresh = std::mem::take(&mut self.fresh);
        for (i, which) in [Scratch::Box, Scratch::Tmp].into_iter().enumerate() {
            let dir = [&self.box_dir, &self.tmp_dir][i];
            // Mounted after the last run's processes were all gone: nothing has touched it.
            let pristine = (fresh[i] && self.scratch[i].is_some())
                || self.scratch[i].is_some()
                    && ScratchState::read(dir) == self.scratch[i]
                    && is_empty_dir(dir);
            if !pristine {
                self.remount(i, which, true)?;
            }
        }
        Ok(())
    }

    /// Mounts a fresh tmpfs on `/box` (0) or `/tmp` (1) and records its state; the one
    /// `mounted` there first is unmounted.
    pub(super) fn remount(
        &mut self,
        i: usize,
        which: Scratch,
        mounted: bool,
    ) -> Result<(), String> {
        self.scratch[i] = None;
        fresh_tmpfs(&self.config, which, mounted)?;
        let dir = [&self.box_dir, &self.tmp_dir][i];
        self.scratch[i] = ScratchState::read(dir);
        match self.scratch[i] {
            Some(_) => Ok(()),
            None => Err(format!("cannot read the fresh {}", dir.display())),
        }
    }

    /// Makes the mounted per-run binds equal to the spec's: unchanged binds stay (a submission's
    /// tests share one `/prog`), others are unmounted so no run sees an earlier run's files.
    pub(super) fn update_binds(&mut self, spec: &RunSpec) -> Result<(), String> {
        let wanted: Vec<(PathBuf, PathBuf, bool)> = spec
            .binds
            .iter()
            .map(|b| (b.inside.clone(), b.host.clone(), b.writable))
            .collect();
        if !self.namespaces {
            // No mounts without a mount namespace: programs get the host paths instead.
            self.binds = wanted;
            return Ok(());
        }
        for (inside, _, _) in &wanted {
            let name = inside.strip_prefix("/").unwrap_or(inside);
            if !["prog", "data"].iter().any(|m| Path::new(m) == name) {
                return Err(format!(
                    "bind target {} must be /prog or /data",
                    inside.display()
                ));
            }
        }
        // A read-only /prog is bound from the keeper's copy of the folder (checked against the
        // host folder on every run), so that no host path shows inside.
        // A capped bind is a tmpfs of the run's own, mounted by `mount_capped` for each run.
        let capped: Vec<&Path> = spec
            .binds
            .iter()
            .filter(|b| b.writable && b.cap.is_some())
            .map(|b| b.inside.as_path())
            .collect();
        let sources: Vec<(PathBuf, PathBuf, bool)> = wanted
            .iter()
            .filter(|(inside, _, _)| !capped.contains(&inside.as_path()))
            .map(|(inside, host, writable)| {
                let copy = match (&mut self.progs, *writable) {
                    (Some(store), false) if inside == Path::new("/prog") => store.source(host),
                    _ => None,
                };
                (
                    inside.clone(),
                    copy.unwrap_or_else(|| host.clone()),
                    *writable,
                )
            })
            .collect();
        self.binds = wanted;
        if sources == self.mounted {
            return Ok(());
        }
        for (inside, _, _) in std::mem::take(&mut self.mounted) {
            let target = self
                .config
                .root_dir
                .join(inside.strip_prefix("/").unwrap_or(&inside));
            let c = cpath(&target);
            // SAFETY: a valid path string.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
        for (inside, source, writable) in sources {
            let name = inside.strip_prefix("/").unwrap_or(&inside);
            bind(&source, &self.config.root_dir.join(name), writable)?;
            self.mounted.push((inside, source, writable));
        }
        Ok(())
    }

    /// Gives the keeper (and so the next run) a new, empty network namespace when the run left
    /// any socket alive in the current one (an abstract socket kept in an SCM_RIGHTS cycle
    /// outlives every process), so that no later run, submission or checker can reach it. Runs
    /// that leave nothing, nearly all, cost one `pread` of `/proc/self/net/unix` (kept open: it
    /// lists the sockets of the namespace it was opened in, so it is reopened after a move).
    /// SysV IPC and POSIX message queues are denied by seccomp, so the keeper's ipc namespace
    /// stays empty.
    pub(super) fn fresh_network(&mut self) -> Result<(), String> {
        if self.net_unix.is_none() {
            self.net_unix = fs::File::open("/proc/self/net/unix").ok();
        }
        let sockets = self.net_unix.as_ref().is_none_or(|f| {
            use std::os::unix::fs::FileExt;
            // Anything past the header line is a socket.
            let mut buf = [0u8; 256];
            f.read_at(&mut buf, 0).map_or(true, |n| {
                buf[..n]
                    .iter()
                    .position(|&b| b == b'\n')
                    .is_none_or(|end| n > end + 1)
            })
        });
        if sockets {
            self.net_unix = None;
            // SAFETY: unshare affects only this single-threaded process.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(os_err("unshare a new network namespace"));
            }
        }
        Ok(())
    }
}

/// Copies the run's input files into the emptied box and hands them to the sandbox user.
///
/// Each file is created relative to the box's own descriptor with `O_EXCL | O_NOFOLLOW`, so
/// nothing planted in the box (a link to a host file, by a process of the reduced mode that
/// outlived its run) can redirect the keeper's write.
pub(super) fn fill_box(
    dir: &Path,
    files: &[(PathBuf, String)],
    owner: Option<(u32, u32)>,
) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    if files.is_empty() {
        return Ok(());
    }
    let dir_fd = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    for (src, name) in files {
        if name.contains('/') || name.starts_with('.') || name.is_empty() {
            return Err(format!("box file name {name:?} must be a plain name"));
        }
        let c = cstr(name);
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid directory descriptor and NUL-terminated name; the result is checked.
        let fd = unsafe { libc::openat(dir_fd.as_raw_fd(), c.as_ptr(), flags, 0o644) };
        if fd < 0 {
            return Err(os_err(&format!("failed to create {name} in the box")));
        }
        // SAFETY: fd was just opened and is owned by nothing else.
        let mut dest = fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let mut from =
            fs::File::open(src).map_err(|e| format!("failed to open {}: {e}", src.display()))?;
        std::io::copy(&mut from, &mut dest)
            .map_err(|e| format!("failed to copy {} into the box: {e}", src.display()))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::fchown(&dest, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Copies files the program left in the box out to the host. A file over `limit` bytes is not
/// copied at all (the destination is removed): a caller never gets, or caches, a truncated file.
pub(super) fn collect(dir: &Path, wanted: &[(String, PathBuf)], limit: u64) -> Result<(), String> {
    for (name, dest) in wanted {
        let src = dir.join(name);
        // Never follow a link the program planted: it could point at anything in the root.
        let Ok(meta) = fs::symlink_metadata(&src) else {
            let _ = fs::remove_file(dest);
            continue;
        };
        if !meta.is_file() {
            let _ = fs::remove_file(dest);
            continue;
        }
        // O_NOFOLLOW | O_NONBLOCK: a link or a FIFO swapped in after the check opens nothing.
        let file = {
            use std::os::unix::fs::OpenOptionsExt;
            fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(&src)
                .map_err(|e| format!("{}: {e}", src.display()))?
        };
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        if len > limit {
            let _ = fs::remove_file(dest);
            continue;
        }
        let mut out = fs::File::create(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        let copied = std::io::copy(&mut std::io::Read::take(file, limit + 1), &mut out)
            .map_err(|e| format!("{}: {e}", dest.display()))?;
        if copied != len {
            let _ = fs::remove_file(dest);
        }
    }
    Ok(())
}

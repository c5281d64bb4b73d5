//! The keeper's store of program copies: what a run sees at `/prog` is a copy of the host folder
//! in a tmpfs of the keeper's own, so `/proc/self/mountinfo` (which names a bind's source folder
//! within its file system) shows a neutral `/<n>` instead of the folder's host path (the compile
//! cache inside the scratch folder, or a problem's folder).
//!
//! The store is mounted where the keeper's root goes, before the root is mounted over it: no path
//! reaches it, not even the keeper's; the keeper holds a descriptor of it and binds
//! `/proc/self/fd/<fd>/<n>`. Copies are kept (a submission's program and its checker alternate
//! at `/prog`, test after test) up to [`STORE_SIZE`], least recently used dropped first, and are
//! checked against the host folder's files (name, size, mtime, inode) before every reuse.

use std::ffi::OsString;
use std::fs;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::sys::{cpath, mount, os_err};

/// Bytes of copies the store holds at most (also its tmpfs size).
pub(super) const STORE_SIZE: u64 = 64 << 20;
/// Folders larger than this are bound as they are (the host path then shows in mountinfo).
pub(super) const COPY_MAX: u64 = 32 << 20;

/// One file of a folder: name, size, mtime (s, ns), inode.
type FileSig = (OsString, u64, i64, i64, u64);

struct Entry {
    host: PathBuf,
    sig: Vec<FileSig>,
    name: String,
    bytes: u64,
    used: u64,
}

pub(super) struct ProgStore {
    /// The store's root directory (the only way to reach it).
    dir: OwnedFd,
    entries: Vec<Entry>,
    next: u64,
    clock: u64,
}

impl ProgStore {
    /// Mounts the store's tmpfs on `at` and keeps a descriptor of it; the caller then mounts the
    /// keeper's root on `at`, over it.
    pub(super) fn mount(at: &Path) -> Result<ProgStore, String> {
        let data = format!("size={STORE_SIZE},nr_inodes=4096,mode=700");
        mount(
            None,
            at,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some(&data),
        )?;
        let c = cpath(at);
        let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
        // SAFETY: a valid path string; the result is checked and owned below.
        let fd = unsafe { libc::open(c.as_ptr(), flags) };
        if fd < 0 {
            return Err(os_err("open the program store"));
        }
        Ok(ProgStore {
            // SAFETY: fd was just opened and is owned by nothing else.
            dir: unsafe { OwnedFd::from_raw_fd(fd) },
            entries: Vec::new(),
            next: 0,
            clock: 0,
        })
    }

    /// The store's root directory (an `O_PATH` descriptor): the way to reach it.
    pub(super) fn dir_fd(&self) -> std::os::fd::RawFd {
        self.dir.as_raw_fd()
    }

    /// Bytes the copies hold: tmpfs pages charged to the keeper's memory cgroup, which reclaim
    /// cannot drop.
    pub(super) fn bytes(&self) -> u64 {
        self.entries.iter().map(|e| e.bytes).sum()
    }

    /// The path to bind at `/prog` for the host folder `host`: a current copy in the store, made
    /// now if needed. None when the folder is not copied (anything but regular files in it, over
    /// [`COPY_MAX`], or the copy failed): the caller binds the host folder itself.
    pub(super) fn source(&mut self, host: &Path) -> Option<PathBuf> {
        let sig = signature(host)?;
        let bytes: u64 = sig.iter().map(|f| f.1).sum();
        if bytes > COPY_MAX {
            return None;
        }
        self.clock += 1;
        if let Some(i) = self.entries.iter().position(|e| e.host == host) {
            if self.entries[i].sig == sig {
                self.entries[i].used = self.clock;
                return Some(self.path(&self.entries[i].name));
            }
            let stale = self.entries.swap_remove(i);
            self.remove(&stale);
        }
        while self.bytes() + bytes > STORE_SIZE && !self.entries.is_empty() {
            let lru = (0..self.entries.len()).min_by_key(|&i| self.entries[i].used)?;
            let e = self.entries.swap_remove(lru);
            self.remove(&e);
        }
        self.next += 1;
        let entry = Entry {
            host: host.to_path_buf(),
            sig,
            name: self.next.to_string(),
            bytes,
            used: self.clock,
        };
        if self.copy(&entry).is_err() {
            self.remove(&entry);
            return None;
        }
        let path = self.path(&entry.name);
        self.entries.push(entry);
        Some(path)
    }

    /// Writes a read-only file `mask-<name>` in the store (no copy is ever named so) and returns
    /// its path, for binding over a file of `/proc` that would show the host (see `pidns.rs`).
    pub(super) fn neutral_file(&self, name: &str, contents: &str) -> Result<PathBuf, String> {
        let path = self.path(&format!("mask-{name}"));
        fs::write(&path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
        fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o444))
            .map_err(|e| e.to_string())?;
        Ok(path)
    }

    fn path(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}/{name}", self.dir.as_raw_fd()))
    }

    /// Copies the entry's files into `<store>/<name>`, owned by root, mode as on the host
    /// without set-id bits.
    fn copy(&self, e: &Entry) -> Result<(), String> {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = self.path(&e.name);
        fs::DirBuilder::new()
            .create(&dir)
            .map_err(|err| err.to_string())?;
        for (name, ..) in &e.sig {
            let src = e.host.join(name);
            let mut from = fs::File::open(&src).map_err(|err| err.to_string())?;
            let mode = from.metadata().map_err(|err| err.to_string())?.mode() & 0o777;
            let mut to = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .mode(mode)
                .open(dir.join(name))
                .map_err(|err| err.to_string())?;
            std::io::copy(&mut from, &mut to).map_err(|err| err.to_string())?;
            // The creation mode went through the umask; set it exactly.
            fs::set_permissions(
                dir.join(name),
                std::os::unix::fs::PermissionsExt::from_mode(mode),
            )
            .map_err(|err| err.to_string())?;
        }
        Ok(())
    }

    /// Removes a copy (its bind, if mounted, keeps the files alive until it is unmounted).
    fn remove(&self, e: &Entry) {
        let _ = fs::remove_dir_all(self.path(&e.name));
    }
}

/// The regular files of a folder, sorted; None if it holds anything else or cannot be read.
fn signature(dir: &Path) -> Option<Vec<FileSig>> {
    let mut sig = Vec::new();
    for e in fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let m = e.metadata().ok()?;
        if !m.file_type().is_file() {
            return None;
        }
        sig.push((e.file_name(), m.len(), m.mtime(), m.mtime_nsec(), m.ino()));
    }
    sig.sort();
    Some(sig)
}

//! The keeper's private root, built once per keeper: a tmpfs with read-only binds of the host's
//! system folders and toolchains, a minimal /etc and /dev, and capped tmpfs `/box` and `/tmp`
//! (remounted fresh when a run used them; `/proc` is mounted by the holder, see `pidns`); the
//! reservation of the keeper's uid.

use std::fs;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::progs::ProgStore;
use super::protocol::KeeperConfig;
use super::sys::{bind, cpath, mount, os_err};

/// Folders of the host that every root gets, read-only, when they exist.
pub(super) const SYSTEM_PATHS: &[&str] = &[
    "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
];
/// Files of /etc that dynamic linking and compilers need; nothing else of /etc is visible.
pub(super) const ETC_PATHS: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/mime.types",
];
/// Mount points the root provides for per-run binds.
pub(super) const MOUNT_POINTS: &[&str] = &["box", "prog", "tmp", "proc", "data", "dev", "etc"];

/// Folders where keepers of every ojd process on the host meet to reserve uids.
pub(super) const UID_LOCK_DIRS: &[&str] = &["/run/ojd-uids", "/tmp/ojd-uids"];

/// Takes an exclusive `flock` on `<dir>/<uid>.lock` for the first free uid, starting at
/// `preferred`, within `base..base + 1000`. The kernel drops the lock when the keeper dies.
pub(super) fn reserve_uid(base: u32, preferred: u32) -> Result<(u32, fs::File), String> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = UID_LOCK_DIRS
        .iter()
        .map(Path::new)
        .find(|d| {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(d)
                .is_ok()
        })
        .ok_or("no folder for uid locks")?;
    let start = preferred.saturating_sub(base) % 1000;
    for k in 0..1000 {
        let uid = base + (start + k) % 1000;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!("{uid}.lock")))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok((uid, file));
        }
    }
    Err(format!("all uids {base}..{} are in use", base + 1000))
}

/// Builds the keeper's private root once: a tmpfs with read-only binds of the system folders,
/// tmpfs mounts for `/box` and `/tmp` (`/proc` comes with the pid namespace, `pidns.rs`).
///
/// Returns the store of program copies, mounted first where the root goes and so reachable only
/// through the descriptor the store holds (see `progs.rs`).
pub(super) fn prepare_root(config: &KeeperConfig) -> Result<ProgStore, String> {
    let flags = libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
    // SAFETY: unshare affects only this (single-threaded) process.
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(os_err("unshare"));
    }
    let host = b"ojd";
    // SAFETY: a valid buffer and its length.
    unsafe { libc::sethostname(host.as_ptr() as *const libc::c_char, host.len()) };
    mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    let root = &config.root_dir;
    fs::create_dir_all(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let store = ProgStore::mount(root)?;
    mount(
        None,
        root,
        Some("tmpfs"),
        libc::MS_NOSUID,
        Some("size=16m,mode=755"),
    )?;
    for dir in MOUNT_POINTS {
        fs::create_dir_all(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
    }
    let mut paths: Vec<PathBuf> = SYSTEM_PATHS
        .iter()
        .chain(ETC_PATHS)
        .map(PathBuf::from)
        .collect();
    paths.extend(config.ro_paths.iter().cloned());
    for host in paths {
        let Ok(meta) = fs::symlink_metadata(&host) else {
            continue;
        };
        let inside = root.join(host.strip_prefix("/").unwrap_or(&host));
        if meta.file_type().is_symlink() {
            // Merged-/usr systems: /bin -> usr/bin stays a symlink inside too.
            let target = fs::read_link(&host).map_err(|e| e.to_string())?;
            if let Some(parent) = inside.parent() {
                fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            let _ = std::os::unix::fs::symlink(target, &inside);
            continue;
        }
        if inside.exists() {
            continue;
        }
        if meta.is_dir() {
            fs::create_dir_all(&inside).map_err(|e| format!("{}: {e}", inside.display()))?;
        } else {
            if let Some(parent) = inside.parent() {
                fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            fs::write(&inside, b"").map_err(|e| e.to_string())?;
        }
        bind(&host, &inside, false)?;
    }
    let etc = root.join("etc");
    let passwd = format!(
        "root:x:0:0::/:/bin/sh\nojd:x:{}:{}::/box:/bin/sh\n",
        config.uid, config.gid
    );
    let group = format!("root:x:0:\nojd:x:{}:\n", config.gid);
    fs::write(etc.join("passwd"), passwd).map_err(|e| e.to_string())?;
    fs::write(etc.join("group"), group).map_err(|e| e.to_string())?;
    fs::write(etc.join("hostname"), "ojd\n").map_err(|e| e.to_string())?;
    let dev = root.join("dev");
    for (name, major, minor) in [
        ("null", 1, 3),
        ("zero", 1, 5),
        ("full", 1, 7),
        ("random", 1, 8),
        ("urandom", 1, 9),
    ] {
        let p = cpath(&dev.join(name));
        // SAFETY: p is a valid path string; mknod of character devices as root.
        if unsafe {
            libc::mknod(
                p.as_ptr(),
                libc::S_IFCHR | 0o666,
                libc::makedev(major, minor),
            )
        } != 0
        {
            return Err(os_err(&format!("mknod /dev/{name}")));
        }
        fs::set_permissions(dev.join(name), fs::Permissions::from_mode(0o666))
            .map_err(|e| e.to_string())?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        let _ = std::os::unix::fs::symlink(target, dev.join(name));
    }
    // Nothing of the root itself is writable once built.
    mount(
        None,
        root,
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID,
        None,
    )?;
    // A stale mount of an earlier keeper with this root may be there.
    fresh_tmpfs(config, Scratch::Box, true)?;
    fresh_tmpfs(config, Scratch::Tmp, true)?;
    Ok(store)
}

/// The two writable folders of the root.
#[derive(Copy, Clone, Debug)]
pub(super) enum Scratch {
    Box,
    Tmp,
}

/// Mounts a fresh, size-capped tmpfs on `/box` or `/tmp` of the root, first detaching whatever
/// an earlier run left there. Dropping a whole tmpfs costs the same whatever its depth or number
/// of files (the kernel frees it once the last reference goes), so no run can make the next
/// one's cleanup fail, and the size and inode caps bound what a run can store.
pub(super) fn fresh_tmpfs(
    config: &KeeperConfig,
    which: Scratch,
    mounted: bool,
) -> Result<(), String> {
    let (name, data) = match which {
        Scratch::Box => (
            "box",
            format!(
                "size={},nr_inodes=4096,mode=755,uid={},gid={}",
                config.box_size, config.uid, config.gid
            ),
        ),
        Scratch::Tmp => (
            "tmp",
            format!("size={},nr_inodes=4096,mode=1777", config.tmp_size),
        ),
    };
    let target = config.root_dir.join(name);
    let c = cpath(&target);
    // Not after its mount was parked in the graveyard: nothing is there, and the call would
    // only fail (EINVAL) after taking the namespace's lock, twice a run.
    if mounted {
        // SAFETY: a valid path string; EINVAL (nothing mounted there yet) is expected at build
        // time.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    }
    // noatime: reading the folder (the keeper's own check included) changes nothing of it, so
    // that its state right after the mount can be compared exactly (`ScratchState`).
    mount(
        None,
        &target,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOATIME,
        Some(&data),
    )
}

/// Where the `/box` and `/tmp` mounts of runs that left them untouched go, instead of being
/// unmounted one by one.
///
/// Unmounting costs a synchronous RCU grace period (`synchronize_rcu_expedited` in the kernel's
/// `namespace_unlock`): about 20 µs on a quiet machine, but 3 ms on average and up to 30 ms on
/// this project's loaded 2-CPU virtual machines, twice a run, and the next run waits for it.
/// Moving a mount costs no grace period. So after a run whose `/box` (or `/tmp`) is still exactly
/// as mounted (empty: nothing to free), the keeper moves that mount into a tmpfs of its own, the
/// graveyard, mounted inside the store of program copies (`progs.rs`), which no path reaches,
/// so neither a program nor `/proc/self/mountinfo` (which lists only mounts under the reader's
/// root) sees it; then it mounts the run's fresh tmpfs as before. Every [`GRAVE_MAX`] parked
/// mounts, one lazy unmount of the graveyard drops them all with one grace period. A used folder
/// is still unmounted at once, so that its files are freed before the next run's memory
/// baseline. Either way the next run gets a fresh tmpfs, mounted after the run before it ended.
pub(super) struct Graveyard {
    /// The store's root (`O_PATH`), where the graveyard's mount point is.
    store: RawFd,
    /// The graveyard's root (`O_PATH`), while one is mounted.
    dir: Option<OwnedFd>,
    /// Mounts parked in it.
    parked: usize,
}

/// Parked mounts after which the graveyard is unmounted (with everything in it).
pub(super) const GRAVE_MAX: usize = 64;

impl Graveyard {
    pub(super) fn new(store: &ProgStore) -> Graveyard {
        Graveyard {
            store: store.dir_fd(),
            dir: None,
            parked: 0,
        }
    }

    /// The graveyard's root, mounted now if needed.
    fn root(&mut self) -> Result<RawFd, String> {
        if let Some(d) = &self.dir {
            return Ok(d.as_raw_fd());
        }
        let at = PathBuf::from(format!("/proc/self/fd/{}/grave", self.store));
        match fs::create_dir(&at) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                return Err(format!("the graveyard's mount point: {e}"))
            }
            _ => {}
        }
        mount(
            None,
            &at,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            Some("size=64k,nr_inodes=256,mode=700"),
        )?;
        let c = cpath(&at);
        let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
        // SAFETY: a valid path string; the result is checked and owned below.
        let fd = unsafe { libc::open(c.as_ptr(), flags) };
        if fd < 0 {
            let e = os_err("open the graveyard");
            // SAFETY: a valid path string; detaches what was just mounted.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
            return Err(e);
        }
        // SAFETY: fd was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        self.dir = Some(fd);
        Ok(self.dir.as_ref().map_or(-1, |d| d.as_raw_fd()))
    }

    /// Moves the mount at `target` (an untouched `/box` or `/tmp`) into the graveyard; the
    /// caller then mounts a fresh one at `target`.
    pub(super) fn park(&mut self, target: &Path) -> Result<(), String> {
        if self.parked >= GRAVE_MAX {
            self.collapse();
        }
        let root = self.root()?;
        let place = PathBuf::from(format!("/proc/self/fd/{root}/{}", self.parked));
        fs::create_dir(&place).map_err(|e| format!("a grave: {e}"))?;
        self.parked += 1;
        mount(Some(target), &place, None, libc::MS_MOVE, None)
    }

    /// Unmounts the graveyard and every mount parked in it, in one call: one grace period.
    pub(super) fn collapse(&mut self) {
        if let Some(d) = self.dir.take() {
            let c = cpath(Path::new(&format!("/proc/self/fd/{}", d.as_raw_fd())));
            // SAFETY: a valid path string; MNT_DETACH takes the parked mounts (its children) too.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
        self.parked = 0;
    }
}

/// Everything a program can see of an empty `/box` or `/tmp` itself: its mode, owner, size, link
/// count, timestamps and extended attributes. The keeper records it right after the mount and
/// compares before each run: a folder whose state differs in anything got a fresh tmpfs.
///
/// The timestamps carry what a program could set by hand (`utimensat`) or by creating and
/// removing entries; the change time moves with every one of those and with every new
/// attribute, and on kernels with fine-grained timestamps (tmpfs since 6.13) it moves even within
/// one clock tick once someone has read it, which the recording does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScratchState {
    mode: u32,
    owner: (u32, u32),
    nlink: u64,
    size: u64,
    ino: u64,
    times: [(i64, i64); 3],
}

impl ScratchState {
    /// The folder's state now; None when it cannot be read or carries any extended attribute.
    pub(super) fn read(dir: &Path) -> Option<ScratchState> {
        use std::os::unix::fs::MetadataExt;
        let m = fs::symlink_metadata(dir).ok()?;
        let c = cpath(dir);
        // SAFETY: a valid path string and a zero-length (null) buffer: llistxattr returns the
        // size the names would need, 0 when there are none.
        let names = unsafe { libc::llistxattr(c.as_ptr(), std::ptr::null_mut(), 0) };
        (names == 0).then_some(ScratchState {
            mode: m.mode(),
            owner: (m.uid(), m.gid()),
            nlink: m.nlink(),
            size: m.size(),
            ino: m.ino(),
            times: [
                (m.atime(), m.atime_nsec()),
                (m.mtime(), m.mtime_nsec()),
                (m.ctime(), m.ctime_nsec()),
            ],
        })
    }
}

/// Whether a folder holds anything (an unreadable folder counts as used).
pub(super) fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
}

/// Removes everything inside `dir` (not `dir` itself), for the folder box of the reduced mode.
/// `remove_dir_all` does not follow links and holds one descriptor per level, so the keeper
/// raises its own descriptor limit at start (see `raise_nofile`).
pub(super) fn empty_dir(dir: &Path) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        let r = if e.file_type().is_ok_and(|t| t.is_dir()) {
            fs::remove_dir_all(&p)
        } else {
            fs::remove_file(&p)
        };
        r.map_err(|err| format!("failed to clear {}: {err}", p.display()))?;
    }
    Ok(())
}

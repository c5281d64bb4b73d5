//! Capped writable binds ([`Cap`](super::Cap)): a host folder given to one run as a fresh
//! tmpfs of its own, capped in bytes and inodes like `/box` and `/tmp`, holding a copy of the
//! folder; after the run the tmpfs's tree is copied back to the host folder, or, when the run
//! filled a cap or left a tree deeper than the cap allows, nothing is copied and the run's
//! outcome says so ([`RunOutcome::over_cap`](super::RunOutcome::over_cap)).
//!
//! Why a copy, not a bind of the host folder: a bind puts no bound on what the program writes
//! there (a multi-pass validator, package code, once wrote hundreds of MiB and a 70,000-deep
//! chain of folders into its feedback folder during one pass, before any check after the pass
//! could stop it); a tmpfs's size and inode caps stop the writes as they happen (ENOSPC), and
//! dropping it costs the same whatever it holds. The tmpfs is mounted in the keeper's own mount
//! namespace only, so a capped folder can go from run to run through any keeper, which the host
//! folder, kept by the judge, makes possible.
//!
//! Both copies run in the keeper after every process of the run is gone (nothing changes the
//! tree under them), without recursion, never following a link (a link is copied as a link;
//! FIFOs, sockets and devices are left out), and the walk over the program's tree stops at the
//! cap's depth and at a path length well under `PATH_MAX`. The copy back writes only what
//! differs from the host folder (a validator keeping thousands of files of state and changing a
//! few per pass once cost a removal and a new file on the host's disk for each, every pass).

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::sys::{cpath, mount};
use super::Cap;

/// The longest path (relative to the folder, in bytes) a capped folder may hold: copies stay
/// well within `PATH_MAX` whatever the host folder's own path.
const MAX_RELATIVE: usize = 1024;

/// One entry of a walked tree: its path relative to the folder and what it is.
#[derive(Debug)]
enum Entry {
    Dir(PathBuf, u32),
    File(PathBuf, u32),
    Link(PathBuf, PathBuf),
}

/// Lists the tree under `root` in pre-order (a folder before its contents), without following
/// links; Err(why) when it breaks the cap's depth or the path length (the walk stops there).
fn walk(root: &Path, cap: &Cap) -> Result<Result<Vec<Entry>, String>, String> {
    let mut out = Vec::new();
    let mut todo = vec![(PathBuf::new(), 0usize)];
    while let Some((rel, depth)) = todo.pop() {
        let dir = root.join(&rel);
        let entries = fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
            let name = rel.join(e.file_name());
            if name.as_os_str().len() > MAX_RELATIVE {
                return Ok(Err(format!(
                    "holds a path longer than {MAX_RELATIVE} bytes"
                )));
            }
            let path = root.join(&name);
            let m = fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mode = m.mode() & 0o7777;
            let t = m.file_type();
            if t.is_dir() {
                if depth + 1 > cap.depth as usize {
                    return Ok(Err(format!("is more than {} folders deep", cap.depth)));
                }
                out.push(Entry::Dir(name.clone(), mode));
                todo.push((name, depth + 1));
            } else if t.is_file() {
                out.push(Entry::File(name, mode));
            } else if t.is_symlink() {
                let target =
                    fs::read_link(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                out.push(Entry::Link(name, target));
            }
        }
    }
    Ok(Ok(out))
}

/// Copies the walked `entries` from `from` into `to` (an empty folder), each new entry owned by
/// `owner` when given.
fn copy(entries: &[Entry], from: &Path, to: &Path, owner: Option<(u32, u32)>) -> io::Result<()> {
    let chown = |p: &Path| match owner {
        Some((u, g)) => std::os::unix::fs::lchown(p, Some(u), Some(g)),
        None => Ok(()),
    };
    for e in entries {
        match e {
            Entry::Dir(rel, mode) => {
                let dest = to.join(rel);
                fs::DirBuilder::new().mode(0o700).create(&dest)?;
                chown(&dest)?;
                fs::set_permissions(&dest, fs::Permissions::from_mode(*mode))?;
            }
            Entry::File(rel, mode) => {
                let dest = to.join(rel);
                let mut src = fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(from.join(rel))?;
                let mut dst = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&dest)?;
                io::copy(&mut src, &mut dst)?;
                chown(&dest)?;
                dst.set_permissions(fs::Permissions::from_mode(*mode))?;
            }
            Entry::Link(rel, target) => {
                let dest = to.join(rel);
                std::os::unix::fs::symlink(target, &dest)?;
                chown(&dest)?;
            }
        }
    }
    Ok(())
}

/// Mounts a fresh capped tmpfs at `target` (owned by `owner`, the run's uid) holding a copy of
/// the host folder `host`. The host folder is the judge's (it was filled by an earlier run's
/// copy back, within the same cap), so a failure here is the host's.
pub(super) fn mount_capped(
    target: &Path,
    host: &Path,
    cap: &Cap,
    owner: (u32, u32),
) -> Result<(), String> {
    unmount(target);
    let data = format!(
        "size={},nr_inodes={},mode=755,uid={},gid={}",
        cap.bytes, cap.inodes, owner.0, owner.1
    );
    mount(
        None,
        target,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&data),
    )?;
    let what = |e: String| format!("the capped folder {}: {e}", host.display());
    let entries = walk(host, cap).map_err(what)?.map_err(what)?;
    copy(&entries, host, target, Some(owner)).map_err(|e| what(e.to_string()))
}

/// After the run (every process of it gone): whether the tmpfs at `target` broke its cap, as a
/// sentence ("reached its cap of …"); when it did not, its tree replaces the contents of the
/// host folder `host`. The tmpfs is unmounted either way.
pub(super) fn finish_capped(
    target: &Path,
    host: &Path,
    cap: &Cap,
) -> Result<Option<String>, String> {
    let result = finish(target, host, cap);
    unmount(target);
    result
}

fn finish(target: &Path, host: &Path, cap: &Cap) -> Result<Option<String>, String> {
    if let Some(full) = filled(target, cap)? {
        return Ok(Some(full));
    }
    let entries = match walk(target, cap)? {
        Ok(e) => e,
        Err(why) => return Ok(Some(why)),
    };
    let what = |e: String| format!("copy back to {}: {e}", host.display());
    sync(&entries, target, host, cap).map_err(what)?;
    Ok(None)
}

/// Makes the host folder `to` (a tree an earlier copy back made, within the cap) hold what the
/// walked `entries` of `from` hold, writing only what differs: a validator that keeps its state
/// in many files and changes a few per pass costs a read of each file, not a removal and a new
/// file on the host's disk each (`feedback_copy_cost`). Entries of `to` that `from` lacks, or
/// holds as another kind, are removed first, children before their folders, without recursion;
/// then each entry of `from`, in pre-order, is made, rewritten or left as it is. A host folder
/// that is not such a tree (past the cap) is emptied and copied as a whole.
fn sync(entries: &[Entry], from: &Path, to: &Path, cap: &Cap) -> Result<(), String> {
    let Ok(Ok(old)) = walk(to, cap) else {
        empty(to, cap)?;
        return copy(entries, from, to, None).map_err(|e| e.to_string());
    };
    let kind = |e: &Entry| match e {
        Entry::Dir(rel, _) => (rel.clone(), 0u8),
        Entry::File(rel, _) => (rel.clone(), 1),
        Entry::Link(rel, _) => (rel.clone(), 2),
    };
    let wanted: std::collections::HashSet<(PathBuf, u8)> = entries.iter().map(kind).collect();
    let mut kept = std::collections::HashMap::new();
    for e in old.iter().rev() {
        let (rel, k) = kind(e);
        if wanted.contains(&(rel.clone(), k)) {
            kept.insert(rel, e);
            continue;
        }
        let r = match e {
            Entry::Dir(..) => fs::remove_dir(to.join(&rel)),
            Entry::File(..) | Entry::Link(..) => fs::remove_file(to.join(&rel)),
        };
        r.map_err(|err| format!("{}: {err}", to.join(&rel).display()))?;
    }
    let at = |rel: &Path, err: io::Error| format!("{}: {err}", to.join(rel).display());
    for e in entries {
        let (rel, _) = kind(e);
        match (e, kept.get(&rel)) {
            (Entry::Dir(_, mode), Some(Entry::Dir(_, had))) if had == mode => {}
            (Entry::Link(_, target), Some(Entry::Link(_, had))) if had == target => {}
            (Entry::Dir(_, mode), Some(_)) => {
                fs::set_permissions(to.join(&rel), fs::Permissions::from_mode(*mode))
                    .map_err(|err| at(&rel, err))?;
            }
            (Entry::File(_, mode), Some(_)) => {
                same_or_rewrite(&from.join(&rel), &to.join(&rel), *mode)
                    .map_err(|err| at(&rel, err))?;
            }
            (Entry::Link(..), Some(_)) => {
                fs::remove_file(to.join(&rel)).map_err(|err| at(&rel, err))?;
                copy(std::slice::from_ref(e), from, to, None).map_err(|err| at(&rel, err))?;
            }
            (_, None) => {
                copy(std::slice::from_ref(e), from, to, None).map_err(|err| at(&rel, err))?;
            }
        }
    }
    Ok(())
}

/// Leaves the host file `to` as it is when it already holds `from`'s bytes (its mode set to
/// `mode`); else writes them over it, in place. Neither is followed if it is a link.
fn same_or_rewrite(from: &Path, to: &Path, mode: u32) -> io::Result<()> {
    use std::io::{Read, Seek, Write};
    let open = |p: &Path, write: bool| {
        fs::OpenOptions::new()
            .read(true)
            .write(write)
            .custom_flags(libc::O_NOFOLLOW)
            .open(p)
    };
    let mut src = open(from, false)?;
    let mut dst = open(to, true)?;
    let same = src.metadata()?.len() == dst.metadata()?.len() && {
        let (mut a, mut b) = (vec![0u8; 64 << 10], vec![0u8; 64 << 10]);
        loop {
            let n = src.read(&mut a)?;
            if n == 0 {
                break true;
            }
            // The host file is as long (checked above) and nothing writes to it meanwhile.
            dst.read_exact(&mut b[..n])?;
            if a[..n] != b[..n] {
                break false;
            }
        }
    };
    if !same {
        src.rewind()?;
        dst.rewind()?;
        dst.set_len(0)?;
        io::copy(&mut src, &mut dst)?;
        dst.flush()?;
    }
    if dst.metadata()?.mode() & 0o7777 != mode {
        dst.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// Whether the tmpfs at `target` has no block or no inode left: the program ran into a cap (its
/// writes failed with ENOSPC from there on).
fn filled(target: &Path, cap: &Cap) -> Result<Option<String>, String> {
    let c = cpath(target);
    // SAFETY: statvfs is plain data the kernel fills.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid path string and a pointer to a local.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(super::sys::os_err(&format!("statvfs {}", target.display())));
    }
    Ok((s.f_bfree == 0 || s.f_ffree == 0).then(|| {
        format!(
            "reached its cap of {} MiB and {} files and folders during the run",
            cap.bytes >> 20,
            cap.inodes
        )
    }))
}

/// Removes the contents of the host folder `dir` (a tree an earlier copy back made, within the
/// cap), children before their folders, without recursion.
fn empty(dir: &Path, cap: &Cap) -> Result<(), String> {
    let entries = walk(dir, cap)?.map_err(|why| format!("{} {why}", dir.display()))?;
    for e in entries.iter().rev() {
        let r = match e {
            Entry::Dir(rel, _) => fs::remove_dir(dir.join(rel)),
            Entry::File(rel, _) | Entry::Link(rel, _) => fs::remove_file(dir.join(rel)),
        };
        r.map_err(|err| err.to_string())?;
    }
    Ok(())
}

/// Detaches whatever is mounted at `target` (nothing is fine).
pub(super) fn unmount(target: &Path) {
    let c = cpath(target);
    // SAFETY: a valid path string; EINVAL when nothing is mounted there is expected.
    unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder of this test's own under the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ojd-capped-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    }

    const CAP: Cap = Cap {
        bytes: 1 << 20,
        inodes: 64,
        depth: 3,
    };

    /// A copy keeps folders, files with their contents and modes, and links as links (never
    /// followed); a FIFO is left out; emptying removes everything the copy made.
    #[test]
    fn a_tree_is_copied_without_following_links_and_emptied() {
        let (from, to) = (scratch("from"), scratch("to"));
        fs::create_dir_all(from.join("a/b")).unwrap();
        fs::write(from.join("a/b/state"), "42\n").unwrap();
        fs::set_permissions(from.join("a/b/state"), fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", from.join("link")).unwrap();
        crate::make_fifo(&from.join("fifo")).unwrap();
        let entries = walk(&from, &CAP).unwrap().unwrap();
        copy(&entries, &from, &to, None).unwrap();
        assert_eq!(fs::read_to_string(to.join("a/b/state")).unwrap(), "42\n");
        let mode = fs::metadata(to.join("a/b/state")).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(
            fs::read_link(to.join("link")).unwrap(),
            Path::new("/etc/passwd")
        );
        assert!(fs::symlink_metadata(to.join("fifo")).is_err());
        empty(&to, &CAP).unwrap();
        assert_eq!(fs::read_dir(&to).unwrap().count(), 0);
        let _ = fs::remove_dir_all(&from);
        let _ = fs::remove_dir_all(&to);
    }

    /// The copy back writes only what differs: a file with the same bytes keeps its inode and
    /// time, a changed one is rewritten in place, an entry the run removed or turned into
    /// another kind is gone, a new one is made, modes and link targets follow; the host folder
    /// then holds exactly the run's tree.
    #[test]
    fn the_copy_back_rewrites_only_what_the_run_changed() {
        let (run, host) = (scratch("sync-run"), scratch("sync-host"));
        fs::create_dir_all(run.join("keep/deep")).unwrap();
        fs::write(run.join("keep/deep/same"), "same\n").unwrap();
        fs::write(run.join("keep/changed"), "old\n").unwrap();
        fs::write(run.join("gone"), "x").unwrap();
        fs::create_dir_all(run.join("dir-then-file/inner")).unwrap();
        fs::write(run.join("dir-then-file/inner/f"), "x").unwrap();
        std::os::unix::fs::symlink("a", run.join("link")).unwrap();
        let first = walk(&run, &CAP).unwrap().unwrap();
        copy(&first, &run, &host, None).unwrap();
        let before = fs::metadata(host.join("keep/deep/same")).unwrap();
        let changed_ino = fs::metadata(host.join("keep/changed")).unwrap().ino();

        // What the next run leaves.
        fs::write(run.join("keep/changed"), "new!\n").unwrap();
        fs::remove_file(run.join("gone")).unwrap();
        fs::remove_dir_all(run.join("dir-then-file")).unwrap();
        fs::write(run.join("dir-then-file"), "now a file").unwrap();
        fs::remove_file(run.join("link")).unwrap();
        std::os::unix::fs::symlink("b", run.join("link")).unwrap();
        fs::write(run.join("keep/new"), "n").unwrap();
        fs::set_permissions(run.join("keep/deep"), fs::Permissions::from_mode(0o750)).unwrap();
        let second = walk(&run, &CAP).unwrap().unwrap();
        sync(&second, &run, &host, &CAP).unwrap();

        let after = fs::metadata(host.join("keep/deep/same")).unwrap();
        assert_eq!(
            (after.ino(), after.mtime(), after.mtime_nsec()),
            (before.ino(), before.mtime(), before.mtime_nsec()),
            "an unchanged file is left as it is"
        );
        assert_eq!(
            fs::read_to_string(host.join("keep/changed")).unwrap(),
            "new!\n"
        );
        assert_eq!(
            fs::metadata(host.join("keep/changed")).unwrap().ino(),
            changed_ino,
            "rewritten in place"
        );
        assert!(fs::symlink_metadata(host.join("gone")).is_err());
        assert_eq!(
            fs::read_to_string(host.join("dir-then-file")).unwrap(),
            "now a file"
        );
        assert_eq!(fs::read_link(host.join("link")).unwrap(), Path::new("b"));
        assert_eq!(fs::read_to_string(host.join("keep/new")).unwrap(), "n");
        let mode = fs::metadata(host.join("keep/deep")).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o750);
        // Exactly the run's tree, entry for entry.
        let listed = |dir: &Path| {
            let mut v: Vec<String> = walk(dir, &CAP)
                .unwrap()
                .unwrap()
                .iter()
                .map(|e| format!("{e:?}"))
                .collect();
            v.sort();
            v
        };
        assert_eq!(listed(&host), listed(&run));
        let _ = fs::remove_dir_all(&run);
        let _ = fs::remove_dir_all(&host);
    }

    /// A tree deeper than the cap is named, not walked further; so is a path too long.
    #[test]
    fn a_tree_over_the_depth_or_path_length_is_refused() {
        let deep = scratch("deep");
        fs::create_dir_all(deep.join("d/d/d/d")).unwrap();
        let why = walk(&deep, &CAP).unwrap().unwrap_err();
        assert_eq!(why, "is more than 3 folders deep");
        let long = scratch("long");
        let name = "n".repeat(255);
        let dir = long.join(&name).join(&name).join(&name).join(&name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(&name), "").unwrap();
        let why = walk(&long, &Cap { depth: 16, ..CAP }).unwrap().unwrap_err();
        assert!(why.contains("longer than 1024 bytes"), "{why}");
        let _ = fs::remove_dir_all(&deep);
        let _ = fs::remove_dir_all(&long);
    }

    /// What a pass's two copies cost (docs/benchmarks.md, "The feedback folder's copies"):
    /// the host folder (on the scratch's disk) into a tmpfs (`/dev/shm` here) before the pass,
    /// then back after it (the walk, then what the copy back writes: as it was, the whole tree
    /// after emptying the host folder; as it is, only what differs), for trees at the feedback
    /// caps' corners. Opt-in: prints its figures.
    #[test]
    #[ignore = "a measurement: cargo test -p ojd-sandbox --release --lib feedback_copy_cost -- --ignored --nocapture"]
    fn feedback_copy_cost() {
        use std::time::Instant;
        let big = Cap {
            bytes: 80 << 20,
            inodes: 20_000,
            depth: 16,
        };
        let shapes: [(&str, usize, usize); 4] = [
            ("empty", 0, 0),
            ("64 MiB in one file", 1, 64 << 20),
            ("4,000 files of 100 bytes", 4000, 100),
            ("10,000 files of 100 bytes", 10_000, 100),
        ];
        for (what, files, size) in shapes {
            let host = scratch("cost-host");
            let shm = Path::new("/dev/shm").join(format!("ojd-capped-cost-{}", std::process::id()));
            let _ = fs::remove_dir_all(&shm);
            fs::create_dir_all(&shm).expect("a folder in /dev/shm");
            let data = vec![b'x'; size];
            for i in 0..files {
                // Folders of 100 files, as state kept by a validator might be laid out.
                let dir = host.join(format!("d{}", i / 100));
                fs::create_dir_all(&dir).expect("mkdir");
                fs::write(dir.join(format!("f{i}")), &data).expect("write");
            }
            let (mut ins, mut whole, mut same, mut one) = (vec![], vec![], vec![], vec![]);
            for _ in 0..5 {
                for e in fs::read_dir(&shm).expect("ls") {
                    let p = e.expect("entry").path();
                    fs::remove_dir_all(&p)
                        .or_else(|_| fs::remove_file(&p))
                        .expect("rm");
                }
                let t = Instant::now();
                let entries = walk(&host, &big).expect("walk").expect("within the cap");
                copy(&entries, &host, &shm, None).expect("copy in");
                ins.push(t.elapsed());
                // As the copy back was before it wrote only what differs: the whole tree.
                let t = Instant::now();
                let entries = walk(&shm, &big).expect("walk").expect("within the cap");
                empty(&host, &big).expect("empty");
                copy(&entries, &shm, &host, None).expect("copy back");
                whole.push(t.elapsed());
                // As it is: a pass that changed nothing, then one that rewrote one file.
                let t = Instant::now();
                let entries = walk(&shm, &big).expect("walk").expect("within the cap");
                sync(&entries, &shm, &host, &big).expect("copy back");
                same.push(t.elapsed());
                if files > 0 {
                    let f = shm.join("d0").join("f0");
                    let mut changed = data.clone();
                    changed[0] = b'y';
                    fs::write(&f, &changed).expect("write");
                }
                let t = Instant::now();
                let entries = walk(&shm, &big).expect("walk").expect("within the cap");
                sync(&entries, &shm, &host, &big).expect("copy back");
                one.push(t.elapsed());
            }
            let ms = |v: &mut Vec<std::time::Duration>| {
                v.sort();
                v[2].as_secs_f64() * 1e3
            };
            println!(
                "feedback copy, {what}: in {:.1} ms; back: whole tree {:.1} ms, nothing changed {:.1} ms, one file changed {:.1} ms (medians of 5)",
                ms(&mut ins),
                ms(&mut whole),
                ms(&mut same),
                ms(&mut one)
            );
            let _ = fs::remove_dir_all(&host);
            let _ = fs::remove_dir_all(&shm);
        }
    }
}

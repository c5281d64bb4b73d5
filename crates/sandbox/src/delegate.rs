//! A delegated cgroup v2 subtree for the keepers: found, or made, once per judging process.
//!
//! Under cgroup v2 a cgroup may either hold processes or give controllers to its children, not
//! both (the "no internal processes" rule; only the root cgroup is exempt). A judging process
//! always sits in a cgroup with processes, its own, so the keepers' cgroups cannot simply be
//! made below it. The pattern systemd documents for a delegated unit is followed instead: the
//! process moves itself (and whatever else is in its cgroup: the shell of a scope, a container's
//! other processes) into a leaf `<own>/ojd`, enables `+memory +pids +cpu` (and `+cpuset`) on
//! `<own>/cgroup.subtree_control`, and the keepers' cgroups are made beside the leaf. Every
//! write is checked. cpuset is enabled only in the same step as the domain controllers, on a
//! cgroup already emptied: alone on a populated cgroup, this threaded controller would turn it
//! into a thread root, and no process could join a child then (EOPNOTSUPP).
//!
//! When its cgroup cannot have the controllers (a plain service without `Delegate=yes`: systemd
//! enables only memory and pids there), or is a scope systemd did not delegate (a login
//! session's: even where it has the controllers, systemd manages it and gives it no cpuset), the
//! process asks systemd for a transient scope `ojd-<pid>.scope` with `Delegate=yes` over D-Bus
//! (`dbus.rs`), as `systemd-run --scope -p Delegate=yes` does, moves there, and starts again.
//! Without systemd, the refusal names the fix.
//!
//! The logic runs against [`CgroupFs`], so its unit tests drive a model of the kernel's rules
//! (`delegate_model.rs`) through the starting states ojd meets.

use std::io;
use std::path::{Path, PathBuf};

/// The leaf the judging process moves into.
pub(crate) const LEAF: &str = "ojd";
/// The controllers a keeper's cgroup must have.
pub(crate) const NEEDED: [&str; 3] = ["memory", "pids", "cpu"];

/// What the delegation needs of the cgroup file system (the real one, or the model in tests).
pub(crate) trait CgroupFs {
    fn read(&self, path: &Path) -> io::Result<String>;
    fn write(&self, path: &Path, value: &str) -> io::Result<()>;
    fn mkdir(&self, path: &Path) -> io::Result<()>;
    fn exists(&self, path: &Path) -> bool;
}

/// The kernel's cgroup file system.
pub(crate) struct RealFs;

impl CgroupFs for RealFs {
    fn read(&self, path: &Path) -> io::Result<String> {
        std::fs::read_to_string(path)
    }
    fn write(&self, path: &Path, value: &str) -> io::Result<()> {
        use std::io::Write;
        // One write system call: a control file takes one value per write.
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)?
            .write_all(value.as_bytes())
    }
    fn mkdir(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
}

/// A delegated subtree: keepers make their cgroups in `base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delegation {
    /// The cgroup whose children get memory, pids and cpu (and cpuset when `cpuset`).
    pub base: PathBuf,
    /// Where the judging process lives now (`base` itself only for the root cgroup).
    pub leaf: PathBuf,
    /// Whether children also get the cpuset controller (keepers pinned for real).
    pub cpuset: bool,
    /// The transient scope systemd made for it, when one was asked for.
    pub scope: Option<String>,
}

/// Why a cgroup cannot be used as it is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The controllers are not offered to this cgroup: another cgroup (a delegated scope) can
    /// help.
    Missing {
        cgroup: PathBuf,
        missing: Vec<String>,
    },
    /// Anything else: a read-only cgroupfs, a refused write. Nothing systemd can fix.
    Broken(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Missing { cgroup, missing } => write!(
                f,
                "cgroup v2 at {} lacks the {} controller{}",
                cgroup.display(),
                missing.join(", "),
                if missing.len() > 1 { "s" } else { "" }
            ),
            Refusal::Broken(why) => f.write_str(why),
        }
    }
}

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

fn read(fs: &dyn CgroupFs, path: &Path) -> Result<String, Refusal> {
    fs.read(path)
        .map_err(|e| Refusal::Broken(format!("failed to read {}: {e}", path.display())))
}

/// What to do about a failed write, where the error says.
fn hint(e: &io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(libc::EROFS) => {
            " (the cgroup file system is mounted read-only: give ojd a writable one, e.g. a \
             container with a private cgroup namespace)"
        }
        Some(libc::EACCES) | Some(libc::EPERM) => " (not delegated to this user)",
        _ => "",
    }
}

fn write(fs: &dyn CgroupFs, path: &Path, value: &str) -> Result<(), Refusal> {
    fs.write(path, value).map_err(|e| {
        Refusal::Broken(format!(
            "failed to write {value:?} to {}: {e}{}",
            path.display(),
            hint(&e)
        ))
    })
}

/// The cgroup v2 path of this process (`0::/a/b` in `/proc/self/cgroup`).
pub(crate) fn own_path(proc_self_cgroup: &str) -> Option<String> {
    proc_self_cgroup
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(str::to_string)
}

/// Finds or makes the delegated subtree for a process in cgroup `own` (a path below `root`,
/// the cgroup2 mount), moving every process of `own` into its leaf.
pub(crate) fn delegate(fs: &dyn CgroupFs, root: &Path, own: &str) -> Result<Delegation, Refusal> {
    let mut base = root.join(own.trim_start_matches('/'));
    // Already done by this process, or by the process that started it (a daemon restarted in
    // place, `ojd judge` run from the daemon's leaf): the leaf's parent delegates already.
    if base.file_name().is_some_and(|n| n == LEAF) {
        if let Some(parent) = base.parent().filter(|p| p.starts_with(root) && *p != root) {
            let enabled = fs
                .read(&parent.join("cgroup.subtree_control"))
                .unwrap_or_default();
            if NEEDED.iter().all(|c| words(&enabled).contains(c)) {
                base = parent.to_path_buf();
            }
        }
    }
    let available = read(fs, &base.join("cgroup.controllers"))?;
    let available = words(&available);
    let missing: Vec<String> = NEEDED
        .iter()
        .filter(|c| !available.contains(c))
        .map(|c| c.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(Refusal::Missing {
            cgroup: base,
            missing,
        });
    }
    let cpuset = available.contains(&"cpuset");
    // The root cgroup has no `cgroup.type` and may hold processes beside enabled controllers.
    let is_root = !fs.exists(&base.join("cgroup.type"));
    if !is_root {
        let kind = read(fs, &base.join("cgroup.type"))?;
        if kind.trim() != "domain" {
            return Err(Refusal::Broken(format!(
                "cgroup v2 at {} is of type {:?}, not \"domain\": its children cannot have the \
                 memory controller (start ojd in a cgroup of its own, e.g. \
                 systemd-run --scope -p Delegate=yes ...)",
                base.display(),
                kind.trim()
            )));
        }
    }
    let leaf = if is_root {
        base.clone()
    } else {
        base.join(LEAF)
    };
    if !is_root {
        empty_into_leaf(fs, &base, &leaf)?;
    }
    let control = base.join("cgroup.subtree_control");
    let enabled = read(fs, &control)?;
    let mut want: Vec<&str> = NEEDED.to_vec();
    if cpuset {
        want.push("cpuset");
    }
    let todo: Vec<String> = want
        .iter()
        .filter(|c| !words(&enabled).contains(c))
        .map(|c| format!("+{c}"))
        .collect();
    if !todo.is_empty() {
        // One write for all of them: cpuset never goes in alone.
        write(fs, &control, &todo.join(" "))?;
    }
    let enabled = read(fs, &control)?;
    let enabled = words(&enabled);
    if let Some(c) = want.iter().find(|c| !enabled.contains(c)) {
        return Err(Refusal::Broken(format!(
            "{} does not list {c} after it was enabled",
            control.display()
        )));
    }
    Ok(Delegation {
        base,
        leaf,
        cpuset,
        scope: None,
    })
}

/// Moves every process of `base` into `leaf`, until `base` holds none (a process may fork
/// while the others move: a few passes).
fn empty_into_leaf(fs: &dyn CgroupFs, base: &Path, leaf: &Path) -> Result<(), Refusal> {
    let procs = base.join("cgroup.procs");
    for _ in 0..8 {
        let listed = read(fs, &procs)?;
        let pids = words(&listed);
        if pids.is_empty() {
            return Ok(());
        }
        match fs.mkdir(leaf) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(Refusal::Broken(format!(
                    "failed to create cgroup {}: {e}{}",
                    leaf.display(),
                    hint(&e)
                )))
            }
        }
        for pid in pids {
            match fs.write(&leaf.join("cgroup.procs"), pid) {
                Ok(()) => {}
                // Exited meanwhile.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
                Err(_) => write(fs, &leaf.join("cgroup.procs"), pid)?,
            }
        }
    }
    Err(Refusal::Broken(format!(
        "{} still holds processes after moving them into {}",
        base.display(),
        leaf.display()
    )))
}

/// The process-wide delegation, made at the first call (None: not a cgroup v2 host).
pub(crate) fn ensure() -> Option<Result<Delegation, String>> {
    static ONCE: std::sync::OnceLock<Option<Result<Delegation, String>>> =
        std::sync::OnceLock::new();
    ONCE.get_or_init(ensure_now).clone()
}

const ROOT: &str = "/sys/fs/cgroup";

fn ensure_now() -> Option<Result<Delegation, String>> {
    let root = Path::new(ROOT);
    if !root.join("cgroup.controllers").exists() {
        return None;
    }
    let own = || {
        std::fs::read_to_string("/proc/self/cgroup")
            .ok()
            .and_then(|t| own_path(&t))
            .ok_or_else(|| "no cgroup v2 entry in /proc/self/cgroup".to_string())
    };
    Some(own().and_then(|now| {
        let systemd = Path::new("/run/systemd/system").exists();
        let host = Host {
            systemd,
            undelegated_scope: systemd && undelegated_scope(root, &now),
        };
        decide(&RealFs, root, &now, host, &mut || in_new_scope(root))
    }))
}

/// What the host offers beyond the cgroup file system.
#[derive(Clone, Copy)]
struct Host {
    /// systemd is the init (`/run/systemd/system` exists): a delegated scope can be asked for.
    systemd: bool,
    /// The process sits in a scope systemd manages without delegating it.
    undelegated_scope: bool,
}

/// Delegates in `now` (the process's own cgroup below `root`), asking systemd for a scope
/// (`ask`) where that cannot work; the error names what is missing and the fix.
fn decide(
    fs: &dyn CgroupFs,
    root: &Path,
    now: &str,
    host: Host,
    ask: &mut dyn FnMut() -> Result<Delegation, String>,
) -> Result<Delegation, String> {
    let mut asked = None;
    if host.undelegated_scope {
        // A login session's scope (or a scope made without Delegate=yes): its cgroup may
        // have the controllers (systemd enables them on a slice for other units' sake), but
        // systemd manages it, not ojd, and gives it no cpuset. A scope of ojd's own instead.
        match ask() {
            Ok(d) => return Ok(d),
            Err(e) => asked = Some(e),
        }
    }
    match delegate(fs, root, now) {
        Ok(d) => Ok(d),
        Err(e @ Refusal::Missing { .. }) if host.systemd && asked.is_none() => {
            ask().map_err(|why| format!("{e}, and {why}"))
        }
        Err(e) => Err(match (asked, e) {
            (Some(why), e) => format!("{e}, and {why}"),
            (None, e @ Refusal::Missing { .. }) => format!("{e}: {}", fix_hint_for(host.systemd)),
            (None, Refusal::Broken(e)) => e,
        }),
    }
}

/// Asks systemd for a delegated scope holding this process, and delegates there.
fn in_new_scope(root: &Path) -> Result<Delegation, String> {
    let scope = format!("ojd-{}.scope", std::process::id());
    super::dbus::start_delegated_scope(&scope, std::process::id()).map_err(|e| {
        format!(
            "asking systemd for a delegated scope failed ({e}): {}",
            fix_hint()
        )
    })?;
    let own = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|t| own_path(&t))
        .ok_or_else(|| "no cgroup v2 entry in /proc/self/cgroup".to_string())?;
    let mut d = delegate(&RealFs, root, &own)
        .map_err(|e| format!("{e} (in the scope {scope} systemd made): {}", fix_hint()))?;
    d.scope = Some(scope);
    Ok(d)
}

/// Whether `own` is a systemd scope that was not delegated: a `.scope` cgroup (a login
/// session's, or one `systemd-run --scope` made without `Delegate=yes`) without the
/// `trusted.delegate` attribute systemd (251 and later) puts on the cgroups it delegates. A
/// service is used as it is (it has the controllers only with `Delegate=yes`).
fn undelegated_scope(root: &Path, own: &str) -> bool {
    let dir = root.join(own.trim_start_matches('/'));
    if dir.extension().is_none_or(|e| e != "scope") {
        return false;
    }
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    let mut value = [0u8; 8];
    // SAFETY: both strings are NUL-terminated and outlive the call; the buffer's length is
    // passed with it.
    let n = unsafe {
        libc::getxattr(
            path.as_ptr(),
            c"trusted.delegate".as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    n < 0 || !value.starts_with(b"1")
}

/// The one command that gives ojd a delegated cgroup, for this host.
pub(crate) fn fix_hint() -> &'static str {
    fix_hint_for(Path::new("/run/systemd/system").exists())
}

/// [`fix_hint`] on a host with systemd as its init, or without.
fn fix_hint_for(systemd: bool) -> &'static str {
    if systemd {
        "start ojd in a delegated scope: systemd-run --scope -p Delegate=yes -- ojd ... \
         (or run the shipped unit, dist/systemd/)"
    } else {
        "start ojd where the memory, pids and cpu controllers are delegated to it (without \
         systemd: a container with its own cgroup namespace, e.g. docker run --cgroupns=private)"
    }
}

#[cfg(test)]
#[path = "delegate_model.rs"]
mod tests;

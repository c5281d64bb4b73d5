//! Host faults: the judge's own failures (a full or failing disk, a file it cannot write or
//! read back, a keeper that failed), kept apart from what a program did, as isolate keeps its
//! internal errors apart from a program's death. A host fault is never a verdict: the daemon gives
//! the submission back to the queue, stops claiming until this host's checks pass again
//! ([`Judge::host_check`](super::Judge::host_check)), and `ojd judge` exits 3.
//!
//! Why free space is watched around every run: a program's standard output and error are files
//! in the scratch folder. When that file system fills up, the program's writes fail with ENOSPC
//! and nothing of it reaches the judge: a C++ program loses its output silently (it reads as a
//! wrong answer), a Rust one panics (exit 101, a runtime error), a compiler that cannot write its
//! messages may fail. So every file system a run writes to must have [`FULL_SLACK`] free before
//! the run and still after it; else the run says nothing about the program.

use std::path::{Path, PathBuf};

/// Free space under which a file system counts as full: a write that failed with ENOSPC leaves
/// less than this behind (a few blocks at most), and a run is refused when less than this is free.
pub(crate) const FULL_SLACK: u64 = 1 << 20;

/// A failure of this host, never of the program being judged.
#[derive(Debug, thiserror::Error)]
pub enum HostFault {
    /// A file system the judge writes to has less free space than needed (before a run, or
    /// before claiming: `[judge] min_free_space`).
    #[error("{} has {} free, under the {} needed", path.display(), mib(*free), mib(*needed))]
    LowSpace {
        /// The full file system's folder.
        path: PathBuf,
        /// Its free bytes.
        free: u64,
        /// The bytes needed.
        needed: u64,
    },
    /// The file system of a run's files filled up while it ran: its writes may have failed with
    /// ENOSPC, so neither its output nor how it ended is its own doing.
    #[error("{} filled up while {during} ran ({} free after it): its writes may have failed (no space left on device)", path.display(), mib(*free))]
    FilledUp {
        /// The folder whose file system filled up.
        path: PathBuf,
        /// Its free bytes after the run.
        free: u64,
        /// The run during which it filled up.
        during: String,
    },
    /// A file operation of the judge itself failed: laying out a judging, reading a program's
    /// output or a test's answer back, removing an earlier test's files.
    #[error("cannot {what} {}", path.display())]
    File {
        /// What the judge was doing ("create", "read", "remove").
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A run was ended by its wall-time limit while it waited for a CPU that other work on this
    /// host held (the sandbox's [`WallCause::HostLoad`](ojd_sandbox::WallCause)), on every try:
    /// the host's load used up the program's time, so no verdict can be given here.
    #[error("{during} was starved of CPU: {} ms of its {} ms wall-time limit went waiting for a CPU other work held, on each of {tries} tries", cpu_wait.as_millis(), wall.as_millis())]
    Starved {
        /// The run that was starved.
        during: String,
        /// Its wall-time limit.
        wall: std::time::Duration,
        /// The time it spent waiting for a CPU, on the last try.
        cpu_wait: std::time::Duration,
        /// How many times it was tried.
        tries: u32,
    },
}

impl HostFault {
    /// The error number of the cause: ENOSPC for space, else the failed call's.
    pub(crate) fn errno(&self) -> Option<i32> {
        match self {
            HostFault::LowSpace { .. } | HostFault::FilledUp { .. } => Some(libc::ENOSPC),
            HostFault::File { source, .. } => source.raw_os_error(),
            HostFault::Starved { .. } => None,
        }
    }

    /// A short name of the kind of fault, for host statistics: `low_space`, `disk_full`,
    /// `io_error`, `cpu_starved`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            HostFault::LowSpace { .. } => "low_space",
            HostFault::FilledUp { .. } => "disk_full",
            HostFault::File { .. } => "io_error",
            HostFault::Starved { .. } => "cpu_starved",
        }
    }
}

/// `what` failed on `path`, as a host fault.
pub(crate) fn file_fault(
    what: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> HostFault {
    let path = path.to_path_buf();
    move |source| HostFault::File { what, path, source }
}

fn mib(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// Bytes available to unprivileged writers on the file system holding `path`.
pub fn free_space(path: &Path) -> std::io::Result<u64> {
    let s = rustix::fs::statvfs(path)?;
    Ok(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Each of `dirs` must have at least `needed` bytes free on its file system.
pub(crate) fn require_free(dirs: &[&Path], needed: u64) -> Result<(), HostFault> {
    for dir in dirs {
        let free = free_space(dir).map_err(file_fault("measure the free space of", dir))?;
        if free < needed {
            return Err(HostFault::LowSpace {
                path: dir.to_path_buf(),
                free,
                needed,
            });
        }
    }
    Ok(())
}

/// After a run: each of `dirs` must still have [`FULL_SLACK`] free, else the run's writes may
/// have failed for want of space.
pub(crate) fn still_free(dirs: &[&Path], during: &str) -> Result<(), HostFault> {
    for dir in dirs {
        let free = free_space(dir).map_err(file_fault("measure the free space of", dir))?;
        if free < FULL_SLACK {
            return Err(HostFault::FilledUp {
                path: dir.to_path_buf(),
                free,
                during: during.to_string(),
            });
        }
    }
    Ok(())
}

impl super::Judge {
    /// Makes again, empty, each folder this judge writes to that is gone: its scratch, the
    /// scratch's `runs`, its cache (an operator's `rm -rf`, a tmpfs remounted). Returns the
    /// folders it made, for the caller's log. The compile cache's own folder and the package
    /// cache's are made again on their next use; what they held is compiled or fetched again.
    /// Called before [`Judge::host_check`](super::Judge::host_check), so a host whose folder
    /// went away heals at its next check instead of pausing for ever.
    pub fn heal_folders(&self) -> Result<Vec<PathBuf>, HostFault> {
        let mut made = Vec::new();
        for dir in [
            self.scratch.clone(),
            self.scratch.join("runs"),
            self.cache.clone(),
        ] {
            if dir.is_dir() {
                continue;
            }
            std::fs::create_dir_all(&dir).map_err(file_fault("make again the folder", &dir))?;
            // Traversable, not listable, as `Judge::new` makes them (see there).
            crate::fsutil::set_mode(&dir, 0o711).map_err(file_fault("set the mode of", &dir))?;
            made.push(dir);
        }
        Ok(made)
    }
}

/// Writes, reads back and removes a small file in `dir`: the host can still write there.
pub(crate) fn probe(dir: &Path) -> Result<(), HostFault> {
    let path = dir.join(format!(".ojd-probe-{}", std::process::id()));
    let data = [0x5au8; 4096];
    std::fs::write(&path, data).map_err(file_fault("write a probe file", &path))?;
    let back = std::fs::read(&path).map_err(file_fault("read back the probe file", &path));
    let removed = std::fs::remove_file(&path).map_err(file_fault("remove the probe file", &path));
    if back?.as_slice() != data.as_slice() {
        return Err(HostFault::File {
            what: "read back what was written to",
            path,
            source: std::io::Error::other("the probe file reads back different bytes"),
        });
    }
    removed
}

/// The error number in a keeper's failure message, which ends with the system's error text
/// ("…: No space left on device (os error 28)").
pub(crate) fn message_errno(message: &str) -> Option<i32> {
    let at = message.rfind("(os error ")?;
    let rest = &message[at + "(os error ".len()..];
    rest[..rest.find(')')?].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeper_messages_give_their_errno() {
        let table = [
            (
                "/s/runs/judge-1/stdout: No space left on device (os error 28)",
                Some(28),
            ),
            (
                "failed to copy /p/t.in into the box: Input/output error (os error 5)",
                Some(5),
            ),
            (
                "sandbox setup failed at chroot: Too many open files (os error 24)",
                Some(24),
            ),
            ("keeper: bad request: expected value", None),
            ("(os error x)", None),
            ("", None),
        ];
        for (message, want) in table {
            assert_eq!(message_errno(message), want, "{message}");
        }
    }

    #[test]
    fn faults_name_their_kind_errno_and_path() {
        let table = [
            (
                HostFault::LowSpace {
                    path: "/s".into(),
                    free: 512 << 10,
                    needed: 64 << 20,
                },
                "low_space",
                Some(libc::ENOSPC),
                "/s has 512 KiB free, under the 64 MiB needed",
            ),
            (
                HostFault::FilledUp {
                    path: "/s/runs/judge-1".into(),
                    free: 0,
                    during: "/prog/a.out".into(),
                },
                "disk_full",
                Some(libc::ENOSPC),
                "/s/runs/judge-1 filled up while /prog/a.out ran (0 KiB free after it)",
            ),
            (
                HostFault::File {
                    what: "read the program's output",
                    path: "/s/runs/judge-1/stdout".into(),
                    source: std::io::Error::from_raw_os_error(libc::EIO),
                },
                "io_error",
                Some(libc::EIO),
                "cannot read the program's output /s/runs/judge-1/stdout",
            ),
        ];
        for (fault, kind, errno, text) in table {
            assert_eq!(fault.kind(), kind);
            assert_eq!(fault.errno(), errno);
            assert!(fault.to_string().starts_with(text), "{fault}");
        }
    }

    #[test]
    fn judge_errors_are_host_faults_or_not() {
        use crate::judge::JudgeError;
        use ojd_sandbox::SandboxError;
        let io = |errno| std::io::Error::from_raw_os_error(errno);
        let table: Vec<(JudgeError, bool, Option<i32>, Option<&str>)> = vec![
            (
                JudgeError::Host(HostFault::FilledUp {
                    path: "/s".into(),
                    free: 0,
                    during: "/prog/a.out".into(),
                }),
                true,
                Some(libc::ENOSPC),
                Some("disk_full"),
            ),
            (
                JudgeError::Host(HostFault::File {
                    what: "read the program's output",
                    path: "/s/o".into(),
                    source: io(libc::EIO),
                }),
                true,
                Some(libc::EIO),
                Some("io_error"),
            ),
            (
                JudgeError::Io {
                    what: "write the source".into(),
                    source: io(libc::EMFILE),
                },
                true,
                Some(libc::EMFILE),
                Some("io_error"),
            ),
            (
                JudgeError::Sandbox(SandboxError::Keeper(
                    "/s/runs/judge-1/stdout: No space left on device (os error 28)".into(),
                )),
                true,
                Some(libc::ENOSPC),
                Some("sandbox"),
            ),
            (
                JudgeError::Sandbox(SandboxError::KeeperGone),
                true,
                None,
                Some("sandbox"),
            ),
            (
                JudgeError::BadSubmission("the submission is empty".into()),
                false,
                None,
                None,
            ),
            (
                JudgeError::MissingAnswers {
                    problem: "p".into(),
                    tests: "1".into(),
                },
                false,
                None,
                None,
            ),
            (
                JudgeError::UnknownLanguage {
                    language: "cobol".into(),
                    known: "c".into(),
                },
                false,
                None,
                None,
            ),
            (JudgeError::Cancelled, false, None, None),
        ];
        for (e, host, errno, kind) in table {
            assert_eq!(e.is_host_fault(), host, "{e}");
            assert_eq!(e.errno(), errno, "{e}");
            assert_eq!(e.host_fault_kind(), kind, "{e}");
        }
    }

    #[test]
    fn space_checks_and_the_probe_on_a_healthy_folder() {
        let d = tempfile::tempdir().expect("tempdir");
        assert!(free_space(d.path()).expect("statvfs") > 0);
        require_free(&[d.path()], 1).expect("some space");
        assert!(matches!(
            require_free(&[d.path()], u64::MAX),
            Err(HostFault::LowSpace { .. })
        ));
        probe(d.path()).expect("probe");
        assert_eq!(std::fs::read_dir(d.path()).expect("list").count(), 0);
        let gone = d.path().join("missing");
        assert!(matches!(
            probe(&gone),
            Err(HostFault::File { ref source, .. }) if source.raw_os_error() == Some(libc::ENOENT)
        ));
    }
}

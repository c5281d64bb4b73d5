//! A judge's language table: each configured profile resolved on this host when the judge
//! starts, and a profile that failed to resolve probed again later ([`Judge::recheck_languages`]).
//!
//! A failed probe is as often the host's passing trouble as a missing toolchain: `rustc --print
//! sysroot` that timed out on a loaded host, a toolchain installed after the daemon started. So a
//! failure is not for ever: it is tried again after [`JudgeConfig::toolchain_recheck`] (default
//! 1 min), the wait doubling after each failure up to fifteen times that (15 min), or at once
//! when the caller forces it (an admin's action). A language only ever goes from unavailable to
//! resolved, never back: a [`Language`] once handed out stays valid for the judge's life (a
//! `OnceLock`), so callers keep borrowing `&Language`. The read-only host folders a late
//! language needs (its sysroot) reach the sandbox by a new keeper pool with them added; the
//! judgings running on the old pool finish there.
//!
//! [`JudgeConfig::toolchain_recheck`]: crate::JudgeConfig

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::lang::{resolve_language, Language, LanguageConfig, ToolchainError};

/// The most a failed language waits for its next probe, in multiples of the first wait.
const MAX_BACKOFF_FACTOR: u32 = 15;

/// One configured language on this host.
pub(super) struct Slot {
    resolved: OnceLock<Language>,
    failed: Mutex<Option<Failed>>,
}

/// Why a language is unavailable, and when it is probed again.
#[derive(Clone, Debug)]
struct Failed {
    error: ToolchainError,
    /// When the next probe is due.
    next: Instant,
    /// The wait before `next` (doubled after each failure, up to its bound).
    backoff: Duration,
}

/// What a probe of a language that was unavailable found ([`Judge::recheck_languages`]).
///
/// [`Judge::recheck_languages`]: crate::Judge::recheck_languages
#[derive(Clone, Debug)]
pub struct Recheck {
    /// The language's id.
    pub language: String,
    /// `Ok`: resolved now, its submissions may be claimed; `Err`: still unavailable, and why.
    pub result: Result<(), ToolchainError>,
    /// Whether the error differs from the previous probe's (a caller logs a change only).
    pub changed: bool,
}

impl Slot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Failed>> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The resolved language, or why it is unavailable now.
    pub(super) fn get(&self) -> Result<&Language, ToolchainError> {
        if let Some(l) = self.resolved.get() {
            return Ok(l);
        }
        match self.lock().as_ref() {
            Some(f) => Err(f.error.clone()),
            // Resolved by a probe between the two reads.
            None => Ok(self
                .resolved
                .get()
                .expect("a failure is removed only under its lock, with the language set")),
        }
    }
}

/// The table and its probing.
pub(super) struct Table {
    slots: BTreeMap<String, Slot>,
    /// Held while a probe runs: one at a time, however many workers ask.
    probing: Mutex<()>,
    first_wait: Duration,
    timeout: Duration,
}

impl Table {
    /// Resolves every profile of `configs` now; returns the table and the read-only host
    /// folders the resolved ones need.
    pub(super) fn resolve(
        configs: &BTreeMap<String, LanguageConfig>,
        first_wait: Duration,
        timeout: Duration,
        now: Instant,
    ) -> (Table, Vec<PathBuf>) {
        let mut ro = Vec::new();
        let slots = configs
            .iter()
            .map(|(id, l)| {
                let slot = Slot {
                    resolved: OnceLock::new(),
                    failed: Mutex::new(None),
                };
                match resolve_language(id, l, timeout) {
                    Ok((lang, paths)) => {
                        ro.extend(paths);
                        let _ = slot.resolved.set(lang);
                    }
                    Err(error) => {
                        *slot.lock() = Some(Failed {
                            error,
                            next: now + first_wait,
                            backoff: first_wait,
                        });
                    }
                }
                (id.clone(), slot)
            })
            .collect();
        let table = Table {
            slots,
            probing: Mutex::new(()),
            first_wait,
            timeout,
        };
        (table, ro)
    }

    pub(super) fn get(&self, id: &str) -> Option<&Slot> {
        self.slots.get(id)
    }

    pub(super) fn ids(&self) -> impl Iterator<Item = &String> {
        self.slots.keys()
    }

    /// Every language: resolved, or why not.
    pub(super) fn snapshot(&self) -> BTreeMap<String, Result<Language, ToolchainError>> {
        self.slots
            .iter()
            .map(|(id, s)| (id.clone(), s.get().cloned()))
            .collect()
    }

    /// When the next unavailable language is due for a probe; `None` when all are resolved.
    pub(super) fn next_due(&self) -> Option<Instant> {
        self.slots
            .values()
            .filter_map(|s| s.lock().as_ref().map(|f| f.next))
            .min()
    }

    /// Probes every unavailable language that is due at `now` (every one with `force`), with
    /// `configs` (the judge's). Returns what each probe found, and the read-only host folders
    /// of the languages resolved now. Nothing when another probe runs (it does the work).
    pub(super) fn recheck(
        &self,
        configs: &BTreeMap<String, LanguageConfig>,
        force: bool,
        now: Instant,
    ) -> (Vec<Recheck>, Vec<PathBuf>) {
        let Ok(_one) = self.probing.try_lock() else {
            return (Vec::new(), Vec::new());
        };
        let (mut found, mut ro) = (Vec::new(), Vec::new());
        for (id, slot) in &self.slots {
            let due = slot.lock().as_ref().is_some_and(|f| force || f.next <= now);
            let Some(config) = configs.get(id).filter(|_| due) else {
                continue;
            };
            // The probe runs without the slot's lock: readers see the old failure meanwhile.
            let probed = resolve_language(id, config, self.timeout);
            let mut failed = slot.lock();
            let Some(before) = failed.take() else {
                continue;
            };
            match probed {
                Ok((lang, paths)) => {
                    ro.extend(paths);
                    let _ = slot.resolved.set(lang);
                    found.push(Recheck {
                        language: id.clone(),
                        result: Ok(()),
                        changed: true,
                    });
                }
                Err(error) => {
                    let changed = error != before.error;
                    let bound = self.first_wait.saturating_mul(MAX_BACKOFF_FACTOR);
                    let backoff = before.backoff.saturating_mul(2).min(bound);
                    *failed = Some(Failed {
                        error: error.clone(),
                        next: now + backoff,
                        backoff,
                    });
                    found.push(Recheck {
                        language: id.clone(),
                        result: Err(error),
                        changed,
                    });
                }
            }
        }
        (found, ro)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    /// A profile whose compiler is found through `sysroot_query`, a script that prints `root`
    /// once `flag` exists and fails before.
    fn flagged(dir: &std::path::Path) -> (LanguageConfig, PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let root = dir.join("sysroot");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/cc"), "#!/bin/sh\n").unwrap();
        let flag = dir.join("installed");
        let script = dir.join("probe");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n[ -e {} ] || exit 3\necho {}\n",
                flag.display(),
                root.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut l = Config::defaults().languages["c"].clone();
        l.compile[0] = "cc".into();
        l.sysroot_query = vec![script.display().to_string()];
        (l, flag, root)
    }

    #[test]
    fn a_failed_language_is_probed_again_with_a_doubling_wait_and_resolves_once_it_can() {
        let dir = tempfile::tempdir().unwrap();
        let (l, flag, root) = flagged(dir.path());
        let configs = BTreeMap::from([("c".to_string(), l)]);
        let minute = Duration::from_secs(60);
        let t0 = Instant::now();
        let (table, ro) = Table::resolve(&configs, minute, Duration::from_secs(30), t0);
        assert!(ro.is_empty());
        let failed = |t: &Table| t.get("c").unwrap().get().map(|_| ()).unwrap_err();
        assert!(
            matches!(failed(&table), ToolchainError::Failed { .. }),
            "{}",
            failed(&table)
        );
        assert_eq!(table.next_due(), Some(t0 + minute));
        // Not due: nothing probed.
        assert!(table.recheck(&configs, false, t0).0.is_empty());
        // Due, still failing: the same error (no change to log), the wait doubled each time
        // up to 15 min.
        let mut at = t0 + minute;
        for wait in [2, 4, 8, 15, 15] {
            let (found, _) = table.recheck(&configs, false, at);
            assert_eq!(found.len(), 1);
            assert!(found[0].result.is_err() && !found[0].changed, "{found:?}");
            assert_eq!(table.next_due(), Some(at + minute * wait));
            at += minute * wait;
        }
        // The toolchain appears: forced, it resolves at once, with its sysroot to show.
        std::fs::write(&flag, "").unwrap();
        let (found, ro) = table.recheck(&configs, true, t0);
        assert_eq!(found.len(), 1);
        assert!(found[0].result.is_ok() && found[0].changed, "{found:?}");
        assert_eq!(ro, vec![root.clone()]);
        let lang = table.get("c").unwrap().get().expect("resolved");
        assert_eq!(lang.compile[0], root.join("bin/cc").display().to_string());
        assert_eq!(table.next_due(), None);
        // Resolved stays resolved: nothing more to probe.
        assert!(table.recheck(&configs, true, at).0.is_empty());
        assert!(table.snapshot()["c"].is_ok());
    }

    #[test]
    fn a_probe_that_hangs_is_killed_at_its_timeout_and_the_language_is_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = Config::defaults().languages["c"].clone();
        l.sysroot_query = vec!["sleep".into(), "20".into()];
        let configs = BTreeMap::from([("c".to_string(), l)]);
        let started = Instant::now();
        let timeout = Duration::from_millis(300);
        let (table, _) = Table::resolve(&configs, Duration::from_secs(60), timeout, started);
        assert!(started.elapsed() < Duration::from_secs(15));
        let e = table.get("c").unwrap().get().map(|_| ()).unwrap_err();
        assert_eq!(
            e,
            ToolchainError::TimedOut {
                command: "sleep 20".into(),
                after: timeout
            }
        );
        assert!(e.to_string().contains("timed out"), "{e}");
        drop(dir);
    }
}

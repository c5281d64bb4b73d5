//! The compile cache's policy and bookkeeping: compiled programs live under
//! `<judge cache>/programs/<key>/`, a folder this module alone fills and empties. Its bound holds
//! at every moment: a program is admitted only after the least recently used unpinned entries
//! are evicted to make room for it, a program larger than the per-entry cap (or than what can be
//! freed) is used once from the scratch folder and never cached, and an entry a judging uses is
//! pinned (counted in this process) and never evicted under it.
//!
//! The cache also forgets by age: a program unused for longer than `[judge] cache_retention` is
//! removed ([`expired`], [`collect_expired`]) when a judge starts and then at most hourly, as it
//! compiles; a pinned one never. Last use is the folder's modification time, set at every use
//! ([`touch`]), so that another process's judging (which pins in its own process only) keeps
//! its program fresh for at least the retention, an hour or more.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// The folder of the compile cache inside the judge's cache folder. Nothing else is ever put
/// there (the package cache of a judge host is a sibling, `packages/`).
pub(crate) const PROGRAMS: &str = "programs";

/// One cached program as the policy sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) size: u64,
    pub(crate) used: SystemTime,
    pub(crate) pinned: bool,
}

/// What to do with a freshly compiled program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Evict these entries (least recently used first), then store the program.
    Store { evict: Vec<String> },
    /// Too big for the cache, or no room can be made: use it once, never cache it.
    Once,
}

/// Whether a program of `incoming` bytes is cached, and what is evicted for it, so that the
/// cache never holds more than `budget` bytes: entries are evicted by least recent use, pinned
/// ones never; nothing is evicted when the program would not fit anyway.
pub(crate) fn admit(entries: &[Entry], incoming: u64, budget: u64, entry_max: u64) -> Admission {
    if incoming > entry_max || incoming > budget {
        return Admission::Once;
    }
    let mut total: u64 = entries.iter().map(|e| e.size).sum();
    let mut candidates: Vec<&Entry> = entries.iter().filter(|e| !e.pinned).collect();
    candidates.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.key.cmp(&b.key)));
    let mut evict = Vec::new();
    for e in candidates {
        if total.saturating_add(incoming) <= budget {
            break;
        }
        total -= e.size;
        evict.push(e.key.clone());
    }
    if total.saturating_add(incoming) <= budget {
        Admission::Store { evict }
    } else {
        Admission::Once
    }
}

/// The unpinned entries last used longer than `retention` before `now` (none when `retention`
/// is zero: programs then go only to make room).
pub(crate) fn expired(entries: &[Entry], now: SystemTime, retention: Duration) -> Vec<String> {
    if retention.is_zero() {
        return Vec::new();
    }
    let mut old: Vec<&Entry> = entries
        .iter()
        .filter(|e| !e.pinned)
        .filter(|e| now.duration_since(e.used).is_ok_and(|age| age > retention))
        .collect();
    old.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.key.cmp(&b.key)));
    old.into_iter().map(|e| e.key.clone()).collect()
}

/// How often a judge that keeps compiling looks for expired programs again.
pub(crate) const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// When this process last looked for expired programs, per cache folder.
static SWEPT: Mutex<Option<HashMap<PathBuf, SystemTime>>> = Mutex::new(None);

/// Removes the programs of the cache folder `root` unused for longer than `retention` (see
/// [`expired`]), under the cache's lock, when `force` or when this process last did so for
/// `root` at least [`SWEEP_EVERY`] ago; returns the keys removed.
pub(crate) fn collect_expired(root: &Path, retention: Duration, force: bool) -> Vec<String> {
    if retention.is_zero() {
        return Vec::new();
    }
    let now = SystemTime::now();
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        let swept = swept.get_or_insert_with(HashMap::new);
        let due = swept
            .get(root)
            .is_none_or(|t| now.duration_since(*t).is_ok_and(|d| d >= SWEEP_EVERY));
        if !force && !due {
            return Vec::new();
        }
        swept.insert(root.to_path_buf(), now);
    }
    let mut locked = lock();
    let old = expired(&locked.entries(root), now, retention);
    for key in &old {
        let _ = std::fs::remove_dir_all(root.join(key));
    }
    old
}

/// Whether a folder name is a cache key (64 lowercase hex digits): eviction looks at nothing else.
pub(crate) fn is_key(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Pins of this process: cached program folder → how many judgings use it. Also the lock under
/// which entries are looked up, admitted and evicted.
static PINS: Mutex<Option<HashMap<PathBuf, usize>>> = Mutex::new(None);

/// The cache's lock, with this process's pins.
pub(crate) struct Locked(MutexGuard<'static, Option<HashMap<PathBuf, usize>>>);

pub(crate) fn lock() -> Locked {
    Locked(PINS.lock().unwrap_or_else(|e| e.into_inner()))
}

impl Locked {
    fn pins(&mut self) -> &mut HashMap<PathBuf, usize> {
        self.0.get_or_insert_with(HashMap::new)
    }

    /// Pins a cached program's folder until the returned pin (and all its clones) drop.
    pub(crate) fn pin(&mut self, dir: &Path) -> Pin {
        *self.pins().entry(dir.to_path_buf()).or_insert(0) += 1;
        Pin(Some(Arc::new(Held::Cached(dir.to_path_buf()))))
    }

    /// The entries of the cache folder `root`, with their sizes, last use and pins.
    pub(crate) fn entries(&mut self, root: &Path) -> Vec<Entry> {
        let pins = self.pins();
        std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let key = e.file_name().to_str().filter(|k| is_key(k))?.to_string();
                let used = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                let path = e.path();
                Some(Entry {
                    size: tree_size(&path),
                    pinned: pins.get(&path).is_some_and(|n| *n > 0),
                    key,
                    used,
                })
            })
            .collect()
    }
}

/// Keeps a program usable while a judging holds it: a cached entry is pinned, a program used
/// once is deleted when the last holder drops it. Clones share one hold.
#[derive(Clone, Debug, Default)]
pub struct Pin(Option<Arc<Held>>);

impl Pin {
    /// A program used once: its folder `work` is removed when the last holder drops it.
    pub(crate) fn once(work: PathBuf) -> Pin {
        Pin(Some(Arc::new(Held::Once(work))))
    }

    /// Whether this program is cached (and pinned), not used once.
    pub fn is_cached(&self) -> bool {
        matches!(self.0.as_deref(), Some(Held::Cached(_)))
    }
}

#[derive(Debug)]
enum Held {
    Cached(PathBuf),
    Once(PathBuf),
}

impl Drop for Held {
    fn drop(&mut self) {
        match self {
            Held::Cached(dir) => {
                let mut locked = lock();
                let pins = locked.pins();
                if let Some(n) = pins.get_mut(dir.as_path()) {
                    *n -= 1;
                    if *n == 0 {
                        pins.remove(dir.as_path());
                    }
                }
            }
            Held::Once(work) => {
                let _ = std::fs::remove_dir_all(work);
            }
        }
    }
}

/// Bytes of the files under `dir`.
pub(crate) fn tree_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// Marks a cached program as just used (its folder's modification time).
pub(crate) fn touch(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// Removes what an older ojd left directly in the judge cache folder: compiled programs under
/// their key, beside (and counted with) the package cache. Only key-named folders go.
pub(crate) fn drop_legacy(cache: &Path) {
    for e in std::fs::read_dir(cache).into_iter().flatten().flatten() {
        let is_legacy =
            e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name().to_str().is_some_and(is_key);
        if is_legacy {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, size: u64, age: u64, pinned: bool) -> Entry {
        Entry {
            key: key.into(),
            size,
            used: std::time::UNIX_EPOCH + Duration::from_secs(1_000 - age),
            pinned,
        }
    }

    fn store(keys: &[&str]) -> Admission {
        Admission::Store {
            evict: keys.iter().map(|k| k.to_string()).collect(),
        }
    }

    #[test]
    fn admission_and_eviction_order() {
        // (entries: key, size, age, pinned), incoming, budget, entry cap, expected
        let cases: Vec<(Vec<Entry>, u64, u64, u64, Admission)> = vec![
            // room: nothing evicted
            (vec![entry("a", 10, 5, false)], 10, 100, 50, store(&[])),
            // exactly full after admission
            (vec![entry("a", 90, 5, false)], 10, 100, 50, store(&[])),
            // one byte over: the oldest goes, not the newest
            (
                vec![entry("new", 50, 1, false), entry("old", 41, 9, false)],
                10,
                100,
                50,
                store(&["old"]),
            ),
            // least recently used first, as many as needed
            (
                vec![
                    entry("b", 30, 5, false),
                    entry("a", 30, 9, false),
                    entry("c", 30, 1, false),
                ],
                50,
                100,
                60,
                store(&["a", "b"]),
            ),
            // larger than the per-entry cap: used once, nothing evicted
            (vec![entry("a", 90, 9, false)], 51, 100, 50, Admission::Once),
            // larger than the whole budget
            (vec![], 101, 100, 1000, Admission::Once),
            // pinned entries are never evicted, even the oldest
            (
                vec![entry("pinned", 60, 99, true), entry("b", 30, 1, false)],
                40,
                100,
                50,
                store(&["b"]),
            ),
            // no room can be made without a pinned entry: used once, nothing evicted
            (
                vec![
                    entry("p1", 50, 9, true),
                    entry("p2", 40, 8, true),
                    entry("c", 5, 1, false),
                ],
                20,
                100,
                50,
                Admission::Once,
            ),
            // a cache already over its budget (a smaller budget configured) shrinks
            (
                vec![entry("a", 80, 3, false), entry("b", 80, 2, false)],
                10,
                100,
                50,
                store(&["a"]),
            ),
        ];
        for (i, (entries, incoming, budget, cap, want)) in cases.into_iter().enumerate() {
            let got = admit(&entries, incoming, budget, cap);
            assert_eq!(got, want, "case {i}");
            if let Admission::Store { evict } = &got {
                let left: u64 = entries
                    .iter()
                    .filter(|e| !evict.contains(&e.key))
                    .map(|e| e.size)
                    .sum();
                assert!(left + incoming <= budget, "case {i}: the bound holds");
                assert!(
                    entries.iter().all(|e| !e.pinned || !evict.contains(&e.key)),
                    "case {i}: no pinned entry evicted"
                );
            }
        }
    }

    #[test]
    fn programs_unused_past_the_retention_expire() {
        let day = Duration::from_secs(86_400);
        let now = std::time::UNIX_EPOCH + 100 * day;
        let used = |key: &str, days_ago: u32, pinned: bool| Entry {
            key: key.into(),
            size: 1,
            used: now - day * days_ago,
            pinned,
        };
        let entries = vec![
            used("fresh", 1, false),
            used("month", 30, false),
            used("older", 31, false),
            used("oldest", 90, false),
            used("in-use", 60, true),
            // A clock set back: a use "in the future" is not old.
            Entry {
                key: "future".into(),
                size: 1,
                used: now + day,
                pinned: false,
            },
        ];
        assert_eq!(
            expired(&entries, now, 30 * day),
            ["oldest", "older"],
            "older than 30 days, oldest first; exactly 30 days is kept; pinned never"
        );
        assert_eq!(
            expired(&entries, now, 7 * day),
            ["oldest", "older", "month"]
        );
        assert!(
            expired(&entries, now, Duration::ZERO).is_empty(),
            "0s: never by age"
        );
    }

    #[test]
    fn collecting_removes_old_unpinned_folders_only() {
        let root = tempfile::tempdir().expect("temp");
        let day = Duration::from_secs(86_400);
        let now = SystemTime::now();
        let make = |key: &str, age: Duration| {
            let dir = root.path().join(key);
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(dir.join("main"), b"x").expect("write");
            let f = std::fs::File::open(&dir).expect("open");
            f.set_modified(now - age).expect("set the time");
            dir
        };
        let (old, pinned, fresh) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
        make(&old, 40 * day);
        let pinned_dir = make(&pinned, 40 * day);
        make(&fresh, day);
        std::fs::create_dir_all(root.path().join("not-a-key")).expect("mkdir");
        let pin = lock().pin(&pinned_dir);
        let removed = collect_expired(root.path(), 30 * day, true);
        assert_eq!(removed, vec![old.clone()]);
        assert!(!root.path().join(&old).exists());
        assert!(pinned_dir.is_dir(), "a program in use stays");
        assert!(root.path().join(&fresh).is_dir());
        assert!(
            root.path().join("not-a-key").is_dir(),
            "only cache keys are looked at"
        );
        // Not due again within the hour, unless forced (a judge's start).
        drop(pin);
        assert!(collect_expired(root.path(), 30 * day, false).is_empty());
        assert!(pinned_dir.is_dir());
        assert_eq!(
            collect_expired(root.path(), 30 * day, true),
            vec![pinned.clone()]
        );
        assert!(collect_expired(root.path(), Duration::ZERO, true).is_empty());
    }

    #[test]
    fn only_key_folders_are_entries() {
        let root = tempfile::tempdir().expect("temp");
        let key = "ab".repeat(32);
        for name in [key.as_str(), "packages", "blobs", ".tmp", &"AB".repeat(32)] {
            std::fs::create_dir_all(root.path().join(name).join("x")).expect("mkdir");
            std::fs::write(root.path().join(name).join("x/f"), [0u8; 100]).expect("write");
        }
        let found = lock().entries(root.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].key, key);
        assert_eq!(found[0].size, 100);
        assert!(!found[0].pinned);
        let pin = lock().pin(&root.path().join(&key));
        assert!(pin.is_cached());
        assert!(lock().entries(root.path())[0].pinned, "pinned while held");
        let copy = pin.clone();
        drop(pin);
        assert!(
            lock().entries(root.path())[0].pinned,
            "a clone still holds it"
        );
        drop(copy);
        assert!(
            !lock().entries(root.path())[0].pinned,
            "unpinned after the last"
        );
        drop_legacy(root.path());
        assert!(root.path().join("packages/x/f").is_file(), "packages stay");
        assert!(!root.path().join(&key).exists(), "legacy programs go");
    }

    #[test]
    fn a_program_used_once_is_removed_after_its_last_holder() {
        let root = tempfile::tempdir().expect("temp");
        let work = root.path().join("compile-1");
        std::fs::create_dir_all(&work).expect("mkdir");
        let pin = Pin::once(work.clone());
        assert!(!pin.is_cached());
        let copy = pin.clone();
        drop(pin);
        assert!(work.is_dir());
        drop(copy);
        assert!(!work.exists());
    }
}

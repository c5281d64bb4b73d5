//! Problem packages as content-addressed blobs: a `serve` node publishes every file of each
//! problem it loads ([`publish`]); a judge host with no problems folder rebuilds a package
//! version from the database on first use ([`Cache::problem`]): it fetches each blob it does
//! not have, checks its SHA-256, keeps it under `<cache>/blobs/<hash>`, lays the package out
//! under `<cache>/packages/<version>/<problem>/` (written to a temporary folder and renamed,
//! so a half-written package is never loaded) and reuses it for every later judging. The cache
//! has a budget of its own ([`Cache::with_budget`], `[judge] package_cache_size`): past it,
//! versions that are neither current (the last one each problem was asked for) nor in use by a
//! judging are removed, oldest first, with the blobs no remaining version links. With a
//! retention ([`Cache::with_retention`], `[server] retention`), a version no judging has asked
//! for in that long goes too, current or not (each use stamps its folder's time), unless a
//! judging holds it.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ojd_judge::Problem;
use ojd_store::sha256_hex;
use ojd_store::{Store, StoreError};

/// Why a judge host could not fetch, check or lay out a problem package.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file of the cache could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The package version asked for is not in the database (collected, or never published).
    #[error("package version {0} is not in the database")]
    NoPackage(String),
    /// A file the package's manifest lists has no blob in the database.
    #[error("blob {hash} ({path}) is missing from the database")]
    NoBlob {
        /// The blob's SHA-256, lowercase hex.
        hash: String,
        /// The file's path in the package.
        path: String,
    },
    /// A blob's contents do not hash to what the manifest says: it is refused, never laid out.
    #[error("blob {path} from the database has SHA-256 {found}, not {hash}: refusing it")]
    Corrupt {
        /// The file's path in the package.
        path: String,
        /// The SHA-256 the manifest names.
        hash: String,
        /// The SHA-256 of the contents fetched.
        found: String,
    },
    /// A package file's path is absolute or climbs out of the package folder: it is refused, never
    /// followed.
    #[error("package path {0:?} leaves the package folder")]
    BadPath(String),
    /// The problem was never published to the database (a node serving it publishes it).
    #[error("the problem {problem} has no published package version")]
    Unpublished {
        /// The problem's id.
        problem: String,
    },
    /// The laid-out package is not a valid problem package.
    #[error("package {version} does not load: {error}")]
    Load {
        /// The package version.
        version: String,
        /// Why it does not load.
        error: String,
    },
}

impl BlobError {
    /// Whether this failure is the judge host's own (its disk: full, read-only, failing), not
    /// the package's: then `(kind, errno)` as a host fault (`disk_full` for ENOSPC and EDQUOT,
    /// else `io_error`), and the submission goes to a healthy host.
    pub fn host_fault(&self) -> Option<(&'static str, Option<i32>)> {
        match self {
            BlobError::Io { source, .. } => {
                let errno = source.raw_os_error();
                // ENOSPC (28) and EDQUOT (122) on Linux.
                let full = matches!(errno, Some(28 | 122));
                Some((if full { "disk_full" } else { "io_error" }, errno))
            }
            _ => None,
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BlobError + '_ {
    move |source| BlobError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Every regular file under a problem's folder (hidden ones and symlinks left out), with its
/// path relative to the folder, `/`-separated.
pub fn package_files(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, BlobError> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let here = dir.join(&rel);
        for entry in std::fs::read_dir(&here).map_err(io(&here))? {
            let entry = entry.map_err(io(&here))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let kind = entry.file_type().map_err(io(&here))?;
            let path = rel.join(&name);
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let full = dir.join(&path);
                let data = std::fs::read(&full).map_err(io(&full))?;
                out.push((path.to_string_lossy().replace('\\', "/"), data));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Publishes a loaded problem's folder; returns its version.
pub(crate) fn publish(store: &dyn Store, problem: &Problem, now: i64) -> Result<String, BlobError> {
    let files = package_files(&problem.dir)?;
    Ok(store.publish(&problem.id, &files, now)?)
}

/// How often a cache with a retention looks for versions nobody used in that long, when
/// nothing new is laid out.
const AGE_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// A judge host's on-disk cache of blobs and laid-out packages.
pub struct Cache {
    dir: PathBuf,
    loaded: Mutex<HashMap<String, Arc<Problem>>>,
    /// Problem → the version last asked for: never evicted.
    current: Mutex<HashMap<String, String>>,
    /// Bytes the blobs and laid-out packages may take (current versions excepted).
    budget: u64,
    /// How long a version nobody asks for is kept (`None`: by the budget only).
    retention: Option<std::time::Duration>,
    /// When versions were last looked at for their age.
    aged_at: Mutex<Option<std::time::Instant>>,
    /// Held while a package is fetched and laid out: the workers of one host wait for the
    /// first instead of writing the same files at once.
    laying: Mutex<()>,
    /// Blobs fetched from the database (this process).
    pub fetched: AtomicU64,
    /// Blobs found in the cache and not fetched again.
    pub reused: AtomicU64,
    /// Bytes of the blobs fetched from the database (this process).
    pub fetched_bytes: AtomicU64,
}

/// A package path that stays inside its folder: relative, no `..`, no empty parts.
fn safe(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

impl Cache {
    /// Opens the cache in `dir`, creating its `blobs/` and `packages/` folders if needed.
    pub fn new(dir: &Path) -> Result<Cache, BlobError> {
        for sub in ["blobs", "packages"] {
            let d = dir.join(sub);
            std::fs::create_dir_all(&d).map_err(io(&d))?;
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
            loaded: Mutex::new(HashMap::new()),
            current: Mutex::new(HashMap::new()),
            budget: u64::MAX,
            retention: None,
            aged_at: Mutex::new(None),
            laying: Mutex::new(()),
            fetched: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            fetched_bytes: AtomicU64::new(0),
        })
    }

    /// This cache with a bound on its size on disk (unbounded by default).
    pub fn with_budget(mut self, bytes: u64) -> Cache {
        self.budget = bytes;
        self
    }

    /// This cache removing the versions no judging has asked for in `keep` (`0`: never), at
    /// most once an hour and whenever a version is laid out.
    pub(crate) fn with_retention(mut self, keep: std::time::Duration) -> Cache {
        self.retention = (!keep.is_zero()).then_some(keep);
        self
    }

    /// The problem at a package version, from memory, from the disk cache, or fetched. The
    /// version becomes its problem's current one, never evicted; a version is also kept while
    /// a judging holds the returned problem.
    pub fn problem(
        &self,
        store: &dyn Store,
        problem: &str,
        version: Option<&str>,
    ) -> Result<Arc<Problem>, BlobError> {
        let Some(version) = version else {
            return Err(BlobError::Unpublished {
                problem: problem.to_string(),
            });
        };
        if !safe(version) || version.contains('/') {
            return Err(BlobError::BadPath(version.to_string()));
        }
        self.current_lock()
            .insert(problem.to_string(), version.to_string());
        if let Some(p) = self.in_memory(version) {
            self.used(version);
            let due = (self.aged_at.lock().unwrap_or_else(|e| e.into_inner()))
                .is_none_or(|t| t.elapsed() >= AGE_CHECK_EVERY);
            if due && self.retention.is_some() {
                let _laying = self.laying.lock().unwrap_or_else(|e| e.into_inner());
                self.trim_aged();
            }
            return Ok(p);
        }
        let _laying = self.laying.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = self.in_memory(version) {
            self.used(version);
            return Ok(p);
        }
        let root = self.dir.join("packages").join(version);
        let folder = root.join(problem);
        if !root.is_dir() {
            self.heal()?;
            self.lay_out(store, version, &root)?;
        }
        let loaded = Problem::load(&folder).map_err(|e| BlobError::Load {
            version: version.to_string(),
            error: e.to_string(),
        })?;
        let loaded = Arc::new(loaded);
        self.lock().insert(version.to_string(), loaded.clone());
        self.used(version);
        self.trim_aged();
        self.trim();
        Ok(loaded)
    }

    /// Makes again the cache's folders that are gone (removed under the running host), saying
    /// so in the log: what they held is fetched again as it is needed.
    fn heal(&self) -> Result<(), BlobError> {
        for sub in ["blobs", "packages"] {
            let d = self.dir.join(sub);
            if !d.is_dir() {
                std::fs::create_dir_all(&d).map_err(io(&d))?;
                crate::logging::log(&format!(
                    "{} was gone: made it again (packages are fetched again as judgings need them)",
                    d.display()
                ));
            }
        }
        Ok(())
    }

    /// Stamps a version's folder as used now (its modification time: what both trims read).
    fn used(&self, version: &str) {
        let root = self.dir.join("packages").join(version);
        let _ =
            std::fs::File::open(root).and_then(|f| f.set_modified(std::time::SystemTime::now()));
    }

    /// Removes the versions not used for the retention period, current or not, but never one
    /// a judging holds; then the blobs no remaining version links. Called with `laying` held.
    fn trim_aged(&self) {
        let Some(keep) = self.retention else {
            return;
        };
        *self.aged_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::time::Instant::now());
        let Some(cutoff) = std::time::SystemTime::now().checked_sub(keep) else {
            return;
        };
        let packages = self.dir.join("packages");
        let mut removed = false;
        for e in std::fs::read_dir(&packages).into_iter().flatten().flatten() {
            let Some(version) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let stale = e
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < cutoff);
            if version.starts_with('.') || !stale {
                continue;
            }
            {
                let mut loaded = self.lock();
                if loaded
                    .get(&version)
                    .is_some_and(|p| Arc::strong_count(p) > 1)
                {
                    continue;
                }
                loaded.remove(&version);
            }
            self.current_lock().retain(|_, v| *v != version);
            let _ = std::fs::remove_dir_all(packages.join(&version));
            removed = true;
        }
        if removed {
            self.drop_unlinked_blobs();
        }
    }

    /// A loaded version whose folder is still on disk.
    fn in_memory(&self, version: &str) -> Option<Arc<Problem>> {
        let mut loaded = self.lock();
        match loaded.get(version) {
            Some(p) if p.dir.is_dir() => Some(p.clone()),
            Some(_) => {
                loaded.remove(version);
                None
            }
            None => None,
        }
    }

    fn current_lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes on disk: every blob, and every laid-out file that is a copy, not a link to one.
    pub(crate) fn size(&self) -> u64 {
        let blobs: u64 = std::fs::read_dir(self.dir.join("blobs"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum();
        let mut copies = 0;
        let mut stack = vec![self.dir.join("packages")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                match e.metadata() {
                    Ok(m) if m.is_dir() => stack.push(e.path()),
                    Ok(m) if m.nlink() == 1 => copies += m.len(),
                    _ => {}
                }
            }
        }
        blobs + copies
    }

    /// Evicts package versions, oldest first, until the cache is within its budget: never a
    /// current version, never one a judging holds. Called with `laying` held.
    fn trim(&self) {
        if self.size() <= self.budget {
            return;
        }
        let current: HashSet<String> = self.current_lock().values().cloned().collect();
        let packages = self.dir.join("packages");
        let mut versions: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(&packages)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let used = e.metadata().and_then(|m| m.modified()).ok()?;
                (!name.starts_with('.')).then_some((used, name))
            })
            .collect();
        versions.sort();
        for (_, version) in versions {
            if current.contains(&version) {
                continue;
            }
            {
                let mut loaded = self.lock();
                if loaded
                    .get(&version)
                    .is_some_and(|p| Arc::strong_count(p) > 1)
                {
                    continue;
                }
                loaded.remove(&version);
            }
            let _ = std::fs::remove_dir_all(packages.join(&version));
            self.drop_unlinked_blobs();
            if self.size() <= self.budget {
                return;
            }
        }
    }

    /// Removes the blobs no laid-out package links to.
    fn drop_unlinked_blobs(&self) {
        for e in std::fs::read_dir(self.dir.join("blobs"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let unlinked = e.metadata().is_ok_and(|m| m.is_file() && m.nlink() == 1);
            let name = e.file_name();
            if unlinked && !name.to_string_lossy().starts_with('.') {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// How many package versions this process has loaded.
    pub fn loaded_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Problem>>> {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Fetches what is missing and writes `<root>/<problem>/…` atomically.
    fn lay_out(&self, store: &dyn Store, version: &str, root: &Path) -> Result<(), BlobError> {
        let package = store
            .package(version)?
            .ok_or_else(|| BlobError::NoPackage(version.to_string()))?;
        if !safe(&package.problem) {
            return Err(BlobError::BadPath(package.problem));
        }
        let tmp = self
            .dir
            .join("packages")
            .join(format!(".{version}.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let laid = self.lay_out_in(store, &package, &tmp);
        if laid.is_err() {
            // Half a package (a full disk) never stays behind.
            let _ = std::fs::remove_dir_all(&tmp);
        }
        laid?;
        match std::fs::rename(&tmp, root) {
            Ok(()) => Ok(()),
            // Another worker of this host laid it out first: use theirs.
            Err(_) if root.is_dir() => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(BlobError::Io {
                path: root.display().to_string(),
                source: e,
            }),
        }
    }

    /// Lays `package`'s files out under `tmp/<problem>/`.
    fn lay_out_in(
        &self,
        store: &dyn Store,
        package: &ojd_store::Package,
        tmp: &Path,
    ) -> Result<(), BlobError> {
        let folder = tmp.join(&package.problem);
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
        for f in &package.files {
            if !safe(&f.path) {
                return Err(BlobError::BadPath(f.path.clone()));
            }
            let blob = self.blob(store, &f.hash, &f.path)?;
            let dest = folder.join(&f.path);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            // A hard link shares the cached blob; a copy when links are not possible.
            if std::fs::hard_link(&blob, &dest).is_err() {
                std::fs::copy(&blob, &dest).map_err(io(&dest))?;
            }
        }
        Ok(())
    }

    /// The cached blob file, fetched and verified first when missing.
    fn blob(&self, store: &dyn Store, hash: &str, path: &str) -> Result<PathBuf, BlobError> {
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(BlobError::BadPath(hash.to_string()));
        }
        let file = self.dir.join("blobs").join(hash);
        if file.is_file() {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return Ok(file);
        }
        let data = store.blob(hash)?.ok_or_else(|| BlobError::NoBlob {
            hash: hash.to_string(),
            path: path.to_string(),
        })?;
        let found = sha256_hex(&data);
        if found != hash {
            return Err(BlobError::Corrupt {
                path: path.to_string(),
                hash: hash.to_string(),
                found,
            });
        }
        let tmp = self
            .dir
            .join("blobs")
            .join(format!(".{hash}.{}", std::process::id()));
        if let Err(e) = std::fs::write(&tmp, &data) {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&tmp)(e));
        }
        std::fs::rename(&tmp, &file).map_err(io(&file))?;
        self.fetched.fetch_add(1, Ordering::Relaxed);
        self.fetched_bytes
            .fetch_add(data.len() as u64, Ordering::Relaxed);
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_paths_stay_inside() {
        assert!(safe("tests/1.in"));
        for bad in ["", "/etc/passwd", "../x", "a/../b", "a//b", "./a"] {
            assert!(!safe(bad), "{bad:?}");
        }
    }

    /// Lays out `version` of `problem` by hand: one blob of `size` bytes, linked in.
    fn lay(cache: &Cache, version: &str, problem: &str, size: usize, age_s: u64) {
        let blob = cache.dir.join("blobs").join(format!("{version:0>64}"));
        std::fs::write(&blob, vec![7u8; size]).expect("blob");
        let folder = cache.dir.join("packages").join(version).join(problem);
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::hard_link(&blob, folder.join("data")).expect("link");
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(age_s);
        let root = std::fs::File::open(cache.dir.join("packages").join(version)).expect("open");
        root.set_modified(when).expect("mtime");
    }

    #[test]
    fn old_versions_go_past_the_budget_current_and_pinned_ones_never() {
        // (versions: name, problem, KiB, age), current (problem, version), pinned, budget KiB,
        // the versions left
        type Case<'a> = (
            Vec<(&'a str, &'a str, usize, u64)>,
            Vec<(&'a str, &'a str)>,
            Vec<&'a str>,
            u64,
            Vec<&'a str>,
        );
        let cases: Vec<Case> = vec![
            // within the budget: nothing goes
            (
                vec![("a1", "a", 10, 9), ("a2", "a", 10, 1)],
                vec![("a", "a2")],
                vec![],
                20,
                vec!["a1", "a2"],
            ),
            // over it: the old version goes, the current stays
            (
                vec![("a1", "a", 10, 1), ("a2", "a", 10, 9)],
                vec![("a", "a2")],
                vec![],
                15,
                vec!["a2"],
            ),
            // oldest first, only as many as needed
            (
                vec![("a1", "a", 10, 9), ("b1", "b", 10, 5), ("a2", "a", 10, 1)],
                vec![("a", "a2")],
                vec![],
                20,
                vec!["a2", "b1"],
            ),
            // current versions are never evicted, even over the budget
            (
                vec![("a1", "a", 10, 9), ("b1", "b", 10, 5)],
                vec![("a", "a1"), ("b", "b1")],
                vec![],
                5,
                vec!["a1", "b1"],
            ),
            // a version a judging holds stays; the next oldest goes instead
            (
                vec![("a1", "a", 10, 9), ("a2", "a", 10, 5), ("a3", "a", 10, 1)],
                vec![("a", "a3")],
                vec!["a1"],
                20,
                vec!["a1", "a3"],
            ),
        ];
        for (i, (versions, current, pinned, budget, left)) in cases.into_iter().enumerate() {
            let dir = tempfile::tempdir().expect("temp");
            let cache = Cache::new(dir.path())
                .expect("cache")
                .with_budget(budget << 10);
            for (v, p, kib, age) in &versions {
                lay(&cache, v, p, kib << 10, *age);
            }
            for (p, v) in current {
                cache.current_lock().insert(p.into(), v.into());
            }
            let mut held = Vec::new();
            for v in pinned {
                let p = versions.iter().find(|x| x.0 == v).expect("listed").1;
                let folder = dir.path().join("packages").join(v).join(p);
                let mut problem = Problem::load(
                    &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/aplusb"),
                )
                .expect("fixture loads");
                problem.dir = folder;
                let problem = Arc::new(problem);
                cache.lock().insert(v.to_string(), problem.clone());
                held.push(problem);
            }
            cache.trim();
            let mut on_disk: Vec<String> = std::fs::read_dir(dir.path().join("packages"))
                .expect("read")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            on_disk.sort();
            assert_eq!(on_disk, left, "case {i}");
            let blobs = std::fs::read_dir(dir.path().join("blobs"))
                .expect("read")
                .count();
            assert_eq!(
                blobs,
                left.len(),
                "case {i}: the evicted versions' blobs go too"
            );
        }
    }

    /// Item 9 of issue 21: a version nobody asked for within the retention goes, current or
    /// not, with its blobs; one a judging holds stays however old; asking for an old version
    /// makes it new again.
    #[test]
    fn versions_unused_for_the_retention_go_unless_a_judging_holds_them() {
        let dir = tempfile::tempdir().expect("temp");
        let hour = std::time::Duration::from_secs(3600);
        let cache = Cache::new(dir.path()).expect("cache").with_retention(hour);
        // (version, problem, age in s): a1 old and current, a2 fresh, b1 old and held by a
        // judging, c1 old but asked for again now, d1 old.
        for (v, p, age) in [
            ("a1", "aplusb", 7200),
            ("a2", "aplusb", 60),
            ("b1", "aplusb", 9000),
            ("c1", "aplusb", 9000),
            ("d1", "aplusb", 3700),
        ] {
            lay(&cache, v, p, 1024, age);
        }
        cache.current_lock().insert("aplusb".into(), "a1".into());
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/aplusb");
        let mut loaded = Vec::new();
        for v in ["b1", "c1"] {
            let mut problem = Problem::load(&fixture).expect("fixture loads");
            problem.dir = dir.path().join("packages").join(v).join("aplusb");
            let problem = Arc::new(problem);
            cache.lock().insert(v.to_string(), problem.clone());
            loaded.push(problem);
        }
        // c1 is asked for (from memory: no database needed), then let go.
        let store = ojd_store::SqliteStore::in_memory().expect("store");
        let c1 = cache.problem(&store, "c", Some("c1")).expect("c1");
        drop(c1);
        let held = loaded.remove(0);
        drop(loaded);
        cache.trim_aged();
        let mut on_disk: Vec<String> = std::fs::read_dir(dir.path().join("packages"))
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        assert_eq!(on_disk, ["a2", "b1", "c1"]);
        let blobs = std::fs::read_dir(dir.path().join("blobs"))
            .expect("read")
            .count();
        assert_eq!(blobs, 3, "the removed versions' blobs go too");
        let current: Vec<(String, String)> = cache.current_lock().clone().into_iter().collect();
        assert_eq!(
            current,
            [("c".into(), "c1".into())],
            "a1 is no longer current"
        );
        // Once the judging lets go of b1, it goes at the next look.
        drop(held);
        cache.trim_aged();
        assert!(!dir.path().join("packages/b1").exists());
        // Without a retention, age removes nothing.
        let plain = tempfile::tempdir().expect("temp");
        let cache = Cache::new(plain.path()).expect("cache");
        lay(&cache, "old", "aplusb", 1024, 1 << 20);
        cache.trim_aged();
        assert!(plain.path().join("packages/old").exists());
    }
}

//! Incremental verify: a content-addressed cache of what verify found, so that an unchanged cell
//! of the matrix, or an unchanged package's `gen --check`, is not judged again.
//!
//! A cell's key is the SHA-256 of everything its verdict and time can depend on:
//! - the judge itself ([`Salt`]): ojd's version and the identity of the running executable
//!   (path, size, modification time: a rebuilt ojd is another judge), the whole configuration,
//!   and the time scale;
//! - the program: its compile-cache key (language, compile command, the compiler binary's
//!   identity, the source), its run command and the identity of the binary that runs it (an
//!   upgraded interpreter is another toolchain);
//! - the test: its name, input and answer; the problem's checker, interactor and file I/O (the
//!   checker's and interactor's sources by content);
//! - the limits it ran with (CPU, wall, memory, output, processes, after the language's factor
//!   and `--time-scale`) and the package's margins (they set the runs' slack).
//!
//! A `gen --check` pass is keyed by the salt and every file of the package outside
//! `submissions/` (path and content), with the compile-cache keys of its generators, validator
//! and reference. Only passes are stored: a failing check is run again.
//!
//! Entries are small JSON files under `<folder>/cells/` and `<folder>/gen/`, written atomically
//! (a temporary file renamed into place), so concurrent verifies can share a folder; an
//! unreadable or foreign entry is a miss. A reused cell is marked `reused` in every report.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use ojd_judge::Judge;
use ojd_judge::{CheckerSpec, Problem};
use ojd_judge::{TestResult, Verdict};

/// Bumped whenever what a cell means changes. 2: every parallel run is allowed the slack; a
/// format-1 cell may be a TLE judged at the exact limit on a baseline's word (a route issue 26
/// removed), which is no clear TLE at the slack, so none of them is reused.
const FORMAT: &str = "ojd-verify-cache 2";

/// Where the cache lives and whether it may be read.
#[derive(Clone, Debug)]
pub struct CacheOptions {
    /// The cache's folder.
    pub dir: PathBuf,
    /// false (`--no-cache`): judge everything, and store the fresh results.
    pub reuse: bool,
}

/// The default folder: `$XDG_CACHE_HOME/ojd/verify`, else `$HOME/.cache/ojd/verify`.
pub fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("ojd").join("verify"))
}

/// A file's identity without reading it: its resolved path, size and modification time.
pub(crate) fn file_identity(path: &Path) -> String {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    match std::fs::metadata(&real) {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {} {modified}", real.display(), m.len())
        }
        Err(_) => format!("{} missing", path.display()),
    }
}

/// What every key starts with: the judge and how it is set up.
#[derive(Clone)]
pub(crate) struct Salt(Vec<u8>);

impl Salt {
    pub(crate) fn new(judge: &Judge, time_scale: f64) -> Salt {
        let exe = std::env::current_exe()
            .map(|p| file_identity(&p))
            .unwrap_or_default();
        Salt::from_parts(
            env!("CARGO_PKG_VERSION"),
            &exe,
            &format!("{:?}", judge.config),
            time_scale,
        )
    }

    pub(crate) fn from_parts(version: &str, exe: &str, config: &str, time_scale: f64) -> Salt {
        Salt::of_format(FORMAT, version, exe, config, time_scale)
    }

    fn of_format(format: &str, version: &str, exe: &str, config: &str, time_scale: f64) -> Salt {
        let mut h = Hasher::new();
        h.field(format.as_bytes());
        h.field(version.as_bytes());
        h.field(exe.as_bytes());
        h.field(config.as_bytes());
        h.field(&time_scale.to_bits().to_be_bytes());
        Salt(h.0.finalize().to_vec())
    }
}

/// SHA-256 over length-prefixed fields (so that no two field lists hash alike).
struct Hasher(Sha256);

impl Hasher {
    fn new() -> Hasher {
        Hasher(Sha256::new())
    }
    fn field(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_be_bytes());
        self.0.update(bytes);
    }
    fn file(&mut self, path: &Path) {
        match std::fs::read(path) {
            Ok(b) => self.field(&b),
            Err(e) => self.field(format!("unreadable: {e}").as_bytes()),
        }
    }
    fn hex(self) -> String {
        ojd_judge::hex_encode(&self.0.finalize())
    }
}

/// A program's identity without compiling it: what the compile cache keys it by (the language,
/// its compile command, the compiler binary's identity) and the source.
pub(crate) fn program_key(lang: &ojd_judge::Language, source: &[u8]) -> String {
    let mut h = Hasher::new();
    h.field(b"program");
    h.field(lang.id.as_bytes());
    h.field(lang.compile.join("\0").as_bytes());
    h.field(lang.compiler_id.as_bytes());
    h.field(source);
    h.hex()
}

/// What a cell ran: the parts of its key that are not the test (see the module docs).
pub(crate) struct CellRun<'a> {
    /// [`program_key`]: the language, its compile command and compiler, and the source.
    pub(crate) program: &'a str,
    pub(crate) run: &'a [String],
    /// `limits_for` the scaled problem, as text.
    pub(crate) limits: &'a str,
    pub(crate) slack: f64,
    pub(crate) margins: &'a ojd_judge::Margins,
}

/// The key of the problem's part of a cell: what judging a test involves besides the program.
pub(crate) fn problem_part(problem: &Problem) -> Vec<u8> {
    let mut h = Hasher::new();
    let checker_path = problem.checker.program_path();
    h.field(format!("{:?}", strip_path(&problem.checker)).as_bytes());
    if let Some(p) = checker_path {
        h.file(&problem.dir.join(p));
    }
    match &problem.interactor {
        Some(i) => {
            h.field(format!("{:?} {:?}", i.protocol, i.flags).as_bytes());
            h.file(&problem.dir.join(&i.path));
        }
        None => h.field(b"no interactor"),
    }
    h.field(format!("{:?}", problem.io).as_bytes());
    h.0.finalize().to_vec()
}

/// The checker without the package's folder in it (the key must not depend on where the
/// package lies; the checker's source is hashed by content instead).
fn strip_path(c: &CheckerSpec) -> CheckerSpec {
    match c {
        CheckerSpec::Program { .. } => CheckerSpec::Program {
            path: PathBuf::new(),
        },
        CheckerSpec::Kattis { flags, .. } => CheckerSpec::Kattis {
            path: PathBuf::new(),
            flags: flags.clone(),
        },
        CheckerSpec::Cms { .. } => CheckerSpec::Cms {
            path: PathBuf::new(),
        },
        other => other.clone(),
    }
}

/// The key of one cell.
pub(crate) fn cell_key(
    salt: &Salt,
    problem_part: &[u8],
    run: &CellRun<'_>,
    test: &ojd_judge::TestCase,
) -> String {
    let mut h = Hasher::new();
    h.field(b"cell");
    h.field(&salt.0);
    h.field(problem_part);
    h.field(run.program.as_bytes());
    h.field(run.run.join("\0").as_bytes());
    // The binary that runs the program (an interpreter, a JVM): its identity.
    match run.run.first() {
        Some(first) if Path::new(first).is_absolute() => {
            h.field(file_identity(Path::new(first)).as_bytes())
        }
        _ => h.field(b"-"),
    }
    h.field(run.limits.as_bytes());
    h.field(&run.slack.to_bits().to_be_bytes());
    h.field(&run.margins.ac_to_time_limit.to_bits().to_be_bytes());
    h.field(&run.margins.time_limit_to_tle.to_bits().to_be_bytes());
    h.field(test.name.as_bytes());
    h.file(&test.input);
    h.file(&test.answer);
    h.hex()
}

/// The key of a package's `gen --check`: every file outside `submissions/`, and the programs
/// it runs (`programs`: their compile-cache keys).
pub(crate) fn gen_key(salt: &Salt, dir: &Path, programs: &[String]) -> String {
    let mut h = Hasher::new();
    h.field(b"gen --check");
    h.field(&salt.0);
    for p in programs {
        h.field(p.as_bytes());
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    for rel in files {
        h.field(rel.to_string_lossy().as_bytes());
        h.file(&dir.join(&rel));
    }
    h.hex()
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if rel == Path::new("submissions") {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(root, &path, out),
            Ok(_) => out.push(rel),
            Err(_) => {}
        }
    }
}

/// A cell as stored.
#[derive(Serialize, Deserialize)]
pub(crate) struct StoredCell {
    pub(crate) result: TestResult,
    pub(crate) rerun: bool,
    pub(crate) sensitive: bool,
    #[serde(default)]
    pub(crate) past_margin: bool,
    #[serde(default)]
    pub(crate) finished_as: Option<Verdict>,
    /// The warnings the cell's runs raised (sensitive to the limit, runs that disagree).
    pub(crate) warnings: Vec<String>,
}

/// A `gen --check` pass as stored.
#[derive(Serialize, Deserialize)]
pub(crate) struct StoredGen {
    pub(crate) inputs_validated: usize,
}

/// The open cache.
pub(crate) struct Cache {
    opts: CacheOptions,
}

impl Cache {
    pub(crate) fn new(opts: CacheOptions) -> Cache {
        Cache { opts }
    }

    fn path(&self, kind: &str, key: &str) -> PathBuf {
        self.opts.dir.join(kind).join(&key[..2]).join(key)
    }

    fn get<T: for<'de> Deserialize<'de>>(&self, kind: &str, key: &str) -> Option<T> {
        if !self.opts.reuse {
            return None;
        }
        let text = std::fs::read(self.path(kind, key)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// Stores `value` under `key`; a failure to write is only a miss next time.
    fn put<T: Serialize>(&self, kind: &str, key: &str, value: &T) {
        let path = self.path(kind, key);
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let Ok(text) = serde_json::to_vec(value) else {
            return;
        };
        let tmp = parent.join(format!(".{key}.{}", std::process::id()));
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    pub(crate) fn cell(&self, key: &str) -> Option<StoredCell> {
        self.get::<StoredCell>("cells", key)
            .filter(|c| c.result.verdict != Verdict::JudgeError)
    }

    pub(crate) fn put_cell(&self, key: &str, c: &StoredCell) {
        if c.result.verdict != Verdict::JudgeError {
            self.put("cells", key, c);
        }
    }

    pub(crate) fn gen(&self, key: &str) -> Option<StoredGen> {
        self.get("gen", key)
    }

    pub(crate) fn put_gen(&self, key: &str, g: &StoredGen) {
        self.put("gen", key, g);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ojd_judge::{Margins, TestCase};

    fn salt() -> Salt {
        Salt::from_parts("0.1.0", "/bin/ojd 100 1", "Config {..}", 1.0)
    }

    /// A stored cell of test `name`, neither rerun nor sensitive, without warnings.
    pub(crate) fn stored(
        name: &str,
        verdict: Verdict,
        (cpu_ms, wall_ms, memory_kib): (u64, u64, u64),
        message: &str,
    ) -> StoredCell {
        StoredCell {
            result: TestResult {
                name: name.into(),
                sample: false,
                verdict,
                cpu_ms,
                wall_ms,
                memory_kib,
                exit: None,
                message: message.into(),
                diff: None,
            },
            rerun: false,
            sensitive: false,
            past_margin: false,
            finished_as: None,
            warnings: vec![],
        }
    }

    #[test]
    fn each_part_of_a_cell_changes_its_key_and_nothing_else_does() {
        let d = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = d.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let test = TestCase {
            name: "01".into(),
            input: write("01.in", "1 2\n"),
            answer: write("01.ans", "3\n"),
            sample: false,
        };
        let m = Margins::default();
        let run_cmd = vec!["./a.out".to_string()];
        let base = CellRun {
            program: "abc",
            run: &run_cmd,
            limits: "cpu 1s",
            slack: 1.5,
            margins: &m,
        };
        let part = b"tokens".to_vec();
        let key = |salt: &Salt, part: &[u8], run: &CellRun<'_>, test: &TestCase| {
            cell_key(salt, part, run, test)
        };
        let k0 = key(&salt(), &part, &base, &test);
        assert_eq!(k0, key(&salt(), &part, &base, &test), "stable");
        let m2 = Margins {
            time_limit_to_tle: 4.0,
            ..m
        };
        let changed: Vec<(&str, String)> = vec![
            (
                "ojd",
                key(
                    &Salt::from_parts("0.1.0", "/bin/ojd 100 2", "Config {..}", 1.0),
                    &part,
                    &base,
                    &test,
                ),
            ),
            (
                "config",
                key(
                    &Salt::from_parts("0.1.0", "/bin/ojd 100 1", "Config {x}", 1.0),
                    &part,
                    &base,
                    &test,
                ),
            ),
            (
                "time scale",
                key(
                    &Salt::from_parts("0.1.0", "/bin/ojd 100 1", "Config {..}", 0.5),
                    &part,
                    &base,
                    &test,
                ),
            ),
            ("checker", key(&salt(), b"exact", &base, &test)),
            (
                "program (source or compiler)",
                key(
                    &salt(),
                    &part,
                    &CellRun {
                        program: "abd",
                        ..base
                    },
                    &test,
                ),
            ),
            (
                "limits",
                key(
                    &salt(),
                    &part,
                    &CellRun {
                        limits: "cpu 2s",
                        ..base
                    },
                    &test,
                ),
            ),
            (
                "margins",
                key(
                    &salt(),
                    &part,
                    &CellRun {
                        margins: &m2,
                        ..base
                    },
                    &test,
                ),
            ),
        ];
        for (what, k) in &changed {
            assert_ne!(*k, k0, "{what}");
        }
        write("01.in", "1 3\n");
        assert_ne!(key(&salt(), &part, &base, &test), k0, "input");
        write("01.in", "1 2\n");
        assert_eq!(key(&salt(), &part, &base, &test), k0, "input restored");
        write("01.ans", "4\n");
        assert_ne!(key(&salt(), &part, &base, &test), k0, "answer");
    }

    /// A checker program's source is part of the key, whatever its kind (a cms checker's
    /// edit once reused stale cells), and where the package lies is not.
    #[test]
    fn every_checker_programs_source_is_in_the_problem_part() {
        for kind in [
            "kind = \"program\", ",
            "kind = \"kattis\", ",
            "kind = \"cms\", ",
        ] {
            let keys: Vec<Vec<u8>> = ["a", "a", "b"]
                .iter()
                .map(|src| {
                    let d = tempfile::tempdir().unwrap();
                    let p = d.path();
                    std::fs::create_dir_all(p.join("tests")).unwrap();
                    std::fs::write(p.join("tests/1.in"), "1\n").unwrap();
                    std::fs::write(p.join("tests/1.ans"), "1\n").unwrap();
                    std::fs::write(p.join("check.cpp"), format!("// {src}\nint main(){{}}")).unwrap();
                    std::fs::write(
                        p.join("problem.toml"),
                        format!("title = \"x\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\nanswers = \"given\"\nchecker = {{ {kind}path = \"check.cpp\" }}\n"),
                    )
                    .unwrap();
                    let problem = Problem::load(p).unwrap_or_else(|e| panic!("{kind}: {e}"));
                    problem_part(&problem)
                })
                .collect();
            assert_eq!(
                keys[0], keys[1],
                "{kind}: the same package in another folder"
            );
            assert_ne!(keys[0], keys[2], "{kind}: an edited checker");
        }
    }

    #[test]
    fn gen_key_follows_the_package_but_not_its_submissions() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir_all(p.join("tests")).unwrap();
        std::fs::create_dir_all(p.join("submissions/accepted")).unwrap();
        std::fs::write(p.join("problem.toml"), "title = \"x\"\n").unwrap();
        std::fs::write(p.join("tests/1.in"), "1\n").unwrap();
        let k0 = gen_key(&salt(), p, &["gen".into()]);
        std::fs::write(p.join("submissions/accepted/a.c"), "int main(){}").unwrap();
        assert_eq!(gen_key(&salt(), p, &["gen".into()]), k0);
        assert_ne!(gen_key(&salt(), p, &["gen2".into()]), k0, "a program");
        std::fs::write(p.join("tests/1.in"), "2\n").unwrap();
        assert_ne!(gen_key(&salt(), p, &["gen".into()]), k0, "a test");
    }

    #[test]
    fn stores_reuses_and_ignores_what_it_cannot_read() {
        let d = tempfile::tempdir().unwrap();
        let cell = stored("01", Verdict::Accepted, (5, 6, 7), "");
        let key = "ab".repeat(32);
        let c = Cache::new(CacheOptions {
            dir: d.path().into(),
            reuse: true,
        });
        assert!(c.cell(&key).is_none());
        c.put_cell(&key, &cell);
        assert_eq!(c.cell(&key).unwrap().result, cell.result);
        let no = Cache::new(CacheOptions {
            dir: d.path().into(),
            reuse: false,
        });
        assert!(no.cell(&key).is_none(), "--no-cache reads nothing");
        std::fs::write(c.path("cells", &key), "not json").unwrap();
        assert!(c.cell(&key).is_none(), "a broken entry is a miss");
        // A judge error is never stored.
        let je = StoredCell {
            result: TestResult {
                verdict: Verdict::JudgeError,
                ..cell.result.clone()
            },
            ..cell
        };
        let key2 = "cd".repeat(32);
        c.put_cell(&key2, &je);
        assert!(c.cell(&key2).is_none());
    }

    /// A cell stored by format 1 may be a TLE judged at the exact limit on a baseline's word
    /// (`shortcut`), stopped at 1 × the limit: reused now it would pass for a TLE at the
    /// slack. Its key was made with the old format, so the same cell misses today.
    #[test]
    fn a_format_1_cell_is_not_reused() {
        let d = tempfile::tempdir().unwrap();
        let test = TestCase {
            name: "02".into(),
            input: d.path().join("02.in"),
            answer: d.path().join("02.ans"),
            sample: false,
        };
        std::fs::write(&test.input, "9\n").unwrap();
        std::fs::write(&test.answer, "81\n").unwrap();
        let m = Margins::default();
        let run_cmd = vec!["./a.out".to_string()];
        let run = CellRun {
            program: "abc",
            run: &run_cmd,
            limits: "cpu 1s",
            slack: 1.5,
            margins: &m,
        };
        let parts = ("0.1.0", "/bin/ojd 100 1", "Config {..}", 1.0);
        let old_salt = Salt::of_format("ojd-verify-cache 1", parts.0, parts.1, parts.2, parts.3);
        let old_key = cell_key(&old_salt, b"tokens", &run, &test);
        let c = Cache::new(CacheOptions {
            dir: d.path().into(),
            reuse: true,
        });
        // What format 1 wrote for a TLE that stood at the exact limit.
        let mut old = serde_json::to_value(stored(
            "02",
            Verdict::TimeLimitExceeded,
            (1004, 1010, 900),
            "CPU time limit of 1000 ms exceeded (a parallel run at the exact limit)",
        ))
        .unwrap();
        old["shortcut"] = true.into();
        let old = serde_json::to_string(&old).unwrap();
        let path = c.path("cells", &old_key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, old).unwrap();
        assert!(
            c.cell(&old_key).is_some(),
            "the entry itself still reads: only its key keeps it out"
        );
        let now = Salt::from_parts(parts.0, parts.1, parts.2, parts.3);
        assert!(
            c.cell(&cell_key(&now, b"tokens", &run, &test)).is_none(),
            "the same cell today does not find it"
        );
    }
}

//! `ojd import` and `ojd export` end to end, as an admin runs them: each fixture package under
//! testdata/import is imported with the command line, then `ojd verify` judges every known
//! submission of the result in the sandbox and each must get what its folder promises. An
//! import → export → import round trip must leave tests, answers, limits, the checker and the
//! submissions' folders unchanged. Unsupported parts fail with the file and the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{self, testdata, Run};
use crate::packages::{copy_dir, problemtools_accepts};
use ojd_judge::{Aggregation, CheckerSpec, Problem};

/// The compile cache the import tests share, the `ojd` processes they run and their library
/// judges alike: a package's testlib programs (200 KB of C++ each, with testlib.h inlined) are
/// compiled once per test run, not once per test that judges them.
pub(crate) fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("import-compile-cache")
}

/// A scratch folder with a config whose compile cache is shared by these tests.
pub struct Scratch {
    tmp: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        let tmp = tempfile::tempdir().expect("temp dir");
        let cache = shared_cache();
        std::fs::write(
            tmp.path().join("config.toml"),
            // testlib.h is 200 KB of C++: on a loaded 2-core machine compiling it can take
            // longer than the default 20 s that submissions get.
            format!(
                "[judge]\ncache = {:?}\ncompile_time = \"90s\"\n",
                cache.display().to_string()
            ),
        )
        .expect("write config");
        Scratch { tmp }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    pub fn ojd(&self, args: &[&str]) -> Run {
        let out = common::ojd()
            .args(args)
            .arg("--config")
            .arg(self.path("config.toml"))
            .output()
            .expect("ojd runs");
        Run::from(out)
    }

    pub(crate) fn import(&self, format: &str, from: &Path, to: &str) -> PathBuf {
        let dest = self.path(to);
        let r = self.ojd(&[
            "import",
            format,
            &from.display().to_string(),
            "--to",
            &dest.display().to_string(),
        ]);
        assert_eq!(r.code, 0, "import failed:\n{}\n{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("imported"), "{}", r.stdout);
        dest
    }

    /// `ojd verify --json` on `dir`: every submission must keep its folder's promise.
    pub(crate) fn verify(&self, dir: &Path) -> Value {
        let r = self.ojd(&["verify", &dir.display().to_string(), "--json"]);
        let report: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("verify prints JSON ({e}):\n{}\n{}", r.stdout, r.stderr));
        let problem = &report["problems"][0];
        let bad: Vec<String> = problem["submissions"]
            .as_array()
            .expect("submissions")
            .iter()
            .filter(|s| s["ok"] != true)
            .map(|s| {
                format!(
                    "{} expected {} got {}: {}",
                    s["name"], s["expected"], s["verdict"], s["failures"]
                )
            })
            .collect();
        assert!(
            r.code == 0 && bad.is_empty(),
            "verify exit {}: errors {} judge errors {}\n{}\n{}",
            r.code,
            problem["errors"],
            problem["judge_errors"],
            bad.join("\n"),
            r.stderr
        );
        report
    }
}

/// Submissions by folder: folder → sorted file names.
fn submissions(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for folder in std::fs::read_dir(dir.join("submissions"))
        .expect("submissions")
        .flatten()
    {
        let mut files: Vec<String> = std::fs::read_dir(folder.path())
            .expect("folder")
            .flatten()
            .map(|f| f.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        out.insert(folder.file_name().to_string_lossy().into_owned(), files);
    }
    out
}

pub(crate) fn judged_names(report: &Value) -> Vec<String> {
    let mut v: Vec<String> = report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| format!("{} {}", s["name"], s["verdict"]))
        .collect();
    v.sort();
    v
}

/// A judge for the library-level checks, with the compile time limit and the compile cache the
/// scratch config gives (the checker `ojd verify` compiled is not compiled again).
pub(crate) fn judge() -> ojd_judge::Judge {
    let mut config = ojd_judge::Config::defaults();
    config.judge.compile_time = std::time::Duration::from_secs(90);
    config.judge.cache = shared_cache();
    common::judge_with(config, 1)
}

#[test]
fn kattis_legacy_with_default_validator_flags_and_the_multiplier_rule() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import("kattis", &testdata("import/kattis/legacy-hypot"), "hypot");
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(p.title, "Hypotenuse");
    // No .timelimit: the slowest accepted run times 4, rounded up to a whole second.
    assert_eq!(p.time_limit.as_millis() % 1000, 0);
    assert!(p.time_limit.as_millis() >= 1000);
    assert_eq!(p.memory_limit, 256 << 20);
    let CheckerSpec::KattisDefault(flags) = &p.checker else {
        panic!(
            "float_tolerance without case_sensitive is the Kattis default checker: {:?}",
            p.checker
        );
    };
    assert_eq!(flags.float_absolute_tolerance, Some(1e-6));
    assert_eq!(flags.float_relative_tolerance, Some(1e-6));
    assert!(!flags.case_sensitive);
    assert_eq!(p.validator_accept, 42);
    assert!(p.answers_given);
    let names: Vec<&str> = p.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["sample-1", "01-unit", "02-large", "03-zero"]);
    let crlf = std::fs::read(dir.join("tests/03-zero.in")).expect("test");
    assert_eq!(crlf, b"0 7\n", "CRLF normalised");
    let md = std::fs::read_to_string(dir.join("statement.md")).expect("statement");
    assert!(
        md.starts_with("# Hypotenuse\n") && md.contains("## Input") && md.contains("*hypotenuse*"),
        "{md}"
    );
    assert!(
        dir.join("statement/problem.en.tex").is_file(),
        "the LaTeX source is kept"
    );
    let report = s.verify(&dir);
    assert_eq!(
        report["problems"][0]["inputs_validated"], 4,
        "the Kattis validator (exit 42) ran"
    );
    let names = judged_names(&report);
    assert!(
        names
            .iter()
            .any(|n| n.contains("run_time_error") || n.contains("runtime_error")),
        "{names:?}"
    );
}

#[test]
fn kattis_2023_scoring_groups() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import(
        "kattis",
        &testdata("import/kattis/v2023-subtask-sum"),
        "sum",
    );
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(p.title, "Subtask Sum", "English name of a map by language");
    assert_eq!(p.time_limit.as_millis(), 1500);
    assert_eq!(
        p.checker,
        CheckerSpec::Tokens,
        "case_sensitive alone is the tokens checker"
    );
    let groups: Vec<(String, u32, Vec<String>)> = p
        .groups
        .iter()
        .map(|g| (g.name.clone(), g.points, g.tests.clone()))
        .collect();
    assert_eq!(
        groups,
        [
            ("large".to_string(), 60, vec!["large-".to_string()]),
            ("small".to_string(), 40, vec!["small-".to_string()]),
        ]
    );
    s.verify(&dir);
    let j = judge();
    let int32 = common::judge_file(&j, &dir, &dir.join("submissions/wrong_answer/int32.c"));
    assert_eq!(int32.score, 40, "the small group only");
    let full = common::judge_file(&j, &dir, &dir.join("submissions/accepted/sum.cpp"));
    assert_eq!(full.score, 100);
}

#[test]
fn kattis_custom_output_validator_with_feedback() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import(
        "kattis",
        &testdata("import/kattis/custom-divisor"),
        "divisor",
    );
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(p.time_limit.as_millis(), 2000, ".timelimit");
    assert!(
        matches!(&p.checker, CheckerSpec::Kattis { .. }),
        "{:?}",
        p.checker
    );
    let validator = std::fs::read_to_string(dir.join("output_validator.cc")).expect("validator");
    assert!(
        validator.contains("static std::string feedback_dir;"),
        "validate.h is inlined"
    );
    // Kattis has no memory-limit verdict: the package's run_time_error/ file runs out of memory,
    // which ojd reports as MLE and, under the package's Kattis rules, counts as the RE promised.
    assert_eq!(p.verdicts, ojd_judge::VerdictRules::Kattis);
    let report = s.verify(&dir);
    let hog = report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .find(|s| {
            s["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("/memory_hog.c"))
        })
        .expect("the memory hog is judged");
    assert_eq!(
        (&hog["verdict"], &hog["ok"]),
        (&json!("MLE"), &json!(true)),
        "{hog}"
    );
    let j = judge();
    // Another divisor than the answer file's is right.
    let largest = common::judge_file(&j, &dir, &dir.join("submissions/accepted/largest.py"));
    assert_eq!(largest.verdict, ojd_judge::Verdict::Accepted);
    let wrong = common::judge_file(&j, &dir, &dir.join("submissions/wrong_answer/n_itself.c"));
    let first = wrong
        .tests
        .iter()
        .find(|t| t.verdict == ojd_judge::Verdict::WrongAnswer)
        .expect("a wrong answer");
    assert!(
        first
            .message
            .starts_with("not a proper divisor; judge: 12 does not properly divide 12")
            || first.message.contains("not a proper divisor"),
        "teammessage then judgemessage: {}",
        first.message
    );
}

#[test]
fn kattis_round_trip_keeps_tests_limits_checker_and_verdicts() {
    require_root!();
    let s = Scratch::new();
    for (fixture, name) in [
        ("import/kattis/custom-divisor", "divisor"),
        ("import/kattis/v2023-subtask-sum", "sum"),
        ("import/kattis/legacy-hypot", "hypot"),
    ] {
        let first = s.import("kattis", &testdata(fixture), &format!("{name}-1"));
        let exported = s.path(&format!("{name}-kattis"));
        let r = s.ojd(&[
            "export",
            "kattis",
            &first.display().to_string(),
            "--to",
            &exported.display().to_string(),
        ]);
        assert_eq!(r.code, 0, "export failed: {}{}", r.stdout, r.stderr);
        assert!(exported.join("problem.yaml").is_file());
        let second = s.import("kattis", &exported, &format!("{name}-2"));
        let (a, b) = (
            Problem::load(&first).unwrap(),
            Problem::load(&second).unwrap(),
        );
        assert_eq!(a.time_limit, b.time_limit, "{name}");
        assert_eq!(a.memory_limit, b.memory_limit, "{name}");
        assert_eq!(a.output_limit, b.output_limit, "{name}");
        assert_eq!(a.title, b.title, "{name}");
        match (&a.checker, &b.checker) {
            (CheckerSpec::Kattis { flags: f1, .. }, CheckerSpec::Kattis { flags: f2, .. }) => {
                assert_eq!(f1, f2)
            }
            (x, y) => assert_eq!(x, y, "{name}"),
        }
        let groups = |p: &Problem| -> Vec<(String, u32)> {
            p.groups
                .iter()
                .map(|g| (g.name.clone(), g.points))
                .collect()
        };
        assert_eq!(groups(&a), groups(&b), "{name}");
        assert_eq!(a.tests.len(), b.tests.len(), "{name}");
        for (x, y) in a.tests.iter().zip(&b.tests) {
            assert_eq!((&x.name, x.sample), (&y.name, y.sample), "{name}");
            assert_eq!(
                std::fs::read(&x.input).unwrap(),
                std::fs::read(&y.input).unwrap()
            );
            assert_eq!(
                std::fs::read(&x.answer).unwrap(),
                std::fs::read(&y.answer).unwrap()
            );
        }
        assert_eq!(submissions(&first), submissions(&second), "{name}");
        if name == "divisor" {
            // Verdicts: the same submissions get the same verdicts.
            assert_eq!(
                judged_names(&s.verify(&first)),
                judged_names(&s.verify(&second))
            );
        }
    }
}

#[test]
fn polygon_generated_tests_testlib_checker_and_points() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import("polygon", &testdata("import/polygon/maxpair"), "maxpair");
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(p.title, "Largest Pair Sum");
    assert_eq!(p.time_limit.as_millis(), 1000);
    assert_eq!(p.memory_limit, 256 << 20);
    assert!(matches!(&p.checker, CheckerSpec::Program { .. }));
    assert_eq!(
        p.generate.len(),
        4,
        "generated tests are made from the package's generator"
    );
    for g in &p.generate {
        let input =
            std::fs::read_to_string(dir.join("tests").join(format!("{}.in", g.test))).unwrap();
        assert!(
            input.lines().count() == 2,
            "{}: generated in the sandbox",
            g.test
        );
    }
    assert_eq!(
        std::fs::read(dir.join("tests/sample-01.in")).unwrap(),
        b"4\n3 9 1 5\n",
        "CRLF normalised"
    );
    let groups: Vec<(u32, Vec<String>)> = p
        .groups
        .iter()
        .map(|g| (g.points, g.tests.clone()))
        .collect();
    assert_eq!(
        groups,
        [
            (40, vec!["02".to_string(), "03".into(), "04".into()]),
            (30, vec!["05".to_string()]),
            (20, vec!["06".to_string()]),
            (10, vec!["07".to_string()]),
        ]
    );
    assert!(!dir.join("submissions/accepted/rejected_any.c").exists());
    // Tagged time-limit-exceeded-or-accepted: AC or TLE on every test, nothing required (AC on
    // the small tests, TLE on the large).
    assert!(dir
        .join("submissions/time_limit_exceeded_or_accepted/pairs_tle_or_ac.c")
        .is_file());
    let names = judged_names(&s.verify(&dir));
    assert!(
        names
            .contains(&"\"time_limit_exceeded_or_accepted/pairs_tle_or_ac.c\" \"TLE\"".to_string()),
        "{names:?}"
    );
    let j = judge();
    let wa = common::judge_file(
        &j,
        &dir,
        &dir.join("submissions/wrong_answer/wa_first_thousand.c"),
    );
    assert_eq!(
        wa.score, 50,
        "group 1 (40) and the small test 07 of group 2 (10)"
    );
    // The same package as a `.zip` is unpacked. In this test, not one of its own: the import
    // builds the tests again with the package's testlib generator, and here it is found
    // compiled in the shared cache, where a test beside this one would compile it again.
    polygon_zip_is_unpacked(&s);
}

fn polygon_zip_is_unpacked(s: &Scratch) {
    let zip_path = s.path("maxpair.zip");
    zip_folder(&testdata("import/polygon/maxpair"), &zip_path);
    let dir = s.import("polygon", &zip_path, "from-zip");
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(p.tests.len(), 7);
}

fn zip_folder(dir: &Path, to: &Path) {
    use std::io::Write;
    let file = std::fs::File::create(to).unwrap();
    let mut z = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    fn add(
        z: &mut zip::ZipWriter<std::fs::File>,
        base: &Path,
        dir: &Path,
        opts: zip::write::SimpleFileOptions,
    ) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                add(z, base, &p, opts);
            } else {
                z.start_file(rel, opts).unwrap();
                z.write_all(&std::fs::read(&p).unwrap()).unwrap();
            }
        }
    }
    add(&mut z, dir, dir, opts);
    z.finish().unwrap();
}

#[test]
fn unsupported_parts_name_the_file_and_key() {
    let s = Scratch::new();
    let pkg = s.path("multipass");
    std::fs::create_dir_all(pkg.join("data/secret")).unwrap();
    std::fs::write(
        pkg.join("problem.yaml"),
        "problem_format_version: 2023-07-draft\nname: X\ntype: submit-answer\n",
    )
    .unwrap();
    let r = s.ojd(&[
        "import",
        "kattis",
        &pkg.display().to_string(),
        "--to",
        &s.path("out").display().to_string(),
    ]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("problem.yaml: type: submit-answer problems are not supported"),
        "{}",
        r.stderr
    );
    assert!(!s.path("out").exists(), "a failed import leaves nothing");
    // An existing destination is never overwritten.
    std::fs::create_dir_all(s.path("taken")).unwrap();
    std::fs::write(s.path("taken/keep"), "mine").unwrap();
    let r = s.ojd(&[
        "import",
        "kattis",
        &testdata("import/kattis/custom-divisor")
            .display()
            .to_string(),
        "--to",
        &s.path("taken").display().to_string(),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(s.path("taken/keep")).unwrap(),
        "mine"
    );
}

// ---- Hostile packages: a package is data, read only inside its own folder. ----

const MARKER: &str = "HOST-SECRET-MARKER";

/// A host file outside every package, readable by its owner only, with a marker in it.
fn host_secret(s: &Scratch) -> PathBuf {
    let p = s.path("host/secret.txt");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, format!("{MARKER}\n")).unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    p
}

/// Every file under `dir`: none may hold the marker or be more open than 0644.
fn assert_clean(dir: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            assert_clean(&p);
            continue;
        }
        assert!(!m.file_type().is_symlink(), "{} is a link", p.display());
        assert_eq!(
            m.mode() & 0o133,
            0,
            "{} is {:o}",
            p.display(),
            m.mode() & 0o777
        );
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        assert!(
            !text.contains(MARKER),
            "{} holds the host's secret",
            p.display()
        );
    }
}

/// A small valid Kattis package (given time limit, so no sandbox is needed).
fn small_kattis(dir: &Path) {
    for (f, text) in [
        ("problem.yaml", "name: Hostile\nlimits:\n  time_limit: 1\n"),
        ("data/sample/1.in", "1 2\n"),
        ("data/sample/1.ans", "3\n"),
        ("data/secret/01.in", "2 2\n"),
        ("data/secret/01.ans", "4\n"),
        (
            "submissions/accepted/sum.py",
            "print(sum(map(int, input().split())))\n",
        ),
    ] {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn import_fails(s: &Scratch, format: &str, from: &Path, wants: &[&str]) {
    let out = s.path("out");
    let r = s.ojd(&[
        "import",
        format,
        &from.display().to_string(),
        "--to",
        &out.display().to_string(),
    ]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    for w in wants {
        assert!(r.stderr.contains(w), "wanted {w:?} in:\n{}", r.stderr);
    }
    assert!(!r.stdout.contains(MARKER) && !r.stderr.contains(MARKER));
    assert!(!out.exists(), "a failed import leaves nothing");
    let left: Vec<String> = std::fs::read_dir(s.path(""))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".out"))
        .collect();
    assert!(left.is_empty(), "the scratch folder is left: {left:?}");
}

#[test]
fn kattis_links_leaving_the_package_are_refused() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    let secret = host_secret(&s);
    let secret_s = secret.display().to_string();
    // A secret test linked to a host file.
    let p = s.path("k1");
    small_kattis(&p);
    symlink(&secret, p.join("data/secret/05.in")).unwrap();
    std::fs::write(p.join("data/secret/05.ans"), "x\n").unwrap();
    import_fails(
        &s,
        "kattis",
        &p,
        &["data/secret/05.in", &secret_s, "outside the package"],
    );
    // A sample linked to it, and an answer.
    let p = s.path("k2");
    small_kattis(&p);
    std::fs::remove_file(p.join("data/sample/1.ans")).unwrap();
    symlink(&secret, p.join("data/sample/1.ans")).unwrap();
    import_fails(&s, "kattis", &p, &["data/sample/1.ans", &secret_s]);
    // A test group linked to a host folder.
    let host_dir = s.path("host/group");
    std::fs::create_dir_all(&host_dir).unwrap();
    std::fs::write(host_dir.join("x.in"), format!("{MARKER}\n")).unwrap();
    std::fs::write(host_dir.join("x.ans"), format!("{MARKER}\n")).unwrap();
    let p = s.path("k3");
    small_kattis(&p);
    symlink(&host_dir, p.join("data/secret/g")).unwrap();
    import_fails(&s, "kattis", &p, &["data/secret/g", "outside the package"]);
    // The statement and problem.yaml too.
    let p = s.path("k4");
    small_kattis(&p);
    std::fs::create_dir_all(p.join("problem_statement")).unwrap();
    symlink(&secret, p.join("problem_statement/problem.en.md")).unwrap();
    import_fails(&s, "kattis", &p, &["problem.en.md", &secret_s]);
}

#[test]
fn kattis_group_links_back_into_their_own_folders_are_refused_at_once() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    // A group linked to the folder holding it, and one linked to itself: each would be walked
    // for ever (the first import with such links never ended).
    for (name, target) in [("up", ".."), ("me", "."), ("top", "../../../data")] {
        let p = s.path(name);
        small_kattis(&p);
        std::fs::create_dir_all(p.join("data/secret/g")).unwrap();
        std::fs::write(p.join("data/secret/g/1.in"), "1 1\n").unwrap();
        std::fs::write(p.join("data/secret/g/1.ans"), "2\n").unwrap();
        symlink(target, p.join("data/secret/g/loop")).unwrap();
        let started = std::time::Instant::now();
        import_fails(&s, "kattis", &p, &["data/secret/g/loop", "a cycle"]);
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }
    // A link to a sibling group is another group of the package, and imports.
    let p = s.path("sibling");
    small_kattis(&p);
    std::fs::create_dir_all(p.join("data/secret/a")).unwrap();
    std::fs::write(p.join("data/secret/a/1.in"), "1 1\n").unwrap();
    std::fs::write(p.join("data/secret/a/1.ans"), "2\n").unwrap();
    std::fs::create_dir_all(p.join("data/secret/b")).unwrap();
    symlink("../a", p.join("data/secret/b/again")).unwrap();
    let dir = s.import("kattis", &p, "ok");
    assert_eq!(
        std::fs::read_to_string(dir.join("tests/b-again-1.in")).unwrap(),
        "1 1\n"
    );
}

#[test]
fn kattis_links_inside_the_package_still_work() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let s = Scratch::new();
    let p = s.path("inside");
    small_kattis(&p);
    symlink("../sample/1.in", p.join("data/secret/02.in")).unwrap();
    symlink("../sample/1.ans", p.join("data/secret/02.ans")).unwrap();
    // A file only its owner may read stays that way; an open one is not copied open.
    std::fs::write(p.join("data/secret/03.in"), "5 5\n").unwrap();
    std::fs::write(p.join("data/secret/03.ans"), "10\n").unwrap();
    std::fs::set_permissions(
        p.join("data/secret/03.in"),
        PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    std::fs::set_permissions(
        p.join("data/secret/03.ans"),
        PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let dir = s.import("kattis", &p, "ok");
    assert_eq!(
        std::fs::read_to_string(dir.join("tests/02.in")).unwrap(),
        "1 2\n"
    );
    let mode = |f: &str| std::fs::metadata(dir.join(f)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("tests/03.in"), 0o600);
    assert_eq!(mode("tests/03.ans"), 0o644);
    assert_clean(&dir);
}

/// A Polygon package whose checker is `checker` (no sandbox is reached when it is refused).
fn small_polygon(dir: &Path, checker: &str) {
    let xml = r#"<?xml version="1.0" encoding="utf-8"?>
<problem short-name="hostile">
  <names><name language="english" value="Hostile"/></names>
  <judging>
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>268435456</memory-limit>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual"/></tests>
    </testset>
  </judging>
  <assets>
    <checker type="testlib"><source path="files/check.cpp"/></checker>
    <solutions><solution tag="main"><source path="solutions/sol.py"/></solution></solutions>
  </assets>
</problem>
"#;
    for (f, text) in [
        ("problem.xml", xml),
        ("tests/01", "1 2\n"),
        ("files/check.cpp", checker),
        ("solutions/sol.py", "print(3)\n"),
    ] {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

#[test]
fn polygon_includes_never_read_host_files() {
    let s = Scratch::new();
    let secret = host_secret(&s);
    // An absolute include hidden in a raw string, as in the report.
    let p = s.path("abs");
    small_polygon(
        &p,
        &format!(
            "#include \"testlib.h\"\nconst char* s = R\"(\n#include \"{}\"\n)\";\nint main() {{}}\n",
            secret.display()
        ),
    );
    import_fails(
        &s,
        "polygon",
        &p,
        &["check.cpp:3", &secret.display().to_string()],
    );
    // `..` out of the package: pkg/files/../../outside.h is the host's file beside it.
    std::fs::write(s.path("outside.h"), format!("{MARKER}\n")).unwrap();
    let p = s.path("up");
    small_polygon(&p, "#include \"../../outside.h\"\nint main() {}\n");
    import_fails(
        &s,
        "polygon",
        &p,
        &["check.cpp:1", "../../outside.h", "outside the package"],
    );
}

#[test]
fn polygon_statement_links_are_refused() {
    let s = Scratch::new();
    let secret = host_secret(&s);
    let p = s.path("legend");
    small_polygon(&p, "int main() {}\n");
    std::fs::create_dir_all(p.join("statement-sections/english")).unwrap();
    std::os::unix::fs::symlink(&secret, p.join("statement-sections/english/legend.tex")).unwrap();
    import_fails(
        &s,
        "polygon",
        &p,
        &["legend.tex", &secret.display().to_string()],
    );
}

#[test]
fn polygon_zip_bombs_stop_at_the_web_caps() {
    use std::io::Write;
    let s = Scratch::new();
    let mut config = std::fs::OpenOptions::new()
        .append(true)
        .open(s.path("config.toml"))
        .unwrap();
    writeln!(
        config,
        "[web]\nmax_package_size = \"1MiB\"\nmax_package_files = 50"
    )
    .unwrap();
    let zip_of = |name: &str, entries: &[(String, Vec<u8>)]| {
        let path = s.path(name);
        let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (n, data) in entries {
            z.start_file(n.as_str(), opts).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
        path
    };
    // 32 MiB that claim 1000 bytes each, and no problem.xml.
    let big = vec![b'0'; 16 << 20];
    let bomb = zip_of(
        "bomb.zip",
        &[("tests/01".into(), big.clone()), ("tests/02".into(), big)],
    );
    let mut b = std::fs::read(&bomb).unwrap();
    for i in 0..b.len().saturating_sub(30) {
        if b[i..i + 4] == [0x50, 0x4b, 0x03, 0x04] {
            b[i + 22..i + 26].copy_from_slice(&1000u32.to_le_bytes());
        } else if b[i..i + 4] == [0x50, 0x4b, 0x01, 0x02] {
            b[i + 24..i + 28].copy_from_slice(&1000u32.to_le_bytes());
        }
    }
    std::fs::write(&bomb, b).unwrap();
    import_fails(&s, "polygon", &bomb, &["bomb.zip", "refused"]);
    // Many files.
    let many: Vec<(String, Vec<u8>)> = (0..200).map(|i| (format!("f{i}"), b"x".to_vec())).collect();
    let many = zip_of("many.zip", &many);
    import_fails(&s, "polygon", &many, &["many.zip", "more than 50 files"]);
    // `..` in a name.
    let up = zip_of("up.zip", &[("../escape".into(), b"x".to_vec())]);
    import_fails(&s, "polygon", &up, &["up.zip", "`..`"]);
    assert!(!s.path("escape").exists());
}

/// Issue 25, item 1: a flat `output_validators/` holding the validator and its header (as
/// SWERC 2025 packages have it) is one program, not two: the header is inlined.
#[test]
fn kattis_flat_output_validators_with_a_header() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import("kattis", &testdata("import/kattis/flat-validator"), "flat");
    let p = Problem::load(&dir).expect("the import loads");
    let CheckerSpec::Kattis { path, .. } = &p.checker else {
        panic!("a custom validator: {:?}", p.checker);
    };
    let text = std::fs::read_to_string(dir.join(path)).expect("validator");
    assert!(
        text.contains("static std::string feedback_dir;"),
        "checker.h is inlined into the one program"
    );
    let report = s.verify(&dir);
    assert_eq!(
        judged_names(&report).len(),
        4,
        "both accepted (ones.c also as the reference) and the wrong answer are judged"
    );
}

/// A CMS task (italy_yaml) with subtasks in gen/GEN, CMS's default file I/O and a PDF
/// statement: the subtasks are scoring groups with their points, verify passes, and a
/// solution that overflows on the last subtask scores the first one's points only.
#[test]
fn cms_task_with_subtasks() {
    require_root!();
    let s = Scratch::new();
    let from = testdata("import/cms/somma");
    let dir = s.import("cms", &from, "somma");
    let p = Problem::load(&dir).expect("the import loads");
    let points: Vec<(String, u32)> = p
        .groups
        .iter()
        .map(|g| (g.name.clone(), g.points))
        .collect();
    assert_eq!(points, [("subtask2".into(), 40), ("subtask3".into(), 60)]);
    let report = s.verify(&dir);
    assert_eq!(
        judged_names(&report),
        [
            "\"accepted/soluzione.cpp\" \"AC\"",
            "\"solution.cpp\" \"AC\""
        ]
    );
    let j = judge();
    let full = common::judge_file(&j, &dir, &dir.join("submissions/accepted/soluzione.cpp"));
    assert_eq!(full.score, 100);
    // The task's other solution (CMS gives it no verdict, so the import skips it), as .cpp.
    let int32 = s.path("int32.cpp");
    std::fs::copy(from.join("sol/int32.c++"), &int32).unwrap();
    let partial = common::judge_file(&j, &dir, &int32);
    assert_eq!(partial.score, 40, "the small subtask only");
}

/// A CMS task without output/: the reference makes the answers in the sandbox, and they
/// are the task's own.
#[test]
fn cms_task_answers_from_the_reference() {
    require_root!();
    let s = Scratch::new();
    let from = testdata("import/cms/somma");
    let task = s.path("task");
    for sub in ["", "gen", "input", "sol", "statement"] {
        std::fs::create_dir_all(task.join(sub)).unwrap();
        if sub.is_empty() {
            continue;
        }
        for f in std::fs::read_dir(from.join(sub)).unwrap().flatten() {
            std::fs::copy(f.path(), task.join(sub).join(f.file_name())).unwrap();
        }
    }
    std::fs::copy(from.join("task.yaml"), task.join("task.yaml")).unwrap();
    let dir = s.import("cms", &task, "somma");
    for (i, name) in ["sample-s1-00", "s2-01", "s3-06"].iter().enumerate() {
        let i = [0, 1, 6][i];
        assert_eq!(
            std::fs::read_to_string(dir.join(format!("tests/{name}.ans"))).unwrap(),
            std::fs::read_to_string(from.join(format!("output/output{i}.txt"))).unwrap(),
            "{name}"
        );
    }
    assert!(!std::fs::read_to_string(dir.join("problem.toml"))
        .unwrap()
        .contains("answers = \"given\""));
    s.verify(&dir);
}

/// A CMS task with only gen/ (no input/ nor output/): each gen/GEN line runs the task's
/// generator in the sandbox, `#COPY:` lines copy their file, and the reference makes the
/// answers; the tests are those cmsMake would make (the fixture's own).
#[test]
fn cms_task_tests_from_gen() {
    require_root!();
    let s = Scratch::new();
    let from = testdata("import/cms/somma");
    let task = s.path("task");
    for sub in ["", "gen", "sol", "statement"] {
        std::fs::create_dir_all(task.join(sub)).unwrap();
        if sub.is_empty() {
            continue;
        }
        for f in std::fs::read_dir(from.join(sub)).unwrap().flatten() {
            std::fs::copy(f.path(), task.join(sub).join(f.file_name())).unwrap();
        }
    }
    let yaml = std::fs::read_to_string(from.join("task.yaml")).unwrap();
    // n_input is optional then: gen/GEN counts the tests.
    std::fs::write(task.join("task.yaml"), yaml.replace("n_input: 7\n", "")).unwrap();
    let dir = s.import("cms", &task, "somma");
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(p.generate.len(), 5, "five generator lines, two #COPY lines");
    for (i, t) in p.tests.iter().enumerate() {
        for (ext, folder, file) in [("in", "input", "input"), ("ans", "output", "output")] {
            assert_eq!(
                std::fs::read_to_string(dir.join(format!("tests/{}.{ext}", t.name))).unwrap(),
                std::fs::read_to_string(from.join(format!("{folder}/{file}{i}.txt"))).unwrap(),
                "{} .{ext}",
                t.name
            );
        }
    }
    s.verify(&dir);
}

/// What a CMS task holds that ojd cannot judge the same way ends the import with exit 2, the
/// file and the key named, and nothing left behind; a Kattis package given to `import cms` is
/// named as one.
#[test]
fn cms_refusals_exit_2() {
    let s = Scratch::new();
    let from = testdata("import/cms/somma");
    let task = s.path("task");
    for sub in ["", "gen", "input", "output", "sol", "statement"] {
        std::fs::create_dir_all(task.join(sub)).unwrap();
        if sub.is_empty() {
            continue;
        }
        for f in std::fs::read_dir(from.join(sub)).unwrap().flatten() {
            std::fs::copy(f.path(), task.join(sub).join(f.file_name())).unwrap();
        }
    }
    std::fs::copy(from.join("task.yaml"), task.join("task.yaml")).unwrap();
    std::fs::create_dir_all(task.join("check")).unwrap();
    // A compiled checker alone: ojd builds every program in its sandbox, from source.
    std::fs::write(task.join("check/checker"), "\x7fELF\x02\x01\x01").unwrap();
    import_fails(
        &s,
        "cms",
        &task,
        &["checker: check/checker: a CMS checker without its source in a language ojd knows"],
    );
    import_fails(
        &s,
        "cms",
        &testdata("import/kattis/custom-divisor"),
        &["task.yaml: missing: not a CMS task; it looks like a Kattis package (`ojd import kattis`)"],
    );
}

/// A checktestdata script is converted in the sandbox, not on the host: with the converter made
/// hostile (a `checktestdata` module first on the host's Python path that runs the script as
/// Python, as a parser bug would), the script's code runs, but it can neither read a host file
/// nor write outside its box; what it wrote is all that comes back.
#[test]
fn checktestdata_conversion_runs_in_the_sandbox() {
    require_root!();
    let s = Scratch::new();
    let secret = host_secret(&s);
    let outside = s.path("host/written-by-the-script");
    let fake = s.path("fake-python/checktestdata");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("__init__.py"), "").unwrap();
    // `--convert OUT IN`: run IN as Python, with OUT to write.
    std::fs::write(
        fake.join("__main__.py"),
        "import sys\nout, src = sys.argv[2], sys.argv[3]\nexec(open(src).read())\n",
    )
    .unwrap();
    let pkg = s.path("hostile");
    small_kattis(&pkg);
    std::fs::create_dir_all(pkg.join("input_validators")).unwrap();
    std::fs::write(
        pkg.join("input_validators/check.ctd"),
        format!(
            "import os\n\
             def attempt(f):\n    try:\n        return str(f())\n    except Exception as e:\n        return 'refused ' + type(e).__name__\n\
             read = attempt(lambda: open({secret:?}).read().strip())\n\
             wrote = attempt(lambda: open({outside:?}, 'w').write('x'))\n\
             listed = attempt(lambda: os.listdir({host:?}))\n\
             open(out, 'w').write('import sys\\n# read: %s; wrote: %s; listed: %s\\nsys.exit(42)\\n' % (read, wrote, listed))\n",
            secret = secret.display().to_string(),
            outside = outside.display().to_string(),
            host = s.path("host").display().to_string(),
        ),
    )
    .unwrap();
    let dest = s.path("imported");
    let out = common::ojd()
        .args(["import", "kattis"])
        .arg(&pkg)
        .arg("--to")
        .arg(&dest)
        .arg("--config")
        .arg(s.path("config.toml"))
        .env("PYTHONPATH", s.path("fake-python"))
        .output()
        .expect("ojd runs");
    let r = Run::from(out);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let program = std::fs::read_to_string(dest.join("input_validator0.py")).unwrap();
    // The script ran (the converter's output is its), and every attempt failed.
    assert!(program.contains("# read: refused"), "{program}");
    assert!(program.contains("wrote: refused"), "{program}");
    assert!(program.contains("listed: refused"), "{program}");
    assert!(!outside.exists(), "the script wrote a host file");
    assert!(!r.stdout.contains(MARKER) && !r.stderr.contains(MARKER));
    assert_clean(&dest);
}

/// A checktestdata script the converter cannot read is refused naming the file and the line the
/// converter names; one that is too big is refused before anything runs.
#[test]
fn checktestdata_scripts_the_converter_refuses() {
    require_root!();
    if !have_checktestdata() {
        return;
    }
    let s = Scratch::new();
    let pkg = s.path("bad");
    small_kattis(&pkg);
    std::fs::create_dir_all(pkg.join("input_validators")).unwrap();
    std::fs::write(
        pkg.join("input_validators/check.ctd"),
        "INT(1, 100, n) NEWLINE\nREP(n NEWLINE\n",
    )
    .unwrap();
    import_fails(
        &s,
        "kattis",
        &pkg,
        &["check.ctd: not a checktestdata script checktestdata can read"],
    );
    std::fs::write(pkg.join("input_validators/check.ctd"), "#".repeat(2 << 20)).unwrap();
    import_fails(
        &s,
        "kattis",
        &pkg,
        &["check.ctd: a checktestdata script of 2097152 bytes: refused"],
    );
}

/// Whether the host's `python3` has the checktestdata package; without it a test fails under CI
/// and is skipped with a line otherwise.
pub(crate) fn have_checktestdata() -> bool {
    let have = std::process::Command::new("python3")
        .args(["-c", "import checktestdata"])
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        assert!(
            std::env::var_os("CI").is_none(),
            "checktestdata (pip install checktestdata) is missing"
        );
        eprintln!("skipped: checktestdata (pip install checktestdata) is missing");
    }
    have
}

/// A CMS task as most are: subtasks worth fractional points (37.5 and 62.5) and a checker that
/// prints a score from 0 to 1 (cor/correttore.cpp). The import keeps both; the full solution
/// scores 100, and one right on small sums only gets its partial credit: all of subtask 2's
/// 37.5 points and half of subtask 3's 62.5 (each of its tests half right), 68.75 exactly.
#[test]
fn cms_task_with_fractional_points_and_a_checker() {
    require_root!();
    let s = Scratch::new();
    let from = testdata("import/cms/coppie");
    let dir = s.import("cms", &from, "coppie");
    let p = Problem::load(&dir).expect("the import loads");
    assert_eq!(
        p.checker,
        CheckerSpec::Cms {
            path: "checker.cpp".into()
        }
    );
    let groups: Vec<(String, u32, u32)> = p
        .groups
        .iter()
        .map(|g| (g.name.clone(), g.points_milli, g.points))
        .collect();
    assert_eq!(
        groups,
        [
            ("subtask2".into(), 37_500, 38),
            ("subtask3".into(), 62_500, 62)
        ]
    );
    let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
    assert!(
        toml.contains("points = 37.5\n") && toml.contains("kind = \"cms\""),
        "{toml}"
    );
    let report = s.verify(&dir);
    assert_eq!(
        judged_names(&report),
        [
            "\"accepted/soluzione.cpp\" \"AC\"",
            "\"solution.cpp\" \"AC\""
        ]
    );
    let j = judge();
    let full = common::judge_file(&j, &dir, &dir.join("submissions/accepted/soluzione.cpp"));
    assert_eq!((full.score, full.score_milli), (100, 100_000), "{full:#?}");
    let small = s.path("piccoli.cpp");
    std::fs::copy(from.join("sol/piccoli.cpp"), &small).unwrap();
    let partial = common::judge_file(&j, &dir, &small);
    assert_eq!(
        (partial.score, partial.score_milli),
        (68, 68_750),
        "{partial:#?}"
    );
    assert_eq!(
        partial
            .partial
            .iter()
            .map(|(t, s)| (t.as_str(), *s))
            .collect::<Vec<_>>(),
        [("s3-03", 500), ("s3-04", 500)]
    );
    let t = partial.tests.iter().find(|t| t.name == "s3-04").unwrap();
    assert_eq!(t.verdict, ojd_judge::Verdict::WrongAnswer);
    assert!(
        t.message
            .starts_with("partially correct: 0.500000 of the test's credit; 2 of 4 pairs right"),
        "{}",
        t.message
    );
    // The text report shows the exact score beside the whole one.
    let text = ojd_judge::report::render(&partial, false);
    assert!(text.contains("score 68 (68.75 exactly)"), "{text}");
}

/// A Kattis package whose submissions are folders of several sources
/// (testdata/import/kattis/several-files): two C++ files and a header, two Python modules (the
/// entry point is solve.py, the one with `__main__`, though reading.py comes first by name), two
/// Java classes (the main class the one declaring `main`), and a wrong answer whose folder
/// differs from an accepted one in sum.cpp alone (the compile cache's key covers every file).
/// They are imported as folders, `ojd verify` judges each as one submission, `ojd judge PROBLEM
/// FOLDER` judges one, and an export keeps them as folders.
#[test]
fn kattis_submissions_of_several_files() {
    require_root!();
    let s = Scratch::new();
    let from = testdata("import/kattis/several-files");
    let dir = s.import("kattis", &from, "several");
    for f in [
        "accepted/parts/main.cpp",
        "accepted/parts/sum.cpp",
        "accepted/parts/sum.h",
        "accepted/modules/reading.py",
        "accepted/modules/solve.py",
        "accepted/classes/Adder.java",
        "accepted/classes/Solve.java",
        "wrong_answer/int_parts/sum.cpp",
    ] {
        assert!(dir.join("submissions").join(f).is_file(), "{f}");
    }
    let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
    assert!(
        toml.contains("solution = \"submissions/accepted/one.cpp\""),
        "the reference is the one-file submission: {toml}"
    );
    let report = s.verify(&dir);
    assert_eq!(
        judged_names(&report),
        [
            "\"accepted/classes\" \"AC\"",
            "\"accepted/modules\" \"AC\"",
            "\"accepted/one.cpp\" \"AC\"",
            "\"accepted/parts\" \"AC\"",
            "\"submissions/accepted/one.cpp\" \"AC\"",
            "\"wrong_answer/int_parts\" \"WA\"",
        ]
    );
    let judge_folder = |folder: &str| {
        s.ojd(&[
            "judge",
            &dir.display().to_string(),
            &dir.join("submissions").join(folder).display().to_string(),
            "--json",
        ])
    };
    for (folder, code, verdict) in [
        ("accepted/modules", 0, "AC"),
        ("accepted/parts", 0, "AC"),
        ("wrong_answer/int_parts", 1, "WA"),
    ] {
        let r = judge_folder(folder);
        assert_eq!(r.code, code, "{folder}: {}{}", r.stdout, r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
        assert_eq!(v["verdict"], verdict, "{folder}: {v}");
    }
    // A folder in two languages, or in a language whose profile compiles one file, is refused
    // (exit 2), named.
    let mixed = s.path("mixed");
    std::fs::create_dir(&mixed).unwrap();
    std::fs::copy(
        dir.join("submissions/accepted/one.cpp"),
        mixed.join("one.cpp"),
    )
    .unwrap();
    std::fs::copy(
        dir.join("submissions/accepted/modules/solve.py"),
        mixed.join("solve.py"),
    )
    .unwrap();
    let rust = s.path("rust");
    std::fs::create_dir(&rust).unwrap();
    std::fs::write(
        rust.join("main.rs"),
        "mod util;\nfn main() { util::f(); }\n",
    )
    .unwrap();
    std::fs::write(rust.join("util.rs"), "pub fn f() {}\n").unwrap();
    for (folder, wants) in [
        (
            &mixed,
            "files in several languages (cpp: one.cpp; python: solve.py)",
        ),
        (
            &rust,
            "a submission of several files (main.rs, util.rs) cannot be judged in Rust",
        ),
    ] {
        let r = s.ojd(&[
            "judge",
            &dir.display().to_string(),
            &folder.display().to_string(),
        ]);
        assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(wants), "{}", r.stderr);
    }
    // Exported as folders, imported again as folders: in the 2025-09 format, whose
    // submissions.yaml names each one's entrypoint (2023-07 has none, and problemtools would
    // start `modules` from reading.py: that export leaves it out, with a warning).
    let exported = s.path("several-kattis");
    let r = s.ojd(&[
        "export",
        "kattis",
        &dir.display().to_string(),
        "--to",
        &exported.display().to_string(),
        "--format",
        "2025-09",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(exported
        .join("submissions/accepted/modules/solve.py")
        .is_file());
    assert!(exported
        .join("submissions/wrong_answer/int_parts/sum.h")
        .is_file());
    let again = s.import("kattis", &exported, "several-2");
    assert_eq!(submissions(&again), submissions(&dir));
}

/// CMS's `GroupMul` with a checker: the coppie task with `score_type: GroupMul` imports its
/// subtasks as groups earning their points times the product of their tests' shares (not the
/// smallest, as `GroupMin`): the partial solution's two half-right tests of subtask 3 earn
/// 62.5 × 0.5 × 0.5 there.
#[test]
fn cms_group_mul_with_a_checker_multiplies_the_shares() {
    require_root!();
    let s = Scratch::new();
    let from = s.path("coppie-mul");
    crate::packages::copy_dir(&testdata("import/cms/coppie"), &from);
    let yaml = from.join("task.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    assert!(text.contains("score_type: GroupMin\n"), "{text}");
    std::fs::write(
        &yaml,
        text.replace("score_type: GroupMin\n", "score_type: GroupMul\n"),
    )
    .unwrap();
    let dir = s.import("cms", &from, "coppie");
    let p = Problem::load(&dir).expect("the import loads");
    let groups: Vec<(String, u32, Aggregation)> = p
        .groups
        .iter()
        .map(|g| (g.name.clone(), g.points_milli, g.aggregation))
        .collect();
    assert_eq!(
        groups,
        [
            ("subtask2".into(), 37_500, Aggregation::Product),
            ("subtask3".into(), 62_500, Aggregation::Product)
        ]
    );
    let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
    assert!(toml.contains("aggregation = \"product\"\n"), "{toml}");
    let report = s.verify(&dir);
    assert_eq!(
        judged_names(&report),
        [
            "\"accepted/soluzione.cpp\" \"AC\"",
            "\"solution.cpp\" \"AC\""
        ]
    );
    let j = judge();
    let full = common::judge_file(&j, &dir, &dir.join("submissions/accepted/soluzione.cpp"));
    assert_eq!((full.score, full.score_milli), (100, 100_000), "{full:#?}");
    let small = s.path("piccoli.cpp");
    std::fs::copy(from.join("sol/piccoli.cpp"), &small).unwrap();
    let partial = common::judge_file(&j, &dir, &small);
    // 37.5 + 62.5 × 0.5 × 0.5 (GroupMin gave 37.5 + 62.5 × 0.5 = 68.75)
    assert_eq!(
        (partial.score, partial.score_milli),
        (53, 53_125),
        "{partial:#?}"
    );
    // Kattis has no product of partial scores: the export refuses it, naming the key.
    let r = s.ojd(&[
        "export",
        "kattis",
        &dir.display().to_string(),
        "--to",
        &s.path("out").display().to_string(),
    ]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("group[0].aggregation"), "{}", r.stderr);
}

/// CMS's `GroupThreshold` (testdata/import/cms/radice): the checker prints an outcome (the
/// output's cost over the best, any number), a test is accepted when it is above 0 and at most
/// its group's threshold (`score_type_parameters: [[points, tests, threshold], ...]`), and a
/// group earns its points when all its tests are. The reference earns everything; a solution
/// within twice the best earns only the 30 points of the subtask whose threshold is 2.
#[test]
fn cms_group_threshold_accepts_outcomes_within_the_threshold() {
    require_root!();
    let s = Scratch::new();
    let from = testdata("import/cms/radice");
    let dir = s.import("cms", &from, "radice");
    let p = Problem::load(&dir).expect("the import loads");
    let groups: Vec<(String, u32, Option<f64>)> = p
        .groups
        .iter()
        .map(|g| (g.name.clone(), g.points, g.threshold))
        .collect();
    // The samples' 0-point subtask keeps its threshold (1000): its outcomes are not scores.
    assert_eq!(
        groups,
        [
            ("subtask1".into(), 0, Some(1000.0)),
            ("subtask2".into(), 30, Some(2.0)),
            ("subtask3".into(), 70, Some(1.0))
        ]
    );
    let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
    assert!(toml.contains("threshold = 2.0\n"), "{toml}");
    let report = s.verify(&dir);
    assert_eq!(
        judged_names(&report),
        [
            "\"accepted/soluzione.cpp\" \"AC\"",
            "\"solution.cpp\" \"AC\""
        ]
    );
    let j = judge();
    let full = common::judge_file(&j, &dir, &dir.join("submissions/accepted/soluzione.cpp"));
    assert_eq!((full.score, full.score_milli), (100, 100_000), "{full:#?}");
    let rough = s.path("potenze.cpp");
    std::fs::copy(from.join("sol/potenze.cpp"), &rough).unwrap();
    let r = common::judge_file(&j, &dir, &rough);
    assert_eq!((r.score, r.score_milli), (30, 30_000), "{r:#?}");
    let verdicts: Vec<(&str, ojd_judge::Verdict)> = r
        .tests
        .iter()
        .map(|t| (t.name.as_str(), t.verdict))
        .collect();
    use ojd_judge::Verdict::{Accepted as AC, WrongAnswer as WA};
    assert_eq!(
        verdicts,
        [
            ("sample-s1-00", AC),
            ("s2-01", AC),
            ("s2-02", AC),
            ("s3-03", WA),
            ("s3-04", WA)
        ]
    );
    let t = r.tests.iter().find(|t| t.name == "s3-03").unwrap();
    assert!(
        t.message
            .contains("outcome 1.600000 is not within the group's threshold (above 0, at most 1)")
            && t.message.contains("side 16, the best is 10"),
        "{}",
        t.message
    );
    assert!(r.partial.is_empty(), "no partial credit: {:?}", r.partial);
    // Twice the best side everywhere: outcome 2, within the sample's threshold and (the bound
    // included) the 30-point subtask's.
    let twice = s.path("doppio.cpp");
    std::fs::copy(from.join("sol/doppio.cpp"), &twice).unwrap();
    let r = common::judge_file(&j, &dir, &twice);
    assert_eq!((r.score, r.score_milli), (30, 30_000), "{r:#?}");
    let verdicts: Vec<(&str, ojd_judge::Verdict)> = r
        .tests
        .iter()
        .map(|t| (t.name.as_str(), t.verdict))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("sample-s1-00", AC),
            ("s2-01", AC),
            ("s2-02", AC),
            ("s3-03", WA),
            ("s3-04", WA)
        ]
    );
}

/// `submissions/submissions.yaml` (2023-07 draft, 2025-09): a submission's requirements decide
/// its folder when they are exactly one of ojd's promises (a `mixed/` file that must time out,
/// a `rejected/` one narrowed to wrong answers); one with requirements ojd cannot check (per
/// test group, a replaced default folder's [AC, WA, TLE]) is skipped, named with the key; the
/// imported ones keep their promises under `ojd verify`.
#[test]
fn kattis_submissions_yaml_expectations() {
    require_root!();
    let s = Scratch::new();
    let pkg = s.path("expect");
    small_kattis(&pkg);
    for (f, text) in [
        ("submissions/mixed/slow.py", "while True:\n    pass\n"),
        ("submissions/rejected/wa.py", "print(0)\n"),
        ("submissions/wrong_answer/groups.py", "print(0)\n"),
        ("submissions/time_limit_exceeded/spin.py", "while True:\n    pass\n"),
        (
            "submissions/submissions.yaml",
            "accepted/sum.py:\n  authors: A. Setter\nmixed/slow.py:\n  permitted: [AC, TLE]\n  required: [TLE]\nrejected/wa.py:\n  permitted: [AC, WA]\nwrong_answer/groups.py:\n  sample:\n    permitted: [AC]\ntime_limit_exceeded:\n  permitted: [AC, WA, TLE]\n",
        ),
    ] {
        let p = pkg.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let dest = s.path("imported");
    let r = s.ojd(&[
        "import",
        "kattis",
        &pkg.display().to_string(),
        "--to",
        &dest.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for w in [
        "groups.py: ",
        "wrong_answer/groups.py: sample (requirements per test group): ojd verify promises one verdict per submission",
        "spin.py: ",
        "submissions.yaml: permitted [AC, TLE, WA] and required [TLE]: no ojd folder promises exactly that",
    ] {
        assert!(r.stderr.contains(w), "wanted {w:?} in:\n{}", r.stderr);
    }
    let subs = submissions(&dest);
    assert_eq!(
        subs,
        BTreeMap::from([
            ("accepted".to_string(), vec!["sum.py".to_string()]),
            (
                "time_limit_exceeded".to_string(),
                vec!["slow.py".to_string()]
            ),
            ("wrong_answer".to_string(), vec!["wa.py".to_string()]),
        ])
    );
    let report = s.verify(&dest);
    assert_eq!(judged_names(&report).len(), 4, "{report}");
}

/// Polygon's TLE-or-MLE folder, which the 2025-09 export writes as a `permitted`/`required`
/// rule (Kattis has no memory verdict), comes back to the same folder when the export is
/// imported: the round trip loses no submission.
#[test]
fn tle_or_mle_folder_round_trips_through_the_2025_export() {
    require_root!();
    let s = Scratch::new();
    let pkg = s.path("pkg");
    small_kattis(&pkg);
    let folder = "time_limit_exceeded_or_memory_limit_exceeded";
    let big = pkg.join(format!("submissions/{folder}/big.py"));
    std::fs::create_dir_all(big.parent().unwrap()).unwrap();
    std::fs::write(&big, "x = [0] * (1 << 30)\n").unwrap();
    let first = s.import("kattis", &pkg, "first");
    let export = s.path("export");
    let r = s.ojd(&[
        "export",
        "kattis",
        &first.display().to_string(),
        "--to",
        &export.display().to_string(),
        "--format",
        "2025-09",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let yaml = std::fs::read_to_string(export.join("submissions/submissions.yaml")).unwrap();
    assert!(yaml.contains(&format!("{folder}:\n  permitted:")), "{yaml}");
    let back = s.import("kattis", &export, "back");
    assert_eq!(
        submissions(&back).get(folder),
        Some(&vec!["big.py".to_string()])
    );
}

/// A BAPCtools generator ojd cannot run (a folder run by its `build`/`run` scripts, a script
/// in no language ojd knows) is the package's fault: the import exits 2 naming the generator,
/// never 3 as if the host had failed.
#[test]
fn a_generator_ojd_cannot_run_is_refused_naming_it() {
    require_root!();
    let s = Scratch::new();
    for (case, files, wants) in [
        (
            "scripts",
            &[
                ("generators/gen/build", "#!/bin/sh\ncc -o gen gen.c\n"),
                ("generators/gen/run", "#!/bin/sh\nexec ./gen \"$@\"\n"),
                ("generators/gen/gen.c", "int main(void) { return 0; }\n"),
            ][..],
            "a generator run by its build/run script, which ojd does not support",
        ),
        (
            "shell",
            &[("generators/gen.sh", "#!/bin/sh\necho 1\n")][..],
            "a program in no language ojd knows",
        ),
    ] {
        let pkg = s.path(case);
        copy_dir(&testdata("import/kattis/bapc-generators"), &pkg);
        let name = if case == "shell" { "gen.sh" } else { "gen" };
        let recipe = pkg.join("generators/generators.yaml");
        let yaml = std::fs::read_to_string(&recipe).unwrap();
        std::fs::write(&recipe, yaml.replace("gen.py", name)).unwrap();
        for (f, text) in files {
            let p = pkg.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let out = s.path(&format!("{case}-out"));
        let r = s.ojd(&[
            "import",
            "kattis",
            &pkg.display().to_string(),
            "--to",
            &out.display().to_string(),
        ]);
        assert_eq!(r.code, 2, "{case}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains(wants) && r.stderr.contains("generators/gen"),
            "{case}: wanted {wants:?} in:\n{}",
            r.stderr
        );
        assert!(!out.exists(), "{case}: a refused import writes nothing");
    }
}

/// BAPCtools' `{link: ...}` between a test's files: `ojd gen` writes the linked file as a copy
/// of the one it names, an answer the solution makes included.
#[test]
fn generators_links_within_a_test_are_copies() {
    require_root!();
    let s = Scratch::new();
    let pkg = s.path("links");
    copy_dir(&testdata("import/kattis/bapc-generators"), &pkg);
    let recipe = pkg.join("generators/generators.yaml");
    let yaml = std::fs::read_to_string(&recipe).unwrap();
    let linked = yaml
        .replace(
            "          ans: \"5\\n\"\n",
            "          ans: \"5\\n\"\n          in.statement: {link: in}\n",
        )
        .replace(
            "          in: \"2\\n7 7\\n\"\n",
            "          in: \"2\\n7 7\\n\"\n          ans.statement: {link: ans}\n",
        );
    assert_eq!(linked.matches("link:").count(), 2, "{linked}");
    std::fs::write(&recipe, linked).unwrap();
    let r = s.ojd(&["gen", &pkg.display().to_string()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let read = |name: &str| std::fs::read_to_string(pkg.join("data/sample").join(name)).unwrap();
    assert_eq!(read("1.in.statement"), read("1.in"));
    assert_eq!(read("2.ans.statement"), "7\n");
}

/// BAPCtools' `match` in generators.yaml: each expression is searched for in the made `in` (a
/// string or a list) or the file a map names (`in`, `ans`, an answer the solution makes
/// included), multi-line with `.` matching newlines; one not found is a warning naming the test
/// and the expression (BAPCtools' rule), one found says nothing, and an expression ojd cannot
/// read is refused before anything runs, naming its key.
#[test]
fn generators_match_is_checked_on_the_made_files() {
    require_root!();
    let s = Scratch::new();
    let pkg = s.path("match");
    copy_dir(&testdata("import/kattis/bapc-generators"), &pkg);
    let recipe = pkg.join("generators/generators.yaml");
    let yaml = std::fs::read_to_string(&recipe).unwrap();
    let with_match = |small: &str| {
        let text = yaml
            .replace(
                "      - negative:\n          in: \"3\\n-5 -2 -9\\n\"\n",
                "      - negative:\n          in: \"3\\n-5 -2 -9\\n\"\n          match: {in: ['^3$', '3.-5'], ans: '^-2$'}\n",
            )
            .replace(
                "      - small: gen.py 5 {seed}\n",
                &format!("      - small:\n          generate: gen.py 5 {{seed}}\n          match: {small}\n"),
            )
            .replace(
                "      - all-negative: gen.py 50 {seed} negative\n",
                "      - all-negative:\n          generate: gen.py 50 {seed} negative\n          match:\n            ans: '^[0-9]'\n",
            );
        assert_eq!(text.matches("match:").count(), 3, "{text}");
        std::fs::write(&recipe, text).unwrap();
    };
    with_match("['^5$', 'zzz']");
    let r = s.ojd(&["gen", &pkg.display().to_string()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let unmatched: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("does not match"))
        .collect();
    assert_eq!(unmatched.len(), 2, "{}", r.stderr);
    assert!(
        unmatched
            .iter()
            .any(|l| l.contains("secret/4-small.in: does not match \"zzz\"")),
        "{}",
        r.stderr
    );
    assert!(
        unmatched
            .iter()
            .any(|l| l.contains("secret/7-all-negative.ans: does not match \"^[0-9]\"")),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("not checked"), "{}", r.stderr);
    // Python's look-behind, which ojd's expressions do not have: refused, naming the key.
    with_match("'(?<=5)x'");
    let r = s.ojd(&["gen", &pkg.display().to_string()]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(
            "data.secret.small.match.in[0]: \"(?<=5)x\": not a regular expression ojd reads"
        ),
        "{}",
        r.stderr
    );
}

/// A submission folder (DOMjudge's multi-file submission) of one C++ source and its headers is
/// that source with the headers inlined, and it is judged as it promises; one of two Python
/// modules is kept as a folder (its entry point from submissions.json is the file ojd starts
/// from), another whose entry point is not is skipped, named with both.
#[test]
fn kattis_multi_file_submissions() {
    require_root!();
    let s = Scratch::new();
    let pkg = s.path("multi");
    small_kattis(&pkg);
    for (f, text) in [
        (
            "submissions/accepted/split/main.cpp",
            "#include <cstdio>\n#include \"add.h\"\nint main() { long long a, b; std::scanf(\"%lld %lld\", &a, &b); std::printf(\"%lld\\n\", add(a, b)); }\n",
        ),
        (
            "submissions/accepted/split/add.h",
            "#pragma once\n#include \"types.hpp\"\ninline num add(num a, num b) { return a + b; }\n",
        ),
        ("submissions/accepted/split/types.hpp", "typedef long long num;\n"),
        (
            "submissions/wrong_answer/off/main.cpp",
            "#include <cstdio>\n#include \"add.h\"\nint main() { long long a, b; std::scanf(\"%lld %lld\", &a, &b); std::printf(\"%lld\\n\", add(a, b)); }\n",
        ),
        (
            "submissions/wrong_answer/off/add.h",
            "inline long long add(long long a, long long b) { return a + b + 1; }\n",
        ),
        ("submissions/accepted/modules/main.py", "from util import add\nprint(add(*map(int, input().split())))\n"),
        ("submissions/accepted/modules/util.py", "def add(a, b):\n    return a + b\n"),
        ("submissions/accepted/other/main.py", "print(0)\n"),
        ("submissions/accepted/other/run.py", "print(sum(map(int, input().split())))\n"),
        (
            "submissions.json",
            "{\"submissions/accepted/modules/\": {\"entry_point\": \"main.py\"}, \"submissions/accepted/other/\": {\"entry_point\": \"run.py\"}}\n",
        ),
    ] {
        let p = pkg.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let dest = s.path("imported");
    let r = s.ojd(&[
        "import",
        "kattis",
        &pkg.display().to_string(),
        "--to",
        &dest.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for w in [
        "split: a submission of 3 files (add.h, main.cpp, types.hpp): its headers inlined into main.cpp",
        "other: a submission of 2 files (main.py, run.py): its entry point is run.py, but ojd starts it from main.py",
    ] {
        assert!(r.stderr.contains(w), "wanted {w:?} in:\n{}", r.stderr);
    }
    assert!(!r.stderr.contains("modules"), "{}", r.stderr);
    let split = std::fs::read_to_string(dest.join("submissions/accepted/split.cpp")).unwrap();
    assert!(
        split.contains("typedef long long num;") && !split.contains("#include \"add.h\""),
        "{split}"
    );
    assert!(dest.join("submissions/wrong_answer/off.cpp").is_file());
    assert!(dest.join("submissions/accepted/modules/util.py").is_file());
    assert!(!dest.join("submissions/accepted/other").exists());
    let report = s.verify(&dest);
    assert!(
        judged_names(&report).contains(&"\"accepted/modules\" \"AC\"".to_string()),
        "{report}"
    );
    assert_eq!(judged_names(&report).len(), 5, "{report}");
}

/// Runs `bt ACTION...` (BAPCtools) in the 2025-09 package `dir` with a configuration of its own,
/// as the roundtrip test does ([`crate::roundtrip::bapctools_accepts`]).
fn bapctools_accepts(dir: &Path, action: &[&str]) {
    if crate::roundtrip::tool("bt", "pip install bapctools").is_none() {
        return;
    }
    let config = tempfile::tempdir().unwrap();
    crate::roundtrip::bapctools_config(config.path());
    crate::roundtrip::bapctools_accepts(config.path(), dir, action);
}

/// Checkers and interactors of other protocols export as a wrapped Kattis output validator
/// (a `build`/`run` program translating the calling convention): Polygon's `guess` (a testlib
/// interactor, then its checker of `tout`), `maxpair` (a testlib checker), CMS `coppie` (a
/// comparator giving part of a test's credit, as the test's score: each group's points as its
/// flags) and `radice` (`GroupThreshold`, the threshold as each group's flags). problemtools
/// judges every exported submission as its folder says with no error (coppie's
/// `partially_accepted/piccoli.cpp`, half the credit of two tests, accepted with part of the
/// points); BAPCtools validates the 2025-09 exports and judges the interactive one; an import
/// of the export has each program back with its own protocol, and radice's thresholds.
#[test]
fn testlib_and_cms_programs_export_wrapped_and_the_formats_tools_accept_them() {
    require_root!();
    let Some(vp) = crate::packages::verifyproblem() else {
        return;
    };
    let s = Scratch::new();
    let mut checks = Vec::new();
    let fixtures = [
        ("cms", "import/cms/radice", "radice"),
        ("polygon", "import/polygon/guess", "guess"),
        ("polygon", "import/polygon/maxpair", "maxpair"),
        ("cms", "import/cms/coppie", "coppie"),
    ];
    for (format, fixture, short) in fixtures {
        let dir = s.import(format, &testdata(fixture), &format!("ojd-{short}"));
        if short == "coppie" {
            // Right for small sums only: half the pairs of both tests of the 62.5-point
            // subtask (the comparator's outcome 0.5), so 37.5 + 31.25 points. A CMS task gives
            // no verdict for its other solutions: its folder is given here.
            let to = dir.join("submissions/partially_accepted/piccoli.cpp");
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(testdata(fixture).join("sol/piccoli.cpp"), &to).unwrap();
        }
        for edition in ["2023-07", "2025-09"] {
            let to = s.path(&format!("{edition}/{short}"));
            let r = s.ojd(&[
                "export",
                "kattis",
                &dir.display().to_string(),
                "--to",
                &to.display().to_string(),
                "--format",
                edition,
            ]);
            assert_eq!(r.code, 0, "{short} {edition}: {}{}", r.stdout, r.stderr);
            // problemtools reads 2023-07's folder as programs, BAPCtools 2025-09's as one.
            let program = match edition {
                "2023-07" => to.join("output_validator/wrapped"),
                _ => to.join("output_validator"),
            };
            let build = std::fs::read_to_string(program.join("build")).unwrap();
            assert!(
                build.contains("a program of another protocol wrapped"),
                "{build}"
            );
        }
        let old = s.path(&format!("2023-07/{short}"));
        // The groups' output flags, sorted, in each edition.
        let flags = |edition: &str, file: &str, key: &str| {
            let dir = s.path(&format!("{edition}/{short}/data/secret"));
            let mut flags: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .filter_map(|e| std::fs::read_to_string(e.path().join(file)).ok())
                .flat_map(|t| {
                    t.lines()
                        .filter(|l| l.starts_with(key))
                        .map(String::from)
                        .collect::<Vec<_>>()
                })
                .collect();
            flags.sort();
            flags
        };
        // Subtask 1, worth nothing and holding only the sample, is the samples.
        if short == "radice" {
            assert_eq!(
                flags("2023-07", "testdata.yaml", "output_validator_flags"),
                [
                    "output_validator_flags: \"threshold 1\"",
                    "output_validator_flags: \"threshold 2\"",
                ]
            );
            assert_eq!(
                flags("2025-09", "test_group.yaml", "output_validator_args"),
                [
                    "output_validator_args: [\"threshold\", \"1\"]",
                    "output_validator_args: [\"threshold\", \"2\"]",
                ]
            );
        }
        if short == "coppie" {
            assert_eq!(
                flags("2023-07", "testdata.yaml", "output_validator_flags"),
                [
                    "output_validator_flags: \"points 37.5\"",
                    "output_validator_flags: \"points 62.5\"",
                ]
            );
        }
        checks.push((short, old.clone()));
        let back = Problem::load(&s.import("kattis", &old, &format!("{short}-back"))).unwrap();
        match short {
            "guess" => {
                let i = back.interactor.as_ref().expect("an interactor");
                assert_eq!(i.protocol, ojd_judge::InteractorProtocol::Testlib);
                assert!(matches!(back.checker, CheckerSpec::Program { .. }));
            }
            "maxpair" => assert!(matches!(back.checker, CheckerSpec::Program { .. })),
            _ => assert!(matches!(back.checker, CheckerSpec::Cms { .. })),
        }
        // A CMS task's groups come back with their points and thresholds (each group's
        // flags), from either edition: CMS -> Kattis -> ojd keeps GroupThreshold scoring.
        if format == "cms" {
            let groups = |p: &Problem| -> Vec<(u32, Option<f64>)> {
                let mut g: Vec<_> = p
                    .groups
                    .iter()
                    .filter(|g| g.points_milli > 0)
                    .map(|g| (g.points_milli, g.threshold))
                    .collect();
                g.sort_by_key(|(points, _)| *points);
                g
            };
            let want = groups(&Problem::load(&dir).unwrap());
            let new = s.path(&format!("2025-09/{short}"));
            let back_new =
                Problem::load(&s.import("kattis", &new, &format!("{short}-back-new"))).unwrap();
            assert!(matches!(back_new.checker, CheckerSpec::Cms { .. }));
            for (edition, p) in [("2023-07", &back), ("2025-09", &back_new)] {
                assert_eq!(groups(p), want, "{short} {edition}");
            }
            if short == "radice" {
                assert_eq!(want, [(30_000, Some(2.0)), (70_000, Some(1.0))]);
            }
        }
    }
    // File I/O alone has no Kattis form: refused, naming the key and the files.
    let somma = s.import("cms", &testdata("import/cms/somma"), "ojd-somma");
    let to = s.path("2023-07/somma");
    let r = s.ojd(&[
        "export",
        "kattis",
        &somma.display().to_string(),
        "--to",
        &to.display().to_string(),
    ]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("problem.toml: io: file input/output cannot be expressed")
            && r.stderr.contains("read input.txt and write output.txt"),
        "{}",
        r.stderr
    );
    assert!(!to.exists());
    // The format's tools, two packages at a time (they run the submissions one by one).
    let next = std::sync::Mutex::new(checks.into_iter());
    let worker = || loop {
        let Some((short, old)) = next.lock().expect("lock").next() else {
            return;
        };
        let started = std::time::Instant::now();
        problemtools_accepts(&vp, std::slice::from_ref(&old), false);
        let new = s.path(&format!("2025-09/{short}"));
        let yaml = std::fs::read_to_string(new.join("problem.yaml")).unwrap();
        // BAPCtools has no scoring problems: the CMS tasks are checked by problemtools only.
        if !yaml.contains("scoring") {
            bapctools_accepts(&new, &["validate", "--input", "--answer"]);
            // `bt run` on the interactive export, the accepted and wrong submissions (CI time:
            // the time-limit one runs to its timeout on every test, as problemtools ran it).
            if short == "guess" {
                bapctools_accepts(
                    &new,
                    &["run", "submissions/accepted", "submissions/wrong_answer"],
                );
            }
        }
        eprintln!("{short}: the format's tools took {:.0?}", started.elapsed());
    };
    std::thread::scope(|scope| {
        let workers = [scope.spawn(worker), scope.spawn(worker)];
        for w in workers {
            if let Err(panic) = w.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

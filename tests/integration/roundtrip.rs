//! Packages that round-trip: every importable fixture of every format (Kattis, Polygon, CMS)
//! imported, exported with `ojd export kattis` in both editions of the format, and checked by
//! the format's own tools: problemtools' `verifyproblem` for 2023-07 and BAPCtools' `bt
//! validate` and `bt run` for 2025-09 (both installed by `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::testdata;
use crate::import::Scratch;
use crate::packages::{copy_dir, problemtools_accepts, verifyproblem};

/// A tool on PATH, or `None` (a failure under CI: the test must not pass by not running).
pub(crate) fn tool(name: &str, install: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{name} ({install}) is missing"
        );
        eprintln!("skipped: {name} ({install}) is missing");
    }
    found
}

/// Counts BAPCtools' own errors and warnings of one `bt` command (its exit code also fails on
/// a warning): the command is run through its Python module, which keeps the counts.
const BT_COUNT: &str = "import sys\nfrom bapctools import cli, config\ntry:\n    cli.run_parsed_arguments(cli.cli_parser.parse_args(sys.argv[1:]))\nexcept SystemExit:\n    pass\nprint(f'bt summary: {config.n_error} errors', flush=True)\n";

/// BAPCtools reads statements in LaTeX only (its statement languages are those of
/// `statement/problem.*.tex`): a Markdown statement, which the 2025-09 format allows, is one
/// error of this text per `bt` command. It is the only error forgiven, and only where the
/// export's statement is Markdown.
const BT_LATEX_ONLY: &str = "but not statement/problem.en.tex";

/// Runs `bt ACTION...` in the exported package `dir` and panics with its output unless it finds no
/// error (but [`BT_LATEX_ONLY`] for a Markdown statement).
pub(crate) fn bapctools_accepts(config: &Path, dir: &Path, action: &[&str]) {
    let script = config.join("bt_count.py");
    std::fs::write(&script, BT_COUNT).unwrap();
    let out = Command::new("python3")
        .arg(&script)
        .args(action)
        .arg("--no-bar")
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", config)
        .output()
        .expect("python3 runs bt");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let errors: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("bt summary: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bt {action:?} {} did not finish:\n{text}", dir.display()));
    let markdown = dir.join("statement/problem.en.md").is_file();
    let forgiven = if markdown {
        text.lines().filter(|l| l.contains(BT_LATEX_ONLY)).count()
    } else {
        0
    };
    assert_eq!(
        errors.saturating_sub(forgiven),
        0,
        "bt {action:?} {}:\n{text}",
        dir.display()
    );
}

/// BAPCtools runs `.py` with PyPy, which cannot start under the address-space limit of a small
/// problem: like problemtools (`problemtools_accepts`), it is told to use CPython, as ojd does.
pub(crate) fn bapctools_config(dir: &Path) {
    std::fs::create_dir_all(dir.join("bapctools")).unwrap();
    std::fs::write(
        dir.join("bapctools/languages.yaml"),
        "python3:\n    name: 'Python 3'\n    priority: 850\n    files: '*.py *.py3'\n    compile: 'python3 -m py_compile {files}'\n    run: 'python3 \"{mainfile}\"'\n",
    )
    .unwrap();
}

fn export(s: &Scratch, problem: &Path, to: &Path, format: &str) {
    let r = s.ojd(&[
        "export",
        "kattis",
        &problem.display().to_string(),
        "--to",
        &to.display().to_string(),
        "--format",
        format,
    ]);
    assert_eq!(r.code, 0, "{}: {}{}", problem.display(), r.stdout, r.stderr);
}

/// Every fixture that imports: (format, the fixture's folder, a short name [a-z0-9]+).
fn importable(s: &Scratch) -> Vec<(&'static str, PathBuf, String)> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(testdata("import/kattis"))
        .unwrap()
        .flatten()
    {
        let short: String = e
            .file_name()
            .to_string_lossy()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        all.push(("kattis", e.path(), short));
    }
    // Polygon's maxpair as the world writes it with a standard checker (its check.cpp compares
    // one integer, as std::ncmp does): the export writes the default validator.
    let maxpair = s.path("polygon-maxpair");
    copy_dir(&testdata("import/polygon/maxpair"), &maxpair);
    let xml = std::fs::read_to_string(maxpair.join("problem.xml")).unwrap();
    std::fs::write(
        maxpair.join("problem.xml"),
        xml.replace(
            "<checker name=\"check.cpp\"",
            "<checker name=\"std::ncmp.cpp\"",
        ),
    )
    .unwrap();
    all.push(("polygon", maxpair, "maxpair".into()));
    // The CMS task reading standard input, with subtasks (the comparator tasks export as a
    // wrapped output validator and file I/O is refused: both in import.rs's own test).
    all.push(("cms", testdata("import/cms/pari"), "pari".into()));
    all
}

/// The fixtures whose 2023-07 export problemtools checks on every change: one of each format
/// (Polygon's groups and standard checker, CMS's subtasks) and the Kattis ones whose export
/// differs most from a plain problem (interactive and multi-pass, scoring groups, submissions of
/// several files). CI time: problemtools is most of the sweep (356 s of 519 at a load of 20);
/// every fixture goes through it in `.ci/robustness`
/// ([`export_of_every_importable_fixture_passes_problemtools_and_bapctools`]).
const PROBLEMTOOLS_ON_EVERY_CHANGE: &[&str] = &[
    "maxpair",
    "pari",
    "multipassinteractive",
    "v2023subtasksum",
    "severalfiles",
];

/// The export of every importable fixture in the 2023-07 format and in the 2025-09 format, the
/// latter checked by BAPCtools with no error, and the former by problemtools for
/// [`PROBLEMTOOLS_ON_EVERY_CHANGE`].
#[test]
fn export_of_every_importable_fixture_passes_bapctools_and_some_problemtools() {
    export_sweep(Some(PROBLEMTOOLS_ON_EVERY_CHANGE));
}

/// The export of every importable fixture in the 2023-07 format passes problemtools, and in the
/// 2025-09 format BAPCtools, with no error; groups (CMS subtasks, Polygon groups) and a
/// Polygon standard checker included.
#[test]
#[ignore = "every fixture through problemtools: .ci/robustness (some on every change)"]
fn export_of_every_importable_fixture_passes_problemtools_and_bapctools() {
    export_sweep(None);
}

/// Imports and exports every importable fixture, checks the 2025-09 exports with BAPCtools and
/// the 2023-07 ones of `problemtools` (or all) with problemtools.
fn export_sweep(problemtools: Option<&[&str]>) {
    require_root!();
    let (Some(vp), Some(_bt)) = (verifyproblem(), tool("bt", "pip install bapctools")) else {
        return;
    };
    let s = Scratch::new();
    let config = s.path("xdg");
    bapctools_config(&config);
    let mut v2023 = Vec::new();
    let mut v2025 = Vec::new();
    for (format, from, short) in importable(&s) {
        let dir = match from.file_name().and_then(|n| n.to_str()) {
            Some("bapc-generators") => imported_once(&GENERATORS, "bapc-generators").dir.clone(),
            Some("bapc-generators-more") => imported_once(&GENERATORS_MORE, "bapc-generators-more")
                .dir
                .clone(),
            _ => s.import(format, &from, &format!("ojd-{short}")),
        };
        let to = s.path(&format!("v2023/{short}"));
        export(&s, &dir, &to, "2023-07");
        // One statement per language, with a name in each.
        let statements: Vec<String> = std::fs::read_dir(to.join("statement"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("problem."))
            .collect();
        let mut langs: Vec<&str> = statements
            .iter()
            .map(|n| n.split('.').nth(1).unwrap())
            .collect();
        langs.sort();
        let n = langs.len();
        langs.dedup();
        assert_eq!(n, langs.len(), "{short}: {statements:?}");
        v2023.push((short.clone(), to));
        let to = s.path(&format!("v2025/{short}"));
        export(&s, &dir, &to, "2025-09");
        if short == "maxpair" {
            // Polygon's time-limit-exceeded-or-accepted: a folder of 2025-09 whose rule says
            // `permitted: [AC, TLE]`, read back to the same folder (2023-07 cannot say it).
            let rule = "time_limit_exceeded_or_accepted:\n  permitted: [AC, TLE]\n";
            let yaml = std::fs::read_to_string(to.join("submissions/submissions.yaml"));
            assert!(yaml.as_ref().is_ok_and(|y| y.contains(rule)), "{yaml:?}");
            let back = s.import("kattis", &to, "maxpair-back");
            let file = "submissions/time_limit_exceeded_or_accepted/pairs_tle_or_ac.c";
            assert!(back.join(file).is_file(), "{}", back.display());
            let old = s.path("v2023/maxpair");
            assert!(!old
                .join("submissions/time_limit_exceeded_or_accepted")
                .exists());
        }
        let yaml = std::fs::read_to_string(to.join("problem.yaml")).unwrap();
        // BAPCtools refuses a scoring problem ("unrecognized value for `type`: scoring"): it
        // has none. Those are checked by problemtools only.
        if !yaml.contains("scoring") {
            v2025.push((short, to));
        }
    }
    assert!(v2023.len() >= 11 && v2025.len() >= 8, "{v2023:?} {v2025:?}");
    if let Some(some) = problemtools {
        v2023.retain(|(short, _)| some.contains(&short.as_str()));
        assert_eq!(v2023.len(), some.len(), "{some:?} are fixtures: {v2023:?}");
    }
    // problemtools renders every statement with TeX (`lualatex`; a Markdown one through pandoc
    // first): its statement part runs only where TeX is installed, and one statement per
    // language is checked above in any case. One check of the problems it renders, one of the
    // others.
    let (rendered, unrendered): (Vec<_>, Vec<_>) = v2023.into_iter().partition(|(_, to)| {
        let tex = to.join("statement/problem.en.tex").is_file();
        tool_quiet("lualatex") && (tex || tool_quiet("pandoc"))
    });
    for (short, _) in &unrendered {
        eprintln!("{short}: statement not rendered by problemtools (TeX is not installed)");
    }
    let started = std::time::Instant::now();
    for (dirs, render) in [(rendered, true), (unrendered, false)] {
        let dirs: Vec<PathBuf> = dirs.into_iter().map(|(_, to)| to).collect();
        if !dirs.is_empty() {
            problemtools_accepts(&vp, &dirs, render);
        }
    }
    eprintln!("problemtools: {:.0?}", started.elapsed());
    let started = std::time::Instant::now();
    for (short, to) in &v2025 {
        // The export's inputs and answers against its validators. Not BAPCtools' generic
        // checks (`--generic`: made-up invalid files that the package's own validators should
        // reject), which judge the author's validators, not the export, and take minutes.
        bapctools_accepts(&config, to, &["validate", "--input", "--answer"]);
        // `bt run` judges every submission, as problemtools does on the same programs and data
        // (CI time: each time-limit submission runs to its timeout): it runs where the
        // 2025-09 export writes the submissions differently, entry points of submissions of
        // several files and the folders of DOMjudge's verdicts.
        if ["severalfiles", "domjudgeconventions"].contains(&short.as_str()) {
            bapctools_accepts(&config, to, &["run"]);
        }
    }
    eprintln!("BAPCtools: {:.0?}", started.elapsed());
}

/// Whether `name` is on PATH (no failure when it is not).
fn tool_quiet(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(name).is_file()))
}

/// `ojd import kattis` of a fixture whose secret data its generators make (every generator and
/// the reference run in the sandbox): the import's folder and its output.
struct Imported {
    dir: PathBuf,
    stdout: String,
    stderr: String,
}

/// The import of `testdata/import/kattis/FIXTURE`, made once per test process and shared by
/// the fixture's own test and the export sweep (each reads it, neither writes to it): CI time,
/// an import runs the generators and the reference on every test. Its exit code and `imported`
/// line are checked here, its other output by the fixture's test.
fn imported_once(once: &'static OnceLock<Imported>, fixture: &str) -> &'static Imported {
    once.get_or_init(|| {
        // Beside the shared compile cache, one folder per test process; those of processes
        // that are gone are removed.
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let prefix = "roundtrip-imports-";
        for e in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix(prefix) {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = tmp
            .join(format!("{prefix}{}", std::process::id()))
            .join(fixture);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.parent().expect("a parent")).unwrap();
        let r = Scratch::new().ojd(&[
            "import",
            "kattis",
            &testdata(&format!("import/kattis/{fixture}"))
                .display()
                .to_string(),
            "--to",
            &dir.display().to_string(),
        ]);
        assert_eq!(r.code, 0, "{fixture}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("imported"), "{fixture}: {}", r.stdout);
        Imported {
            dir,
            stdout: r.stdout,
            stderr: r.stderr,
        }
    })
}

static GENERATORS: OnceLock<Imported> = OnceLock::new();
static GENERATORS_MORE: OnceLock<Imported> = OnceLock::new();

/// `ojd import --compile-limit` sets how long the package's programs may compile: a limit no
/// compiler meets fails the import as the package's programs not compiling (the limit named),
/// and a generous one imports (a slow compile under load need not fail an import).
#[test]
fn import_compile_limit_from_the_command_line() {
    require_root!();
    let s = Scratch::new();
    // A cache of its own: a program compiled by another test is not compiled again.
    std::fs::write(
        s.path("own.toml"),
        format!(
            "[judge]\ncache = {:?}\n",
            s.path("cache").display().to_string()
        ),
    )
    .unwrap();
    let import = |limit: &str, to: &str| {
        let out = crate::common::ojd()
            .args(["import", "polygon"])
            .arg(testdata("import/polygon/maxpair"))
            .arg("--to")
            .arg(s.path(to))
            .args(["--compile-limit", limit, "--config"])
            .arg(s.path("own.toml"))
            .output()
            .expect("ojd runs");
        crate::common::Run::from(out)
    };
    let r = import("1ms", "fast");
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("compilation exceeded its time limit"),
        "{}",
        r.stderr
    );
    assert!(!s.path("fast").exists());
    let r = import("300s", "slow");
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

/// `ojd verify` whose standard error is not a terminal (here a pipe, as in a CI log) prints a
/// line as each phase starts, not nothing until the end.
#[test]
fn verify_prints_a_line_per_phase_when_not_on_a_terminal() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import("cms", &testdata("import/cms/pari"), "pari");
    let r = s.ojd(&["verify", &dir.display().to_string()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for phase in ["verify: compiling (", "verify: judging ("] {
        assert!(r.stderr.contains(phase), "{phase} in:\n{}", r.stderr);
    }
}

/// A BAPCtools package whose secret data is only `generators/generators.yaml` imports with its
/// secret tests, made in the sandbox (generators with seeds, a copied test, literal inputs, a
/// `count`, the solution's answers), and its wrong answer, right on both samples, is caught by
/// them. `ojd gen` on the package makes the same data into its own `data/`, the count's tests
/// as BAPCtools' `bt generate` made them, byte for byte.
#[test]
fn bapctools_generators_make_the_secret_data_at_import() {
    require_root!();
    let s = Scratch::new();
    let r = imported_once(&GENERATORS, "bapc-generators");
    assert!(
        r.stdout.contains("imported 9 tests (2 samples)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("9 tests made by its generators in the sandbox"),
        "{}",
        r.stderr
    );
    let dir = &r.dir;
    let read = |name: &str| std::fs::read_to_string(dir.join("tests").join(name)).unwrap();
    // The copied test keeps its answer; a literal input gets the solution's.
    assert_eq!(read("6-edge.in"), "1\n-1000000000\n");
    assert_eq!(read("6-edge.ans"), "-1000000000\n");
    assert_eq!(read("3-negative.ans"), "-2\n");
    assert_eq!(read("sample-1.ans"), "5\n");
    // Generated with BAPCtools' seed: 1000 numbers, every one negative in the last.
    let large = read("5-large.in");
    assert_eq!(large.lines().nth(1).unwrap().split(' ').count(), 1000);
    let neg = read("7-all-negative.in");
    assert!(neg
        .lines()
        .nth(1)
        .unwrap()
        .split(' ')
        .all(|x| x.starts_with('-')));
    // `count: 2`: two tests, `{count}` put in, each with its own seed.
    let (r1, r2) = (read("8-random-1.in"), read("9-random-2.in"));
    assert_eq!(r1.lines().next(), Some("10"));
    assert_eq!(r2.lines().next(), Some("20"));
    // Every submission keeps its folder's promise (Scratch::verify asserts it): the wrong
    // answer among them.
    let report = s.verify(dir);
    assert!(report.to_string().contains("from_zero.py"), "{report:#}");
    // `ojd gen` on the package itself, and BAPCtools on another copy: the same files.
    let ours = s.path("ours");
    copy_dir(&testdata("import/kattis/bapc-generators"), &ours);
    let r = s.ojd(&["gen", &ours.display().to_string()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("9 tests made by generators/generators.yaml into data/"),
        "{}",
        r.stdout
    );
    for (test, made) in [("8-random-1", &r1), ("9-random-2", &r2)] {
        let got = std::fs::read_to_string(ours.join(format!("data/secret/{test}.in"))).unwrap();
        assert_eq!(&got, made, "{test}");
    }
    // What BAPCtools' `bt generate` made of the same recipe (testdata/generators/): a count's
    // seeds are its own (`random_salt:<value - 1>` for values but 1).
    for test in ["8-random-1", "9-random-2"] {
        let bt = std::fs::read_to_string(testdata(&format!("generators/{test}.in"))).unwrap();
        let name = format!("data/secret/{test}.in");
        assert_eq!(
            std::fs::read_to_string(ours.join(&name)).unwrap(),
            bt,
            "{name}"
        );
    }
}

/// BAPCtools' generators.yaml as its own test problems write it: generators of several files
/// (a `generators:` entry and a folder), `include` of a test case and of whole groups (their
/// tests copied under their own names), `test_group.yaml` written where it is set, a quoted
/// argument, a generator that writes `{name}.in` and `{name}.ans` itself, and `retries` with
/// the next seed. `ojd gen` writes the same files into the package's own `data/`: every input
/// and answer checked here is what BAPCtools' `bt generate` (2026.10) made of the same recipe.
#[test]
fn bapctools_generators_of_several_files_include_and_test_groups() {
    require_root!();
    let s = Scratch::new();
    let fixture = testdata("import/kattis/bapc-generators-more");
    let r = imported_once(&GENERATORS_MORE, "bapc-generators-more");
    assert!(
        r.stderr
            .contains("18 tests made by its generators in the sandbox"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("imported 18 tests (2 samples)"),
        "{}",
        r.stdout
    );
    // Every submission keeps its folder's promise: the wrong answer is caught by the
    // generated tests only (it is right on both samples).
    let report = s.verify(&r.dir);
    assert!(report.to_string().contains("small_only.py"), "{report:#}");

    let ours = s.path("ours");
    copy_dir(&fixture, &ours);
    let r = s.ojd(&["gen", &ours.display().to_string()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let read = |name: &str| {
        std::fs::read_to_string(ours.join("data").join(name))
            .unwrap_or_else(|e| panic!("data/{name}: {e}"))
    };
    // `"a b" c` is two arguments; `{name}` is the files' name and stdout is then ignored.
    assert_eq!(read("secret/1-small/1-positive/2-quoted.in"), "2\n");
    assert_eq!(read("secret/2-large/6-inans.in"), "202\n");
    assert_eq!(read("secret/2-large/6-inans.ans"), "202\n");
    // Several files: `generators:` (main.py with lib.py, main.cpp with lib.h) and a folder
    // (dir/, whose own lib.py adds one).
    assert_eq!(read("secret/1-small/2-general/3-main_py.in"), "204\n");
    assert_eq!(read("secret/1-small/2-general/4-main_cpp.in"), "206\n");
    assert_eq!(read("secret/2-large/5-dir.in"), "301\n");
    // BAPCtools' seed of "random_salt + command" is odd: the generator fails, and its retry
    // runs with the seed after it.
    assert_eq!(read("secret/2-large/7-seeded.in"), "1498402812\n");
    // Included tests under their own names, a sample's answer with them; a text given in the
    // file ends with a newline, as BAPCtools writes it.
    assert_eq!(read("secret/1-small/1-positive/1.in"), "5\n");
    assert_eq!(read("secret/1-small/2-general/2.ans"), "7\n");
    for t in [
        "1-stdoutpy",
        "2-quoted",
        "1",
        "3-main_py",
        "4-main_cpp",
        "2",
    ] {
        assert!(
            ours.join(format!("data/secret/2-large/{t}.in")).is_file(),
            "{t}"
        );
    }
    assert!(read("secret/1-small/test_group.yaml").contains("space_change_sensitive"));
    assert!(read("secret/test_group.yaml").contains("output_validator_args"));
}

/// A testlib checker killed by a signal (as a Polygon checker that aborts on an assertion):
/// the judge error names the signal, not "checker crashed: " and nothing.
#[test]
fn a_checker_killed_by_a_signal_names_it() {
    require_root!();
    let s = Scratch::new();
    let dir = s.path("crash");
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(
        dir.join("problem.toml"),
        "title = \"Crash\"\ntime_limit = \"2s\"\nmemory_limit = \"256MiB\"\nsolution = \"sol.py\"\nanswers = \"given\"\nchecker = { kind = \"program\", path = \"check.py\" }\n",
    )
    .unwrap();
    std::fs::write(dir.join("tests/1.in"), "1\n").unwrap();
    std::fs::write(dir.join("tests/1.ans"), "1\n").unwrap();
    std::fs::write(dir.join("sol.py"), "print(input())\n").unwrap();
    std::fs::write(
        dir.join("check.py"),
        "import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGABRT)\n",
    )
    .unwrap();
    let r = crate::common::judge_file(&crate::import::judge(), &dir, &dir.join("sol.py"));
    let t = &r.tests[0];
    assert!(
        t.message.contains("checker crashed (SIGABRT)"),
        "{:?}: {}",
        t.verdict,
        t.message
    );
}

/// An imported Kattis package judges C++ and C as the Kattis language list compiles them (GNU
/// C++23 and GNU C17, written as `[compile] cpp` and `c` in problem.toml): NWERC-style `ssize`
/// and C's `M_PI` are accepted, and the same sources are compile errors under the host's
/// profiles alone (C++17, strict C11). Its `rejected/` and
/// `partially_accepted/` submissions are imported and held to their formats' promises (some
/// rejection; part of the points), and `ojd verify` fails a submission that breaks either.
#[test]
fn kattis_cpp_standard_and_the_folders_without_one_verdict() {
    require_root!();
    let s = Scratch::new();
    let from = s.path("sum-src");
    copy_dir(&testdata("import/kattis/v2023-subtask-sum"), &from);
    let add = |rel: &str, text: &str| {
        let p = from.join("submissions").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    add(
        "accepted/ssize.cpp",
        "#include <bits/stdc++.h>\nusing namespace std;\n\nint main() {\n    int n;\n    cin >> n;\n    vector<long long> a(n);\n    for (auto &x : a) cin >> x;\n    long long s = 0;\n    for (int i = 0; i < ssize(a); i++) s += a[i];\n    cout << s << '\\n';\n}\n",
    );
    // M_PI is POSIX, not ISO C: declared by <math.h> under gnu17, not under -std=c11.
    add(
        "accepted/pi.c",
        "#include <math.h>\n#include <stdio.h>\n\nint main(void) {\n    int n;\n    long long s = 0, x;\n    if (scanf(\"%d\", &n) != 1 || M_PI < 3) return 1;\n    while (n-- > 0 && scanf(\"%lld\", &x) == 1) s += x;\n    printf(\"%lld\\n\", s);\n    return 0;\n}\n",
    );
    // 32-bit sums: the small group's 40 points of 100.
    let int32 = "#include <bits/stdc++.h>\nusing namespace std;\n\nint main() {\n    int n;\n    cin >> n;\n    vector<long long> a(n);\n    for (auto &x : a) cin >> x;\n    int s = 0;\n    for (int i = 0; i < ssize(a); i++) s += (int)a[i];\n    cout << s << '\\n';\n}\n";
    add("partially_accepted/int32.cpp", int32);
    add("rejected/int32.cpp", int32);
    let dir = s.import("kattis", &from, "sum");
    let toml = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
    let flags = "[compile]\nc = [\"-O2\", \"-std=gnu17\"]\ncpp = [\"-O2\", \"-std=gnu++23\"]\n";
    assert!(toml.contains(flags), "{toml}");
    let names = crate::import::judged_names(&s.verify(&dir));
    for want in [
        "\"accepted/ssize.cpp\" \"AC\"",
        "\"accepted/pi.c\" \"AC\"",
        "\"partially_accepted/int32.cpp\" \"WA\"",
        "\"rejected/int32.cpp\" \"WA\"",
    ] {
        assert!(names.contains(&want.to_string()), "{want} in {names:?}");
    }
    // The host's profile alone (C++17) does not know `ssize`.
    let judge = |dir: &Path, sub: &str| {
        let r = s.ojd(&[
            "judge",
            &dir.display().to_string(),
            &dir.join("submissions").join(sub).display().to_string(),
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}{}", r.stdout, r.stderr));
        v["verdict"].as_str().unwrap().to_string()
    };
    assert_eq!(judge(&dir, "accepted/ssize.cpp"), "AC");
    assert_eq!(judge(&dir, "accepted/pi.c"), "AC");
    let plain = s.path("sum-plain");
    copy_dir(&dir, &plain);
    std::fs::write(plain.join("problem.toml"), toml.replace(flags, "")).unwrap();
    assert_eq!(judge(&plain, "accepted/ssize.cpp"), "CE");
    assert_eq!(judge(&plain, "accepted/pi.c"), "CE");
    // Broken promises: full points in partially_accepted/, no rejection in rejected/.
    let broken = s.path("sum-broken");
    copy_dir(&dir, &broken);
    for folder in ["partially_accepted", "rejected"] {
        std::fs::copy(
            dir.join("submissions/accepted/ssize.cpp"),
            broken.join("submissions").join(folder).join("full.cpp"),
        )
        .unwrap();
    }
    let r = s.ojd(&["verify", &broken.display().to_string(), "--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let failed: Vec<String> = report["problems"][0]["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["ok"] != true)
        .map(|s| format!("{} {}", s["name"], s["failures"]))
        .collect();
    assert_eq!(failed.len(), 2, "{failed:#?}");
    assert!(
        failed[0].starts_with("\"partially_accepted/full.cpp\"")
            && failed[0].contains("got all of them"),
        "{failed:#?}"
    );
    assert!(
        failed[1].starts_with("\"rejected/full.cpp\"")
            && failed[1].contains("expected a rejection"),
        "{failed:#?}"
    );
}

//! Checkers and interactors of other protocols (testlib's, CMS's) exported as a Kattis output
//! validator: the program's source beside a `build` script that compiles it and writes a
//! `run` translating Kattis's calling convention (`run input answer feedback_dir [flags]`, the
//! team's output on standard input, 42 accepted, 43 rejected, anything else a judge error)
//! into the program's own, as problemtools and BAPCtools run any `build`/`run` program.

use std::path::Path;

use crate::files::{copy_raw, write_script, WRAPPED_PROGRAM};
use crate::ImportError;

/// What a wrapped output validator runs.
pub(super) enum Wrapped<'a> {
    /// A testlib checker: `checker input output answer`; 0 accepted, 1 wrong answer, 2
    /// presentation error, anything else a failure.
    TestlibChecker { checker: &'a Path },
    /// A testlib interactor (`interactor input tout answer`, the same exit codes), then, when
    /// it accepts and the problem has one, the checker judging what it wrote to `tout`
    /// (Polygon's rule).
    TestlibInteractor {
        interactor: &'a Path,
        checker: Option<&'a Path>,
    },
    /// A CMS comparator: `checker input answer output`, the outcome (0 to 1) on standard
    /// output and its message on standard error. A test is accepted with the outcome 1, or,
    /// with the flags `threshold T` (a CMS `GroupThreshold`), when `0 < outcome <= T`; with
    /// the flags `points P` (the group's points), an outcome between 0 and 1 is accepted with
    /// that part of the test's credit in the feedback folder's `score` file (see [`Score`]).
    CmsComparator { checker: &'a Path, score: Score },
}

/// How a wrapped CMS comparator gives a part of a test's credit, by the edition of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Score {
    /// 2023-07: `score.txt`, the test's score in points (the outcome times the group's `P`),
    /// which problemtools reads for a scoring problem on an accepted test (never on a
    /// rejected one: a judge error there).
    Points,
    /// 2025-09: `score_multiplier.txt`, the outcome itself (the format's multiplier, from 0
    /// to 1, of the test's score).
    Multiplier,
}

/// The shell lines that compile the source `name` (in the current folder) into `bin`, by its
/// extension: Rust, C, C++ or Python (a script that runs it); `None` for another language.
pub(super) fn compile_line(name: &str, bin: &str) -> Option<String> {
    let ext = Path::new(name).extension().and_then(|e| e.to_str())?;
    Some(match ext {
        "rs" => format!("rustc -O --edition 2021 {name} -o {bin}"),
        "c" => format!("gcc -O2 -std=gnu11 {name} -o {bin} -lm"),
        "cc" | "cpp" | "cxx" | "c++" => format!("g++ -O2 -std=gnu++17 {name} -o {bin}"),
        "py" => format!(
            "cat > {bin} <<'EOF'\n#!/bin/sh\nexec python3 \"$(dirname \"$0\")/{name}\" \"$@\"\nEOF\nchmod +x {bin}"
        ),
        _ => return None,
    })
}

/// testlib's exit code in `$?` as Kattis's: 0 accepted (`ok`, the shell text run then), 1 and
/// 2 rejected, anything else (3, a crash) a judge error.
fn testlib_case(ok: &str) -> String {
    format!("case $? in\n  0) {ok} ;;\n  1|2) exit 43 ;;\n  *) exit 1 ;;\nesac\n")
}

/// The `run` lines of a wrapped CMS comparator (`$1` input, `$2` answer, `$3` the feedback
/// folder, then the group's flags): the outcome 1 is accepted; `threshold T` accepts
/// `0 < outcome <= T` instead (a CMS `GroupThreshold`, all or nothing); `points P` accepts an
/// outcome between 0 and 1 with that part of the test's credit written as `score` says; any
/// other outcome is rejected, and a comparator that fails is a judge error.
fn cms_run(score: Score) -> String {
    let (file, value) = match score {
        Score::Points => ("score.txt", "o * p"),
        Score::Multiplier => ("score_multiplier.txt", "o"),
    };
    format!(
        r#"# A CMS comparator: checker input answer output; the outcome, from 0 to 1, on stdout.
export LC_ALL=C
cat > "$3/output" || exit 1
outcome=$("$d/checker.bin" "$1" "$2" "$3/output" 2>"$3/judgemessage.txt") || exit 1
outcome=$(printf '%s\n' "$outcome" | head -n 1)
feedback=$3
shift 3
number='^ *[0-9.eE+-]+ *$'
# A CMS GroupThreshold: `threshold T` accepts 0 < outcome <= T (all or nothing).
if [ "$1" = threshold ]; then
  awk -v o="$outcome" -v t="$2" -v n="$number" 'BEGIN {{ exit !(o ~ n && o + 0 > 0 && o + 0 <= t + 0) }}' && exit 42
  exit 43
fi
awk -v o="$outcome" -v n="$number" 'BEGIN {{ exit !(o ~ n && o + 0 >= 1) }}' && exit 42
# A part of the test's credit: `points P`, the group's points, accepts 0 < outcome < 1 with
# {file} (never written on a rejection, which the format's tools call a judge error).
if [ "$1" = points ]; then
  awk -v o="$outcome" -v p="$2" -v n="$number" 'BEGIN {{ if (!(o ~ n && o + 0 > 0 && o + 0 < 1)) exit 1; o += 0; printf "%.6f\n", {value} }}' > "$feedback/{file}" && exit 42
  rm -f "$feedback/{file}"
fi
exit 43
"#
    )
}

/// Writes the wrapped program into `folder` (the export's `output_validator/`), its sources
/// read from the package `pkg`; `unsupported` makes the error of a program in a language that
/// cannot be wrapped (naming its key).
pub(super) fn write(
    pkg: &Path,
    folder: &Path,
    what: Wrapped<'_>,
    unsupported: &dyn Fn(&str, &str) -> ImportError,
) -> Result<(), ImportError> {
    // (the program's role, its source) in the order `run` calls them.
    let programs: Vec<(&str, &Path)> = match &what {
        Wrapped::TestlibChecker { checker } | Wrapped::CmsComparator { checker, .. } => {
            vec![("checker", checker)]
        }
        Wrapped::TestlibInteractor {
            interactor,
            checker,
        } => std::iter::once(("interactor", *interactor))
            .chain(checker.map(|c| ("checker", c)))
            .collect(),
    };
    let mut compile = String::new();
    for (role, path) in &programs {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let name = format!("{role}.{ext}");
        let line = compile_line(&name, &format!("{role}.bin")).ok_or_else(|| {
            unsupported(
                role,
                &format!("a {role} in .{ext} cannot be wrapped as a Kattis output validator (.rs, .c, .cpp and .py can)"),
            )
        })?;
        copy_raw(&pkg.join(path), &folder.join(&name))?;
        compile += &line;
        compile.push('\n');
    }
    let run = match what {
        Wrapped::TestlibChecker { .. } => format!(
            "# A testlib checker: checker input output answer.\ncat > \"$3/output\" || exit 1\n\"$d/checker.bin\" \"$1\" \"$3/output\" \"$2\" 2>\"$3/judgemessage.txt\"\n{}",
            testlib_case("exit 42")
        ),
        Wrapped::TestlibInteractor { checker, .. } => {
            let mut run = format!(
                "# A testlib interactor: interactor input tout answer, talking to the submission.\n\"$d/interactor.bin\" \"$1\" \"$3/tout\" \"$2\" 2>\"$3/judgemessage.txt\"\n{}",
                testlib_case(":")
            );
            if checker.is_some() {
                run += &format!(
                    "# Polygon's rule: the checker judges what the interactor wrote to tout.\n\"$d/checker.bin\" \"$1\" \"$3/tout\" \"$2\" 2>>\"$3/judgemessage.txt\"\n{}",
                    testlib_case("exit 42")
                );
            }
            run + "exit 42\n"
        }
        Wrapped::CmsComparator { score, .. } => cms_run(score),
    };
    let build = format!(
        "#!/bin/sh\n{WRAPPED_PROGRAM}\n# Kattis calls `run input answer feedback_dir [flags]`: 42 accepted, 43 rejected.\nset -e\n{compile}cat > run <<'EOF'\n#!/bin/sh\nd=\"$(dirname \"$0\")\"\n{run}EOF\nchmod +x run\n"
    );
    write_script(&folder.join("build"), &build)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Builds the wrapped `what` (sources already under `pkg`) and runs it on one test whose
    /// output is `output`, with `flags`: its exit code and judge message.
    fn judge(pkg: &Path, what: Wrapped<'_>, output: &str, flags: &[&str]) -> (i32, String) {
        let (code, message, _) = judge_scored(pkg, what, output, flags);
        (code, message)
    }

    /// [`judge`], and the score file it left in the feedback folder (`score.txt` or
    /// `score_multiplier.txt`: its name and text), if any.
    fn judge_scored(
        pkg: &Path,
        what: Wrapped<'_>,
        output: &str,
        flags: &[&str],
    ) -> (i32, String, Option<(String, String)>) {
        let folder = pkg.join("output_validator");
        let _ = std::fs::remove_dir_all(&folder);
        write(pkg, &folder, what, &|k, w| ImportError::Unsupported {
            file: "problem.toml".into(),
            key: k.into(),
            what: w.into(),
        })
        .unwrap();
        let built = Command::new("./build")
            .current_dir(&folder)
            .status()
            .unwrap();
        assert!(built.success());
        let feedback = pkg.join("feedback");
        let _ = std::fs::remove_dir_all(&feedback);
        std::fs::create_dir(&feedback).unwrap();
        std::fs::write(pkg.join("t.in"), "3\n").unwrap();
        std::fs::write(pkg.join("t.ans"), "6\n").unwrap();
        let mut run = Command::new(folder.join("run"))
            .arg(pkg.join("t.in"))
            .arg(pkg.join("t.ans"))
            .arg(&feedback)
            .args(flags)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        run.stdin
            .take()
            .unwrap()
            .write_all(output.as_bytes())
            .unwrap();
        let code = run.wait().unwrap().code().unwrap_or(-1);
        let message =
            std::fs::read_to_string(feedback.join("judgemessage.txt")).unwrap_or_default();
        let score = ["score.txt", "score_multiplier.txt"].iter().find_map(|f| {
            std::fs::read_to_string(feedback.join(f))
                .ok()
                .map(|t| (f.to_string(), t))
        });
        (code, message, score)
    }

    /// A CMS comparator (the outcome on stdout) answers Kattis's 42 for the outcome 1 only,
    /// or within `threshold T`, 43 otherwise, and a judge error when it fails; a testlib
    /// checker (input output answer) answers 42 for its 0, 43 for 1 and 2, a judge error for
    /// 3: the translation of each convention, on real runs of the scripts.
    #[test]
    fn wrapped_programs_translate_the_exit_conventions() {
        let d = tempfile::tempdir().unwrap();
        let pkg = d.path();
        // The outcome is the team's output itself; "fail" makes the comparator fail.
        std::fs::write(
            pkg.join("cmp.py"),
            "import sys\nout = open(sys.argv[3]).read().strip()\nif out == 'fail':\n    sys.exit(1)\nprint(out)\nprint('outcome ' + out, file=sys.stderr)\n",
        )
        .unwrap();
        let cms = || Wrapped::CmsComparator {
            checker: Path::new("cmp.py"),
            score: Score::Points,
        };
        assert_eq!(judge(pkg, cms(), "1.000000\n", &[]).0, 42);
        let (code, message) = judge(pkg, cms(), "0.5\n", &[]);
        assert_eq!((code, message.trim()), (43, "outcome 0.5"));
        assert_eq!(judge(pkg, cms(), "0\n", &[]).0, 43);
        assert_eq!(judge(pkg, cms(), "fail\n", &[]).0, 1);
        assert_eq!(judge(pkg, cms(), "1.5\n", &["threshold", "2"]).0, 42);
        assert_eq!(judge(pkg, cms(), "2.5\n", &["threshold", "2"]).0, 43);
        assert_eq!(judge(pkg, cms(), "0\n", &["threshold", "2"]).0, 43);
        // A part of a test's credit: accepted with it as the test's score (the outcome times
        // the group's points in 2023-07, the outcome as a multiplier in 2025-09), never on a
        // rejection; the outcome 1 is accepted with no score file (the group's accept_score).
        let points = ["points", "62.5"];
        let part = Some(("score.txt".to_string(), "31.250000\n".to_string()));
        assert_eq!(
            judge_scored(pkg, cms(), "0.5\n", &points),
            (42, "outcome 0.5\n".into(), part)
        );
        assert_eq!(judge_scored(pkg, cms(), "1\n", &points).2, None);
        assert_eq!(judge_scored(pkg, cms(), "1\n", &points).0, 42);
        assert_eq!(
            judge_scored(pkg, cms(), "0\n", &points),
            (43, "outcome 0\n".into(), None)
        );
        assert_eq!(judge_scored(pkg, cms(), "x\n", &points).0, 43);
        let multiplier = Wrapped::CmsComparator {
            checker: Path::new("cmp.py"),
            score: Score::Multiplier,
        };
        let part = Some(("score_multiplier.txt".to_string(), "0.250000\n".to_string()));
        assert_eq!(judge_scored(pkg, multiplier, "0.25\n", &points).2, part);
        // The testlib checker compares the output (its argument 2) with the answer (3).
        std::fs::write(
            pkg.join("chk.py"),
            "import sys\nout, ans = open(sys.argv[2]).read(), open(sys.argv[3]).read()\nif out == 'crash\\n':\n    sys.exit(3)\nsys.exit(0 if out == ans else 1)\n",
        )
        .unwrap();
        let testlib = || Wrapped::TestlibChecker {
            checker: Path::new("chk.py"),
        };
        assert_eq!(judge(pkg, testlib(), "6\n", &[]).0, 42);
        assert_eq!(judge(pkg, testlib(), "7\n", &[]).0, 43);
        assert_eq!(judge(pkg, testlib(), "crash\n", &[]).0, 1);
    }
}

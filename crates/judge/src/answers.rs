//! Expected answers: `ojd gen` builds a package's generated inputs and every `.ans` file with the
//! package's own programs, run in the sandbox like any submission.
//!
//! Order: compile the reference solver, the generators and the validator → run each
//! `[[generate]]` entry into `tests/<test>.in` → validate every input → run the reference on
//! every input and write `tests/<test>.ans`.
//!
//! `answers.lock` in the package records, per test, a SHA-256 of (reference source, input) and
//! of the answer. An answer whose record matches is not recomputed; one whose input or solver
//! changed, or whose file was edited by hand, is stale and rebuilt. Sample answers come from the
//! original statement: when a sample's `.ans` exists, recorded or not, it is kept, and the
//! reference must agree with it (as the problem's checker compares), else gen fails with the
//! diff rather than overwrite it.
//!
//! A package with `answers = "given"` (an imported one) brings its own answers: gen validates
//! its inputs and never runs the reference for answers.
//!
//! `--check` ([`GenOptions::check`]) writes nothing: it rebuilds every input and answer in a
//! scratch folder and reports each committed file that differs, with a diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::judge::{Compiled, InputRun, Judge, JudgeError, Program, ProgramRun};
use crate::problem::Problem;
use ojd_sandbox::Limits;

/// The file in a package's folder recording, for each answer `ojd gen` wrote, the hash of the
/// reference solution and input it was made from and the hash of the answer, so that an
/// unchanged answer is not recomputed and a stale one is reported.
pub const LOCK_FILE: &str = "answers.lock";

/// How `ojd gen` runs: check only, or force every answer to be recomputed.
#[derive(Clone, Debug, Default)]
pub struct GenOptions {
    /// Compare only: rebuild into a scratch folder and report differences.
    pub check: bool,
    /// Recompute every answer even when its record matches.
    pub force: bool,
}

/// What a gen did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GenSummary {
    /// The problem's id (its folder name).
    pub problem: String,
    /// Inputs written by the package's generators.
    pub inputs_generated: usize,
    /// Inputs the package's validator accepted.
    pub inputs_validated: usize,
    /// Answers written or rewritten from the reference solution.
    pub answers_written: usize,
    /// Answers whose record showed they were already up to date.
    pub answers_unchanged: usize,
    /// The reference's slowest test and its CPU time.
    pub slowest: Option<(String, u64)>,
    /// `--check`: one entry per committed file that differs from the rebuilt one.
    pub differences: Vec<String>,
}

/// Why generating a package's answers failed; every variant names the problem first.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A generator, validator or the reference solution did not compile.
    #[error("{problem}: {program} does not compile:\n{message}")]
    Compile {
        /// The problem's id.
        problem: String,
        /// The package file of the program that failed to compile.
        program: String,
        /// The compiler's output.
        message: String,
    },
    /// A generator or the reference solution failed on one test (a crash, a limit, a non-zero
    /// exit).
    #[error("{problem}: {what} failed on {test}: {message}")]
    Run {
        /// The problem's id.
        problem: String,
        /// Which program failed ("the generator", "the reference solution").
        what: String,
        /// The test it failed on.
        test: String,
        /// How it ended.
        message: String,
    },
    /// The package's validator rejected an input.
    #[error("{problem}: test {test} is invalid (validator): {message}")]
    Invalid {
        /// The problem's id.
        problem: String,
        /// The rejected test.
        test: String,
        /// The validator's message.
        message: String,
    },
    /// The reference solution's output for a sample differs from the sample's committed answer.
    #[error(
        "{problem}: the reference solution disagrees with the sample answer of {test}:\n{diff}"
    )]
    SampleMismatch {
        /// The problem's id.
        problem: String,
        /// The sample test.
        test: String,
        /// The readable difference, expected answer against the reference's output.
        diff: String,
    },
    /// A file of the package could not be read or written.
    #[error("{problem}: {what}")]
    Io {
        /// The problem's id.
        problem: String,
        /// What was being done, naming the file.
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The judge failed while compiling or running a program of the package.
    #[error(transparent)]
    Judge(#[from] JudgeError),
}

fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    crate::hex::encode(&h.finalize())
}

/// `answers.lock`: test → (hash of solver and input, hash of answer).
fn read_lock(path: &Path) -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((
                it.next()?.to_string(),
                (it.next()?.to_string(), it.next()?.to_string()),
            ))
        })
        .collect()
}

fn write_lock(path: &Path, lock: &BTreeMap<String, (String, String)>) -> std::io::Result<()> {
    let mut text = String::from(
        "# Written by `ojd gen`: test, SHA-256 of (reference solution, input), SHA-256 of the answer.\n",
    );
    for (test, (key, ans)) in lock {
        text.push_str(&format!("{test} {key} {ans}\n"));
    }
    replace_file(path, text.as_bytes())
}

/// Tests whose answer is missing or no longer matches `answers.lock`: the reference solution or
/// the input changed since the answer was made, or the answer was edited. Reads files only;
/// compiles and runs nothing (a changed generator is found by `ojd gen --check`).
pub fn stale_answers(problem: &Problem) -> Vec<String> {
    if problem.answers_given {
        // The package's own answers (an imported package): only a missing one is stale.
        return problem
            .missing_answers()
            .iter()
            .map(|t| t.name.clone())
            .collect();
    }
    let solution = std::fs::read(problem.dir.join(&problem.solution)).unwrap_or_default();
    let lock = read_lock(&problem.dir.join(LOCK_FILE));
    let fresh = |t: &crate::problem::TestCase| -> Option<bool> {
        let (key, answer_hash) = lock.get(&t.name)?;
        let input = std::fs::read(&t.input).ok()?;
        let answer = std::fs::read(&t.answer).ok()?;
        Some(*key == sha256_hex(&[&solution, &input]) && *answer_hash == sha256_hex(&[&answer]))
    };
    problem
        .tests
        .iter()
        .filter(|t| fresh(t) != Some(true))
        .map(|t| t.name.clone())
        .collect()
}

struct Ctx<'a> {
    judge: &'a Judge,
    problem: &'a Problem,
    work: PathBuf,
}

impl Ctx<'_> {
    fn compile(&self, rel: &Path) -> Result<Program, GenError> {
        match self
            .judge
            .compile_file_in(self.problem, &self.problem.dir.join(rel))?
        {
            Compiled::Program(p) => Ok(p),
            Compiled::Error(message) => Err(GenError::Compile {
                problem: self.problem.id.clone(),
                program: rel.display().to_string(),
                message,
            }),
        }
    }

    fn io(&self, what: String) -> impl FnOnce(std::io::Error) -> GenError + '_ {
        move |source| GenError::Io {
            problem: self.problem.id.clone(),
            what,
            source,
        }
    }

    fn tool_limits(&self) -> Limits {
        let cpu = self.judge.config.judge.tool_time;
        Limits {
            cpu,
            wall: cpu * 2,
            memory: 2 << 30,
            output: 256 << 20,
            processes: 16,
            file_size: 256 << 20,
        }
    }

    fn run_error(
        &self,
        what: &str,
        test: &str,
        outcome: &ojd_sandbox::RunOutcome,
        stderr: &Path,
    ) -> GenError {
        let limits = self.tool_limits();
        let why = crate::judge::classify(outcome, &limits)
            .map(|(v, m)| format!("{v}: {m}"))
            .unwrap_or_default();
        let err = crate::fsutil::read_capped(stderr, 1024);
        GenError::Run {
            problem: self.problem.id.clone(),
            what: what.into(),
            test: test.into(),
            message: format!("{why} {}", err.trim()).trim().to_string(),
        }
    }
}

/// The reference's runs that a caller judges as its own, so that the reference runs once for
/// both (`ojd verify`: `gen --check`'s runs are the reference's cells). See
/// [`check_sharing_runs`].
pub struct SharedRuns<'a> {
    /// The reference as the caller compiled it (from the same source as the solution).
    pub program: &'a Program,
    /// The limits of the caller's runs, in place of gen's generous ones.
    pub limits: Limits,
    /// Which tests (indices into the problem's tests) the caller wants a run of.
    pub wanted: &'a [bool],
    /// Called with each wanted test's run, made on the test's committed input, before its
    /// output is read: (test index, the run, a scratch folder of gen's for the caller's checks).
    pub ran: &'a mut dyn FnMut(usize, &InputRun, &Path),
}

/// `gen --check` of `problem` (see [`GenOptions::check`]) that gives its runs of the reference
/// to `shared` as it makes them. A wanted test's run is made once, under `shared.limits`, on the
/// committed input (only when the rebuilt input is the same bytes, else the caller gets none for
/// it); its output is the rebuilt answer when the run succeeded within those limits, and
/// otherwise the reference is run again under gen's own limits for the answer, as without
/// sharing. So every check means what it means without sharing.
pub fn check_sharing_runs(
    judge: &Judge,
    problem: &Problem,
    shared: SharedRuns<'_>,
) -> Result<GenSummary, GenError> {
    let opts = GenOptions {
        check: true,
        force: false,
    };
    let mut shared = shared;
    generate_at(judge, problem, &opts, &mut |_, _, _| {}, Some(&mut shared))
}

/// Builds `problem`'s generated inputs and answers (see the module documentation).
pub fn generate(
    judge: &Judge,
    problem: &Problem,
    opts: &GenOptions,
) -> Result<GenSummary, GenError> {
    generate_with_progress(judge, problem, opts, &mut |_, _, _| {})
}

/// As [`generate`], calling `progress(done, total, test)` as answers are made.
pub fn generate_with_progress(
    judge: &Judge,
    problem: &Problem,
    opts: &GenOptions,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<GenSummary, GenError> {
    generate_at(judge, problem, opts, progress, None)
}

/// [`generate_in`] in a work folder of its own, removed after.
fn generate_at(
    judge: &Judge,
    problem: &Problem,
    opts: &GenOptions,
    progress: &mut dyn FnMut(usize, usize, &str),
    shared: Option<&mut SharedRuns<'_>>,
) -> Result<GenSummary, GenError> {
    let work = judge.fresh_dir("gen")?;
    let cx = Ctx {
        judge,
        problem,
        work: work.clone(),
    };
    let result = generate_in(&cx, opts, progress, shared);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn generate_in(
    cx: &Ctx<'_>,
    opts: &GenOptions,
    progress: &mut dyn FnMut(usize, usize, &str),
    mut shared: Option<&mut SharedRuns<'_>>,
) -> Result<GenSummary, GenError> {
    let problem = cx.problem;
    let mut summary = GenSummary {
        problem: problem.id.clone(),
        ..Default::default()
    };
    // Where inputs and answers go: the package, or a scratch copy under --check.
    let out_dir = if opts.check {
        cx.work.join("tests")
    } else {
        problem.dir.join("tests")
    };
    std::fs::create_dir_all(&out_dir).map_err(cx.io("create the tests folder".into()))?;
    let mut generators: BTreeMap<PathBuf, Program> = BTreeMap::new();
    for g in &problem.generate {
        if !generators.contains_key(&g.program) {
            generators.insert(g.program.clone(), cx.compile(&g.program)?);
        }
        let program = &generators[&g.program];
        let dest = out_dir.join(format!("{}.in", g.test));
        let stderr = cx.work.join("gen.err");
        // Generated into the scratch folder first: a judge reading the package meanwhile must
        // never see a half-written input.
        let fresh = cx.work.join("gen.out");
        let outcome = cx.judge.execute(&ProgramRun {
            program,
            args: &g.args,
            stdin: None,
            stdout: &fresh,
            stderr: Some(&stderr),
            box_files: vec![],
            collect: vec![],
            limits: cx.tool_limits(),
        })?;
        if !outcome.success() {
            return Err(cx.run_error(
                &format!("generator {}", g.program.display()),
                &g.test,
                &outcome,
                &stderr,
            ));
        }
        let data = std::fs::read(&fresh).map_err(cx.io("read a generated input".into()))?;
        replace_file(&dest, &data).map_err(cx.io(format!("write {}", dest.display())))?;
        summary.inputs_generated += 1;
        if opts.check {
            compare_file(
                &problem.dir.join("tests").join(format!("{}.in", g.test)),
                &dest,
                &mut summary.differences,
            );
        }
    }
    // Every input, from the package or the rebuilt copy of a generated one.
    let input_of = |name: &str| -> PathBuf {
        let rebuilt = out_dir.join(format!("{name}.in"));
        if rebuilt.is_file() {
            rebuilt
        } else {
            problem.dir.join("tests").join(format!("{name}.in"))
        }
    };
    if let Some(v) = &problem.validator {
        let validator = cx.compile(v)?;
        for t in &problem.tests {
            let (out, err) = (cx.work.join("val.out"), cx.work.join("val.err"));
            let input = input_of(&t.name);
            let outcome = cx.judge.execute(&ProgramRun {
                program: &validator,
                args: &problem.validator_args,
                stdin: Some(&input),
                stdout: &out,
                stderr: Some(&err),
                box_files: vec![],
                collect: vec![],
                limits: cx.tool_limits(),
            })?;
            let accepted = outcome.killed_by.is_none()
                && outcome.exec_error.is_none()
                && outcome.termination
                    == ojd_sandbox::Termination::Exited(problem.validator_accept);
            if !accepted {
                let msg =
                    crate::fsutil::read_capped(&err, 1024) + &crate::fsutil::read_capped(&out, 512);
                return Err(GenError::Invalid {
                    problem: problem.id.clone(),
                    test: t.name.clone(),
                    message: msg.trim().to_string(),
                });
            }
            summary.inputs_validated += 1;
        }
    }
    if problem.answers_given {
        // The package brought its answers (an imported package): nothing to make.
        summary.answers_unchanged = problem.tests.len() - problem.missing_answers().len();
        return Ok(summary);
    }
    let solution_src = std::fs::read(problem.dir.join(&problem.solution))
        .map_err(cx.io(format!("read {}", problem.solution.display())))?;
    let solution = cx.compile(&problem.solution)?;
    let lock_path = problem.dir.join(LOCK_FILE);
    let old_lock = read_lock(&lock_path);
    let mut lock = BTreeMap::new();
    let mut limits = cx.judge.limits_for(problem, &solution);
    // The reference is timed, not limited: a slow reference is reported, its answer still made.
    limits.cpu = limits.cpu.max(cx.judge.config.judge.tool_time);
    limits.wall = limits.cpu * 2;
    limits.memory = limits.memory.max(1 << 30);
    let total = problem.tests.len();
    // --check: tests whose answers.lock record no longer matches (the reference was edited, if
    // only reformatted, or an input changed): the answers may be right, the lock is stale.
    let mut unrecorded = Vec::new();
    for (i, t) in problem.tests.iter().enumerate() {
        progress(i, total, &t.name);
        let input_path = input_of(&t.name);
        let input =
            std::fs::read(&input_path).map_err(cx.io(format!("read {}", input_path.display())))?;
        let key = sha256_hex(&[&solution_src, &input]);
        let committed = problem.dir.join("tests").join(format!("{}.ans", t.name));
        // A committed answer that cannot be read is the host's trouble, never a missing one
        // (a sample's original answer would be overwritten).
        let committed_data = match std::fs::read(&committed) {
            Ok(a) => Some(a),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(cx.io(format!("read {}", committed.display()))(e)),
        };
        let committed_hash = committed_data.as_ref().map(|a| sha256_hex(&[a]));
        let fresh = old_lock
            .get(&t.name)
            .is_some_and(|(k, a)| *k == key && Some(a) == committed_hash.as_ref());
        if opts.check && !fresh {
            unrecorded.push(t.name.clone());
        }
        if fresh && !opts.force && !opts.check {
            lock.insert(t.name.clone(), old_lock[&t.name].clone());
            summary.answers_unchanged += 1;
            continue;
        }
        // The caller's run of this test, when it wants one: on the committed input (what its
        // cell is judged on), which must be the rebuilt one byte for byte.
        let mut run = None;
        if let Some(sh) = shared
            .as_deref_mut()
            .filter(|sh| sh.wanted.get(i) == Some(&true))
        {
            let same_input = input_path == t.input
                || std::fs::read(&t.input).is_ok_and(|committed| committed == input);
            let tried = match same_input {
                true => cx
                    .judge
                    .run_on_input(problem, sh.program, &t.input, &sh.limits, &cx.work)
                    .map(Some),
                false => Ok(None),
            };
            match tried {
                Ok(Some(r)) => {
                    let checks = cx.work.join("shared");
                    std::fs::create_dir_all(&checks)
                        .map_err(cx.io("create a folder for the shared runs".into()))?;
                    (sh.ran)(i, &r, &checks);
                    // A run that failed within the caller's limits (a TLE there) makes no
                    // answer: the reference runs again under gen's own.
                    if r.outcome.success() {
                        run = Some(r);
                    }
                }
                Ok(None) => {}
                // The host's load starved it under the caller's tighter limits: the caller gets
                // no run of this test (it judges the cell itself), and gen's own limits decide.
                Err(JudgeError::Host(crate::judge::HostFault::Starved { .. })) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let run = match run {
            Some(r) => r,
            None => cx
                .judge
                .run_on_input(problem, &solution, &input_path, &limits, &cx.work)?,
        };
        if !run.outcome.success() {
            return Err(cx.run_error("the reference solution", &t.name, &run.outcome, &run.stderr));
        }
        let cpu = run.outcome.cpu_time.as_millis() as u64;
        if summary.slowest.as_ref().is_none_or(|(_, ms)| cpu > *ms) {
            summary.slowest = Some((t.name.clone(), cpu));
        }
        let answer =
            std::fs::read(&run.output).map_err(cx.io("read the reference's output".into()))?;
        let answer_hash = sha256_hex(&[&answer]);
        // A sample's committed answer is the statement's, an independent check of the
        // reference: never overwritten, whether gen has a record of it or not (an answer edited
        // by hand after an earlier gen is still the statement's). A reference that contradicts
        // it is an error with the diff.
        if let (true, Some(original_hash)) = (t.sample, committed_hash.clone()) {
            let original = committed_data.as_deref().unwrap_or_default();
            // An external checker (testlib, Kattis) is not run here: the sample is kept, and
            // `ojd verify` judges the reference against it with that checker.
            if let crate::judge::CheckOutcome::Wrong(_) =
                crate::judge::compare(&problem.checker, &answer, original)
            {
                let diff = crate::diff::diff(original, &answer)
                    .map(|d| crate::diff::render(&d, false))
                    .unwrap_or_default();
                return Err(GenError::SampleMismatch {
                    problem: problem.id.clone(),
                    test: t.name.clone(),
                    diff,
                });
            }
            lock.insert(t.name.clone(), (key, original_hash));
            summary.answers_unchanged += 1;
            continue;
        }
        if opts.check {
            let rebuilt = out_dir.join(format!("{}.ans", t.name));
            std::fs::write(&rebuilt, &answer).map_err(cx.io("write a rebuilt answer".into()))?;
            compare_file(&committed, &rebuilt, &mut summary.differences);
            continue;
        }
        if committed_hash.as_deref() == Some(answer_hash.as_str()) {
            summary.answers_unchanged += 1;
        } else {
            replace_file(&committed, &answer)
                .map_err(cx.io(format!("write {}", committed.display())))?;
            summary.answers_written += 1;
        }
        lock.insert(t.name.clone(), (key, answer_hash));
    }
    progress(total, total, "");
    if !opts.check && lock != old_lock {
        write_lock(&lock_path, &lock).map_err(cx.io(format!("write {}", lock_path.display())))?;
    }
    if opts.check && lock_path.is_file() && !unrecorded.is_empty() {
        summary.differences.push(format!(
            "{LOCK_FILE}: out of date for {} (the reference solution or the input changed since `ojd gen`, which refreshes it)",
            unrecorded.join(", ")
        ));
    }
    if opts.check {
        let stale: Vec<&String> = old_lock
            .keys()
            .filter(|k| !problem.tests.iter().any(|t| &&t.name == k))
            .collect();
        for s in stale {
            summary.differences.push(format!(
                "{LOCK_FILE}: records {s}, which is no longer a test"
            ));
        }
    }
    Ok(summary)
}

/// Writes `data` to `path` atomically (a temporary file beside it, then rename), and not at
/// all when the file already holds exactly `data`: readers see the old or the new file whole.
fn replace_file(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == data) {
        return Ok(());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, data)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn compare_file(committed: &Path, rebuilt: &Path, differences: &mut Vec<String>) {
    let a = std::fs::read(committed);
    let b = std::fs::read(rebuilt).unwrap_or_default();
    match a {
        Err(_) => differences.push(format!(
            "{}: missing (ojd gen writes it)",
            committed.display()
        )),
        Ok(a) if a != b => {
            let diff = crate::diff::diff(&a, &b)
                .map(|d| crate::diff::render(&d, false))
                .unwrap_or_else(|| "differs only in line ends or a byte-order mark\n".into());
            differences.push(format!(
                "{} differs from the rebuilt file:\n{diff}",
                committed.display()
            ));
        }
        Ok(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_answers_follow_the_lock() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir(p.join("tests")).unwrap();
        std::fs::write(
            p.join("problem.toml"),
            "title = \"t\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\n",
        )
        .unwrap();
        std::fs::write(p.join("solution.rs"), "fn main() {}").unwrap();
        for (name, input, answer) in [("1", "1\n", "2\n"), ("2", "5\n", "6\n")] {
            std::fs::write(p.join(format!("tests/{name}.in")), input).unwrap();
            std::fs::write(p.join(format!("tests/{name}.ans")), answer).unwrap();
        }
        let problem = Problem::load(p).unwrap();
        assert_eq!(
            stale_answers(&problem),
            ["1", "2"],
            "no lock: everything is stale"
        );
        let lock: BTreeMap<String, (String, String)> = ["1", "2"]
            .iter()
            .map(|n| {
                let input = std::fs::read(p.join(format!("tests/{n}.in"))).unwrap();
                let answer = std::fs::read(p.join(format!("tests/{n}.ans"))).unwrap();
                (
                    n.to_string(),
                    (
                        sha256_hex(&[b"fn main() {}", &input]),
                        sha256_hex(&[&answer]),
                    ),
                )
            })
            .collect();
        write_lock(&p.join(LOCK_FILE), &lock).unwrap();
        assert!(stale_answers(&problem).is_empty());
        std::fs::write(p.join("tests/2.in"), "7\n").unwrap();
        assert_eq!(stale_answers(&problem), ["2"], "a changed input");
        std::fs::write(p.join("tests/2.in"), "5\n").unwrap();
        std::fs::write(p.join("tests/1.ans"), "3\n").unwrap();
        assert_eq!(stale_answers(&problem), ["1"], "an edited answer");
        std::fs::write(p.join("solution.rs"), "fn main() { }").unwrap();
        assert_eq!(stale_answers(&problem), ["1", "2"], "a changed solver");
    }
}

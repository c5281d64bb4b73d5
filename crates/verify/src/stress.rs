//! `ojd stress`: the reference solution against an independent brute force on many random
//! small inputs (the package's `[stress]` section), as Polygon's stress tests do.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use ojd_judge::Problem;
use ojd_judge::{compare, CheckOutcome, Judge, Program, ProgramRun};
use ojd_sandbox::Limits;

/// What a stress test found: how many seeds ran and agreed, and the first disagreement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StressSummary {
    /// The problem's id.
    pub problem: String,
    /// Seeds run: all of them, or up to the first disagreement.
    pub runs: u32,
    /// Seeds on which the reference and the brute force agreed.
    pub agreed: u32,
    /// Seed, input and explanation of the first disagreement.
    pub disagreement: Option<(u32, String, String)>,
}

/// Why a stress test could not run (a disagreement is a result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum StressError {
    /// The package has no `[stress]` section; holds the problem's id.
    #[error("{0}: no [stress] section in problem.toml")]
    NoStress(String),
    /// A generator, the reference or the brute force did not compile.
    #[error("{problem}: {program} does not compile:\n{message}")]
    Compile {
        /// The problem's id.
        problem: String,
        /// The program that failed to compile.
        program: String,
        /// The compiler's output.
        message: String,
    },
    /// A program failed on one seed (a crash, a limit, a non-zero exit).
    #[error("{problem}: {what} failed with seed {seed}: {message}")]
    Run {
        /// The problem's id.
        problem: String,
        /// Which program failed.
        what: String,
        /// The seed it failed on.
        seed: u32,
        /// How it ended.
        message: String,
    },
    /// The judge failed (a host fault or an unusable toolchain).
    #[error(transparent)]
    Judge(#[from] ojd_judge::JudgeError),
}

/// The programs and limits every seed runs with.
struct Seeds<'a> {
    judge: &'a Judge,
    problem: &'a Problem,
    args: &'a [String],
    generator: Program,
    reference: Program,
    brute: Program,
    limits: Limits,
}

/// What one seed found: `None` when both programs agree, else the input and the explanation.
type SeedResult = Result<Option<(String, String)>, StressError>;

/// Runs `count` seeds (the package's count when `None`) on `jobs` sandboxes at once. The result
/// is the one a run seed after seed would give: the smallest seed that disagrees (or fails)
/// decides, and every seed below it has run and agreed; seeds above it are not started.
/// `progress` gets (seeds done, seeds in all).
pub fn stress(
    judge: &Judge,
    problem: &Problem,
    count: Option<u32>,
    jobs: usize,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<StressSummary, StressError> {
    let s = problem
        .stress
        .as_ref()
        .ok_or_else(|| StressError::NoStress(problem.id.clone()))?;
    let compile = |rel: &PathBuf| -> Result<Program, StressError> {
        judge
            .compile_file_in(problem, &problem.dir.join(rel))?
            .into_result()
            .map_err(|e| StressError::Compile {
                problem: problem.id.clone(),
                program: rel.display().to_string(),
                message: e.message,
            })
    };
    let reference = compile(&problem.solution)?;
    let mut limits = judge.limits_for(problem, &reference);
    limits.cpu = limits.cpu.max(Duration::from_secs(10));
    limits.wall = limits.cpu * 2;
    let seeds = Seeds {
        judge,
        problem,
        args: &s.args,
        generator: compile(&s.generator)?,
        reference,
        brute: compile(&s.brute)?,
        limits,
    };
    let count = count.unwrap_or(s.count);
    let jobs = jobs.clamp(1, count.max(1) as usize);
    let works = (0..jobs)
        .map(|_| judge.fresh_dir("stress"))
        .collect::<Result<Vec<_>, _>>()?;
    let next = AtomicU32::new(1);
    // The smallest seed that disagreed or failed so far: no seed above it is started.
    let stop = AtomicU32::new(u32::MAX);
    let mut first: Option<(u32, SeedResult)> = None;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(u32, SeedResult)>();
        for work in &works {
            let (tx, seeds, next, stop) = (tx.clone(), &seeds, &next, &stop);
            scope.spawn(move || loop {
                let seed = next.fetch_add(1, Ordering::SeqCst);
                if seed > count || seed > stop.load(Ordering::SeqCst) {
                    break;
                }
                let result = seeds.one(seed, work);
                if !matches!(result, Ok(None)) {
                    stop.fetch_min(seed, Ordering::SeqCst);
                }
                if tx.send((seed, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (seed, result) in rx {
            done += 1;
            progress(done, count);
            if !matches!(result, Ok(None)) && first.as_ref().is_none_or(|(f, _)| seed < *f) {
                first = Some((seed, result));
            }
        }
    });
    for work in &works {
        let _ = std::fs::remove_dir_all(work);
    }
    let mut summary = StressSummary {
        problem: problem.id.clone(),
        runs: count,
        agreed: count,
        disagreement: None,
    };
    match first {
        None | Some((_, Ok(None))) => {}
        Some((_, Err(e))) => return Err(e),
        Some((seed, Ok(Some((input, why))))) => {
            summary.runs = seed;
            summary.agreed = seed - 1;
            summary.disagreement = Some((seed, input, why));
        }
    }
    Ok(summary)
}

impl Seeds<'_> {
    /// Generates the input of `seed` in `work` and runs both programs on it.
    fn one(&self, seed: u32, work: &Path) -> SeedResult {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| a.replace("{seed}", &seed.to_string()))
            .collect();
        let input = work.join("input");
        let outcome = self.judge.execute(&ProgramRun {
            program: &self.generator,
            args: &args,
            stdin: None,
            stdout: &input,
            stderr: None,
            box_files: vec![],
            collect: vec![],
            limits: self.limits.clone(),
        })?;
        let fail = |what: &str, o: &ojd_sandbox::RunOutcome| StressError::Run {
            problem: self.problem.id.clone(),
            what: what.into(),
            seed,
            message: ojd_judge::classify(o, &self.limits)
                .map(|(v, m)| format!("{v}: {m}"))
                .unwrap_or_default(),
        };
        if !outcome.success() {
            return Err(fail("the generator", &outcome));
        }
        let mut outputs = Vec::new();
        for (what, program) in [
            ("the reference", &self.reference),
            ("the brute force", &self.brute),
        ] {
            let dir = work.join(what.replace(' ', "-"));
            std::fs::create_dir_all(&dir).map_err(|e| ojd_judge::JudgeError::Io {
                what: "stress folder".into(),
                source: e,
            })?;
            let run = self
                .judge
                .run_on_input(self.problem, program, &input, &self.limits, &dir)?;
            if !run.outcome.success() {
                return Err(fail(what, &run.outcome));
            }
            outputs.push(std::fs::read(&run.output).unwrap_or_default());
        }
        Ok(
            match compare(&self.problem.checker, &outputs[1], &outputs[0]) {
                CheckOutcome::Accepted => None,
                CheckOutcome::Wrong(m) | CheckOutcome::Failed(m) => Some((
                    ojd_judge::read_capped(&input, 4096),
                    format!("brute force vs reference: {m}"),
                )),
            },
        )
    }
}

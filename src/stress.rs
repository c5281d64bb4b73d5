//! `ojd stress`: the reference solution against an independent brute force on many random
//! small inputs (the package's `[stress]` section), as Polygon's stress tests do.

use std::path::PathBuf;

use crate::checker::{compare, CheckOutcome};
use crate::judge::{Judge, ProgramRun};
use crate::problem::Problem;

#[derive(Clone, Debug, serde::Serialize)]
pub struct StressSummary {
    pub problem: String,
    pub runs: u32,
    pub agreed: u32,
    /// Seed, input and explanation of the first disagreement.
    pub disagreement: Option<(u32, String, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum StressError {
    #[error("{0}: no [stress] section in problem.toml")]
    NoStress(String),
    #[error("{problem}: {program} does not compile:\n{message}")]
    Compile {
        problem: String,
        program: String,
        message: String,
    },
    #[error("{problem}: {what} failed with seed {seed}: {message}")]
    Run {
        problem: String,
        what: String,
        seed: u32,
        message: String,
    },
    #[error(transparent)]
    Judge(#[from] crate::judge::JudgeError),
}

/// Runs `count` seeds (the package's count when `None`), stopping at the first disagreement.
pub fn stress(
    judge: &Judge,
    problem: &Problem,
    count: Option<u32>,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<StressSummary, StressError> {
    let s = problem
        .stress
        .as_ref()
        .ok_or_else(|| StressError::NoStress(problem.id.clone()))?;
    let compile = |rel: &PathBuf| -> Result<crate::judge::Program, StressError> {
        judge
            .compile_file(&problem.dir.join(rel))?
            .into_result()
            .map_err(|message| StressError::Compile {
                problem: problem.id.clone(),
                program: rel.display().to_string(),
                message,
            })
    };
    let (generator, reference, brute) = (
        compile(&s.generator)?,
        compile(&problem.solution)?,
        compile(&s.brute)?,
    );
    let work = judge.fresh_dir("stress")?;
    let count = count.unwrap_or(s.count);
    let mut summary = StressSummary {
        problem: problem.id.clone(),
        runs: 0,
        agreed: 0,
        disagreement: None,
    };
    let limits = judge.limits_for(problem, &reference);
    let mut slow = limits.clone();
    slow.cpu = slow.cpu.max(std::time::Duration::from_secs(10));
    slow.wall = slow.cpu * 2;
    let input = work.join("input");
    for seed in 1..=count {
        progress(seed, count);
        let args: Vec<String> = s
            .args
            .iter()
            .map(|a| a.replace("{seed}", &seed.to_string()))
            .collect();
        let outcome = judge.execute(&ProgramRun {
            program: &generator,
            args: &args,
            stdin: None,
            stdout: &input,
            stderr: None,
            box_files: vec![],
            collect: vec![],
            limits: slow.clone(),
        })?;
        let fail = |what: &str, o: &crate::sandbox::RunOutcome| StressError::Run {
            problem: problem.id.clone(),
            what: what.into(),
            seed,
            message: crate::judge::classify(o, &slow)
                .map(|(v, m)| format!("{v}: {m}"))
                .unwrap_or_default(),
        };
        if !outcome.success() {
            return Err(fail("the generator", &outcome));
        }
        let mut outputs = Vec::new();
        for (what, program) in [("the reference", &reference), ("the brute force", &brute)] {
            let dir = work.join(what.replace(' ', "-"));
            std::fs::create_dir_all(&dir).map_err(|e| crate::judge::JudgeError::Io {
                what: "stress folder".into(),
                source: e,
            })?;
            let run = judge.run_on_input(problem, program, &input, &slow, &dir)?;
            if !run.outcome.success() {
                return Err(fail(what, &run.outcome));
            }
            outputs.push(std::fs::read(&run.output).unwrap_or_default());
        }
        summary.runs += 1;
        match compare(&problem.checker, &outputs[1], &outputs[0]) {
            CheckOutcome::Accepted => summary.agreed += 1,
            CheckOutcome::Wrong(m) | CheckOutcome::Failed(m) => {
                let text = crate::fsutil::read_capped(&input, 4096);
                summary.disagreement = Some((seed, text, format!("brute force vs reference: {m}")));
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(summary)
}

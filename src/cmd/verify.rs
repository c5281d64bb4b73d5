//! `ojd verify`: regression judging of every problem's known submissions.

use std::path::PathBuf;

use anyhow::Context;

use crate::term::{color_stdout, Bar};
use crate::{judge_error_code, print_error, problem_dirs, Global, EXIT_BAD_INPUT};

/// Regression judging for admins and CI: every problem's known submissions, checked.
///
/// For each problem: load and lint the package, check its answers are up to date and its
/// inputs valid (as `gen --check`), judge the reference and every file under
/// submissions/<expected>/ on every test in parallel, check each gets what its folder says,
/// and print the invocation matrix. Timings stay honest: one worker per physical core, CPU
/// time decides, and runs near the limit are judged again alone (marked `*`).
/// Exit code: 0 all as expected, 1 a verdict differs from expectation or baseline, 2 a package
/// or configuration error, 3 the judge itself failed.
///
/// Example: ojd verify --baseline verify.baseline --junit verify.xml
#[derive(clap::Args)]
pub struct Args {
    /// Problem folders (default: every folder under the configured problems folder).
    problems: Vec<PathBuf>,
    /// Compare with a baseline saved earlier; verdict changes fail. Its records also steer the
    /// runs: cells it saw near the limit are judged alone straight away.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record every (problem, submission, test) verdict and time, and what it ran (the limit,
    /// source and input hashes), in FILE.
    #[arg(long, value_name = "FILE")]
    save_baseline: Option<PathBuf>,
    /// Report a test as slower than the baseline when its CPU time grew by more than this.
    #[arg(long, default_value = "50%", value_parser = ojd_verify::parse_percent)]
    time_threshold: f64,
    /// Print the report as one JSON document.
    #[arg(long)]
    json: bool,
    /// Also write JUnit XML to FILE (a test case per problem × submission).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Parallel workers (default: the number of physical cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// A known submission in a language this host lacks is an error (exit 2), not skipped.
    #[arg(long)]
    strict: bool,
    /// Multiply every CPU and wall time limit by F, to judge as on a slower or faster machine:
    /// 0.5 halves the limits (a machine twice as slow), 2 doubles them. Measured times are not
    /// scaled. A baseline is compared at the scaled limits; one cannot be saved at F other than 1.
    #[arg(long, value_name = "F", default_value = "1", value_parser = ojd_verify::parse_time_scale)]
    time_scale: f64,
    /// Judge every cell again instead of reusing the results cache (fresh results are still
    /// stored in it).
    #[arg(long)]
    no_cache: bool,
    /// The results cache's folder (default: $XDG_CACHE_HOME/ojd/verify, else
    /// ~/.cache/ojd/verify). A cell is reused when ojd, the configuration, the program (source
    /// and compiler), the test and the limits are all unchanged.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = match g.load_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if a.save_baseline.is_some() && a.time_scale != 1.0 {
        eprintln!(
            "error: --save-baseline with --time-scale {}: a baseline records the limits as written; save it without --time-scale",
            a.time_scale
        );
        return Ok(EXIT_BAD_INPUT);
    }
    let baseline = match &a.baseline {
        None => None,
        Some(path) => match ojd_verify::Baseline::load(path) {
            Ok(b) => Some((path.display().to_string(), b)),
            Err(e) => {
                print_error(&e);
                return Ok(EXIT_BAD_INPUT);
            }
        },
    };
    let all_problems = a.problems.is_empty();
    let dirs = problem_dirs(a.problems, &config);
    if dirs.is_empty() {
        eprintln!(
            "error: no problem packages under {}",
            config.server.problems.display()
        );
        return Ok(EXIT_BAD_INPUT);
    }
    let jobs = a.jobs.unwrap_or_else(ojd_verify::default_jobs).max(1);
    let judge = match ojd_judge::Judge::new(config.judging(), jobs) {
        Ok(j) => j,
        Err(e) => {
            print_error(&e);
            return Ok(judge_error_code(&e));
        }
    };
    let opts = ojd_verify::VerifyOptions {
        jobs,
        baseline,
        time_threshold: a.time_threshold,
        all_problems,
        strict: a.strict,
        saving: a.save_baseline.is_some(),
        time_scale: a.time_scale,
        cache: a
            .cache_dir
            .or_else(ojd_verify::default_cache_dir)
            .map(|dir| ojd_verify::CacheOptions {
                dir,
                reuse: !a.no_cache,
            }),
    };
    let bar = Bar::new();
    // Where standard error is not a terminal (a CI log, a pipe) the bar draws nothing: a line
    // per phase instead, so that a long run shows it is alive and where it is.
    let lines = !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let last_phase = std::sync::Mutex::new(String::new());
    let started = std::time::Instant::now();
    let report = ojd_verify::verify(&judge, &dirs, &opts, &|phase, done, total, item| {
        if lines {
            let mut last = last_phase
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if *last != phase {
                *last = phase.to_string();
                eprintln!(
                    "verify: {} ({total}) at {:.0?}",
                    ojd_judge::escape_terminal(phase),
                    started.elapsed()
                );
            }
        }
        bar.update(phase, done, total, item)
    });
    drop(bar);
    let mut code = report.exit_code();
    if let Some(path) = &a.junit {
        let xml = ojd_verify::junit(&report).context("failed to render the JUnit report")?;
        std::fs::write(path, xml).with_context(|| format!("failed to write {}", path.display()))?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        anstream::print!("{}", ojd_verify::render_text(&report, color_stdout()));
    }
    if let Some(path) = &a.save_baseline {
        // A run that could not judge everything would record a partial baseline.
        if code >= EXIT_BAD_INPUT {
            eprintln!(
                "error: not saving {}: fix the errors above first",
                path.display()
            );
        } else if let Err(e) = report.to_baseline().save(path) {
            print_error(&e);
            code = code.max(EXIT_BAD_INPUT);
        } else if !a.json {
            println!("baseline saved to {}", path.display());
        }
    }
    Ok(code)
}

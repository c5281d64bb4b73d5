//! `ojd calibrate`: propose (and optionally write) a problem's time limit by the Kattis rule.

use std::path::PathBuf;

use ojd_verify::calibrate::{calibrate, render, write_limit, CalibrateOptions};

use crate::term::Bar;
use crate::{print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};

/// Propose a problem's time limit from its own accepted and TLE submissions (the Kattis rule).
///
/// Judges the reference and every submissions/accepted/ file alone, --repeats times on every
/// test, and takes each one's slowest test (fastest of its runs; CPU time divided by the
/// language's time_factor). The limit is the slowest of those × 2, rounded up to --resolution;
/// it names the submission and test that decide it. Then every time_limit_exceeded/ submission
/// must still exceed 1.5 × that limit on some test. When the decider running --noise slower
/// would give the next step, the proposal is borderline: a committed limit equal to either step
/// agrees, otherwise the higher step is proposed. --write puts the limit in problem.toml.
/// Exit code: 0 the limit agrees with problem.toml (or was written), 1 it differs or no sound
/// limit exists, 2 a package error, 3 the judge failed.
///
/// Example: ojd calibrate problems/huarong --write
#[derive(clap::Args)]
pub struct Args {
    /// Problem folders (default: every folder under the configured problems folder).
    problems: Vec<PathBuf>,
    /// Write the proposed limit into problem.toml.
    #[arg(long)]
    write: bool,
    /// Runs alone of each accepted submission on each test (the fastest counts).
    #[arg(long, default_value = "3")]
    repeats: usize,
    /// Round the limit up to a multiple of this.
    #[arg(long, default_value = "1s", value_parser = ojd_judge::parse_duration)]
    resolution: std::time::Duration,
    /// How much slower the decider may run on another day: a proposal within it of the next
    /// step is borderline, and either step agrees.
    #[arg(long, default_value = "20%", value_parser = ojd_verify::parse_percent)]
    noise: f64,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let dirs = crate::problem_dirs(a.problems, &config);
    let judge = ojd_judge::Judge::new(config.judging(), 1)?;
    let opts = CalibrateOptions {
        repeats: a.repeats.max(1),
        resolution: a.resolution,
        noise: a.noise,
        ..CalibrateOptions::default()
    };
    let (mut code, mut all) = (0, Vec::new());
    for dir in dirs {
        let label = dir.display().to_string();
        let bar = Bar::new();
        let calibrated = calibrate(&judge, &dir, &opts, &mut |d, t, item| {
            bar.update(&label, d, t, item)
        });
        drop(bar);
        let mut cal = match calibrated {
            Ok(c) => c,
            Err(e) => {
                print_error(&e);
                code = code.max(match e {
                    ojd_verify::calibrate::CalibrateError::Judge { .. } => EXIT_JUDGE_FAILED,
                    _ => EXIT_BAD_INPUT,
                });
                continue;
            }
        };
        if a.write && cal.sound() && cal.limit_ms != cal.committed_ms {
            let limit = std::time::Duration::from_millis(cal.limit_ms);
            match write_limit(&dir, limit) {
                Ok(()) => cal.written = true,
                Err(e) => {
                    print_error(&e);
                    code = code.max(EXIT_BAD_INPUT);
                }
            }
        }
        code = code.max(cal.exit_code());
        if !a.json {
            print!("{}", render(&cal, &opts));
        }
        all.push(cal);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&all)?);
    }
    Ok(code)
}

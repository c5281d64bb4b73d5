//! `ojd stress`: the reference against the package's brute force on random inputs.

use std::path::PathBuf;

use crate::term::Bar;
use crate::{load_problem, print_error, problem_dirs, Global, EXIT_BAD_INPUT};

/// Compare the reference with the package's brute force on random inputs ([stress] section).
///
/// Exit code: 0 all agree, 1 a disagreement (its seed and input are printed), 2 bad package.
///
/// Example: ojd stress problems/holedox --count 200
#[derive(clap::Args)]
pub struct Args {
    problems: Vec<PathBuf>,
    /// Number of seeds (default: the package's count).
    #[arg(long)]
    count: Option<u32>,
    /// Seeds run at once, each in a sandbox of its own (default: the number of CPUs). The
    /// result does not depend on it: the smallest disagreeing seed is the one reported.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: Option<u32>,
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let dirs = problem_dirs(a.problems, &config);
    let jobs = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let judge = ojd_judge::Judge::new(config.judging(), jobs)?;
    let mut code = 0;
    for dir in dirs {
        let Some(problem) = load_problem(&dir) else {
            code = EXIT_BAD_INPUT;
            continue;
        };
        let label = problem.id.clone();
        let bar = Bar::new();
        let stressed = ojd_verify::stress::stress(&judge, &problem, a.count, jobs, &mut |d, t| {
            bar.update(&label, d as usize, t as usize, "")
        });
        drop(bar);
        match stressed {
            Ok(s) => {
                println!(
                    "{}: reference and brute force agree on {}/{} random inputs",
                    s.problem, s.agreed, s.runs
                );
                if let Some((seed, input, why)) = &s.disagreement {
                    // The programs' output and the generated input are untrusted text.
                    println!(
                        "  seed {seed}: {}\n  input:\n{}",
                        ojd_judge::escape_terminal(why),
                        ojd_judge::escape_terminal(input)
                    );
                    code = code.max(1);
                }
            }
            Err(e) => {
                print_error(&e);
                code = EXIT_BAD_INPUT;
            }
        }
    }
    Ok(code)
}

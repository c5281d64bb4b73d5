//! `ojd gen`: build generated inputs and expected answers with each problem's own programs.

use std::path::PathBuf;

use crate::term::Bar;
use crate::{load_problem, print_error, problem_dirs, Global, EXIT_BAD_INPUT};

/// Build generated inputs and expected answers with each problem's own programs.
///
/// Compiles the reference solution, generators and validator (in the sandbox), writes the
/// generated tests/*.in, validates every input and writes every tests/*.ans. Answers whose
/// solver and input are unchanged (answers.lock) are not recomputed. With --check nothing is
/// written: everything is rebuilt in a scratch folder and any committed file that differs is
/// shown with a diff. A sample's committed answer (the statement's) is never overwritten: a
/// reference that contradicts it is an error showing the diff. Exit code: 0 ok, 1 differences
/// (--check), 2 a package error.
///
/// A Kattis (BAPCtools) package folder, with problem.yaml and generators/generators.yaml and no
/// problem.toml, has its data/ made again from generators.yaml as `ojd import kattis` makes it
/// (every program in the sandbox; an unsupported key refused, named); --check and --force do
/// not apply to it.
///
/// Example: ojd gen problems/huarong --check
#[derive(clap::Args)]
pub struct Args {
    /// Problem folders (default: every folder under the configured problems folder).
    problems: Vec<PathBuf>,
    /// Write nothing: rebuild every input and answer in a scratch folder and show each
    /// committed file that differs, with a diff (exit 1 when any does).
    #[arg(long)]
    check: bool,
    /// Recompute every answer, even those answers.lock records as up to date (a sample's
    /// committed answer is still never overwritten).
    #[arg(long)]
    force: bool,
    /// Print one JSON summary per problem instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let dirs = problem_dirs(a.problems, &config);
    let judge = ojd_judge::Judge::new(
        config.judging(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )?;
    let opts = ojd_judge::answers::GenOptions {
        check: a.check,
        force: a.force,
    };
    let (mut code, mut summaries) = (0, Vec::new());
    for dir in dirs {
        if is_kattis_with_generators(&dir) {
            if a.check {
                eprintln!(
                    "error: {}: --check is for ojd packages; a Kattis package's data is made again by `ojd gen` without it",
                    dir.display()
                );
                code = EXIT_BAD_INPUT;
                continue;
            }
            match ojd_import::kattis::regenerate(&dir, &judge) {
                Ok((tests, messages)) => {
                    for m in &messages {
                        eprintln!("warning: {}", ojd_judge::escape_terminal(m));
                    }
                    if !a.json {
                        println!(
                            "{}: {tests} tests made by generators/generators.yaml into data/",
                            dir.display()
                        );
                    }
                }
                Err(e) => {
                    print_error(&e);
                    code = EXIT_BAD_INPUT;
                }
            }
            continue;
        }
        let Some(problem) = load_problem(&dir) else {
            code = EXIT_BAD_INPUT;
            continue;
        };
        if problem.validator.is_none() {
            eprintln!(
                "warning: {}: no input validator (`validator` in problem.toml): nothing checks that the tests' inputs keep the statement's promises",
                problem.dir.display()
            );
        }
        let label = problem.id.clone();
        let bar = Bar::new();
        let generated =
            ojd_judge::answers::generate_with_progress(&judge, &problem, &opts, &mut |d, t, item| {
                bar.update(&label, d, t, item)
            });
        drop(bar);
        match generated {
            Ok(s) => {
                if !a.json {
                    let slow = s
                        .slowest
                        .as_ref()
                        .map(|(t, ms)| format!(", reference slowest {ms} ms on {t}"))
                        .unwrap_or_default();
                    println!(
                        "{}: {} inputs generated, {} validated, {} answers written, {} unchanged{slow}",
                        s.problem, s.inputs_generated, s.inputs_validated, s.answers_written, s.answers_unchanged
                    );
                    for d in &s.differences {
                        println!("  {}", ojd_judge::escape_terminal(d));
                    }
                }
                if !s.differences.is_empty() && code == 0 {
                    code = 1;
                }
                summaries.push(s);
            }
            Err(e) => {
                print_error(&e);
                code = EXIT_BAD_INPUT;
            }
        }
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&summaries)?);
    }
    Ok(code)
}

/// A Kattis package whose data BAPCtools' generators make: problem.yaml and
/// generators/generators.yaml, and no problem.toml (an ojd package is generated as such).
fn is_kattis_with_generators(dir: &std::path::Path) -> bool {
    !dir.join("problem.toml").exists()
        && dir.join("problem.yaml").is_file()
        && dir.join("generators/generators.yaml").is_file()
}

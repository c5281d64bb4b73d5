//! `ojd judge`: one submission against one problem, as a table or JSON.

use std::path::PathBuf;

use crate::term::{color_stdout, Bar};
use crate::{judge_error_code, print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};

/// Judge one submission against a problem: compile, run every test, check, report.
///
/// Prints a table (test, verdict, CPU ms, wall ms, memory) and a diff for each wrong answer.
/// Exit code: 0 accepted, 1 any other verdict, 2 bad input (problem, source, language),
/// 3 the judge itself failed.
///
/// Example: ojd judge problems/huarong problems/huarong/submissions/accepted/noip_spfa.cpp
#[derive(clap::Args)]
pub struct Args {
    /// The problem folder (holding problem.toml).
    problem: PathBuf,
    /// Source file (.rs .c .cpp .py), a ready executable, or a folder of source files in one
    /// language compiled together (C and C++: every source; Java, Kotlin: every file, the main
    /// class found; Python: every file, run from main.py, else the file named like the folder,
    /// else the one with __main__).
    submission: PathBuf,
    /// Language id from config.toml (default: by extension; ELF files are `binary`).
    #[arg(long)]
    lang: Option<String>,
    /// Print the report as one JSON document.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = match g.load_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let problem = match ojd_judge::Problem::load(&a.problem) {
        Ok(p) => p,
        Err(e) => {
            print_error(&e);
            return Ok(EXIT_BAD_INPUT);
        }
    };
    // A judge that cannot even lay out its scratch folder failed itself (exit 3).
    let judge = match ojd_judge::Judge::new(config.judging(), 1) {
        Ok(j) => j,
        Err(e) => {
            print_error(&e);
            return Ok(judge_error_code(&e));
        }
    };
    // One file, or a folder of files in one language compiled together.
    let sub = match judge.read_submission(&a.submission, a.lang.as_deref()) {
        Ok(s) => s,
        Err(e) if e.language_unknown() => {
            eprintln!("error: {e}: cannot tell the language from the file names; use --lang");
            return Ok(EXIT_BAD_INPUT);
        }
        Err(e) => {
            print_error(&e);
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    // The JSON report is for programs: no progress beside it.
    let bar = if a.json { Bar::hidden() } else { Bar::new() };
    let total = problem.tests.len();
    let mut progress = |e: ojd_judge::Event<'_>| {
        if let ojd_judge::Event::TestStarted { index, name } = e {
            bar.update("judging", index, total, name);
        }
    };
    let judged = judge.judge(&problem, &sub, &mut progress, &cancel);
    drop(bar);
    let report = match judged {
        Ok(r) => r,
        Err(e) => {
            print_error(&e);
            return Ok(judge_error_code(&e));
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        anstream::print!("{}", ojd_judge::report::render(&report, color_stdout()));
    }
    Ok(match report.verdict {
        ojd_judge::Verdict::Accepted => 0,
        ojd_judge::Verdict::JudgeError => EXIT_JUDGE_FAILED,
        _ => 1,
    })
}

//! The `ojd` command line: a thin layer over the library.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "ojd", version, about = "An online-judge grading daemon")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Judge one submission against a problem: compile, run every test, check, report.
    ///
    /// Prints a table (test, verdict, CPU ms, wall ms, memory) and a diff for each wrong answer.
    /// Exit code: 0 accepted, 1 any other verdict, 2 bad input (problem, source, language),
    /// 3 the judge itself failed.
    ///
    /// Example: ojd judge problems/huarong problems/huarong/submissions/accepted/noip_spfa.cpp
    Judge {
        /// The problem folder (holding problem.toml).
        problem: PathBuf,
        /// Source file (.rs .c .cpp .py) or a ready executable.
        submission: PathBuf,
        /// Language id from config.toml (default: by extension; ELF files are `binary`).
        #[arg(long)]
        lang: Option<String>,
        /// Print the report as one JSON document.
        #[arg(long)]
        json: bool,
        /// Configuration layered over the built-in defaults.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Run one command in the sandbox and print its outcome as JSON.
    ///
    /// Example: ojd run --time 1s --memory 64MiB -- /usr/bin/python3 -c 'print(1)'
    Run {
        #[arg(long, default_value = "1s", value_parser = ojd::units::parse_duration)]
        time: std::time::Duration,
        #[arg(long, default_value = "256MiB", value_parser = ojd::units::parse_bytes)]
        memory: ojd::units::ByteSize,
        #[arg(long, default_value = "64")]
        processes: u32,
        /// Standard input file.
        #[arg(long)]
        stdin: Option<PathBuf>,
        #[arg(required = true, last = true)]
        argv: Vec<String>,
    },
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("__keeper") {
        ojd::sandbox::keeper::main();
    }
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}

/// Exit codes shared by the commands.
const EXIT_BAD_INPUT: i32 = 2;
const EXIT_JUDGE_FAILED: i32 = 3;

fn load_config(path: Option<&std::path::Path>) -> anyhow::Result<ojd::config::Config> {
    Ok(match path {
        Some(p) => ojd::config::Config::load(p)?,
        None => ojd::config::Config::defaults(),
    })
}

fn judge_error_code(e: &ojd::judge::JudgeError) -> i32 {
    use ojd::judge::JudgeError::*;
    match e {
        BadSubmission(_) | UnknownLanguage { .. } | LanguageUnavailable { .. } | MissingAnswers { .. } => EXIT_BAD_INPUT,
        Io { .. } | Sandbox(_) | Cancelled => EXIT_JUDGE_FAILED,
    }
}

fn cmd_judge(problem: PathBuf, submission: PathBuf, lang: Option<String>, json: bool, config: Option<PathBuf>) -> anyhow::Result<i32> {
    use std::io::IsTerminal;
    let config = match load_config(config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let problem = match ojd::problem::Problem::load(&problem) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let source = match std::fs::read(&submission) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: {e}", submission.display());
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let judge = ojd::judge::Judge::new(config, 1)?;
    let language = match lang.or_else(|| judge.detect_language(&submission, &source)) {
        Some(l) => l,
        None => {
            eprintln!("error: {}: cannot tell the language from the file name; use --lang", submission.display());
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let sub = ojd::judge::Submission { language, source };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let interactive = !json && std::io::stderr().is_terminal();
    let total = problem.tests.len();
    let mut progress = |e: ojd::judge::Event<'_>| {
        if let (true, ojd::judge::Event::TestStarted { index, name }) = (interactive, e) {
            eprint!("\r\x1b[2Kjudging test {}/{total} ({name})", index + 1);
        }
    };
    let report = match judge.judge(&problem, &sub, &mut progress, &cancel) {
        Ok(r) => r,
        Err(e) => {
            if interactive {
                eprint!("\r\x1b[2K");
            }
            eprintln!("error: {e}");
            return Ok(judge_error_code(&e));
        }
    };
    if interactive {
        eprint!("\r\x1b[2K");
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", ojd::report::render(&report, std::io::stdout().is_terminal()));
    }
    Ok(match report.verdict {
        ojd::verdict::Verdict::Accepted => 0,
        ojd::verdict::Verdict::JudgeError => EXIT_JUDGE_FAILED,
        _ => 1,
    })
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Cmd::Judge { problem, submission, lang, json, config } => cmd_judge(problem, submission, lang, json, config),
        Cmd::Run { time, memory, processes, stdin, argv } => {
            let scratch = tempfile::Builder::new().prefix("ojd-run-").tempdir().context("failed to create a scratch folder")?;
            let opts = ojd::sandbox::SandboxOptions::new(scratch.path().to_path_buf());
            let mut sb = ojd::sandbox::Sandbox::start(&opts)?;
            for w in &sb.capabilities().warnings {
                eprintln!("warning: {w}");
            }
            let spec = ojd::sandbox::RunSpec {
                argv,
                env: vec![("PATH".into(), "/usr/bin:/bin".into())],
                box_files: vec![],
                collect: vec![],
                binds: vec![],
                stdin,
                stdout: scratch.path().join("stdout"),
                stderr: Some(scratch.path().join("stderr")),
                limits: ojd::sandbox::Limits {
                    cpu: time,
                    wall: time * 3 + std::time::Duration::from_secs(1),
                    memory: memory.bytes(),
                    output: 64 << 20,
                    processes,
                    file_size: 64 << 20,
                },
            };
            let outcome = sb.run(&spec)?;
            let out = std::fs::read_to_string(scratch.path().join("stdout")).unwrap_or_default();
            let err = std::fs::read_to_string(scratch.path().join("stderr")).unwrap_or_default();
            print!("{out}");
            eprint!("{err}");
            println!("{}", serde_json::to_string_pretty(&outcome)?);
            Ok(if outcome.success() { 0 } else { 1 })
        }
    }
}

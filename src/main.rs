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
    /// Build generated inputs and expected answers with each problem's own programs.
    ///
    /// Compiles the reference solution, generators and validator (in the sandbox), writes the
    /// generated tests/*.in, validates every input and writes every tests/*.ans. Answers whose
    /// solver and input are unchanged (answers.lock) are not recomputed. With --check nothing is
    /// written: everything is rebuilt in a scratch folder and any committed file that differs is
    /// shown with a diff. Exit code: 0 ok, 1 differences (--check), 2 a package error.
    ///
    /// Example: ojd gen problems/huarong --check
    Gen {
        /// Problem folders (default: every folder under the configured problems folder).
        problems: Vec<PathBuf>,
        #[arg(long)]
        check: bool,
        /// Recompute every answer.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Compare the reference with the package's brute force on random inputs ([stress] section).
    ///
    /// Exit code: 0 all agree, 1 a disagreement (its seed and input are printed), 2 bad package.
    ///
    /// Example: ojd stress problems/holedox --count 200
    Stress {
        problems: Vec<PathBuf>,
        /// Number of seeds (default: the package's count).
        #[arg(long)]
        count: Option<u32>,
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Run the grading daemon: HTTP API and web pages, a persistent queue, parallel workers.
    ///
    /// Loads every problem (building missing answers), then serves until SIGTERM or SIGINT and
    /// prints the URL to open. Exit code: 0 after a clean shutdown, 2 bad configuration or the
    /// address is taken, 3 the judge could not start.
    ///
    /// Example: ojd serve --config contest.toml
    Serve {
        /// Configuration layered over the built-in defaults (see config.toml).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Issue, list or revoke the daemon's login tokens (kept hashed in its database).
    ///
    /// Example: ojd token issue alice   (prints the new token once)
    Token {
        #[command(subcommand)]
        action: TokenCmd,
        #[arg(long, global = true)]
        config: Option<PathBuf>,
    },
    /// Check this host: cgroups, namespaces, seccomp, uid drop, compilers; say how to fix gaps.
    ///
    /// Exit code: 0 everything works, 1 isolation is degraded or a language is unavailable.
    ///
    /// Example: ojd doctor
    Doctor {
        #[arg(long)]
        config: Option<PathBuf>,
    },
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
    Verify {
        /// Problem folders (default: every folder under the configured problems folder).
        problems: Vec<PathBuf>,
        /// Compare with a baseline saved earlier; verdict changes fail.
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// Record every (problem, submission, test) verdict and time in FILE.
        #[arg(long, value_name = "FILE")]
        save_baseline: Option<PathBuf>,
        /// Report a test as slower than the baseline when its CPU time grew by more than this.
        #[arg(long, default_value = "50%", value_parser = ojd::verify::parse_percent)]
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

#[derive(Subcommand)]
enum TokenCmd {
    /// Issue a new token for NAME and print it (it cannot be shown again).
    Issue {
        name: String,
        /// The token may use the admin API and see every submission.
        #[arg(long)]
        admin: bool,
    },
    /// List the names that have tokens.
    List,
    /// Revoke every token of NAME.
    Revoke { name: String },
}

fn cmd_serve(config: Option<PathBuf>) -> anyhow::Result<i32> {
    let config = match load_config(config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    match ojd::server::serve(config, None) {
        Ok(()) => Ok(0),
        Err(e @ ojd::server::ServerError::Judge(_)) => {
            eprintln!("error: {:#}", anyhow::Error::from(e));
            Ok(EXIT_JUDGE_FAILED)
        }
        Err(e) => {
            eprintln!("error: {:#}", anyhow::Error::from(e));
            Ok(EXIT_BAD_INPUT)
        }
    }
}

fn cmd_token(action: TokenCmd, config: Option<PathBuf>) -> anyhow::Result<i32> {
    use ojd::store::Store;
    let config = load_config(config.as_deref())?;
    let store = ojd::store::SqliteStore::open(&config.server.database)?;
    match action {
        TokenCmd::Issue { name, admin } => {
            let token = ojd::server::auth::issue_token(&store, &name, admin)?;
            println!("{token}");
        }
        TokenCmd::List => {
            for t in store.tokens()? {
                println!("{}{}", t.name, if t.admin { " (admin)" } else { "" });
            }
        }
        TokenCmd::Revoke { name } => {
            let n = store.revoke_tokens(&name)?;
            println!("revoked {n} token(s) of {name}");
            return Ok(if n == 0 { 1 } else { 0 });
        }
    }
    Ok(0)
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
        BadSubmission(_)
        | UnknownLanguage { .. }
        | LanguageUnavailable { .. }
        | MissingAnswers { .. } => EXIT_BAD_INPUT,
        Io { .. } | Sandbox(_) | Cancelled => EXIT_JUDGE_FAILED,
    }
}

fn cmd_judge(
    problem: PathBuf,
    submission: PathBuf,
    lang: Option<String>,
    json: bool,
    config: Option<PathBuf>,
) -> anyhow::Result<i32> {
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
            eprintln!(
                "error: {}: cannot tell the language from the file name; use --lang",
                submission.display()
            );
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
        print!(
            "{}",
            ojd::report::render(&report, std::io::stdout().is_terminal())
        );
    }
    Ok(match report.verdict {
        ojd::verdict::Verdict::Accepted => 0,
        ojd::verdict::Verdict::JudgeError => EXIT_JUDGE_FAILED,
        _ => 1,
    })
}

/// Problem folders named on the command line, or every package under the problems folder.
fn problem_dirs(named: Vec<PathBuf>, config: &ojd::config::Config) -> Vec<PathBuf> {
    if !named.is_empty() {
        return named;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&config.server.problems)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("problem.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// Loads a package, printing its errors (every one, with file and key) when it fails.
fn load_problem(dir: &std::path::Path) -> Option<ojd::problem::Problem> {
    ojd::problem::Problem::load(dir)
        .map_err(|e| eprintln!("error: {e}"))
        .ok()
}

/// A one-line progress bar on stderr, drawn only on a terminal.
fn progress_bar(label: &str, done: usize, total: usize, item: &str) {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return;
    }
    let width = 30;
    let filled = if total == 0 {
        width
    } else {
        done * width / total
    };
    eprint!(
        "\r\x1b[2K{label} [{}{}] {done}/{total} {item}",
        "=".repeat(filled),
        " ".repeat(width - filled)
    );
    if done >= total {
        eprint!("\r\x1b[2K");
    }
}

fn cmd_gen(
    problems: Vec<PathBuf>,
    check: bool,
    force: bool,
    json: bool,
    config: Option<PathBuf>,
) -> anyhow::Result<i32> {
    let config = load_config(config.as_deref())?;
    let dirs = problem_dirs(problems, &config);
    let judge = ojd::judge::Judge::new(
        config,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )?;
    let opts = ojd::answers::GenOptions { check, force };
    let (mut code, mut summaries) = (0, Vec::new());
    for dir in dirs {
        let Some(problem) = load_problem(&dir) else {
            code = EXIT_BAD_INPUT;
            continue;
        };
        let label = problem.id.clone();
        match ojd::answers::generate_with_progress(&judge, &problem, &opts, &mut |d, t, item| {
            progress_bar(&label, d, t, item)
        }) {
            Ok(s) => {
                if !json {
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
                        println!("  {d}");
                    }
                }
                if !s.differences.is_empty() && code == 0 {
                    code = 1;
                }
                summaries.push(s);
            }
            Err(e) => {
                eprintln!("error: {e}");
                code = EXIT_BAD_INPUT;
            }
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&summaries)?);
    }
    Ok(code)
}

fn cmd_stress(
    problems: Vec<PathBuf>,
    count: Option<u32>,
    config: Option<PathBuf>,
) -> anyhow::Result<i32> {
    let config = load_config(config.as_deref())?;
    let dirs = problem_dirs(problems, &config);
    let judge = ojd::judge::Judge::new(config, 1)?;
    let mut code = 0;
    for dir in dirs {
        let Some(problem) = load_problem(&dir) else {
            code = EXIT_BAD_INPUT;
            continue;
        };
        let label = problem.id.clone();
        match ojd::stress::stress(&judge, &problem, count, &mut |d, t| {
            progress_bar(&label, d as usize, t as usize, "")
        }) {
            Ok(s) => {
                println!(
                    "{}: reference and brute force agree on {}/{} random inputs",
                    s.problem, s.agreed, s.runs
                );
                if let Some((seed, input, why)) = &s.disagreement {
                    println!("  seed {seed}: {why}\n  input:\n{input}");
                    code = code.max(1);
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                code = EXIT_BAD_INPUT;
            }
        }
    }
    Ok(code)
}

fn cmd_doctor(config: Option<PathBuf>) -> anyhow::Result<i32> {
    let config = load_config(config.as_deref())?;
    let judge = ojd::judge::Judge::new(config, 1)?;
    let mut healthy = true;
    let mut line = |ok: bool, what: &str, detail: String| {
        healthy &= ok;
        println!("{} {what:<12} {detail}", if ok { "ok  " } else { "FAIL" });
    };
    let root = ojd::sandbox::running_as_root();
    line(
        root,
        "root",
        if root {
            "running as root".into()
        } else {
            "not root: run ojd as root for namespaces, cgroups and the uid drop".into()
        },
    );
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    line(true, "kernel", format!("Linux {}", kernel.trim()));
    match judge.capabilities() {
        Ok(caps) => {
            line(
                caps.cgroup.is_some(),
                "cgroups",
                caps.cgroup
                    .clone()
                    .unwrap_or_else(|| "unavailable (see warnings)".into()),
            );
            line(
                caps.namespaces,
                "namespaces",
                if caps.namespaces {
                    "pid, mount, network, ipc, uts".into()
                } else {
                    "unavailable".into()
                },
            );
            line(
                caps.uid_drop,
                "uid drop",
                if caps.uid_drop {
                    "programs run as unprivileged uids".into()
                } else {
                    "programs keep the caller's uid".into()
                },
            );
            line(
                caps.seccomp,
                "seccomp",
                "deny list installed before exec".into(),
            );
            for w in &caps.warnings {
                println!("     warning: {w}");
            }
        }
        Err(e) => line(false, "sandbox", format!("the keeper failed to start: {e}")),
    }
    // A real run, so that a broken setup shows here and not on the first submission.
    let scratch = tempfile::tempdir()?;
    let probe = ojd::judge::Program {
        dir: scratch.path().to_path_buf(),
        run: vec!["/bin/true".into()],
        time_factor: 1.0,
    };
    let limits = ojd::sandbox::Limits {
        cpu: std::time::Duration::from_secs(1),
        wall: std::time::Duration::from_secs(3),
        memory: 64 << 20,
        output: 1 << 20,
        processes: 4,
        file_size: 1 << 20,
    };
    let out = scratch.path().join("out");
    let run = ojd::judge::ProgramRun {
        program: &probe,
        args: &[],
        stdin: None,
        stdout: &out,
        stderr: None,
        box_files: vec![],
        collect: vec![],
        limits,
    };
    match judge.execute(&run) {
        Ok(o) if o.success() => line(
            true,
            "test run",
            format!(
                "/bin/true in the sandbox: {:.2} ms wall",
                o.wall_time.as_secs_f64() * 1e3
            ),
        ),
        Ok(o) => line(
            false,
            "test run",
            format!("/bin/true failed in the sandbox: {o:?}"),
        ),
        Err(e) => line(false, "test run", format!("{e}")),
    }
    for (id, l) in judge.languages() {
        match l {
            Ok(l) => line(
                true,
                id,
                format!(
                    "{}: {}",
                    l.name,
                    l.compile
                        .first()
                        .or(l.run.first())
                        .cloned()
                        .unwrap_or_default()
                ),
            ),
            Err(reason) => line(
                false,
                id,
                format!("{reason} (install it, or change [languages.{id}] in the config)"),
            ),
        }
    }
    Ok(if healthy { 0 } else { 1 })
}

struct VerifyArgs {
    problems: Vec<PathBuf>,
    baseline: Option<PathBuf>,
    save_baseline: Option<PathBuf>,
    time_threshold: f64,
    json: bool,
    junit: Option<PathBuf>,
    jobs: Option<usize>,
    config: Option<PathBuf>,
}

fn cmd_verify(a: VerifyArgs) -> anyhow::Result<i32> {
    use std::io::IsTerminal;
    let config = match load_config(a.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let baseline = match &a.baseline {
        None => None,
        Some(path) => match ojd::verify::Baseline::load(path) {
            Ok(b) => Some((path.display().to_string(), b)),
            Err(e) => {
                eprintln!("error: {e}");
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
    let jobs = a.jobs.unwrap_or_else(ojd::verify::default_jobs).max(1);
    let judge = match ojd::judge::Judge::new(config, jobs) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(judge_error_code(&e));
        }
    };
    let opts = ojd::verify::VerifyOptions {
        jobs,
        baseline,
        time_threshold: a.time_threshold,
        all_problems,
    };
    let report = ojd::verify::verify(&judge, &dirs, &opts, &|phase, done, total, item| {
        progress_bar(phase, done, total, item)
    });
    let mut code = report.exit_code();
    if let Some(path) = &a.junit {
        std::fs::write(path, ojd::verify::junit(&report))
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        print!("{}", ojd::verify::render_text(&report, color));
    }
    if let Some(path) = &a.save_baseline {
        // A run that could not judge everything would record a partial baseline.
        if code >= EXIT_BAD_INPUT {
            eprintln!(
                "error: not saving {}: fix the errors above first",
                path.display()
            );
        } else if let Err(e) = report.to_baseline().save(path) {
            eprintln!("error: {e}");
            code = code.max(EXIT_BAD_INPUT);
        } else if !a.json {
            println!("baseline saved to {}", path.display());
        }
    }
    Ok(code)
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Cmd::Doctor { config } => cmd_doctor(config),
        Cmd::Gen {
            problems,
            check,
            force,
            json,
            config,
        } => cmd_gen(problems, check, force, json, config),
        Cmd::Stress {
            problems,
            count,
            config,
        } => cmd_stress(problems, count, config),
        Cmd::Judge {
            problem,
            submission,
            lang,
            json,
            config,
        } => cmd_judge(problem, submission, lang, json, config),
        Cmd::Serve { config } => cmd_serve(config),
        Cmd::Token { action, config } => cmd_token(action, config),
        Cmd::Verify {
            problems,
            baseline,
            save_baseline,
            time_threshold,
            json,
            junit,
            jobs,
            config,
        } => cmd_verify(VerifyArgs {
            problems,
            baseline,
            save_baseline,
            time_threshold,
            json,
            junit,
            jobs,
            config,
        }),
        Cmd::Run {
            time,
            memory,
            processes,
            stdin,
            argv,
        } => {
            let scratch = tempfile::Builder::new()
                .prefix("ojd-run-")
                .tempdir()
                .context("failed to create a scratch folder")?;
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

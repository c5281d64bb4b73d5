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

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
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

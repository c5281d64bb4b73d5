//! `ojd run`: one command in the sandbox, its outcome as JSON.

use std::path::PathBuf;

use anyhow::Context;

use crate::Global;

/// Run one command in the sandbox and print its outcome as JSON.
///
/// With --config, the sandbox settings of that configuration apply (uids, isolation, sizes).
///
/// Example: ojd run --time 1s --memory 64MiB -- /usr/bin/python3 -c 'print(1)'
#[derive(clap::Args)]
pub struct Args {
    #[arg(long, default_value = "1s", value_parser = ojd_judge::parse_duration)]
    time: std::time::Duration,
    #[arg(long, default_value = "256MiB", value_parser = ojd_judge::parse_bytes)]
    memory: ojd_judge::ByteSize,
    #[arg(long, default_value = "64")]
    processes: u32,
    /// Standard input file.
    #[arg(long)]
    stdin: Option<PathBuf>,
    #[arg(required = true, last = true)]
    argv: Vec<String>,
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let scratch = tempfile::Builder::new()
        .prefix("ojd-run-")
        .tempdir()
        .context("failed to create a scratch folder")?;
    let mut opts = ojd_sandbox::SandboxOptions::new(scratch.path().to_path_buf());
    if g.config.is_some() {
        let s = g.load_config()?.sandbox;
        opts.uid_base = s.uid_base;
        opts.isolate = s.isolate;
        opts.allow_insecure = s.allow_insecure_sandbox;
        opts.box_size = s.box_size.bytes();
        opts.tmp_size = s.tmp_size.bytes();
    }
    let mut sb = ojd_sandbox::Sandbox::start(&opts)?;
    for w in &sb.capabilities().warnings {
        eprintln!("warning: {w}");
    }
    let spec = ojd_sandbox::RunSpec {
        argv: a.argv,
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        box_files: vec![],
        collect: vec![],
        binds: vec![],
        stdin: a.stdin,
        stdout: scratch.path().join("stdout"),
        stderr: Some(scratch.path().join("stderr")),
        limits: ojd_sandbox::Limits {
            cpu: a.time,
            wall: a.time * 3 + std::time::Duration::from_secs(1),
            memory: a.memory.bytes(),
            output: 64 << 20,
            processes: a.processes,
            file_size: 64 << 20,
        },
    };
    let outcome = sb.run(&spec)?;
    // The program's output as it wrote it, bytes and all; then its outcome.
    let read = |name: &str| {
        let path = scratch.path().join(name);
        match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            r => r.with_context(|| format!("failed to read {}", path.display())),
        }
    };
    let (out, err) = (read("stdout")?, read("stderr")?);
    crate::term::stdout_bytes(&out).context("failed to write stdout")?;
    std::io::Write::write_all(&mut std::io::stderr(), &err).context("failed to write stderr")?;
    println!("{}", serde_json::to_string_pretty(&outcome)?);
    Ok(if outcome.success() { 0 } else { 1 })
}

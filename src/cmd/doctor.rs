//! `ojd doctor`: what this host can isolate and run, and how to fix the gaps.

use crate::Global;

/// Check this host: cgroups, namespaces, seccomp, uid drop, compilers; say how to fix gaps.
///
/// Lists each language with its version and whether a tiny program compiles and runs in the
/// sandbox; a language whose toolchain is missing is listed as unavailable.
///
/// Exit code: 0 everything works, 1 isolation is degraded or an installed language does not
/// work in the sandbox.
///
/// Example: ojd doctor
#[derive(clap::Args)]
pub struct Args {
    /// Skip the timing-noise probe (line `noise`): about a second of work on a real machine,
    /// a minute or more under software emulation, where CPU times mean nothing (the CI's VM
    /// check). The other lines, isolation included, are checked as without it.
    #[arg(long)]
    no_noise: bool,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let database = config.server.database.to_string_lossy().into_owned();
    let judge = ojd_judge::Judge::new(config.judging(), 1)?;
    let mut healthy = true;
    let mut line = |ok: bool, what: &str, detail: String| {
        healthy &= ok;
        println!("{} {what:<12} {detail}", if ok { "ok  " } else { "FAIL" });
    };
    let root = ojd_sandbox::running_as_root();
    line(
        root,
        "root",
        if root {
            "running as root".into()
        } else {
            "not root: run ojd as root for namespaces, cgroups and the uid drop".into()
        },
    );
    #[cfg(feature = "worker")]
    match ojd_store::check(&database) {
        Ok(what) => line(true, "database", what),
        Err(e) => line(false, "database", ojd_judge::error_chain(&e)),
    }
    #[cfg(not(feature = "worker"))]
    line(
        true,
        "database",
        format!("{database} not checked: this ojd was built without the daemon"),
    );
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    line(true, "kernel", format!("Linux {}", kernel.trim()));
    // Under cgroup v2: where the keepers' cgroups go (made now, as the first keeper would).
    if root && judge.config.sandbox.isolate {
        match ojd_sandbox::cgroup_delegation() {
            Some(Ok(d)) => line(
                true,
                "cgroup v2",
                format!(
                    "keepers' cgroups in {} (this process in {}{}), controllers memory, pids, cpu{}",
                    d.base.display(),
                    d.leaf.display(),
                    d.scope
                        .map(|s| format!(", a delegated scope {s} systemd made"))
                        .unwrap_or_default(),
                    if d.cpuset { ", cpuset" } else { "" }
                ),
            ),
            Some(Err(e)) => line(false, "cgroup v2", e),
            None => {}
        }
    }
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
            line(caps.full(), "isolation", caps.mode());
            for w in &caps.warnings {
                println!("     warning: {w}");
            }
        }
        Err(e) => line(
            false,
            "sandbox",
            format!("the keeper failed to start: {}", ojd_judge::error_chain(&e)),
        ),
    }
    // A real run, so that a broken setup shows here and not on the first submission.
    let scratch = tempfile::tempdir()?;
    let probe = ojd_judge::Program {
        dir: scratch.path().to_path_buf(),
        run: vec!["/bin/true".into()],
        time_factor: 1.0,
        memory_extra: 0,
        profile: Default::default(),
        pin: Default::default(),
    };
    let limits = ojd_sandbox::Limits {
        cpu: std::time::Duration::from_secs(1),
        wall: std::time::Duration::from_secs(3),
        memory: 64 << 20,
        output: 1 << 20,
        processes: 4,
        file_size: 1 << 20,
    };
    let out = scratch.path().join("out");
    let run = ojd_judge::ProgramRun {
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
        Err(e) => line(false, "test run", ojd_judge::error_chain(&e)),
    }
    let pinning = ojd_sandbox::affinity::Pinning::parse(&judge.config.judge.pin_cpus)
        .unwrap_or(ojd_sandbox::affinity::Pinning::Off);
    let checks = ojd_sandbox::affinity::timing_checks(&pinning);
    // Unstable timing is advice, not a broken judge: it does not change the exit code.
    let advice = |c: ojd_sandbox::affinity::TimingCheck| {
        println!("{} {:<12} {}", if c.ok { "ok  " } else { "warn" }, c.what, c.detail);
    };
    checks.into_iter().for_each(advice);
    // The machine's own timing noise: about a second of probes, natively in this process.
    if args.no_noise {
        println!("--   {:<12} not measured (--no-noise)", "noise");
    } else {
        advice(ojd_sandbox::noise::check(10));
    }
    // Each language: version, and a tiny program compiled and run in the sandbox. A language
    // whose toolchain is missing is a note (its submissions are refused), not a failure.
    for c in ojd_judge::check_toolchains(&judge) {
        use ojd_judge::ToolchainStatus::*;
        let version = c.version.as_deref().unwrap_or("version unknown");
        match c.status {
            Works { compile, run } => line(
                true,
                &c.id,
                format!(
                    "{}: {version}; works in the sandbox (compile {:.1} s, run {:.0} ms)",
                    c.name,
                    compile.as_secs_f64(),
                    run.as_secs_f64() * 1e3
                ),
            ),
            Untried => line(true, &c.id, format!("{}: {version}; no `hello` to try", c.name)),
            Broken(why) => line(false, &c.id, format!("{}: {version}; {why}", c.name)),
            Unavailable(reason) => println!(
                "--   {:<12} {}: unavailable: {reason} (install it, or change [languages.{}] in the config)",
                c.id, c.name, c.id
            ),
        }
    }
    Ok(if healthy { 0 } else { 1 })
}

//! Per-run overhead of the sandbox, measured side by side with bare execution.
//!
//! Runs a trivial program N times bare (fork + exec + wait through `std::process::Command`) and
//! N times through a keeper with full isolation, interleaved so that machine noise hits both
//! alike, and prints the medians, the per-run overhead in ms and the ratio, and the same at the
//! 10th percentile (less sensitive to other work on the machine).
//!
//! `cargo bench --bench overhead -- [N] [program]` (defaults: 300 runs of /bin/true). Needs root
//! for full isolation; otherwise it measures the rlimit-only fallback and says so.
//!
//! `OJD_BENCH_KEEPER=<path of an ojd binary>` runs the keeper from that build instead of this
//! one's, to compare two builds side by side on the same machine (their keeper protocol must
//! match this bench's; otherwise keep and run each build's own bench binary).
//!
//! `OJD_BENCH_GAP_MS=<ms>` pauses that long before each sandboxed run, so that the keeper's work
//! between runs is off the timed run: against a run without it, what that work adds.

use std::time::{Duration, Instant};

use ojd_sandbox::{Limits, RunSpec, Sandbox, SandboxOptions};

fn median(v: &mut [Duration]) -> Duration {
    quantile(v, 0.5)
}

/// The `q` quantile (0.0 = the fastest run). On a loaded machine the load only ever adds time,
/// so the 10th percentile is closer than the median to what a run costs on a quiet one.
fn quantile(v: &mut [Duration], q: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * q) as usize]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(300);
    let program = args.get(1).cloned().unwrap_or_else(|| "/bin/true".into());
    let scratch = tempfile::tempdir().expect("scratch folder");
    let mut opts = SandboxOptions::new(scratch.path().to_path_buf());
    opts.keeper_exe = std::env::var_os("OJD_BENCH_KEEPER")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_ojd").into());
    let mut sandbox = Sandbox::start(&opts).expect("keeper starts");
    let caps = sandbox.capabilities().clone();
    let spec = RunSpec {
        argv: vec![program.clone()],
        env: vec![],
        box_files: vec![],
        collect: vec![],
        binds: vec![],
        stdin: None,
        stdout: scratch.path().join("out"),
        stderr: None,
        // Far above what `/bin/true` needs, anywhere: the limits do not change a run's cost,
        // and under software emulation a host too busy to run the VM's CPUs charges their
        // stalls to whatever ran (a `/bin/true` got over 2 s of CPU time at a host load of 30).
        limits: Limits {
            cpu: Duration::from_secs(30),
            wall: Duration::from_secs(90),
            memory: 256 << 20,
            output: 1 << 20,
            processes: 16,
            file_size: 1 << 20,
        },
    };
    // A pause before each sandboxed run (`OJD_BENCH_GAP_MS`, default none): with one long
    // enough, the keeper's work between runs (fresh `/box` and `/tmp`, the next spare init, the
    // last init's exit) is over before the run is timed, so the difference to a run without it
    // is what that work adds to back-to-back runs.
    let gap = std::env::var("OJD_BENCH_GAP_MS")
        .ok()
        .and_then(|g| g.parse().ok())
        .map(Duration::from_millis);
    let (mut bare, mut boxed) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..5 {
        sandbox.run(&spec).expect("warm-up run");
    }
    for _ in 0..n {
        let t = Instant::now();
        let st = std::process::Command::new(&program)
            .status()
            .expect("bare run");
        bare.push(t.elapsed());
        assert!(st.success());
        if let Some(gap) = gap {
            std::thread::sleep(gap);
        }
        let t = Instant::now();
        let out = sandbox.run(&spec).expect("sandboxed run");
        boxed.push(t.elapsed());
        assert!(out.success(), "{out:?}");
    }
    let (b, s) = (median(&mut bare), median(&mut boxed));
    let overhead = s.saturating_sub(b);
    println!("program: {program}, runs: {n} each, interleaved");
    println!("keeper: {}", opts.keeper_exe.display());
    if let Some(gap) = gap {
        println!("gap before each sandboxed run: {gap:?}");
    }
    println!(
        "isolation: cgroup {:?}, namespaces {}, seccomp {}, uid drop {}",
        caps.cgroup, caps.namespaces, caps.seccomp, caps.uid_drop
    );
    println!("bare      median {:>8.3} ms", b.as_secs_f64() * 1e3);
    println!("sandboxed median {:>8.3} ms", s.as_secs_f64() * 1e3);
    println!(
        "overhead  {:>8.3} ms per run, ratio {:.2}x",
        overhead.as_secs_f64() * 1e3,
        s.as_secs_f64() / b.as_secs_f64()
    );
    let (b10, s10) = (quantile(&mut bare, 0.1), quantile(&mut boxed, 0.1));
    println!(
        "10th percentile: bare {:.3} ms, sandboxed {:.3} ms, overhead {:.3} ms",
        b10.as_secs_f64() * 1e3,
        s10.as_secs_f64() * 1e3,
        s10.saturating_sub(b10).as_secs_f64() * 1e3
    );
}

//! CPU time of the same program natively and in the sandbox, side by side.
//!
//! Compiles one accepted submission of a problem once, then runs it on each test over 20 ms
//! (measured natively in a first round, not counted) N times natively and N times through one
//! keeper with full isolation, alternated run by run (native first in even rounds, sandbox first
//! in odd ones), so that whatever else the machine does hits both alike. Prints per test the
//! median CPU time and the coefficient of variation (stddev / mean) of each, their ratio, the
//! native minor faults and context switches, and the load average before and after: absolute
//! CVs depend on the load, the side-by-side difference does not. "min3 CV" is the CV of the
//! fastest of each three consecutive sandboxed runs (what a judge keeping the fastest of three
//! would see).
//!
//! The native run is the point of the comparison, so the program must be a trusted one: an
//! accepted submission from the package (never a hostile fixture). It is compiled by the host
//! compiler with the flags of its language in the default configuration.
//!
//! `cargo bench --bench native_vs_sandbox -- [N] [problem] [submission] [--pin=CPU] [--probes]`
//! (defaults: 30 rounds of problems/huarong/submissions/accepted/noip_spfa.cpp). `--pin=CPU`
//! pins this process, hence the native runs and the keeper with its runs, to one CPU;
//! `--probes` runs only the probes (the problem's tests still run once, to check both answers).
//! Needs root.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ojd_sandbox::noise::cv;
use ojd_sandbox::{Bind, Limits, RunSpec, Sandbox, SandboxOptions};

/// One native run: CPU time (user + system), minor faults, voluntary and involuntary switches.
struct Native {
    cpu: Duration,
    minflt: i64,
    nvcsw: i64,
    nivcsw: i64,
}

fn tv(t: libc::timeval) -> Duration {
    Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64)
}

/// Where a program reads its input and writes its answer: standard streams, or the files the
/// problem names (`[io]`), in the working folder (`work` natively, `/box` in the sandbox).
struct Io<'a> {
    input_file: Option<&'a str>,
    output_file: Option<&'a str>,
    work: &'a Path,
    out: &'a Path,
}

impl Io<'_> {
    fn answer(&self) -> PathBuf {
        match self.output_file {
            Some(f) => self.work.join(f),
            None => self.out.to_path_buf(),
        }
    }
}

// The child is reaped by `wait4` (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_native(exe: &Path, input: Option<&Path>, io: &Io) -> Native {
    let stdin = match (input, io.input_file) {
        (Some(input), Some(name)) => {
            std::fs::copy(input, io.work.join(name)).expect("copy the input");
            File::open("/dev/null").expect("/dev/null")
        }
        (Some(input), None) => File::open(input).expect("test input"),
        (None, _) => File::open("/dev/null").expect("/dev/null"),
    };
    let child = std::process::Command::new(exe)
        .current_dir(io.work)
        .stdin(stdin)
        .stdout(File::create(io.out).expect("output file"))
        .spawn()
        .expect("native run starts");
    let mut status = 0;
    // SAFETY: rusage is plain data the kernel fills.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child (std's `Child` is never waited on afterwards).
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(r, child.id() as i32, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "native run failed: status {status}"
    );
    Native {
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        minflt: usage.ru_minflt,
        nvcsw: usage.ru_nvcsw,
        nivcsw: usage.ru_nivcsw,
    }
}

/// A program and its input (a test of the problem, or none for a probe).
struct Job {
    name: String,
    /// File name in the program folder (`/prog` in the sandbox).
    exe: String,
    input: Option<PathBuf>,
}

/// Probes of the machine itself, run beside the tests the same way: the same amount of
/// arithmetic in registers (touches no memory: its CV is the CPU clock's and the scheduler's),
/// and random read-modify-writes over 32 MiB, more than the last-level cache (its CV is what
/// sharing caches and memory bandwidth with other work adds), and 4 × 64 MiB written once
/// (page faults: what memory-cgroup charging could slow down). About 0.1 s each.
const PROBES: &[(&str, &str)] = &[
    (
        "spin",
        "#include <stdio.h>\n#include <stdint.h>\nint main(void) { uint64_t a = 1;\n\
         for (long i = 0; i < 100000000L; i++) a = a * 6364136223846793005ULL + 1442695040888963407ULL;\n\
         printf(\"%llu\\n\", (unsigned long long)a); return 0; }\n",
    ),
    (
        "memory",
        "#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#define N (8u << 20)\n\
         int main(void) { uint32_t *p = malloc(N * 4); if (!p) return 1;\n\
         for (uint32_t i = 0; i < N; i++) p[i] = i;\n\
         uint64_t s = 1; for (long k = 0; k < 5000000; k++) {\n\
         s = s * 6364136223846793005ULL + 1; p[(s >> 33) % N] += k; }\n\
         uint64_t t = 0; for (uint32_t i = 0; i < N; i += 4096) t += p[i];\n\
         printf(\"%llu\\n\", (unsigned long long)t); return 0; }\n",
    ),    (
        "faults",
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
         int main(void) { long t = 0; for (int r = 0; r < 4; r++) {\n\
         char *p = malloc(64 << 20); if (!p) return 1; memset(p, r + 1, 64 << 20);\n\
         t += p[r * 4096]; free(p); }\n\
         printf(\"%ld\\n\", t); return 0; }\n",
    ),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let pin: Option<usize> = all
        .iter()
        .find_map(|a| a.strip_prefix("--pin=").and_then(|c| c.parse().ok()));
    // `--probes`: the probes alone, without the problem's tests.
    let probes_only = all.iter().any(|a| a == "--probes");
    let args: Vec<&String> = all.iter().filter(|a| !a.starts_with("--")).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(30);
    let problem_dir = PathBuf::from(args.get(1).map_or("problems/huarong", |s| s.as_str()));
    let sub_path = args.get(2).map_or_else(
        || problem_dir.join("submissions/accepted/noip_spfa.cpp"),
        PathBuf::from,
    );
    if let Some(cpu) = pin {
        ojd_sandbox::affinity::set_affinity(std::process::id(), &[cpu]).expect("pin");
    }
    let problem = ojd_judge::Problem::load(&problem_dir).expect("problem loads");
    let config = ojd_judge::Config::defaults();
    let ext = sub_path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    let lang = config
        .languages
        .values()
        .find(|l| l.extensions.iter().any(|x| x == ext) && !l.compile.is_empty())
        .expect("a compiled language for the submission");
    let prog = tempfile::tempdir().expect("scratch");
    std::fs::copy(&sub_path, prog.path().join(&lang.source)).expect("copy source");
    let st = std::process::Command::new(&lang.compile[0])
        .args(&lang.compile[1..])
        .current_dir(prog.path())
        .status()
        .expect("compiler runs");
    assert!(st.success(), "compilation failed");
    for (name, source) in PROBES {
        let c = prog.path().join(format!("{name}.c"));
        std::fs::write(&c, source).expect("write a probe");
        let st = std::process::Command::new("/usr/bin/gcc")
            .args(["-O2", "-o", name])
            .arg(&c)
            .current_dir(prog.path())
            .status()
            .expect("gcc runs");
        assert!(st.success(), "probe {name} failed to compile");
    }

    let scratch = tempfile::tempdir().expect("scratch");
    let mut opts = SandboxOptions::new(scratch.path().to_path_buf());
    opts.keeper_exe = env!("CARGO_BIN_EXE_ojd").into();
    let mut sandbox = Sandbox::start(&opts).expect("keeper starts");
    assert!(
        sandbox.capabilities().full(),
        "needs full isolation (root): {:?}",
        sandbox.capabilities().missing()
    );
    let out = scratch.path().join("out");
    let work = tempfile::tempdir().expect("scratch");
    let io = Io {
        input_file: problem.io.input_file.as_deref(),
        output_file: problem.io.output_file.as_deref(),
        work: work.path(),
        out: &out,
    };
    let collected = scratch.path().join("collected");
    let spec = |job: &Job| RunSpec {
        argv: vec![format!("/prog/{}", job.exe)],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        box_files: match (&job.input, io.input_file) {
            (Some(input), Some(name)) => vec![(input.clone(), name.to_string())],
            _ => vec![],
        },
        collect: match (&job.input, io.output_file) {
            (Some(_), Some(name)) => vec![(name.to_string(), collected.clone())],
            _ => vec![],
        },
        binds: vec![Bind {
            host: prog.path().to_path_buf(),
            inside: "/prog".into(),
            writable: false,
            cap: None,
        }],
        stdin: job.input.clone().filter(|_| io.input_file.is_none()),
        stdout: out.clone(),
        stderr: None,
        limits: Limits {
            cpu: Duration::from_secs(10),
            wall: Duration::from_secs(30),
            memory: problem.memory_limit,
            output: 64 << 20,
            processes: 4,
            file_size: 64 << 20,
        },
    };
    let tokens = |p: &Path| {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        text.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // First round (not counted): both answers are right, which tests are long enough to
    // measure; it also warms the caches.
    let mut jobs: Vec<Job> = problem
        .tests
        .iter()
        .filter(|t| {
            let job = Job {
                name: t.name.clone(),
                exe: lang.executable.clone(),
                input: Some(t.input.clone()),
            };
            let native = run_native(&prog.path().join(&job.exe), Some(&t.input), &io);
            assert_eq!(tokens(&io.answer()), tokens(&t.answer), "native {}", t.name);
            let boxed = sandbox.run(&spec(&job)).expect("sandboxed run");
            assert!(boxed.success(), "{}: {boxed:?}", t.name);
            let got = if io.output_file.is_some() {
                &collected
            } else {
                &out
            };
            assert_eq!(tokens(got), tokens(&t.answer), "sandboxed {}", t.name);
            native.cpu >= Duration::from_millis(20) && !probes_only
        })
        .map(|t| Job {
            name: t.name.clone(),
            exe: lang.executable.clone(),
            input: Some(t.input.clone()),
        })
        .collect();
    let tests = jobs.len();
    jobs.extend(PROBES.iter().map(|(name, _)| Job {
        name: format!("(probe) {name}"),
        exe: name.to_string(),
        input: None,
    }));
    let load_before = loadavg();
    let mut native: Vec<Vec<Native>> = jobs.iter().map(|_| Vec::new()).collect();
    let mut boxed: Vec<Vec<Duration>> = jobs.iter().map(|_| Vec::new()).collect();
    for round in 0..n {
        for (i, t) in jobs.iter().enumerate() {
            for k in 0..2 {
                if (k + round) % 2 == 0 {
                    let exe = prog.path().join(&t.exe);
                    native[i].push(run_native(&exe, t.input.as_deref(), &io));
                } else {
                    let o = sandbox.run(&spec(t)).expect("sandboxed run");
                    assert!(o.success(), "{}: {o:?}", t.name);
                    boxed[i].push(o.cpu_time);
                }
            }
        }
        eprint!("\rround {}/{n}", round + 1);
    }
    eprintln!();
    let ms = |d: &Duration| d.as_secs_f64() * 1e3;
    println!(
        "{n} rounds of {} on {}, native and sandboxed alternated; {}; load average {} before, {} after",
        sub_path.display(),
        problem.id,
        pin.map_or("not pinned".to_string(), |c| format!("all pinned to CPU {c}")),
        load_before,
        loadavg()
    );
    println!(
        "{:<24} {:>9} {:>7} {:>9} {:>7} {:>7} {:>6} {:>7} {:>5} {:>5}",
        "test", "native ms", "CV", "box ms", "CV", "min3 CV", "ratio", "minflt", "vcsw", "ivcsw"
    );
    let (mut ncv, mut bcv, mut ratios, mut min3cv) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, t) in jobs.iter().enumerate() {
        let nv: Vec<f64> = native[i].iter().map(|r| ms(&r.cpu)).collect();
        let bv: Vec<f64> = boxed[i].iter().map(ms).collect();
        let (nmed, bmed) = (median(nv.clone()), median(bv.clone()));
        let (nc, bc) = (cv(&nv), cv(&bv));
        // What a judge that kept the fastest of three runs would see: the CV of the minimum
        // of each three consecutive sandboxed runs.
        let min3: Vec<f64> = bv
            .chunks_exact(3)
            .map(|c| c.iter().copied().fold(f64::INFINITY, f64::min))
            .collect();
        let mc = cv(&min3);
        let field = |f: fn(&Native) -> i64| median(native[i].iter().map(|r| f(r) as f64).collect());
        if i < tests {
            ncv.push(nc);
            bcv.push(bc);
            ratios.push(bmed / nmed);
            min3cv.push(mc);
        }
        println!(
            "{:<24} {:>9.1} {:>6.2}% {:>9.1} {:>6.2}% {:>6.2}% {:>6.3} {:>7.0} {:>5.0} {:>5.0}",
            t.name,
            nmed,
            nc * 100.0,
            bmed,
            bc * 100.0,
            mc * 100.0,
            bmed / nmed,
            field(|r| r.minflt),
            field(|r| r.nvcsw),
            field(|r| r.nivcsw),
        );
    }
    println!(
        "median over {} tests: CV native {:.2}%, sandboxed {:.2}% (fastest of 3: {:.2}%); CPU ratio sandboxed/native {:.3}",
        tests,
        median(ncv) * 100.0,
        median(bcv) * 100.0,
        median(min3cv) * 100.0,
        median(ratios)
    );
}

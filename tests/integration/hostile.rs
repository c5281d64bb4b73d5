//! Hostile programs (`testdata/hostile/`) through the real sandbox. Every test looks for the harm
//! its attack must not do — files left on the host, processes alive after the run, a host listener
//! contacted, a secret printed or echoed by a compiler — and not only for the verdict.
//!
//! Tests that watch processes on the host give their judge a uid base of its own (48000, 49000,
//! ...; a keeper's uid is the base plus a process-wide keeper counter below 1000), so that a scan
//! of `/proc` for that range sees exactly that test's programs and nothing of the other tests.

use std::io::ErrorKind;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ojd_judge::ByteSize;
use ojd_judge::Config;
use ojd_judge::Problem;
use ojd_judge::{classify, Compiled, Judge, Program, ProgramRun};
use ojd_judge::{JudgeReport, Verdict};
use ojd_sandbox::{LimitKind, Limits, RunOutcome};

use crate::common::{self, testdata};

mod compile;
mod feedback;
mod holes;
mod insecure;
mod leaks;
mod limits;

/// The marker in the secret answer of `testdata/hostile/problem`.
const MARKER: &str = "SECRET-ANSWER-7f3a";
const MIB: u64 = 1 << 20;

fn hostile(name: &str) -> PathBuf {
    testdata("hostile").join(name)
}

fn secret_problem() -> Problem {
    Problem::load(&hostile("problem")).expect("the secret fixture problem loads")
}

fn aplusb() -> Problem {
    Problem::load(&testdata("aplusb")).expect("aplusb loads")
}

/// A judge whose keepers run as uids `base..base + 1000`, a range no other test uses.
fn judge_at(base: u32, parallel: usize) -> Judge {
    let mut config = Config::defaults();
    config.sandbox.uid_base = base;
    common::judge_with(config, parallel)
}

/// Processes on the whole host whose real uid is in `base..base + 1000`, as "pid: Name: ..."
/// lines with their command lines.
fn processes_of(base: u32) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
        let uid: u32 = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|u| u.parse().ok())
            .unwrap_or(0);
        if (base..base + 1000).contains(&uid) {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{}: {} [{}]",
                e.file_name().to_string_lossy(),
                status.lines().next().unwrap_or(""),
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

/// The host pid of a process with uid in `base..base + 1000` whose command line holds `marker`.
fn find_sandboxed(base: u32, marker: &str) -> Option<u32> {
    processes_of(base)
        .iter()
        .find(|l| l.contains(marker))
        .and_then(|l| l.split(':').next())
        .and_then(|p| p.parse().ok())
}

fn compile(j: &Judge, name: &str) -> Program {
    match j
        .compile(&common::submission(j, &hostile(name)))
        .expect("compiling does not fail the judge")
    {
        Compiled::Program(p) => p,
        Compiled::Error(message) => panic!("{name} does not compile:\n{message}"),
    }
}

fn limits(cpu: Duration, memory: u64) -> Limits {
    Limits {
        cpu,
        wall: cpu * 2 + Duration::from_secs(1),
        memory,
        output: MIB,
        processes: 64,
        file_size: MIB,
    }
}

/// One sandboxed run with what it printed and the verdict the judge would give it.
struct Ran {
    outcome: RunOutcome,
    verdict: Verdict,
    message: String,
    stdout: String,
    stderr: String,
    stdout_len: u64,
    stderr_len: u64,
}

fn run(
    j: &Judge,
    program: &Program,
    args: &[String],
    stdin: Option<&Path>,
    limits: &Limits,
) -> Ran {
    run_boxed(j, program, args, stdin, vec![], limits)
}

/// [`run`] with files copied into the box first, as the judge does for a checker.
fn run_boxed(
    j: &Judge,
    program: &Program,
    args: &[String],
    stdin: Option<&Path>,
    box_files: Vec<(PathBuf, String)>,
    limits: &Limits,
) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let outcome = j
        .execute(&ProgramRun {
            program,
            args,
            stdin,
            stdout: &out,
            stderr: Some(&err),
            box_files,
            collect: vec![],
            limits: limits.clone(),
        })
        .expect("a hostile program is a verdict, not a judge error");
    let (verdict, message) =
        classify(&outcome, limits).unwrap_or((Verdict::Accepted, String::new()));
    let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    Ran {
        verdict,
        message,
        stdout: ojd_judge::read_capped(&out, 8 * MIB),
        stderr: ojd_judge::read_capped(&err, 64 * 1024),
        stdout_len: len(&out),
        stderr_len: len(&err),
        outcome,
    }
}

/// Judges `file` (a fixture, or a source written at test time) on `problem`.
fn judge(j: &Judge, problem: &Problem, file: &Path) -> JudgeReport {
    let sub = common::submission(j, file);
    j.judge(problem, &sub, &mut |_| {}, &Default::default())
        .expect("a hostile program is a verdict, not a judge error")
}

/// A name no earlier run can have used, for files the attacks try to leave behind.
fn unique_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("ojd-hostile-{}-{nanos}", std::process::id())
}

/// The verdict and message of a seccomp kill, naming the call.
fn assert_forbidden(what: &str, verdict: Verdict, message: &str, call: &str) {
    assert_eq!(verdict, Verdict::RuntimeError, "{what}: {message}");
    assert_eq!(
        message.split(';').next().unwrap_or(""),
        format!("forbidden system call {call}"),
        "{what}"
    );
}

/// A TCP listener on the host's loopback and one in the host's abstract Unix namespace, both
/// non-blocking so that `accept` tells whether anyone came.
struct Listeners {
    tcp: std::net::TcpListener,
    unix: std::os::unix::net::UnixListener,
    unix_name: String,
}

impl Listeners {
    fn open() -> Listeners {
        use std::os::linux::net::SocketAddrExt;
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let unix_name = unique_name();
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(&unix_name).unwrap();
        let unix = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
        unix.set_nonblocking(true).unwrap();
        Listeners {
            tcp,
            unix,
            unix_name,
        }
    }

    fn port(&self) -> String {
        self.tcp.local_addr().unwrap().port().to_string()
    }

    fn assert_untouched(&self, what: &str) {
        match self.tcp.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("{what}: the host's TCP listener was contacted: {other:?}"),
        }
        match self.unix.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("{what}: the host's Unix listener was contacted: {other:?}"),
        }
    }

    /// Proves the check above can fail: a connection from the host is seen.
    fn assert_alive(&self) {
        let _c = std::net::TcpStream::connect(self.tcp.local_addr().unwrap()).unwrap();
        common::wait_until(Duration::from_secs(5), || {
            self.tcp
                .accept()
                .map_err(|e| format!("the listener does not see connections at all: {e}"))
        });
    }
}

#[test]
fn network_connect_reaches_nothing_on_the_host() {
    require_root!();
    let j = judge_at(52000, 1);
    let net = Listeners::open();
    let lim = limits(Duration::from_secs(2), 128 * MIB);

    let c = compile(&j, "net_connect.c");
    let r = run(&j, &c, &[net.port(), net.unix_name.clone()], None, &lim);
    net.assert_untouched("net_connect.c");
    // The AF_UNIX attempt got through seccomp and found an empty network namespace.
    let unix = r.stdout.lines().find(|l| l.starts_with("unix: "));
    assert!(
        unix.is_some_and(|l| l != "unix: connected"),
        "stdout: {:?}",
        r.stdout
    );
    // socket(AF_INET) fails with EACCES (JVMs probe it at start), so connect has no socket.
    let tcp = r.stdout.lines().find(|l| l.starts_with("tcp: "));
    assert!(
        tcp.is_some_and(|l| l != "tcp: connected"),
        "stdout: {:?}",
        r.stdout
    );

    let py = compile(&j, "net_connect.py");
    let r = run(&j, &py, &[net.port()], None, &lim);
    net.assert_untouched("net_connect.py");
    assert!(!r.stdout.contains("connected"), "stdout: {}", r.stdout);
    assert!(
        r.stdout.contains("Permission denied"),
        "the socket calls are refused: {}",
        r.stdout
    );
    net.assert_alive();
}

#[test]
fn writes_outside_the_box_leave_nothing_on_the_host() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut config = Config::defaults();
    config.sandbox.uid_base = 53000;
    config.sandbox.scratch = scratch.path().to_path_buf();
    let j = common::judge_with(config, 1);
    let program = compile(&j, "write_outside.c");
    let binary = std::fs::read(program.dir.join("main")).unwrap();
    let sysctl = "/proc/sys/kernel/printk_ratelimit_burst";
    let burst = std::fs::read_to_string(sysctl).unwrap();
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let name = unique_name();
    let lim = limits(Duration::from_secs(1), 64 * MIB);

    let r = run(&j, &program, std::slice::from_ref(&name), None, &lim);
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    let results: Vec<(&str, &str)> = r
        .stdout
        .lines()
        .filter_map(|l| l.rsplit_once(": "))
        .collect();
    assert_eq!(results.len(), 14, "one line per attempt: {}", r.stdout);
    for (path, result) in &results {
        let may_write = *path == format!("/tmp/{name}") || *path == format!("/box/{name}");
        if may_write {
            assert_eq!(*result, "ok", "{path}: the box and /tmp are writable");
        } else {
            assert_ne!(*result, "ok", "{path} was written from inside the sandbox");
        }
    }
    let mut hosts: Vec<PathBuf> = ["/", "/usr", "/usr/bin", "/etc", "/lib", "/dev", "/tmp"]
        .iter()
        .map(PathBuf::from)
        .collect();
    hosts.push(std::env::temp_dir());
    for dir in hosts {
        assert!(
            !dir.join(&name).exists(),
            "{} exists on the host",
            dir.join(&name).display()
        );
    }
    let mut stack = vec![scratch.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            assert_ne!(
                e.file_name().to_string_lossy(),
                name,
                "left in {}",
                dir.display()
            );
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    assert_eq!(
        std::fs::read(program.dir.join("main")).unwrap(),
        binary,
        "cached program changed"
    );
    assert_eq!(
        std::fs::read_to_string(sysctl).unwrap(),
        burst,
        "{sysctl} changed"
    );
    assert_eq!(
        std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap(),
        hostname
    );

    // The next run of the same keeper sees neither file.
    let r = run(&j, &program, &[name.clone(), "check".into()], None, &lim);
    assert_eq!(
        r.stdout,
        format!("/box/{name}: absent\n/tmp/{name}: absent\n"),
        "an earlier run's files were visible"
    );
}

#[test]
fn walking_the_file_system_finds_no_answer() {
    require_root!();
    let j = judge_at(54000, 1);
    let problem = secret_problem();
    let program = compile(&j, "walk_for_answers.c");
    let mut lim = limits(Duration::from_secs(10), 256 * MIB);
    lim.output = 16 * MIB;
    lim.file_size = 16 * MIB;
    // The toolchains are the host's own files, read-only and large: named, not read through.
    let rust = j
        .languages()
        .get("rust")
        .and_then(|l| l.as_ref().ok())
        .and_then(|l| {
            Path::new(&l.compile[0])
                .parent()?
                .parent()
                .map(Path::to_path_buf)
        });
    let skip: Vec<String> = rust.iter().map(|r| format!("{}/", r.display())).collect();
    let r = run(&j, &program, &skip, Some(&problem.tests[0].input), &lim);
    assert_eq!(r.verdict, Verdict::Accepted, "{}: {}", r.message, r.stderr);
    let out = &r.stdout;
    let walked: Vec<u64> = out
        .lines()
        .find_map(|l| l.strip_prefix("WALKED "))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|n| n.parse().ok())
                .collect()
        })
        .unwrap_or_else(|| {
            panic!(
                "the walk did not finish: {}",
                &out[out.len().saturating_sub(500)..]
            )
        });
    assert!(
        walked[0] > 1000,
        "walked only {walked:?}: the root is not there to search"
    );
    assert!(!out.contains(MARKER), "the secret answer was found");
    let found: Vec<&str> = out.lines().filter(|l| l.starts_with("FOUND ")).collect();
    assert!(found.is_empty(), "{found:?}");
    // Suspicious names may only be the system's own files.
    let system = ["/usr/", "/lib", "/bin/", "/sbin/", "/etc/"];
    let rust = j
        .languages()
        .get("rust")
        .and_then(|l| l.as_ref().ok())
        .and_then(|l| {
            Path::new(&l.compile[0])
                .parent()?
                .parent()
                .map(Path::to_path_buf)
        });
    for line in out.lines().filter_map(|l| l.strip_prefix("SUSPECT ")) {
        let ok = system.iter().any(|s| line.starts_with(s))
            || rust
                .as_ref()
                .is_some_and(|r| Path::new(line).starts_with(r));
        assert!(ok, "visible to the program: {line}");
    }
    let root = common::root().display().to_string();
    for bad in [
        root.as_str(),
        "01-secret",
        "problem.toml",
        "ojd.sqlite3",
        "CARGO_",
    ] {
        assert!(!out.contains(bad), "the program saw {bad:?}");
    }
    let listed: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("LS ")).collect();
    for dir in ["/home/", "/data/", "/box/", "/tmp/"] {
        let seen: Vec<&&str> = listed.iter().filter(|l| l.starts_with(dir)).collect();
        assert!(seen.is_empty(), "{dir} is not empty: {seen:?}");
    }
    let env: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("ENV ")).collect();
    for var in &env {
        let key = var.split('=').next().unwrap_or("");
        assert!(
            ["PATH", "HOME", "TMPDIR", "LANG"].contains(&key),
            "environment leaks {var}"
        );
    }
}

#[test]
fn proc_shows_no_other_process() {
    require_root!();
    let marker = format!("snoop-marker-{}", unique_name());
    // A host process and a program in another sandbox, both with the marker on their command line.
    let mut host = std::process::Command::new("sleep")
        .arg0(&marker)
        .arg("60")
        .env("OJD_SNOOP_MARKER", &marker)
        .spawn()
        .unwrap();
    let bystander_judge = judge_at(55000, 1);
    let sleeper = compile(&bystander_judge, "sleeper.c");
    let j = judge_at(56000, 1);
    let snoop = compile(&j, "proc_snoop.c");
    let lim = limits(Duration::from_secs(1), 64 * MIB);
    let mut bystander_lim = lim.clone();
    bystander_lim.wall = Duration::from_secs(4);
    std::thread::scope(|s| {
        let bystander = s.spawn(|| {
            run(
                &bystander_judge,
                &sleeper,
                std::slice::from_ref(&marker),
                None,
                &bystander_lim,
            )
        });
        let other = common::wait_until(Duration::from_secs(10), || {
            find_sandboxed(55000, &marker).ok_or("the bystander has not started".to_string())
        });
        let args = vec![host.id().to_string(), other.to_string(), "1".to_string()];
        let r = run(&j, &snoop, &args, None, &lim);
        assert_eq!(r.verdict, Verdict::Accepted, "{}: {}", r.message, r.stderr);
        assert!(
            !r.stdout.contains(&marker),
            "another process was seen:\n{}",
            r.stdout
        );
        assert!(!r.stdout.contains("sleep"), "{}", r.stdout);
        assert!(!r.stdout.contains("BOX "), "{}", r.stdout);
        let pids: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("PID ")).collect();
        assert!(
            pids.len() == 1 && pids[0].contains("/prog/main"),
            "/proc must list only the program itself: {pids:?}"
        );
        for line in r.stdout.lines().filter(|l| l.starts_with("TRY ")) {
            assert!(
                line.ends_with("No such file or directory") || line.ends_with("Permission denied"),
                "{line}"
            );
        }
        let b = bystander.join().unwrap();
        assert_eq!(
            b.outcome.killed_by,
            Some(LimitKind::Wall),
            "{:?}",
            b.outcome
        );
    });
    let _ = host.kill();
    let _ = host.wait();
}

#[test]
fn kill_minus_one_harms_nothing_outside_its_run() {
    require_root!();
    let mut host = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let bystander_judge = judge_at(57000, 1);
    let sleeper = compile(&bystander_judge, "sleeper.c");
    let mut lim = limits(Duration::from_secs(1), 64 * MIB);
    lim.wall = Duration::from_secs(3);
    let j = judge_at(58000, 1);
    let problem = aplusb();
    std::thread::scope(|s| {
        let bystander = s.spawn(|| {
            run(
                &bystander_judge,
                &sleeper,
                &["bystander".into()],
                None,
                &lim,
            )
        });
        common::wait_until(Duration::from_secs(10), || {
            find_sandboxed(57000, "bystander").ok_or("the bystander has not started".to_string())
        });
        let r = judge(&j, &problem, &hostile("kill_all.c"));
        assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
        assert!(
            host.try_wait().unwrap().is_none(),
            "the test's own child was killed"
        );
        let b = bystander.join().unwrap();
        assert_eq!(
            b.outcome.killed_by,
            Some(LimitKind::Wall),
            "the program in the other sandbox was killed: {:?}",
            b.outcome
        );
    });
    // The keeper survived and still judges.
    let r = judge(&j, &problem, &testdata("aplusb/submissions/accepted/ac.c"));
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
    let _ = host.kill();
    let _ = host.wait();
}

#[test]
fn daemonized_grandchild_dies_with_its_run() {
    require_root!();
    let j = judge_at(59000, 1);
    let r = judge(&j, &aplusb(), &hostile("daemon.c"));
    let left = processes_of(59000);
    assert!(left.is_empty(), "alive after the run: {left:?}");
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
    for t in &r.tests {
        assert!(
            t.wall_ms < 1000,
            "{}: the run lasted {} ms",
            t.name,
            t.wall_ms
        );
    }
}

#[test]
fn ptrace_of_the_parent_is_a_forbidden_call() {
    require_root!();
    let j = judge_at(60000, 1);
    let mut problem = aplusb();
    problem.tests.truncate(1);
    let r = judge(&j, &problem, &hostile("ptrace_parent.c"));
    let t = &r.tests[0];
    assert_forbidden("ptrace_parent.c", t.verdict, &t.message, "ptrace");
    assert!(t.wall_ms < 1000, "took {} ms", t.wall_ms);
}

#[test]
fn two_ojd_processes_never_share_a_sandbox_uid() {
    require_root!(exclusive);
    // Two ojd processes with the same uid_base each number their keepers from 0. Within this one
    // process the keeper counter is shared, so the second judge's base is set one lower: with
    // nothing else starting keepers meanwhile (exclusive), its keeper lands on the first's uid,
    // as a second process's would.
    let first = judge_at(66000, 1);
    let sleeper = compile(&first, "sleeper.c");
    let marker = format!("collide-{}", unique_name());
    let answer = secret_problem().tests[0].answer.clone();
    let mut lim = limits(Duration::from_secs(1), 64 * MIB);
    lim.wall = Duration::from_secs(4);
    std::thread::scope(|s| {
        let bystander = s.spawn(|| {
            let files = vec![(answer.clone(), "answer".to_string())];
            run_boxed(
                &first,
                &sleeper,
                std::slice::from_ref(&marker),
                None,
                files,
                &lim,
            )
        });
        let pid = common::wait_until(Duration::from_secs(10), || {
            find_sandboxed(66000, &marker).ok_or("the bystander has not started".to_string())
        });
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let uid: u32 = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|u| u.parse().ok())
            .unwrap();
        let second = judge_at(65999, 1);
        let snoop = compile(&second, "proc_snoop.c");
        let r = run(
            &second,
            &snoop,
            &[],
            None,
            &limits(Duration::from_secs(1), 64 * MIB),
        );
        let snoop_uid = r.stdout.lines().next().unwrap_or("").to_string();
        eprintln!("bystander uid {uid}, snooper {snoop_uid}:\n{}", r.stdout);
        // Whatever uids the two get, the snooper must see neither the other program nor its box.
        assert!(
            !r.stdout.contains(&marker),
            "saw the other ojd's program:\n{}",
            r.stdout
        );
        assert!(
            !r.stdout.contains(MARKER),
            "read the other ojd's box:\n{}",
            r.stdout
        );
        assert_ne!(
            snoop_uid,
            format!("UID {uid}"),
            "two ojd processes share a uid"
        );
        bystander.join().unwrap();
    });
}

/// A program that widens its CPU mask to every CPU still runs on its keeper's one CPU: the
/// keeper's cgroup is a cpuset of that CPU, so pinning is not advisory.
#[test]
fn a_program_cannot_leave_its_keepers_cpu() {
    require_root!();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        cpus >= 2 || std::env::var_os("CI").is_none(),
        "this test needs two CPUs to mean something"
    );
    let mut config = Config::defaults();
    config.sandbox.uid_base = 71000;
    config.judge.pin_cpus = "auto".into();
    let j = common::judge_with(config, 1);
    let program = compile(&j, "widen_affinity.c");
    let ran = run(
        &j,
        &program,
        &[],
        None,
        &limits(Duration::from_secs(2), 64 * MIB),
    );
    assert_eq!(
        ran.verdict,
        Verdict::Accepted,
        "{} {}",
        ran.message,
        ran.stderr
    );
    let cpus_now = ran
        .stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix("cpus="))
        .and_then(|n| n.parse::<usize>().ok());
    assert_eq!(cpus_now, Some(1), "it left its CPU: {}", ran.stdout);
    let claims = ojd_sandbox::affinity::machine_claims();
    assert!(
        claims.iter().any(|c| c.process == std::process::id()),
        "its keeper's CPU is claimed machine-wide: {claims:?}"
    );
}

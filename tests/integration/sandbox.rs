//! The sandbox's own API (`ojd_sandbox::Sandbox`) used directly, without the judge: what a caller
//! of `Sandbox::run` may rely on from one run to the next of the same keeper.

use std::path::Path;
use std::time::Duration;

use ojd_sandbox::{Limits, RunOutcome, RunSpec, Sandbox, SandboxOptions};

/// A keeper of the built `ojd` whose programs run as uids `base..base + 1000`.
pub(crate) fn keeper(scratch: &Path, base: u32) -> Sandbox {
    let mut opts = SandboxOptions::new(scratch.to_path_buf());
    opts.keeper_exe = env!("CARGO_BIN_EXE_ojd").into();
    opts.uid_base = base;
    Sandbox::start(&opts).expect("the keeper starts")
}

fn limits() -> Limits {
    Limits {
        cpu: Duration::from_secs(2),
        wall: Duration::from_secs(10),
        memory: 64 << 20,
        output: 1 << 20,
        processes: 8,
        file_size: 1 << 20,
    }
}

/// `sh -c SCRIPT` with standard input `stdin` and standard output `stdout`.
pub(crate) fn shell(script: &str, stdin: Option<&Path>, stdout: &Path) -> RunSpec {
    RunSpec {
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        box_files: vec![],
        collect: vec![],
        binds: vec![],
        stdin: stdin.map(Path::to_path_buf),
        stdout: stdout.to_path_buf(),
        stderr: None,
        limits: limits(),
    }
}

fn ran(r: Result<RunOutcome, ojd_sandbox::SandboxError>, what: &str) -> RunOutcome {
    let o = r.unwrap_or_else(|e| panic!("{what}: the run failed: {e}"));
    assert!(o.success(), "{what}: {o:?}");
    o
}

/// A keeper keeps a handle on the folders its runs' streams were opened in. A caller that
/// removes such a folder, or renames it away, and makes a new one at the same path must get its
/// streams in the new folder: not a failed run ("No such file or directory", as the judge's
/// interactive tests once got), and never output written into the old folder.
#[test]
fn a_stream_folder_made_again_at_the_same_path_is_the_new_folder() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut s = keeper(scratch.path(), 80000);
    let dir = scratch.path().join("streams");
    let out = dir.join("out");

    std::fs::create_dir(&dir).unwrap();
    ran(s.run(&shell("echo first", None, &out)), "first run");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "first\n");

    // Removed and made again: the old folder is gone.
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    ran(s.run(&shell("echo second", None, &out)), "after remove");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "second\n");

    // Renamed away and made again: the old folder still exists, and must not get the output.
    let old = scratch.path().join("streams.old");
    std::fs::rename(&dir, &old).unwrap();
    std::fs::create_dir(&dir).unwrap();
    ran(s.run(&shell("echo third", None, &out)), "after rename");
    assert_eq!(
        std::fs::read_to_string(&out).ok().as_deref(),
        Some("third\n"),
        "the output went to the renamed folder: {:?}",
        std::fs::read_to_string(old.join("out"))
    );
    assert_eq!(
        std::fs::read_to_string(old.join("out")).unwrap(),
        "second\n"
    );

    // A FIFO as standard input (how two runs of an interactive problem are joined), in a folder
    // made again: the keeper must open the new FIFO, not look for it in the removed folder.
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    let fifo = dir.join("pipe");
    ojd_sandbox::make_fifo(&fifo).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, "through the pipe\n"))
    };
    let r = s.run(&shell("cat", Some(&fifo), &out));
    if r.is_err() {
        // Let the writer's open end, so the thread can be joined.
        let _ = std::fs::File::open(&fifo);
    }
    ran(r, "a FIFO in a folder made again");
    writer.join().unwrap().unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "through the pipe\n");
}

/// Busy loops on every CPU of the machine, `per_cpu` per CPU, stopped when dropped. Each is a
/// session of its own: with the scheduler's autogroups (one per session) loops sharing one
/// session would together weigh as one task against the sandboxed program, which is a session
/// of its own too.
pub(crate) struct Hogs(Vec<std::process::Child>);

impl Hogs {
    pub(crate) fn start() -> Hogs {
        Hogs::per_cpu(3)
    }

    pub(crate) fn per_cpu(per_cpu: usize) -> Hogs {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        Hogs(
            (0..per_cpu * n)
                .map(|_| {
                    // setsid execs the loop in its own process (not a group leader).
                    std::process::Command::new("setsid")
                        .args(["/bin/sh", "-c", "while :; do :; done"])
                        .spawn()
                        .expect("a busy loop starts")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Pins the calling thread to the CPU it is on; a keeper it starts inherits the mask, and with
/// it the keeper's runs: one CPU, as the judge pins keepers by default (`pin_cpus = "auto"`).
fn pin_this_thread() {
    // SAFETY: sched_getcpu has no arguments; a zeroed cpu_set_t is the empty set, and CPU_SET
    // and sched_setaffinity get a pointer to this local and its size.
    unsafe {
        let cpu = usize::try_from(libc::sched_getcpu()).expect("a CPU");
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        assert_eq!(
            libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set),
            0
        );
    }
}

/// The wall-time limit counts the program's own time only. A CPU-bound program on a CPU that
/// other processes keep busy gets a fraction of it: the time it waited for the CPU is not its
/// time, and it ends normally however long the wait (its limit here is twice what it needs on
/// a quiet CPU; eight busy loops per CPU make it wait several times that). A program that
/// sleeps under the very same load still reaches its wall-time limit: that is its own doing.
///
/// The keeper is pinned as the judge pins it: it then looks while holding the run's CPU, when
/// the program is waiting for it, and that wait in progress (in no kernel counter yet, 40 to
/// 90 ms under this load) is the host's too.
#[test]
fn the_wall_time_limit_does_not_count_the_time_a_program_waited_for_a_cpu() {
    require_root!(exclusive);
    let scratch = tempfile::tempdir().unwrap();
    pin_this_thread();
    let mut s = keeper(scratch.path(), 81000);
    let out = scratch.path().join("out");
    let work = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
    let mut run = |script: &str, wall: Duration| {
        let mut spec = shell(script, None, &out);
        spec.limits.cpu = Duration::from_secs(30);
        spec.limits.wall = wall;
        s.run(&spec).expect("the run works")
    };
    // Quiet or not, a sleeping program's wall-time kill is its own.
    let asleep = run("exec sleep 30", Duration::from_secs(1));
    assert_eq!(asleep.killed_by, Some(ojd_sandbox::LimitKind::Wall));
    assert!(!asleep.host_starved(), "{asleep:?}");
    let quiet = run(work, Duration::from_secs(60));
    assert!(quiet.success(), "{quiet:?}");
    let limit = (quiet.cpu_time * 2).max(Duration::from_millis(200));

    let hogs = Hogs::per_cpu(8);
    let loaded: Vec<RunOutcome> = (0..3).map(|_| run(work, limit)).collect();
    let asleep = run("exec sleep 30", Duration::from_secs(1));
    drop(hogs);
    eprintln!("quiet: {quiet:?}\nlimit {limit:?}\nloaded: {loaded:#?}\nasleep: {asleep:?}");
    for o in &loaded {
        assert!(
            o.success(),
            "the wait for the CPU was counted as the program's: {o:?}"
        );
    }
    assert_eq!(asleep.killed_by, Some(ojd_sandbox::LimitKind::Wall));
    assert!(!asleep.host_starved(), "{asleep:?}");
    assert!(
        asleep.wall_kill.expect("measured").cpu_wait < Duration::from_millis(100),
        "{asleep:?}"
    );
}

/// Runs `argv[1..]`, waits for it and prints its CPU time (user + system) in microseconds.
const RUSAGE_OF: &str = r#"#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
    pid_t pid = fork();
    if (pid == 0) { execv(argv[1], argv + 1); _exit(127); }
    int status; struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) return 1;
    long long us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL
        + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    printf("%lld\n", us);
    return 0;
}
"#;

/// The CPU time the sandbox reports is the program's own, whatever the machine's load: compared
/// with what the kernel tells the program's parent (`wait4`) for the very same execution, inside
/// the same run, never with another execution, whose CPU time load does change (a busy CPU's
/// caches and its time slices make the same work cost more CPU). It counts all of it (never
/// less), and adds at most what the run's init and the measuring parent cost, not the keeper's
/// own supervision nor the wall time spent waiting for the CPU. Checked quiet and under busy
/// loops on every CPU.
#[test]
fn cpu_time_is_the_programs_own_under_any_load() {
    require_root!(exclusive);
    let scratch = tempfile::tempdir().unwrap();
    let prog = scratch.path().join("prog");
    std::fs::create_dir(&prog).unwrap();
    let cc = |source: &Path, out: &str| {
        let st = std::process::Command::new("cc")
            .args(["-O2", "-o"])
            .arg(prog.join(out))
            .arg(source)
            .status()
            .expect("cc runs");
        assert!(st.success(), "cc {}", source.display());
    };
    std::fs::write(scratch.path().join("rusage_of.c"), RUSAGE_OF).unwrap();
    cc(&scratch.path().join("rusage_of.c"), "rusage_of");
    cc(&crate::common::testdata("programs/spin.c"), "spin");
    let mut s = keeper(scratch.path(), 83000);
    let out = scratch.path().join("out");
    let mut measure = |label: &str| {
        for _ in 0..3 {
            let mut spec = shell("", None, &out);
            spec.argv = vec!["/prog/rusage_of".into(), "/prog/spin".into()];
            spec.binds = vec![ojd_sandbox::Bind {
                host: prog.clone(),
                inside: "/prog".into(),
                writable: false,
                cap: None,
            }];
            spec.limits.cpu = Duration::from_secs(10);
            spec.limits.wall = Duration::from_secs(60);
            let o = ran(s.run(&spec), label);
            let text = std::fs::read_to_string(&out).unwrap();
            let own: u64 = text
                .lines()
                .nth(1)
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or_else(|| panic!("{label}: the wrapper's output: {text:?}"));
            let own = Duration::from_micros(own);
            eprintln!(
                "{label}: sandbox {:?}, wait4 inside {own:?}, wall {:?}",
                o.cpu_time, o.wall_time
            );
            assert!(own > Duration::from_millis(50), "{label}: spin ran {own:?}");
            assert!(
                o.cpu_time >= own,
                "{label}: the sandbox reports less than the program used: {:?} < {own:?}",
                o.cpu_time
            );
            assert!(
                o.cpu_time <= own + own / 20 + Duration::from_millis(5),
                "{label}: the sandbox reports more than the program used: {:?} vs {own:?} ({o:?})",
                o.cpu_time
            );
        }
    };
    measure("quiet");
    let hogs = Hogs::start();
    measure("loaded");
    drop(hogs);
}

/// Mounts in `/proc/<pid>/mountinfo` whose mount point ends with `suffix`.
fn mounts_at(pid: u32, suffix: &str) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/mountinfo"))
        .unwrap()
        .lines()
        .filter(|l| l.split(' ').nth(4).is_some_and(|p| p.ends_with(suffix)))
        .count()
}

/// Waits (at most 10 s) until the keeper's mount table has `want` mounts ending with `suffix`
/// (a keeper replaces `/box` and `/tmp` just after it sent a run's outcome); the count then.
fn settled(pid: u32, suffix: &str, want: usize) -> usize {
    let start = std::time::Instant::now();
    loop {
        let n = mounts_at(pid, suffix);
        if n == want || start.elapsed() > Duration::from_secs(10) {
            return n;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// After a run that left `/box` and `/tmp` untouched, their mounts are not unmounted (each
/// unmount waits for an RCU grace period, milliseconds on a loaded machine, and the next run
/// waited for it): they are parked where no path reaches, a fresh tmpfs is mounted, and parked
/// mounts are dropped together. The keeper's own mount table shows them parked; nothing of it
/// shows to a program: its `/proc/self/mountinfo` is the same, line for line but the mounts'
/// ids, after untouched runs and after a run that used `/box`, and `/box` is new every run.
#[test]
fn untouched_scratch_mounts_are_parked_unseen_not_unmounted() {
    require_root!();
    use ojd_sandbox::{SandboxOptions, SandboxPool};
    let scratch = tempfile::tempdir().unwrap();
    let mut opts = SandboxOptions::new(scratch.path().to_path_buf());
    opts.keeper_exe = env!("CARGO_BIN_EXE_ojd").into();
    opts.uid_base = 84000;
    let pool = SandboxPool::new(opts, 1);
    let mut s = pool.get().unwrap();
    let keeper = s.keeper_pid().unwrap();
    let before = mounts_at(keeper, "");
    let out = scratch.path().join("out");
    // The device and change time of /box, then what a program sees of the mount table: each mount's root, mount
    // point, options and file system, without the ids and device numbers, sorted.
    let mut seen = |script: &str| -> (String, Vec<String>) {
        let script = format!("{script}; stat -c '%d %.9Z' /box; cat /proc/self/mountinfo");
        let o = s.run(&shell(&script, None, &out)).unwrap();
        assert!(o.success(), "{o:?}");
        let text = std::fs::read_to_string(&out).unwrap();
        let mut lines = text.lines();
        let ino = lines.next().unwrap_or_default().to_string();
        let mut table: Vec<String> = lines
            .map(|l| l.split(' ').skip(3).collect::<Vec<_>>().join(" "))
            .collect();
        // Listed in the order they were mounted: the first run's /box and /tmp are the root's.
        table.sort();
        (ino, table)
    };
    let (ino, first) = seen("true");
    let mut boxes = vec![ino];
    for _ in 0..4 {
        let (ino, table) = seen("true");
        boxes.push(ino);
        assert_eq!(table, first, "the mount table a program sees changed");
    }
    // Five untouched runs: five `/box` and five `/tmp` mounts parked, in one graveyard.
    let now = settled(keeper, "", before + 11);
    assert_eq!(
        now,
        before + 11,
        "untouched mounts were unmounted, not parked:\n{}",
        std::fs::read_to_string(format!("/proc/{keeper}/mountinfo")).unwrap()
    );
    assert_eq!(mounts_at(keeper, "/grave"), 1, "one graveyard");
    // A run that used /box: its mount is unmounted at once; the next run sees the same table
    // and an empty /box.
    let (ino, used) = seen("echo x > /box/f");
    boxes.push(ino);
    assert_eq!(used, first);
    let (ino, after) = seen("test -z \"$(ls -A /box)\" || echo dirty");
    boxes.push(ino);
    assert_eq!(after, first);
    // The used /box was unmounted; that run's /tmp and both of the last run were parked.
    assert_eq!(settled(keeper, "", before + 14), before + 14);
    // Thirty more: 73 mounts parked in all; at the 65th the graveyard was unmounted with the
    // 64 in it, and a new one holds the rest.
    for _ in 0..30 {
        let (ino, table) = seen("true");
        boxes.push(ino);
        assert_eq!(table, first);
    }
    assert_eq!(settled(keeper, "", before + 10), before + 10);
    assert_eq!(mounts_at(keeper, "/grave"), 1, "one graveyard");
    // Every run's /box was a new tmpfs.
    let distinct: std::collections::BTreeSet<_> = boxes.iter().collect();
    assert_eq!(distinct.len(), boxes.len(), "{boxes:?}");
}

/// Runs `spec` in `s` on a thread of its own, and gives its result if it came within `within`.
/// Past that the keeper is stuck (in a FIFO's open): `unstick` opens the other ends so that the
/// thread can end, and the test fails instead of hanging.
fn run_within(
    s: Sandbox,
    spec: RunSpec,
    within: Duration,
    unstick: &[&Path],
) -> (
    Sandbox,
    Result<RunOutcome, ojd_sandbox::SandboxError>,
    Duration,
) {
    use std::os::unix::fs::OpenOptionsExt;
    let start = std::time::Instant::now();
    let mut s = s;
    let t = std::thread::spawn(move || {
        let r = s.run(&spec);
        (s, r)
    });
    while !t.is_finished() && start.elapsed() < within {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stuck = !t.is_finished();
    while !t.is_finished() {
        for p in unstick {
            for write in [false, true] {
                let _ = std::fs::OpenOptions::new()
                    .read(!write)
                    .write(write)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(p);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = start.elapsed();
    let (s, r) = t.join().unwrap();
    assert!(
        !stuck,
        "the keeper was still blocked after {within:?} (opening a FIFO whose other end nobody opens)"
    );
    (s, r, took)
}

/// A FIFO as a run's standard stream whose other end is never opened (the judge's side of an
/// interactive run ended, or opened and closed it for an earlier try of the run) fails the run
/// after its wall-time limit, as an error of the keeper (a host fault for the judge, never a
/// verdict), instead of blocking the keeper, and the judging waiting on it, for ever. Each way:
/// standard input (a reader waits for a writer), standard output (a writer waits for a reader),
/// and a FIFO that served an earlier run. The keeper serves the next run as before.
#[test]
fn a_fifo_whose_other_end_never_opens_fails_the_run_in_bounded_time() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut s = keeper(scratch.path(), 85000);
    let dir = scratch.path().join("pipes");
    std::fs::create_dir(&dir).unwrap();
    let (input, output, out) = (dir.join("in"), dir.join("out"), dir.join("file"));
    ojd_sandbox::make_fifo(&input).unwrap();
    ojd_sandbox::make_fifo(&output).unwrap();
    let quick = |mut spec: RunSpec| {
        spec.limits.wall = Duration::from_secs(1);
        spec
    };
    let within = Duration::from_secs(30);

    for (what, spec) in [
        ("standard input", quick(shell("cat", Some(&input), &out))),
        ("standard output", quick(shell("echo lost", None, &output))),
    ] {
        let (back, r, took) = run_within(s, spec, within, &[&input, &output]);
        s = back;
        let e = match r {
            Err(e) => e.to_string(),
            Ok(o) => panic!("{what}: a run with a FIFO nobody opened ran: {o:?}"),
        };
        assert!(
            e.contains("FIFO") && e.contains(dir.to_str().unwrap()),
            "{what}: the error names the FIFO: {e}"
        );
        assert!(
            took >= Duration::from_millis(900),
            "{what}: waited {took:?}"
        );
    }

    // A FIFO that served one run: its writer came, wrote and went. Run again on it (as a retry
    // of a starved run did), nobody will open it any more.
    let writer = {
        let input = input.clone();
        std::thread::spawn(move || std::fs::write(&input, "once\n"))
    };
    let (back, r, _) = run_within(
        s,
        quick(shell("cat", Some(&input), &out)),
        within,
        &[&input],
    );
    s = back;
    ran(r, "a FIFO with a writer");
    writer.join().unwrap().unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "once\n");
    let (back, r, _) = run_within(
        s,
        quick(shell("cat", Some(&input), &out)),
        within,
        &[&input],
    );
    s = back;
    assert!(r.is_err(), "a FIFO whose writer is gone: {r:?}");

    // The keeper serves the next run, FIFOs included.
    ran(s.run(&shell("echo fine", None, &out)), "a plain run after");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "fine\n");
    let reader = {
        let output = output.clone();
        std::thread::spawn(move || std::fs::read_to_string(&output))
    };
    ran(
        s.run(&shell("echo piped", None, &output)),
        "a FIFO read by a thread",
    );
    assert_eq!(reader.join().unwrap().unwrap(), "piped\n");
}

/// At any load a correct program is accepted and a sleeping one is a time limit: the judge's
/// verdicts do not depend on what else the host runs. Eight busy loops per CPU, and beside them
/// a second judge (other sandboxes, pinned to the same CPUs as ours) judging CPU-bound programs
/// without pause: `slow.c` burns 400 ms of CPU per test under a 1 s limit (3 s of wall time)
/// and waits several times that for its CPU; it is accepted every time, never a TLE nor a host
/// fault, and `sleep.c` is still a TLE.
#[test]
fn verdicts_are_the_programs_beside_busy_loops_and_other_judges_sandboxes() {
    use ojd_judge::Problem;
    use std::sync::atomic::{AtomicBool, Ordering};
    require_root!(exclusive);
    let verify = Problem::load(&crate::common::testdata("verify")).expect("the fixture loads");
    let aplusb = Problem::load(&crate::common::testdata("aplusb")).expect("the fixture loads");
    let j = crate::common::judge(2);
    let slow = crate::common::submission(
        &j,
        &crate::common::testdata("verify/submissions/accepted/slow.c"),
    );
    let sleep = crate::common::submission(
        &j,
        &crate::common::testdata("aplusb/submissions/time_limit_exceeded/sleep.c"),
    );
    let never = AtomicBool::new(false);
    let stop = AtomicBool::new(false);
    let hogs = Hogs::per_cpu(8);
    let got = std::thread::scope(|scope| {
        let neighbour = scope.spawn(|| {
            let other = crate::common::judge(2);
            let spin = crate::common::submission(
                &other,
                &crate::common::testdata("verify/submissions/time_limit_exceeded/spin_on_many.c"),
            );
            let mut judged = 0;
            while !stop.load(Ordering::Relaxed) {
                let _ = other.judge(&verify, &spin, &mut |_| {}, &never);
                judged += 1;
            }
            judged
        });
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(("slow.c", j.judge(&verify, &slow, &mut |_| {}, &never)));
        }
        got.push(("sleep.c", j.judge(&aplusb, &sleep, &mut |_| {}, &never)));
        stop.store(true, Ordering::Relaxed);
        let judged = neighbour.join().expect("the neighbour judge");
        assert!(judged > 0, "the neighbour judged nothing");
        got
    });
    drop(hogs);
    crate::host_load::assert_deserved(got, "sleep.c");
}

/// A program starts as an exec'd program expects: nothing ignored, caught or blocked that the
/// keeper ignores or handles (Rust ignores SIGPIPE; the keeper catches SIGALRM). Init gives every
/// signal its default action once, as a waiting spare, and the program inherits that from it,
/// run after run.
#[test]
fn a_program_starts_with_no_signal_ignored_caught_or_blocked() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut s = keeper(scratch.path(), 82000);
    let out = scratch.path().join("status");
    let mut spec = shell("", None, &out);
    spec.argv = vec!["/bin/cat".into(), "/proc/self/status".into()];
    for run in 0..3 {
        ran(s.run(&spec), "cat /proc/self/status");
        let status = std::fs::read_to_string(&out).unwrap();
        for key in ["SigIgn", "SigCgt", "SigBlk"] {
            let line = status
                .lines()
                .find(|l| l.starts_with(&format!("{key}:")))
                .unwrap_or_else(|| panic!("run {run}: no {key} in {status}"));
            let mask = line[key.len() + 1..].trim();
            assert!(
                mask.chars().all(|c| c == '0'),
                "run {run}: {key} is {mask}, not empty"
            );
        }
    }
}

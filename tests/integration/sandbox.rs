//! The sandbox's own API (`ojd_sandbox::Sandbox`) used directly, without the judge: what a caller
//! of `Sandbox::run` may rely on from one run to the next of the same keeper.

use std::path::Path;
use std::time::Duration;

use ojd_sandbox::{Limits, RunOutcome, RunSpec, Sandbox, SandboxOptions};

/// A keeper of the built `ojd` whose programs run as uids `base..base + 1000`.
fn keeper(scratch: &Path, base: u32) -> Sandbox {
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
fn shell(script: &str, stdin: Option<&Path>, stdout: &Path) -> RunSpec {
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

/// Busy loops on every CPU of the machine, three per CPU, stopped when dropped.
struct Hogs(Vec<std::process::Child>);

impl Hogs {
    fn start() -> Hogs {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        Hogs(
            (0..3 * n)
                .map(|_| {
                    std::process::Command::new("/bin/sh")
                        .args(["-c", "while :; do :; done"])
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

/// A wall-time kill says whose time ran out. A CPU-bound program on a CPU that other processes
/// keep busy gets a fraction of it and reaches its wall-time limit far from its CPU limit: that
/// is the host's load (`host_starved`, a host fault for the judge), never a time limit verdict.
/// A program that sleeps under the very same load is the program's own doing.
#[test]
fn a_wall_time_kill_tells_the_hosts_load_from_the_programs_waiting() {
    require_root!(exclusive);
    let scratch = tempfile::tempdir().unwrap();
    let mut s = keeper(scratch.path(), 81000);
    let out = scratch.path().join("out");
    let mut spec = |script: &str| {
        let mut spec = shell(script, None, &out);
        spec.limits.cpu = Duration::from_secs(5);
        spec.limits.wall = Duration::from_secs(1);
        s.run(&spec).expect("the run works")
    };
    // Quiet or not, a sleeping program's wall-time kill is its own.
    let asleep = spec("exec sleep 30");
    assert_eq!(asleep.killed_by, Some(ojd_sandbox::LimitKind::Wall));
    assert!(!asleep.host_starved(), "{asleep:?}");

    let hogs = Hogs::start();
    let starved = spec("while :; do :; done");
    let asleep = spec("exec sleep 30");
    drop(hogs);
    eprintln!("starved: {starved:?}\nasleep: {asleep:?}");
    assert_eq!(starved.killed_by, Some(ojd_sandbox::LimitKind::Wall));
    assert!(
        starved.cpu_time < Duration::from_millis(700),
        "the busy loops should take most of the CPU: {starved:?}"
    );
    let w = starved
        .wall_kill
        .expect("a wall-time kill says what it saw");
    assert!(
        w.cpu_wait >= Duration::from_millis(300),
        "the run waited for its CPU: {starved:?}"
    );
    assert!(starved.host_starved(), "{starved:?}");
    assert_eq!(asleep.killed_by, Some(ojd_sandbox::LimitKind::Wall));
    assert!(!asleep.host_starved(), "{asleep:?}");
    assert!(
        asleep.wall_kill.expect("measured").cpu_wait < Duration::from_millis(100),
        "{asleep:?}"
    );
}

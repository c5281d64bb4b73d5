//! The holes of the second hostile audit, one test each: disk filled through stdout, a keeper
//! wedged by a deep tree, runs leaking into the next one (abstract sockets, stdin, /proc), CPU
//! hidden in an unwaited child, and the reduced-isolation mode (refused unless opted in, and
//! still safe for the judge's own files when opted in).

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use super::*;

/// The sum of the blocks the host allocated for a file, in bytes.
fn allocated(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.blocks() * 512)
}

#[test]
fn fallocate_behind_stdout_costs_the_host_no_disk() {
    require_root!();
    let j = judge_at(73000, 1);
    let program = compile(&j, "fallocate_stdout.c");
    let lim = limits(Duration::from_secs(2), 64 * MIB);
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let outcome = j
        .execute(&ProgramRun {
            program: &program,
            args: &[],
            stdin: Some(&testdata("aplusb/tests/sample-1.in")),
            stdout: &out,
            stderr: Some(&err),
            box_files: vec![],
            collect: vec![],
            limits: lim.clone(),
        })
        .expect("a verdict, not a judge error");
    let used = allocated(&out) + allocated(&err);
    let said = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(
        used <= 2 * lim.output + MIB,
        "the host allocated {used} bytes for a {} byte output limit ({outcome:?}): {said}",
        lim.output
    );
    // Refused with an error (not a kill): the program went on and solved the test.
    assert!(!said.contains(": ok"), "fallocate succeeded: {said}");
    assert!(outcome.success(), "{outcome:?}: {said}");
}

/// A copy of aplusb with only its two smallest tests, so a test-1 attack is followed by a run.
pub(super) fn two_test_problem(dir: &Path) -> PathBuf {
    let p = dir.join("aplusb");
    std::fs::create_dir_all(p.join("tests")).unwrap();
    for f in ["problem.toml", "statement.md", "solution.rs"] {
        let _ = std::fs::copy(testdata("aplusb").join(f), p.join(f));
    }
    for (from, to) in [("sample-1", "01"), ("02-many", "02")] {
        for ext in ["in", "ans"] {
            std::fs::copy(
                testdata("aplusb/tests").join(format!("{from}.{ext}")),
                p.join("tests").join(format!("{to}.{ext}")),
            )
            .unwrap();
        }
    }
    p
}

#[test]
fn a_deep_tree_in_tmp_does_not_wedge_the_next_run() {
    require_root!();
    let dir = tempfile::tempdir().unwrap();
    let problem = two_test_problem(dir.path());
    // As the audit ran it: `ojd judge` under the common descriptor limit of 1024.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 1024 && exec \"$0\" judge --json \"$1\" \"$2\"")
        .arg(env!("CARGO_BIN_EXE_ojd"))
        .arg(&problem)
        .arg(hostile("deep_tree.c"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "AC", "{v:#}");
    assert_eq!(v["tests"].as_array().map(Vec::len), Some(2), "{v:#}");
}

#[test]
fn wedging_submissions_on_every_worker_then_a_correct_one_is_accepted() {
    require_root!();
    let site = crate::daemon::Site::new("");
    let daemon = site.start();
    // The common descriptor limit, for the daemon and the keepers it has and will start.
    let mut pids = vec![daemon.pid()];
    for task in std::fs::read_dir(format!("/proc/{}/task", daemon.pid()))
        .unwrap()
        .flatten()
    {
        let kids = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        pids.extend(
            kids.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    for pid in pids {
        let lim = libc::rlimit {
            rlim_cur: 1024,
            rlim_max: 1024,
        };
        // SAFETY: prlimit on a live process with a valid struct; no old value is read.
        unsafe { libc::prlimit(pid, libc::RLIMIT_NOFILE, &lim, std::ptr::null_mut()) };
    }
    let workers = 2;
    let wedges: Vec<i64> = (0..workers)
        .map(|_| daemon.submit_file(crate::daemon::ALICE, &hostile("deep_tree.c")))
        .collect();
    for id in wedges {
        let s = daemon.wait_done(id, crate::daemon::ALICE, Duration::from_secs(120));
        assert_eq!(s["verdict"], "AC", "the tree builder itself: {s:#}");
    }
    let ok = daemon.submit_file(
        crate::daemon::ALICE,
        &testdata("aplusb/submissions/accepted/ac.c"),
    );
    let s = daemon.wait_done(ok, crate::daemon::ALICE, Duration::from_secs(120));
    assert_eq!(s["verdict"], "AC", "{s:#}\nlog:\n{}", daemon.log());
    daemon.terminate(Duration::from_secs(20));
}

#[test]
fn a_keeper_that_reports_a_failure_is_replaced() {
    require_root!();
    use ojd_sandbox::{RunSpec, SandboxOptions, SandboxPool};
    let scratch = tempfile::tempdir().unwrap();
    let mut opts = SandboxOptions::new(scratch.path().to_path_buf());
    opts.keeper_exe = env!("CARGO_BIN_EXE_ojd").into();
    opts.uid_base = 62000;
    let pool = SandboxPool::new(opts, 1);
    let spec = |box_files| RunSpec {
        argv: vec!["/bin/true".into()],
        env: vec![],
        box_files,
        collect: vec![],
        binds: vec![],
        stdin: None,
        stdout: scratch.path().join("out"),
        stderr: None,
        limits: limits(Duration::from_secs(1), 64 * MIB),
    };
    let mut s = pool.get().unwrap();
    let first = s.keeper_pid().unwrap();
    // The keeper cannot copy a file that does not exist: an internal failure, not a verdict.
    let missing = vec![(scratch.path().join("no-such-file"), "input".to_string())];
    let e = s.run(&spec(missing)).unwrap_err();
    assert!(e.to_string().contains("no-such-file"), "{e}");
    drop(s);
    let mut s = pool.get().unwrap();
    assert_ne!(s.keeper_pid(), Some(first), "the failed keeper was reused");
    assert!(s.run(&spec(vec![])).unwrap().success());
}

#[test]
fn an_abstract_socket_left_by_one_run_is_unreachable_from_the_next() {
    require_root!();
    let j = judge_at(74000, 1);
    let program = compile(&j, "abstract_leak.c");
    let lim = limits(Duration::from_secs(1), 64 * MIB);
    let name = unique_name();
    let r = run(&j, &program, &["plant".into(), name.clone()], None, &lim);
    assert!(
        r.stdout.starts_with("planted 0 0"),
        "{}: {}",
        r.stdout,
        r.message
    );
    // Without the attack's own socket gone, a probe in the same run would connect: the probe
    // of the next run (same keeper) must not.
    let r = run(&j, &program, &["probe".into(), name.clone()], None, &lim);
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    assert!(r.stdout.starts_with("refused"), "{}", r.stdout);
}

#[test]
fn stdin_is_a_private_copy_the_program_cannot_write() {
    require_root!();
    let j = judge_at(75000, 1);
    let program = compile(&j, "stdin_attack.c");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("01.in");
    std::fs::copy(testdata("aplusb/tests/sample-1.in"), &input).unwrap();
    std::fs::copy(
        testdata("aplusb/tests/sample-1.ans"),
        dir.path().join("01.ans"),
    )
    .unwrap();
    // World-writable, as inputs unpacked by a careless tool are.
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o666)).unwrap();
    let before = std::fs::read(&input).unwrap();
    let r = run(
        &j,
        &program,
        &[],
        Some(&input),
        &limits(Duration::from_secs(1), 64 * MIB),
    );
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "stdin rewrote the input: {}",
        r.stderr
    );
    assert!(!r.stderr.contains("rewrote stdin: 6"), "{}", r.stderr);
    assert!(
        !r.stderr.contains(&*dir.path().to_string_lossy()),
        "{}",
        r.stderr
    );
}

#[test]
fn cpu_time_of_an_unwaited_child_is_counted() {
    require_root!(exclusive);
    let j = judge_at(67000, 1);
    let program = compile(&j, "hidden_cpu.c");
    let r = run(
        &j,
        &program,
        &[],
        Some(&testdata("aplusb/tests/sample-1.in")),
        &limits(Duration::from_secs(3), 64 * MIB),
    );
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    assert!(
        r.outcome.cpu_time >= Duration::from_millis(750),
        "the child's 0.8 s were not counted: {:?}",
        r.outcome.cpu_time
    );
    // And under a 0.5 s limit, the same program is TLE.
    let r = run(
        &j,
        &program,
        &[],
        Some(&testdata("aplusb/tests/sample-1.in")),
        &limits(Duration::from_millis(500), 64 * MIB),
    );
    assert_eq!(r.verdict, Verdict::TimeLimitExceeded, "{:?}", r.outcome);
}

#[test]
fn proc_is_the_runs_own_and_shows_no_host_path() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut config = Config::defaults();
    config.sandbox.uid_base = 68000;
    config.sandbox.scratch = scratch.path().to_path_buf();
    let j = common::judge_with(config, 1);
    let program = compile(&j, "proc_view.c");
    // As a test's run gets it: stdin from a problem's folder, a file of it copied into the box.
    let input = hostile("problem").join("tests/01-secret.in");
    let r = run_boxed(
        &j,
        &program,
        &[],
        Some(&input),
        vec![(input.clone(), "given".into())],
        &limits(Duration::from_secs(1), 64 * MIB),
    );
    let own = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("GETPID "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    let listed: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("PROC "))
        .collect();
    assert_eq!(
        listed,
        vec![own],
        "/proc must list the program alone:\n{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("SELF {own}")),
        "/proc/self is not the program:\n{}",
        r.stdout
    );
    let cmdline: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("/proc/cmdline: "))
        .collect();
    assert!(
        cmdline.is_empty(),
        "the kernel's command line is visible: {cmdline:?}"
    );
    // No host path of the judge's folders: the scratch folder (keepers' roots, outputs), the
    // compile cache and the program's folder in it (bound at /prog: a bind shows its source
    // folder), the problem's folder and the repository it is in.
    let repo = env!("CARGO_MANIFEST_DIR").to_string();
    let hosts = [
        scratch.path().to_string_lossy().to_string(),
        program.dir.to_string_lossy().to_string(),
        input.parent().unwrap().to_string_lossy().to_string(),
        repo.clone(),
        std::env::temp_dir()
            .join(".tmp")
            .to_string_lossy()
            .to_string(),
    ];
    for line in r.stdout.lines() {
        for host in &hosts {
            assert!(
                !line.contains(host.as_str()),
                "a host path ({host}) is visible: {line}"
            );
        }
    }
    assert!(
        r.stdout.lines().any(|l| l.contains(" /prog ro,")),
        "no /prog in the mount table:\n{}",
        r.stdout
    );
    assert!(r.stdout.contains("/proc/self/mountinfo: "), "{}", r.stdout);
}

#[test]
fn socketpair_of_a_network_family_is_a_forbidden_call() {
    require_root!();
    let j = judge_at(69000, 1);
    let program = compile(&j, "socketpair_inet.c");
    let r = run(
        &j,
        &program,
        &[],
        None,
        &limits(Duration::from_secs(1), 64 * MIB),
    );
    assert_forbidden("socketpair_inet.c", r.verdict, &r.message, "socketpair");
    assert!(!r.stdout.contains("returned"), "{}", r.stdout);
}

#[test]
fn memory_is_never_read_as_zero_for_a_program_that_ran() {
    require_root!();
    let j = judge_at(70000, 1);
    let small = j
        .compile(&common::submission(
            &j,
            &testdata("aplusb/submissions/accepted/ac.cpp"),
        ))
        .unwrap()
        .into_result()
        .unwrap();
    let filler = compile(&j, "deep_tree.c");
    let input = testdata("aplusb/tests/sample-1.in");
    let lim = limits(Duration::from_secs(2), 64 * MIB);
    // Runs that leave memory to free (a tree in /tmp) alternate with tiny ones, as on a page
    // whose 18th test read 0 KiB.
    for i in 0..20 {
        let p = if i % 3 == 0 { &filler } else { &small };
        let r = run(&j, p, &[], Some(&input), &lim);
        assert_eq!(r.verdict, Verdict::Accepted, "run {i}: {}", r.message);
        assert!(
            r.outcome.peak_memory >= 256 * 1024,
            "run {i}: a C++ program that ran read {} bytes",
            r.outcome.peak_memory
        );
    }
}

#[test]
fn a_large_executable_is_stored_whole_and_the_cache_is_bounded() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut config = Config::defaults();
    config.sandbox.uid_base = 76000;
    config.sandbox.scratch = scratch.path().to_path_buf();
    // Smaller than the big program itself: every store evicts what it can.
    config.judge.cache_size = ojd_judge::parse_bytes("1MiB").unwrap();
    let j = common::judge_with(config, 1);
    let report = judge(&j, &aplusb(), &hostile("big_table.c"));
    assert_eq!(report.verdict, Verdict::Accepted, "{report:#?}");
    let big = compile(&j, "big_table.c");
    let size = std::fs::metadata(big.dir.join("main")).unwrap().len();
    assert!(size > 9 * MIB, "the cached executable has {size} bytes");

    // Bigger than the whole cache: used once and never cached, so the bound holds at every
    // moment; it is removed after its last use.
    let programs = j.cache_dir().join("programs");
    assert!(
        !big.dir.starts_with(&programs),
        "a program bigger than the cache was cached: {}",
        big.dir.display()
    );
    assert!(
        tree_size(&programs) <= MIB,
        "the cache holds {} bytes past its 1 MiB bound",
        tree_size(&programs)
    );
    let big_dir = big.dir.clone();
    drop(big);
    assert!(
        !big_dir.exists(),
        "an uncached program outlived its last use"
    );
    // A program that fits is cached.
    let small = compile(&j, "sleeper.c");
    assert!(small.dir.starts_with(&programs) && small.dir.join("main").is_file());
    // An uncached program is simply compiled again.
    let again = compile(&j, "big_table.c");
    assert_eq!(
        std::fs::metadata(again.dir.join("main")).unwrap().len(),
        size
    );
}

/// Bytes of the files under `dir` (0 when it does not exist).
fn tree_size(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => tree_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

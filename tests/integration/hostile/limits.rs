//! Resource attacks: fork and memory bombs, output floods, spinning threads, and the accounting
//! that must stay right around them (deep recursion, /dev/urandom, big mappings, the run after an
//! MLE).

use super::*;

#[test]
fn fork_bomb_stays_under_the_process_limit_and_leaves_nothing() {
    require_root!();
    let j = judge_at(48000, 1);
    let program = compile(&j, "forkbomb.c");
    let r = run(
        &j,
        &program,
        &[],
        None,
        &limits(Duration::from_secs(1), 64 * MIB),
    );
    assert!(
        // 64 processes' kernel memory can reach a 64 MiB limit first: MLE is a verdict too.
        matches!(
            r.verdict,
            Verdict::TimeLimitExceeded | Verdict::RuntimeError | Verdict::MemoryLimitExceeded
        ),
        "{:?}: {}",
        r.verdict,
        r.message
    );
    let forked: u32 = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("forked "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count printed: {:?}", r.stdout));
    assert!(
        (1..64).contains(&forked),
        "{forked} children alive at once under a limit of 64"
    );
    assert_eq!(
        processes_of(48000),
        Vec::<String>::new(),
        "processes left behind"
    );
    // The keeper that ran the bomb still judges.
    let r = judge(&j, &aplusb(), &testdata("aplusb/submissions/accepted/ac.c"));
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
}

#[test]
fn memory_bombs_are_mle_and_the_next_run_starts_clean() {
    require_root!();
    let j = judge_at(49000, 1);
    let lim = limits(Duration::from_secs(2), 128 * MIB);
    let bomb = compile(&j, "memory_bomb.c");
    let touch = j
        .compile(&common::submission(&j, &testdata("programs/touch100m.c")))
        .unwrap()
        .into_result()
        .unwrap();
    let small = j
        .compile(&common::submission(
            &j,
            &testdata("aplusb/submissions/accepted/ac.c"),
        ))
        .unwrap()
        .into_result()
        .unwrap();
    let sample = testdata("aplusb/tests/sample-1.in");

    let r = run(&j, &bomb, &[], None, &lim);
    assert_eq!(r.verdict, Verdict::MemoryLimitExceeded, "{}", r.message);
    assert_eq!(r.outcome.killed_by, Some(LimitKind::Memory));
    assert!(
        r.outcome.peak_memory <= lim.memory + 4 * MIB,
        "peak {} over the limit",
        r.outcome.peak_memory
    );
    // The same keeper, right after the OOM: no stale OOM flag, no memory carried over.
    let r = run(&j, &touch, &[], None, &lim);
    assert_eq!(r.verdict, Verdict::Accepted, "after an MLE: {}", r.message);
    let peak = r.outcome.peak_memory;
    assert!(
        (100 * MIB..120 * MIB).contains(&peak),
        "touch100m peak {peak}"
    );
    let r = run(&j, &small, &[], Some(&sample), &lim);
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    assert!(
        r.outcome.peak_memory < 16 * MIB,
        "a tiny program measured at {} bytes after a bomb",
        r.outcome.peak_memory
    );

    // Four processes of 24 MiB under 64 MiB: the parent exits 0, the OOM event decides.
    let split = compile(&j, "memory_split.c");
    let r = run(
        &j,
        &split,
        &[],
        None,
        &limits(Duration::from_secs(2), 64 * MIB),
    );
    assert_eq!(
        r.verdict,
        Verdict::MemoryLimitExceeded,
        "{}: {:?}",
        r.message,
        r.outcome
    );
    assert_eq!(r.stdout.trim(), "survived", "the parent exited on its own");
    assert_eq!(r.outcome.termination, ojd_sandbox::Termination::Exited(0));
    let r = run(&j, &small, &[], Some(&sample), &lim);
    assert_eq!(
        r.verdict,
        Verdict::Accepted,
        "after a split bomb: {}",
        r.message
    );
    assert_eq!(
        processes_of(49000),
        Vec::<String>::new(),
        "processes left behind"
    );
}

fn flood(fixture: &str, base: u32) {
    let j = judge_at(base, 1);
    let program = compile(&j, fixture);
    let lim = limits(Duration::from_secs(1), 64 * MIB);
    let r = run(&j, &program, &[], None, &lim);
    assert_eq!(r.verdict, Verdict::OutputLimitExceeded, "{}", r.message);
    assert_eq!(r.outcome.killed_by, Some(LimitKind::Output));
    // RLIMIT_FSIZE is output + 1 bytes per file: nothing larger reaches the host's disk.
    for (name, len) in [("stdout", r.stdout_len), ("stderr", r.stderr_len)] {
        assert!(len <= lim.output + 1, "{name} file grew to {len} bytes");
    }
    assert!(
        r.outcome.wall_time < lim.wall / 2,
        "stopped after {:?}: by the supervisor, not the wall clock",
        r.outcome.wall_time
    );
    assert_eq!(processes_of(base), Vec::<String>::new());
}

#[test]
fn stdout_flood_is_ole_and_bounded_on_disk() {
    require_root!();
    flood("flood_stdout.c", 50000);
}

#[test]
fn stderr_flood_is_ole_and_bounded_on_disk() {
    require_root!();
    flood("flood_stderr.c", 51000);
}

#[test]
fn thread_spinners_are_tle_on_cpu_time_promptly() {
    require_root!(exclusive);
    let j = judge_at(61000, 1);
    let program = compile(&j, "thread_spinners.c");
    let mut lim = limits(Duration::from_secs(1), 64 * MIB);
    // A wall limit no load reaches: on a machine with a load of 25 on 2 cores the four threads
    // get about a quarter of a CPU, so 1 s of CPU takes about 4 s of wall time. Promptness is
    // asserted in CPU time instead (the overshoot below), which load does not stretch: the
    // threads and the keeper that stops them are slowed alike.
    lim.wall = Duration::from_secs(60);
    let r = run(&j, &program, &[], None, &lim);
    assert_eq!(r.verdict, Verdict::TimeLimitExceeded, "{}", r.message);
    // Decided on CPU time, never on the wall limit.
    assert_eq!(r.outcome.killed_by, Some(LimitKind::Cpu), "{:?}", r.outcome);
    let (cpu, wall) = (r.outcome.cpu_time, r.outcome.wall_time);
    eprintln!("4 spinning threads: {cpu:?} CPU in {wall:?} wall");
    assert!(cpu >= lim.cpu, "stopped at {cpu:?} of CPU");
    // Prompt: within 250 ms of CPU past the limit. A per-thread count (RLIMIT_CPU, or a poll
    // that waits for the CPU limit in wall time) would let the four threads reach about 4 s.
    assert!(
        cpu <= lim.cpu + Duration::from_millis(250),
        "overshot to {cpu:?}"
    );
}

#[test]
fn deep_recursion_within_the_memory_limit_is_accepted() {
    require_root!();
    let j = judge_at(63000, 1);
    let lim = limits(Duration::from_secs(3), 256 * MIB);
    for name in ["deep_recursion.c", "deep_recursion.rs"] {
        let program = compile(&j, name);
        let r = run(&j, &program, &[], None, &lim);
        assert_eq!(
            r.verdict,
            Verdict::Accepted,
            "{name}: {} {}",
            r.message,
            r.stderr
        );
        assert_eq!(r.stdout.trim(), "500000", "{name}");
        // About 100 MiB of stack was really used: the recursion was not optimized away.
        assert!(
            r.outcome.peak_memory > 64 * MIB,
            "{name}: peak {}",
            r.outcome.peak_memory
        );
    }
}

#[test]
fn urandom_and_big_mappings_are_accounted_correctly() {
    require_root!();
    let j = judge_at(64000, 1);
    let small = j
        .compile(&common::submission(
            &j,
            &testdata("aplusb/submissions/accepted/ac.c"),
        ))
        .unwrap()
        .into_result()
        .unwrap();
    let sample = testdata("aplusb/tests/sample-1.in");

    let program = compile(&j, "urandom_reader.c");
    let r = run(
        &j,
        &program,
        &[],
        None,
        &limits(Duration::from_secs(2), 256 * MIB),
    );
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    let peak = r.outcome.peak_memory;
    assert!(
        // Within 5% below (the cgroup charges in per-CPU batches and the keeper's baseline is
        // subtracted), and no more than the program's own 16 MiB of code and libraries above.
        (46 * MIB..64 * MIB).contains(&peak),
        "48 MiB of urandom measured as {peak}"
    );

    // A file bigger than twice the limit, visible inside: the Rust toolchain's largest library.
    let lim = limits(Duration::from_secs(5), 64 * MIB);
    let big = j
        .languages()
        .get("rust")
        .and_then(|l| l.as_ref().ok())
        .and_then(|l| {
            Path::new(&l.compile[0])
                .parent()?
                .parent()
                .map(|p| p.join("lib"))
        })
        .and_then(|lib| std::fs::read_dir(lib).ok())
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .max_by_key(|e| e.metadata().map_or(0, |m| m.len()))
        .map(|e| (e.path(), e.metadata().unwrap().len()));
    match big {
        Some((path, len)) if len > 2 * lim.memory => {
            let program = compile(&j, "mmap_big.c");
            let args = [path.display().to_string()];
            let r = run(&j, &program, &args, None, &lim);
            assert_eq!(r.verdict, Verdict::Accepted, "{}: {}", r.message, r.stderr);
            assert!(r.stdout.starts_with(&len.to_string()), "{}", r.stdout);
        }
        _ => eprintln!("skipped the mapping part: no file over 128 MiB in the Rust toolchain"),
    }
    let r = run(&j, &small, &[], Some(&sample), &lim);
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    assert!(
        r.outcome.peak_memory < 16 * MIB,
        "a tiny program measured at {} bytes after the page cache of another run",
        r.outcome.peak_memory
    );
}

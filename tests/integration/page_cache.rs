//! What a keeper's run does with the page cache its earlier runs left charged to the keeper's
//! memory cgroup (`ojd_sandbox::EarlierCache`): a test's run reclaims it, so that its memory
//! limit is its own; a compile keeps it, so that the compiler's own files are not read from disk
//! again for every compile.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ojd_sandbox::{Bind, EarlierCache, Limits, RunSpec, Sandbox, SandboxOptions};

const MIB: u64 = 1 << 20;

/// Bytes of `file` in the page cache, as util-linux's `fincore` counts them.
fn resident(file: &Path) -> u64 {
    let out = Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(file)
        .output()
        .expect("fincore (util-linux) runs");
    assert!(out.status.success(), "fincore: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("fincore printed {text:?}: {e}"))
}

fn spec(script: &str, data: &Path, stdout: &Path) -> RunSpec {
    RunSpec {
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        box_files: vec![],
        collect: vec![],
        binds: vec![Bind {
            host: data.to_path_buf(),
            inside: "/data".into(),
            writable: false,
        }],
        stdin: None,
        stdout: stdout.to_path_buf(),
        stderr: None,
        limits: Limits {
            cpu: Duration::from_secs(5),
            wall: Duration::from_secs(30),
            memory: 64 * MIB,
            output: MIB,
            processes: 8,
            file_size: MIB,
        },
    }
}

/// A file of 24 MiB on disk that a run reads, which charges its pages to the keeper's cgroup:
/// a later run that keeps the earlier cache (as a compile does) leaves them in memory, a run
/// that reclaims it (as a test's does) drops them.
#[test]
fn a_compile_keeps_the_cache_earlier_runs_left_and_a_test_reclaims_it() {
    require_root!();
    // On the disk, not in a tmpfs (whose pages are no page cache that reclaim can drop).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let file = data.join("big");
    let mut f = std::fs::File::create(&file).unwrap();
    let chunk: Vec<u8> = (0..MIB).map(|i| (i * 7 + 3) as u8).collect();
    for _ in 0..24 {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    let size = 24 * MIB;

    let mut opts = SandboxOptions::new(dir.path().join("scratch"));
    std::fs::create_dir(&opts.scratch).unwrap();
    opts.keeper_exe = env!("CARGO_BIN_EXE_ojd").into();
    opts.uid_base = 86000;
    let mut keeper = Sandbox::start(&opts).expect("the keeper starts");
    assert!(
        keeper.capabilities().cgroup.is_some(),
        "the keeper has no memory cgroup here: {:?}",
        keeper.capabilities()
    );
    let out = dir.path().join("out");

    // Out of the page cache, so that the run below is the first to read it and its pages are
    // charged to the keeper's cgroup (a page is charged to whoever first reads it).
    let dropped = Command::new("dd")
        .arg(format!("if={}", file.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status()
        .unwrap();
    assert!(dropped.success());
    assert!(
        resident(&file) < size / 10,
        "dd iflag=nocache left {} of {size} bytes cached",
        resident(&file)
    );

    let read = keeper
        .run(&spec("cat /data/big > /dev/null", &data, &out))
        .unwrap();
    assert!(read.success(), "{read:?}");
    assert!(
        resident(&file) > size * 9 / 10,
        "the run read the file, yet only {} of {size} bytes are cached",
        resident(&file)
    );

    // A compile's run: the cache stays.
    let kept = keeper
        .run_with(&spec("true", &data, &out), EarlierCache::Keep)
        .unwrap();
    assert!(kept.success(), "{kept:?}");
    assert!(
        resident(&file) > size * 9 / 10,
        "a run that keeps the earlier cache dropped it: {} of {size} bytes left",
        resident(&file)
    );

    // A test's run: reclaimed first, so that the run's limit is its own.
    let reclaimed = keeper.run(&spec("true", &data, &out)).unwrap();
    assert!(reclaimed.success(), "{reclaimed:?}");
    assert!(
        resident(&file) < size / 10,
        "a run that reclaims the earlier cache left {} of {size} bytes of it",
        resident(&file)
    );
}

/// The kept cache is bounded: past half the run's memory limit it is reclaimed even for a
/// compile, so that a compile's limit grows by at most half.
#[test]
fn a_compile_reclaims_an_earlier_cache_over_half_its_memory_limit() {
    require_root!();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let file = data.join("big");
    let mut f = std::fs::File::create(&file).unwrap();
    let chunk: Vec<u8> = (0..MIB).map(|i| (i * 11 + 5) as u8).collect();
    for _ in 0..40 {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    let size = 40 * MIB;

    let mut opts = SandboxOptions::new(dir.path().join("scratch"));
    std::fs::create_dir(&opts.scratch).unwrap();
    opts.keeper_exe = env!("CARGO_BIN_EXE_ojd").into();
    opts.uid_base = 87000;
    let mut keeper = Sandbox::start(&opts).expect("the keeper starts");
    let out = dir.path().join("out");
    let dropped = Command::new("dd")
        .arg(format!("if={}", file.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status()
        .unwrap();
    assert!(dropped.success());

    // 40 MiB read under a 128 MiB limit, then a "compile" with a 64 MiB limit: 40 > 32.
    let mut first = spec("cat /data/big > /dev/null", &data, &out);
    first.limits.memory = 128 * MIB;
    assert!(keeper.run(&first).unwrap().success());
    assert!(resident(&file) > size * 9 / 10, "{}", resident(&file));
    let kept = keeper
        .run_with(&spec("true", &data, &out), EarlierCache::Keep)
        .unwrap();
    assert!(kept.success(), "{kept:?}");
    assert!(
        resident(&file) < size / 10,
        "an earlier cache of {size} bytes over half a 64 MiB limit was kept: {} left",
        resident(&file)
    );
}

//! What a run's memory means, on cgroup v1 and v2 alike: its peak counts the run's heap, the
//! tmpfs files it writes, the page cache it reads in and every process of it, each within the
//! same stated tolerance, and a run over its limit is a memory limit kill. The bounds are the
//! same on both hierarchies (CI's virtual machine runs these tests on cgroup v2, the build
//! machines on v1), so the two agree within them.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use ojd_sandbox::{Bind, EarlierCache, LimitKind};

use crate::sandbox::{keeper, shell};

const MIB: u64 = 1 << 20;
/// What a run's peak may hold beyond the fixture's own bytes: the shell, dd and cat with their
/// libraries' pages, page tables and kernel stacks (measured: 1–4 MiB).
const TOLERANCE: u64 = 12 * MIB;

/// (name, script, bytes the script itself holds at its peak).
const FIXTURES: [(&str, &str, u64); 4] = [
    // dd's one 40 MiB buffer, filled by read(2).
    (
        "heap",
        "dd if=/dev/zero of=/dev/null bs=40M count=1 status=none",
        40 * MIB,
    ),
    (
        "tmpfs writes",
        "dd if=/dev/zero of=/tmp/x bs=1M count=40 status=none",
        40 * MIB,
    ),
    // A disk file out of the page cache, read in by the run: its pages are the run's.
    ("page cache", "cat /data/big > /dev/null", 40 * MIB),
    (
        "many processes",
        "for i in 1 2 3 4; do dd if=/dev/zero of=/box/f$i bs=1M count=10 status=none & done; wait",
        40 * MIB,
    ),
];

/// Limits that only memory can reach, on a machine of any speed (CI's emulated one is 15-150
/// times slower than this one): these tests are about memory, not time.
fn generous(limits: &mut ojd_sandbox::Limits) {
    limits.cpu = std::time::Duration::from_secs(120);
    limits.wall = std::time::Duration::from_secs(300);
    limits.file_size = 64 * MIB;
}

/// Drops `file` from the page cache, so that the next reader brings it in (and is charged).
fn uncache(file: &Path) {
    let dropped = Command::new("dd")
        .arg(format!("if={}", file.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status()
        .expect("dd runs");
    assert!(dropped.success());
}

#[test]
fn the_peak_counts_heap_tmpfs_page_cache_and_every_process_within_the_tolerance() {
    require_root!();
    // On the disk, not in a tmpfs: its pages are page cache that can be dropped.
    std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let big = dir.path().join("data/big");
    let mut f = std::fs::File::create(&big).unwrap();
    let chunk: Vec<u8> = (0..MIB).map(|i| (i * 13) as u8).collect();
    for _ in 0..40 {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    let mut k = keeper(dir.path(), 88000);
    let caps = k.capabilities().clone();
    assert!(caps.cgroup.is_some(), "no memory cgroup here: {caps:?}");
    for (name, script, bytes) in FIXTURES {
        uncache(&big);
        let mut spec = shell(script, None, &dir.path().join("out"));
        spec.binds = vec![Bind {
            host: dir.path().join("data"),
            inside: "/data".into(),
            writable: false,
            cap: None,
        }];
        generous(&mut spec.limits);
        spec.limits.memory = 128 * MIB;
        let o = k.run_with(&spec, EarlierCache::Reclaim).unwrap();
        assert!(o.success(), "{name}: {o:?} ({:?})", caps.cgroup);
        let peak = o.peak_memory;
        // Shown with --nocapture: the figures to compare between hierarchies.
        eprintln!(
            "{name}: peak {:.2} MiB ({:?})",
            peak as f64 / MIB as f64,
            caps.cgroup
        );
        assert!(
            (bytes..=bytes + TOLERANCE).contains(&peak),
            "{name}: a peak of {:.1} MiB for {} MiB of the fixture's own (tolerance {} MiB, {:?})",
            peak as f64 / MIB as f64,
            bytes / MIB,
            TOLERANCE / MIB,
            caps.cgroup
        );
    }
}

#[test]
fn a_run_over_its_memory_limit_is_killed_for_memory() {
    require_root!();
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(dir.path(), 89000);
    // The heap fixture under a limit below its 40 MiB, and the tmpfs one.
    for script in [FIXTURES[0].1, FIXTURES[1].1] {
        let mut spec = shell(script, None, &dir.path().join("out"));
        generous(&mut spec.limits);
        spec.limits.memory = 24 * MIB;
        let o = k.run_with(&spec, EarlierCache::Reclaim).unwrap();
        assert_eq!(o.killed_by, Some(LimitKind::Memory), "{script}: {o:?}");
    }
}

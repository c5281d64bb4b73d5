//! What a keeper's run does with the page cache its earlier runs left charged to the keeper's
//! memory cgroup (`ojd_sandbox::EarlierCache`): a test's run reclaims it, so that its memory
//! limit is its own; a compile keeps it, so that the compiler's own files are not read from disk
//! again for every compile.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use ojd_sandbox::{Bind, EarlierCache, Sandbox};

use crate::sandbox::{keeper, shell};

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

/// A keeper, and a file of `mib` MiB on disk in a folder bound at `/data`, out of the page
/// cache: the first run that reads it charges its pages to the keeper's cgroup (a page is
/// charged to whoever first reads it).
struct Setup {
    dir: tempfile::TempDir,
    file: std::path::PathBuf,
    size: u64,
    keeper: Sandbox,
}

impl Setup {
    fn new(mib: u64, uid_base: u32) -> Setup {
        // On the disk, not in a tmpfs (whose pages are no page cache that reclaim can drop).
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        let file = dir.path().join("data/big");
        let mut f = std::fs::File::create(&file).unwrap();
        let chunk: Vec<u8> = (0..MIB).map(|i| (i * 7 + uid_base as u64) as u8).collect();
        for _ in 0..mib {
            f.write_all(&chunk).unwrap();
        }
        f.sync_all().unwrap();
        drop(f);
        let keeper = keeper(dir.path(), uid_base);
        assert!(
            keeper.capabilities().cgroup.is_some(),
            "the keeper has no memory cgroup here: {:?}",
            keeper.capabilities()
        );
        let dropped = Command::new("dd")
            .arg(format!("if={}", file.display()))
            .args(["iflag=nocache", "count=0", "status=none"])
            .status()
            .unwrap();
        assert!(dropped.success());
        let size = mib * MIB;
        assert!(
            resident(&file) < size / 10,
            "dd iflag=nocache left {} of {size} bytes cached",
            resident(&file)
        );
        Setup {
            dir,
            file,
            size,
            keeper,
        }
    }

    /// Runs `sh -c script` with a memory limit of `memory_mib`, the earlier cache as `cache`
    /// says; returns the bytes of the file cached after it.
    fn run(&mut self, script: &str, memory_mib: u64, cache: EarlierCache) -> u64 {
        let mut spec = shell(script, None, &self.dir.path().join("out"));
        spec.binds = vec![Bind {
            host: self.dir.path().join("data"),
            inside: "/data".into(),
            writable: false,
            cap: None,
        }];
        spec.limits.memory = memory_mib * MIB;
        // Limits only memory can reach, on a machine of any speed (CI's emulated one included).
        spec.limits.cpu = std::time::Duration::from_secs(120);
        spec.limits.wall = std::time::Duration::from_secs(300);
        let o = self.keeper.run_with(&spec, cache).unwrap();
        assert!(o.success(), "{script}: {o:?}");
        resident(&self.file)
    }
}

/// A run reads a file, which charges its pages to the keeper's cgroup: a later run that keeps
/// the earlier cache (as a compile does) leaves them in memory, a run that reclaims it (as a
/// test's does) drops them.
#[test]
fn a_compile_keeps_the_cache_earlier_runs_left_and_a_test_reclaims_it() {
    require_root!();
    let mut s = Setup::new(24, 86000);
    let size = s.size;
    let read = s.run("cat /data/big > /dev/null", 64, EarlierCache::Reclaim);
    assert!(
        read > size * 9 / 10,
        "the run read the file, yet only {read} of {size} bytes are cached"
    );
    // A compile's run: the cache stays.
    let kept = s.run("true", 64, EarlierCache::Keep);
    assert!(
        kept > size * 9 / 10,
        "a run that keeps the earlier cache dropped it: {kept} of {size} bytes left"
    );
    // A test's run: reclaimed first, so that the run's limit is its own.
    let left = s.run("true", 64, EarlierCache::Reclaim);
    assert!(
        left < size / 10,
        "a run that reclaims the earlier cache left {left} of {size} bytes of it"
    );
}

/// The kept cache is bounded: past half the run's memory limit it is reclaimed even for a
/// compile.
#[test]
fn a_compile_reclaims_an_earlier_cache_over_half_its_memory_limit() {
    require_root!();
    let mut s = Setup::new(40, 87000);
    let size = s.size;
    // 40 MiB read under a 128 MiB limit, then a "compile" with a 64 MiB limit: 40 > 32.
    let read = s.run("cat /data/big > /dev/null", 128, EarlierCache::Reclaim);
    assert!(read > size * 9 / 10, "{read} of {size}");
    let left = s.run("true", 64, EarlierCache::Keep);
    assert!(
        left < size / 10,
        "an earlier cache of {size} bytes over half a 64 MiB limit was kept: {left} left"
    );
}

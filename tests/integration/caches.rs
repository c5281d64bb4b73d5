//! The judge host's caches under a flood: the compile cache's bound holds at every moment while
//! large programs keep arriving, each still judged, and a package cache in the same judge cache
//! folder survives the compile cache's evictions.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ojd_judge::parse_bytes;
use ojd_judge::Config;
use ojd_judge::Problem;
use ojd_judge::Verdict;
use ojd_judge::{Judge, Submission};

use crate::common::{self, testdata};

const MIB: u64 = 1 << 20;

/// An A+B solution in C whose binary carries `mib` MiB of initialised data (distinct per `n`).
fn big_c(n: u32, mib: u64) -> Submission {
    let source = format!(
        "#include <stdio.h>\n\
         static volatile char big[{mib} << 20] = {{ {n} }};\n\
         int main(void) {{ int t; long long a, b; if (scanf(\"%d\", &t) != 1) return 1;\n\
         while (t--) {{ if (scanf(\"%lld %lld\", &a, &b) != 2) return 1;\n\
         printf(\"%lld\\n\", a + b + big[0] - {n}); }} return 0; }}\n"
    );
    Submission {
        language: "c".into(),
        source: source.into_bytes(),
    }
}

/// Bytes of the files under `dir` (0 when it does not exist).
fn size_on_disk(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// A judge whose cache folder is `cache`, with a compile cache of `size` and entries up to `cap`.
fn judge_in(cache: &Path, size: &str, cap: &str) -> Judge {
    let mut config = Config::defaults();
    config.judge.cache = cache.to_path_buf();
    config.judge.cache_size = parse_bytes(size).expect("size");
    config.judge.cache_entry_max = parse_bytes(cap).expect("size");
    common::judge_with(config, 2)
}

/// Watches the size of `dir` until stopped; returns the largest seen.
fn watch(dir: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut most = 0;
        while !stop.load(Ordering::Relaxed) {
            most = most.max(size_on_disk(&dir));
            // A sampling interval, not a wait: the bound must hold at every moment, and a
            // file system has no event for "the folder's size changed", so the folder is
            // measured as often as the machine allows without starving the judge it watches.
            std::thread::sleep(Duration::from_millis(2));
        }
        most.max(size_on_disk(&dir))
    })
}

#[test]
fn the_compile_cache_bound_holds_under_a_flood_of_large_programs() {
    require_root!();
    let cache = tempfile::tempdir().expect("cache");
    let j = Arc::new(judge_in(cache.path(), "20MiB", "12MiB"));
    let problem = Arc::new(Problem::load(&testdata("aplusb")).expect("fixture"));
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = watch(cache.path().to_path_buf(), stop.clone());
    // Two judgings at a time, 6 MiB programs, and one over the per-entry cap.
    let next = Arc::new(AtomicU64::new(0));
    let sizes: Vec<u64> = vec![6, 6, 6, 6, 6, 14, 6, 6, 6, 6];
    let sizes = Arc::new(sizes);
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (j, problem, next, sizes) =
                (j.clone(), problem.clone(), next.clone(), sizes.clone());
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                let Some(&mib) = sizes.get(i) else { break };
                let sub = big_c(i as u32 + 1, mib);
                let r = j
                    .judge(&problem, &sub, &mut |_| {}, &AtomicBool::new(false))
                    .expect("judged");
                assert_eq!(
                    r.verdict,
                    Verdict::Accepted,
                    "program {i} ({mib} MiB): {r:#?}"
                );
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a judging thread panicked");
    }
    stop.store(true, Ordering::Relaxed);
    let most = watcher.join().expect("watcher");
    assert!(
        most <= 20 * MIB,
        "the cache folder held {} MiB, over its 20 MiB bound",
        most as f64 / MIB as f64
    );
    let programs = cache.path().join("programs");
    let kept = std::fs::read_dir(&programs).expect("programs").count();
    assert!((1..=3).contains(&kept), "{kept} programs cached");
    // The same program again: a cache hit or a fresh compile, judged either way.
    let r = j
        .judge(
            &problem,
            &big_c(10, 6),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .expect("judged");
    assert_eq!(r.verdict, Verdict::Accepted);
    assert!(size_on_disk(cache.path()) <= 20 * MIB);
}

#[test]
fn a_package_cache_survives_a_compile_cache_flood() {
    require_root!();
    let cache = tempfile::tempdir().expect("cache");
    // A judge host's package cache beside the compile cache, laid out an hour ago (as by
    // `Cache::problem`: blobs, linked into `packages/<version>/<problem>/`).
    let packages = cache.path().join("packages");
    let version = "ab".repeat(32);
    let folder = packages.join("packages").join(&version).join("aplusb");
    std::fs::create_dir_all(packages.join("blobs")).expect("blobs");
    let source = testdata("aplusb");
    for (rel, data) in ojd_service::package_files(&source).expect("files") {
        let hash = ojd_store::sha256_hex(&data);
        let blob = packages.join("blobs").join(&hash);
        std::fs::write(&blob, &data).expect("blob");
        let dest = folder.join(&rel);
        std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
        std::fs::hard_link(&blob, &dest).expect("link");
    }
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    for d in [
        packages.clone(),
        packages.join("packages"),
        packages.join("blobs"),
    ] {
        let f = std::fs::File::open(&d).expect("open");
        f.set_modified(an_hour_ago).expect("mtime");
    }
    let before = size_on_disk(&packages);
    let db = tempfile::tempdir().expect("db");
    let store =
        ojd_store::open(db.path().join("ojd.sqlite3").to_str().expect("utf-8")).expect("store");
    let host = ojd_service::Cache::new(&packages)
        .expect("cache")
        .with_budget(1 << 30);
    let problem = host
        .problem(store.as_ref(), "aplusb", Some(&version))
        .expect("the laid-out package loads");
    // A compile cache of 8 MiB in the same judge cache folder, flooded with 5 MiB programs.
    let j = judge_in(cache.path(), "8MiB", "8MiB");
    for n in 1..=4 {
        let r = j
            .judge(&problem, &big_c(n, 5), &mut |_| {}, &AtomicBool::new(false))
            .expect("judged");
        assert_eq!(r.verdict, Verdict::Accepted, "program {n}: {r:#?}");
    }
    assert!(
        folder.join("problem.toml").is_file(),
        "the package is still there"
    );
    assert_eq!(
        size_on_disk(&packages),
        before,
        "no file of the package cache was removed"
    );
    assert!(size_on_disk(&cache.path().join("programs")) <= 8 * MIB);
    // Later judgings on this host still find the package.
    let again = host
        .problem(store.as_ref(), "aplusb", Some(&version))
        .expect("still loads");
    let r = j
        .judge(&again, &big_c(9, 1), &mut |_| {}, &AtomicBool::new(false))
        .expect("judged");
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
}

//! A host's failure is never a student's verdict: accepted programs judged with the judge's
//! scratch on a small tmpfs that is full, or that fills up while they write, end in a host
//! fault (`ojd judge` exit 3), never WA, RE, OLE or CE.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use ojd_judge::Config;
use ojd_judge::JudgeReport;
use ojd_judge::Problem;
use ojd_judge::{free_space, Judge, JudgeError, Submission};

use crate::common;

/// A tmpfs of `size` mounted on a folder, unmounted when dropped.
struct Tmpfs {
    dir: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl Tmpfs {
    /// On a fresh temporary folder.
    fn mount(size: &str) -> Tmpfs {
        let temp = tempfile::tempdir().expect("tempdir");
        let mut fs = Tmpfs::mount_on(temp.path(), size);
        fs._temp = Some(temp);
        fs
    }

    fn mount_on(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).expect("mount point");
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(dir)
            .status()
            .expect("run mount");
        assert!(ok.success(), "mount a tmpfs on {}", dir.display());
        Tmpfs {
            dir: dir.to_path_buf(),
            _temp: None,
        }
    }

    fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes a filler file so that about `leave` bytes stay free (0: until the disk is full).
    fn fill(&self, name: &str, leave: u64) {
        use std::io::Write;
        let free = free_space(self.path()).expect("statvfs");
        let mut f = std::fs::File::create(self.path().join(name)).expect("filler");
        let mut left = if leave == 0 {
            u64::MAX
        } else {
            free.saturating_sub(leave)
        };
        let chunk = vec![b'x'; 64 << 10];
        while left > 0 {
            let n = (chunk.len() as u64).min(left) as usize;
            match f.write(&chunk[..n]) {
                Ok(0) | Err(_) => break,
                Ok(w) => left -= w as u64,
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// A problem whose one test's answer is its input, `lines` lines of text (about 12 bytes each).
fn echo_problem(dir: &Path, lines: usize) -> PathBuf {
    let p = dir.join("echo");
    std::fs::create_dir_all(p.join("tests")).expect("problem folder");
    std::fs::write(
        p.join("problem.toml"),
        "title = \"Echo\"\ntime_limit = \"5s\"\nmemory_limit = \"256MiB\"\noutput_limit = \"64MiB\"\n\
         solution = \"solution.cpp\"\nanswers = \"given\"\n",
    )
    .expect("problem.toml");
    std::fs::write(p.join("solution.cpp"), ECHO_CPP).expect("solution");
    let text: String = (0..lines).map(|i| format!("line {i:06}\n")).collect();
    std::fs::write(p.join("tests/1.in"), &text).expect("input");
    std::fs::write(p.join("tests/1.ans"), &text).expect("answer");
    p
}

const ECHO_CPP: &str = "#include <iostream>\n#include <string>\nint main(){std::ios::sync_with_stdio(false);std::string s;while(std::getline(std::cin,s))std::cout<<s<<'\\n';}\n";
const ECHO_RS: &str = "use std::io::{BufRead, Write};\nfn main(){let o=std::io::stdout();let mut o=std::io::BufWriter::new(o.lock());for l in std::io::stdin().lock().lines(){writeln!(o,\"{}\",l.unwrap()).unwrap();}}\n";

fn judge_on(scratch: &Path) -> Judge {
    let mut config = Config::defaults();
    config.sandbox.scratch = scratch.to_path_buf();
    common::judge_with(config, 1)
}

fn judged(
    j: &Judge,
    problem: &Path,
    language: &str,
    source: &str,
) -> Result<JudgeReport, JudgeError> {
    let p = Problem::load(problem).expect("problem loads");
    let sub = Submission {
        language: language.into(),
        source: source.as_bytes().to_vec(),
    };
    j.judge(&p, &sub, &mut |_| {}, &AtomicBool::new(false))
}

/// What a judging that must be a host fault gave instead, if anything else.
fn expect_host_fault(what: &str, got: Result<JudgeReport, JudgeError>) {
    match got {
        Err(e) => assert!(
            e.is_host_fault() && e.errno() == Some(libc::ENOSPC),
            "{what}: a host fault with ENOSPC, got {e:?}"
        ),
        Ok(r) => panic!(
            "{what}: a host fault, not the verdict {:?} ({:?})",
            r.verdict,
            r.tests.iter().map(|t| &t.message).collect::<Vec<_>>()
        ),
    }
}

#[test]
fn a_full_or_filling_scratch_is_a_host_fault_never_a_verdict() {
    require_root!();
    let fs = Tmpfs::mount("48m");
    let scratch = fs.path().join("scratch");
    let data = tempfile::tempdir().expect("tempdir");
    // About 3.3 MiB of output: more than the 2 MiB left free below.
    let problem = echo_problem(data.path(), 300_000);
    let j = judge_on(&scratch);
    let languages = [("cpp", ECHO_CPP), ("rust", ECHO_RS)];
    // With room, both are accepted (and their programs are now in the cache).
    for (lang, src) in languages {
        let r = judged(&j, &problem, lang, src).expect("judges");
        assert_eq!(r.verdict, ojd_judge::Verdict::Accepted, "{lang}: {r:#?}");
    }
    // The disk fills up while the program writes its output: 2 MiB free, 3.3 MiB written.
    fs.fill("filler-1", 2 << 20);
    for (lang, src) in languages {
        expect_host_fault(
            &format!("{lang} on a filling scratch"),
            judged(&j, &problem, lang, src),
        );
    }
    // A full disk: nothing runs.
    fs.fill("filler-2", 0);
    assert!(free_space(fs.path()).expect("statvfs") < 64 << 10);
    for (lang, src) in languages {
        expect_host_fault(
            &format!("{lang} on a full scratch"),
            judged(&j, &problem, lang, src),
        );
    }
    // The host's check before claiming says so too.
    assert!(j.host_check(0).is_err_and(|e| e.is_host_fault()));
    // The command line: exit 3, "the judge failed", never a verdict.
    let config = data.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[sandbox]\nscratch = {:?}\n", scratch.display().to_string()),
    )
    .expect("config");
    let source = data.path().join("echo.cpp");
    std::fs::write(&source, ECHO_CPP).expect("source");
    let out: common::Run = common::ojd()
        .arg("--config")
        .arg(&config)
        .arg("judge")
        .arg(&problem)
        .arg(&source)
        .output()
        .expect("run ojd judge")
        .into();
    assert_eq!(
        out.code, 3,
        "ojd judge on a full scratch: {}{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stderr.starts_with("error: ") && !out.stdout.contains("WA"),
        "one error, no verdict: {}{}",
        out.stdout,
        out.stderr
    );
    // Room again: judged as before, and nothing of the failed judgings was left behind.
    std::fs::remove_file(fs.path().join("filler-1")).expect("remove filler");
    std::fs::remove_file(fs.path().join("filler-2")).expect("remove filler");
    j.host_check(1 << 20).expect("healthy again");
    let r = judged(&j, &problem, "cpp", ECHO_CPP).expect("judges");
    assert_eq!(r.verdict, ojd_judge::Verdict::Accepted, "{r:#?}");
    drop(j);
}

/// The first host of `/api/v1/admin/hosts`.
fn first_host(d: &crate::daemon::Daemon) -> serde_json::Value {
    let (code, body) = d.get("/api/v1/admin/hosts", Some(crate::daemon::ADMIN));
    assert_eq!(code, 200, "{body}");
    body["hosts"][0].clone()
}

/// The host's own statistics in `/api/v1/admin/hosts` (the first host).
fn host_stats(d: &crate::daemon::Daemon) -> serde_json::Value {
    first_host(d)["stats"].clone()
}

/// Polls `what` until it holds or `timeout` passes.
fn eventually(timeout: std::time::Duration, mut what: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        if what() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    what()
}

#[test]
fn a_daemon_whose_disk_fills_requeues_pauses_and_judges_once_it_has_room() {
    require_root!();
    use std::time::Duration;
    let site = crate::daemon::Site::new("[judge]\nmin_free_space = \"1MiB\"");
    let fs = Tmpfs::mount_on(&site.path().join("scratch"), "48m");
    let problem = echo_problem(&site.path().join("problems"), 300_000);
    let d = site.start();
    let source = site.path().join("echo.cpp");
    std::fs::write(&source, ECHO_CPP).expect("source");
    let submit = || {
        let (code, body) = d.post_json(
            "/api/v1/submissions",
            Some(crate::daemon::ALICE),
            &serde_json::json!({ "problem": "echo", "filename": "echo.cpp", "source": ECHO_CPP }),
        );
        assert_eq!(code, 201, "{body}");
        body["id"].as_i64().expect("an id")
    };
    // With room: accepted.
    let first = submit();
    let done = d.wait_done(first, crate::daemon::ALICE, Duration::from_secs(60));
    assert_eq!(done["verdict"], "AC", "{done}");
    // The disk fills up while the program writes (2 MiB free, 3.3 MiB written): the judging is
    // a host fault, the submission goes back to the queue, the host pauses.
    fs.fill("filler", 2 << 20);
    let second = submit();
    assert!(
        eventually(Duration::from_secs(30), || host_stats(&d)["host_faults"]
            .as_u64()
            .is_some_and(|n| n >= 1)),
        "a host fault is counted: {}\nlog:\n{}",
        host_stats(&d),
        d.log()
    );
    // Never a verdict while the disk stays this full.
    std::thread::sleep(Duration::from_secs(4));
    let (_, body) = d.get(
        &format!("/api/v1/submissions/{second}"),
        Some(crate::daemon::ALICE),
    );
    assert_ne!(body["state"], "done", "no verdict on a full disk: {body}");
    let log = d.log();
    assert!(
        log.contains(&format!(
            "submission {second}: host fault, back in the queue"
        )) && log.contains("this host stops claiming submissions"),
        "the log says why: {log}"
    );
    // Full: the host claims nothing and says why in its statistics.
    fs.fill("filler-2", 0);
    assert!(
        eventually(Duration::from_secs(15), || {
            let h = first_host(&d);
            // Its cause in words too: the folder short of space.
            let said = h["paused"]
                .as_str()
                .is_some_and(|c| c.contains("scratch/runs has") && c.contains("free"));
            h["stats"]["paused"] == 1 && h["stats"].get("paused_low_space").is_some() && said
        }),
        "paused for want of space, and why: {}",
        first_host(&d)
    );
    // Room again: the host resumes by itself and the submission is judged, accepted.
    std::fs::remove_file(fs.path().join("filler")).expect("remove filler");
    std::fs::remove_file(fs.path().join("filler-2")).expect("remove filler");
    let done = d.wait_done(second, crate::daemon::ALICE, Duration::from_secs(60));
    assert_eq!(done["verdict"], "AC", "{done}");
    assert!(d.log().contains("this host claims submissions again"));
    assert!(
        eventually(Duration::from_secs(10), || {
            let h = first_host(&d);
            h["stats"]["paused"] == 0 && h["paused"].is_null()
        }),
        "the heartbeat says it resumed: {}",
        first_host(&d)
    );
    drop(d);
    drop(problem);
}

/// A judge host whose package cache is full cannot write a package: that is a host fault
/// (`disk_full`, ENOSPC: the submission goes to a healthy host), never a judge error of the
/// submission, and no half-written blob or package folder stays behind.
#[test]
fn a_package_that_does_not_fit_the_cache_is_a_host_fault() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let store = ojd_store::open(&cluster.database()).expect("open");
    let files = vec![
        ("problem.toml".to_string(), b"title = 'big'\n".to_vec()),
        ("tests/1.in".to_string(), vec![b'7'; 3 << 20]),
        ("tests/1.ans".to_string(), b"7\n".to_vec()),
    ];
    let version = store.publish("big", &files, 1).expect("publish");
    let disk = Tmpfs::mount("1m");
    let cache = ojd_service::Cache::new(&disk.path().join("packages")).expect("cache");
    let err = match cache.problem(store.as_ref(), "big", Some(&version)) {
        Ok(_) => panic!("a 3 MiB package cannot fit a 1 MiB disk"),
        Err(e) => e,
    };
    assert_eq!(err.host_fault(), Some(("disk_full", Some(28))), "{err}");
    let mut left = Vec::new();
    let mut walk = vec![disk.path().to_path_buf()];
    while let Some(d) = walk.pop() {
        for e in std::fs::read_dir(&d).expect("read").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk.push(p.clone());
            }
            if e.file_name().to_string_lossy().starts_with('.') {
                left.push(p);
            }
        }
    }
    assert!(left.is_empty(), "half-written files stay: {left:?}");
}

/// Any folder of a judge host's package cache removed under the running host (`rm -rf
/// <cache>/packages/*`, or the whole cache folder) is made again at the next use and refilled
/// from the database: the judging goes on, without a restart and without a host fault.
#[test]
fn a_package_cache_removed_under_a_running_host_is_made_again_and_refilled() {
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let store = ojd_store::open(&cluster.database()).expect("open");
    let files = ojd_service::package_files(&common::testdata("aplusb")).expect("the fixture");
    let version = store.publish("aplusb", &files, 1).expect("publish");
    let disk = tempfile::tempdir().expect("tempdir");
    let root = disk.path().join("packages");
    let cache = ojd_service::Cache::new(&root).expect("cache");
    let load = |what: &str| {
        let p = cache
            .problem(store.as_ref(), "aplusb", Some(&version))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(p.dir.join("problem.toml").is_file(), "{what}: {:?}", p.dir);
        assert!(!p.tests.is_empty(), "{what}");
    };
    load("first use");
    let fetched = cache.fetched.load(std::sync::atomic::Ordering::Relaxed);
    assert!(fetched > 0);
    for e in std::fs::read_dir(&root).expect("read").flatten() {
        std::fs::remove_dir_all(e.path()).expect("rm -rf packages/*");
    }
    load("after rm -rf packages/*");
    assert!(root.join("blobs").is_dir() && root.join("packages").is_dir());
    let refetched = cache.fetched.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(refetched, 2 * fetched, "every blob fetched again");
    std::fs::remove_dir_all(&root).expect("rm -rf the cache");
    load("after the whole cache folder went");
}

/// A judge whose cache and runs folders were removed under it makes them again at its next
/// host check, and judges as before (the program compiled again): a host that lost a folder heals, it does not pause for
/// ever.
#[test]
fn a_judge_whose_folders_were_removed_makes_them_again_and_judges() {
    require_root!();
    let scratch = tempfile::tempdir().expect("tempdir");
    let j = judge_on(&scratch.path().join("scratch"));
    let problem = common::testdata("aplusb");
    let ac = common::testdata("aplusb/submissions/accepted/ac.c");
    let r = common::judge_file(&j, &problem, &ac);
    assert_eq!(r.verdict, ojd_judge::Verdict::Accepted, "{r:#?}");
    // The compile cache and the runs' folder (the keepers' own folders stay: they are theirs).
    for d in ["cache", "runs"] {
        std::fs::remove_dir_all(scratch.path().join("scratch").join(d)).expect("rm -rf");
    }
    assert!(j.host_check(0).is_err(), "the check sees the folders gone");
    let made = j.heal_folders().expect("made again");
    assert!(!made.is_empty(), "nothing made again");
    j.host_check(0)
        .expect("the check passes once they are back");
    let r = common::judge_file(&j, &problem, &ac);
    assert_eq!(r.verdict, ojd_judge::Verdict::Accepted, "{r:#?}");
    assert!(j.heal_folders().expect("nothing to do").is_empty());
}

/// Kills the daemon (`kill -9`) as soon as it judges submission `id`, `times` times, each time
/// starting it again; returns the daemon last started.
fn kill_while_judging(
    site: &crate::daemon::Site,
    mut d: crate::daemon::Daemon,
    id: i64,
    times: usize,
) -> crate::daemon::Daemon {
    use crate::daemon::{ALICE, JUDGED_WITHIN};
    use std::time::{Duration, Instant};
    for _ in 0..times {
        let deadline = Instant::now() + JUDGED_WITHIN;
        loop {
            let (_, s) = d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE));
            assert_ne!(
                s["state"], "done",
                "judged before its judge was killed: {s}"
            );
            if s["state"] == "judging" {
                break;
            }
            assert!(Instant::now() < deadline, "never claimed: {s}\n{}", d.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        d.kill9();
        d = site.start();
    }
    d
}

/// A host's death is not the submission's fault: a submission whose judge host was killed
/// (`kill -9`) twice while judging it is judged by the next run as any other, with the verdict
/// it deserves. A poison pill is still set aside, not a crash loop: a submission that took its
/// host down three times is stored at the next claim as a judge error naming why, unjudged,
/// and never claimed again; an admin sees the cause.
#[test]
fn a_submission_whose_host_died_twice_is_judged_and_one_that_killed_it_thrice_is_set_aside() {
    require_root!();
    use crate::daemon::{Site, ADMIN, ALICE, JUDGED_WITHIN};
    let site = Site::new("rate_limit_per_minute = 0");
    let slow = common::testdata("aplusb/submissions/time_limit_exceeded/sleep.c");
    let d = site.start();
    let id = d.submit_file(ALICE, &slow);
    let d = kill_while_judging(&site, d, id, 2);
    let done = d.wait_done(id, ADMIN, JUDGED_WITHIN);
    assert_eq!(done["verdict"], "TLE", "the verdict it deserves: {done}");
    assert!(!done.to_string().contains("poison pill"), "{done}");
    let pill = d.submit_file(ALICE, &slow);
    let d = kill_while_judging(&site, d, pill, 3);
    let done = d.wait_done(pill, ADMIN, JUDGED_WITHIN);
    assert_eq!(done["verdict"], "JE", "{done}");
    let text = done.to_string();
    assert!(text.contains("poison pill"), "the admin sees why: {done}");
    assert!(
        text.contains("ended with its judge host 3 times"),
        "the admin sees why: {done}"
    );
    d.log_with(&[&format!("submission {pill}: set aside as a judge error")]);
    // Never claimed again: it stays done through a restart.
    d.kill9();
    let d = site.start();
    let (_, s) = d.get(&format!("/api/v1/submissions/{pill}"), Some(ADMIN));
    assert_eq!(s["verdict"], "JE", "{s}");
}

/// A submission's row in a site's SQLite database: (state, host_deaths, finished judgings).
fn row_of(site: &crate::daemon::Site, id: i64) -> (String, i64, i64) {
    let db = rusqlite::Connection::open(site.database()).expect("open the database");
    db.query_row(
        "SELECT state, host_deaths,
           (SELECT COUNT(*) FROM judgings j WHERE j.submission = s.id AND j.verdict IS NOT NULL)
         FROM submissions s WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .expect("the submission's row")
}

/// Waits until submission `id` is claimed (its row says `judging`).
fn wait_judging(site: &crate::daemon::Site, d: &crate::daemon::Daemon, id: i64) {
    common::wait_until(std::time::Duration::from_secs(120), || {
        let (state, _, _) = row_of(site, id);
        if state == "judging" {
            Ok(())
        } else {
            Err(format!(
                "submission {id} is {state}, not judging: {}",
                d.log()
            ))
        }
    });
}

/// A judging that never returns (injected: its judge thread hangs for good, deaf to
/// cancellation) is abandoned by the watchdog as a host fault: logged, back in the queue, its
/// lease released, and judged afresh on another thread, once; the host goes on judging.
#[test]
fn a_judging_that_never_returns_is_abandoned_requeued_and_judged_once() {
    require_root!();
    use std::time::Duration;
    let site = crate::daemon::Site::new("rate_limit_per_minute = 0");
    // Bound of the watchdog: 5 s here (the daemon's own is the limits' plus two minutes).
    let d = site.start_env(&[("OJD_FAULT_HANG_JUDGING", "5")]);
    let ac = common::testdata("aplusb/submissions/accepted/ac.py");
    let id = d.submit_file(crate::daemon::ALICE, &ac);
    let done = d.wait_done(id, crate::daemon::ALICE, Duration::from_secs(300));
    assert_eq!(done["verdict"], "AC", "{done}\n{}", d.log());
    let log = d.log_with(&[&format!("submission {id}:"), "abandoned by the watchdog"]);
    assert!(
        log.contains(&format!("submission {id}: host fault, back in the queue")),
        "{log}"
    );
    let (state, deaths, finished) = row_of(&site, id);
    assert_eq!((state.as_str(), deaths, finished), ("done", 0, 1), "{log}");
    // The stuck thread is not the host's end: the next submission is judged too.
    let next = d.submit_file(crate::daemon::ALICE, &ac);
    let done = d.wait_done(next, crate::daemon::ALICE, Duration::from_secs(300));
    assert_eq!(done["verdict"], "AC", "{done}\n{}", d.log());
    let (status, _) = d.terminate(Duration::from_secs(60));
    assert!(status.success());
}

/// An orderly stop of a single-host daemon while it judges is no host's death, even when the
/// judging does not stop when cancelled (here it hangs): the submission goes back to the
/// queue at the stop with `host_deaths` unchanged, and the next start judges it, once.
#[test]
fn stopping_a_single_host_daemon_while_it_judges_is_not_a_host_death() {
    require_root!();
    use std::time::Duration;
    let site = crate::daemon::Site::new("rate_limit_per_minute = 0");
    let d = site.start_env(&[("OJD_FAULT_HANG_JUDGING", "600")]);
    let ac = common::testdata("aplusb/submissions/accepted/ac.py");
    let id = d.submit_file(crate::daemon::ALICE, &ac);
    wait_judging(&site, &d, id);
    let (status, _) = d.terminate(Duration::from_secs(120));
    assert!(status.success());
    let (state, deaths, finished) = row_of(&site, id);
    assert_eq!((state.as_str(), deaths, finished), ("queued", 0, 0));

    let d = site.start();
    let done = d.wait_done(id, crate::daemon::ALICE, Duration::from_secs(300));
    assert_eq!(done["verdict"], "AC", "{done}\n{}", d.log());
    let (state, deaths, finished) = row_of(&site, id);
    assert_eq!(
        (state.as_str(), deaths, finished),
        ("done", 0, 1),
        "{}",
        d.log()
    );
    let (status, _) = d.terminate(Duration::from_secs(60));
    assert!(status.success());
}

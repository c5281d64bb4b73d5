//! What 500 students polling the standings cost (opt-in: `#[ignore]`): one contest of 500
//! students with 10 judged submissions each (5,000, stored straight into the database), two real
//! daemons over copies of that database, one with the standings cache (`standings_cache =
//! "1s"`, the default) and one without (`"0s"`: every poll reads the store and ranks again, as
//! before the cache), and `GET /api/v1/contests/{id}/standings` polled as fast as 8 keep-alive
//! clients can by each in turn, side by side in one run. Run with
//! `cargo test --release --test integration contests_load -- --ignored --nocapture`.

use std::path::Path;
use std::time::{Duration, Instant};

use ojd_judge::{JudgeReport, Verdict};
use ojd_store::{self as store, NewSubmission};

use crate::contests::write_contest;
use crate::daemon::{Daemon, Site, ALICE};

const STUDENTS: usize = 500;
const EACH: usize = 10;
const CLIENTS: usize = 8;
const ROUND: Duration = Duration::from_secs(5);

/// 500 students' histories, stored as the daemon would have stored them.
fn seed(database: &Path, now: i64) {
    let s = store::open(database.to_str().expect("utf-8 path")).expect("open");
    for k in 0..STUDENTS * EACH {
        let user = format!("student{:03}", k % STUDENTS);
        let new = NewSubmission {
            user,
            problem: "aplusb".into(),
            language: "c".into(),
            source: b"int main(){}".to_vec(),
        };
        let at = now - 50 * 60_000 + k as i64 * 500;
        s.insert_in_contest(&new, "big", at).expect("insert");
    }
    let mut k = 0;
    while let Some(c) = s.claim("seed", now, now + 600_000).expect("claim") {
        let verdict = match k % 4 {
            0 => Verdict::Accepted,
            1 => Verdict::WrongAnswer,
            2 => Verdict::TimeLimitExceeded,
            _ => Verdict::RuntimeError,
        };
        let mut r = JudgeReport::new("aplusb", "c", verdict, Vec::new());
        r.score = if verdict == Verdict::Accepted { 100 } else { 0 };
        assert!(s.finish(c.id, c.attempt, &r, "", now).expect("finish"));
        k += 1;
    }
    assert_eq!(k, STUDENTS * EACH);
}

/// Requests per second over `ROUND` with `CLIENTS` keep-alive clients, and the body's size.
fn hammer(d: &Daemon, path: &str) -> (f64, usize) {
    let url = format!("{}{path}", d.url);
    let stop = Instant::now() + ROUND;
    let started = Instant::now();
    let (n, size) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let url = url.clone();
                scope.spawn(move || {
                    let agent = ureq::AgentBuilder::new().build();
                    let (mut n, mut size) = (0u64, 0);
                    while Instant::now() < stop {
                        let body = agent
                            .get(&url)
                            .set("Authorization", &format!("Bearer {ALICE}"))
                            .call()
                            .expect("standings")
                            .into_string()
                            .expect("body");
                        size = body.len();
                        n += 1;
                    }
                    (n, size)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("client"))
            .fold((0, 0), |(n, _), (m, s)| (n + m, s))
    });
    (n as f64 / started.elapsed().as_secs_f64(), size)
}

#[test]
#[ignore = "a load measurement: run it on its own with --ignored"]
fn standings_polled_by_500_students_cached_and_not() {
    require_root!(exclusive);
    let now = ojd_store::now_ms();
    let contests = tempfile::tempdir().expect("temp dir");
    write_contest(contests.path(), "big", now - 3_600_000, "5h", "", "aplusb");
    let site = |cache: &str| {
        Site::new(&format!(
            "contests = \"{}\"\nstandings_cache = \"{cache}\"\nrate_limit_per_minute = 0",
            contests.path().display()
        ))
    };
    let (cached, uncached) = (site("1s"), site("0s"));
    let t = Instant::now();
    seed(&cached.database(), now);
    for suffix in ["", "-wal", "-shm"] {
        let from = cached.path().join(format!("ojd.sqlite3{suffix}"));
        if from.exists() {
            std::fs::copy(&from, uncached.path().join(format!("ojd.sqlite3{suffix}")))
                .expect("copy the database");
        }
    }
    eprintln!(
        "seeded {} submissions in {:.1} s",
        STUDENTS * EACH,
        t.elapsed().as_secs_f64()
    );
    let (a, b) = (cached.start(), uncached.start());
    let path = "/api/v1/contests/big/standings";
    // The same table from both.
    let (_, sa) = a.get(path, Some(ALICE));
    let (_, sb) = b.get(path, Some(ALICE));
    assert_eq!(sa["rows"].as_array().map(Vec::len), Some(STUDENTS));
    assert_eq!(sa, sb, "the cached table is the computed one");
    let mut with = Vec::new();
    let mut without = Vec::new();
    for _ in 0..2 {
        with.push(hammer(&a, path));
        without.push(hammer(&b, path));
    }
    let best = |v: &[(f64, usize)]| v.iter().map(|x| x.0).fold(0.0, f64::max);
    let (w, wo) = (best(&with), best(&without));
    eprintln!(
        "GET {path} ({} students, {} submissions, {} KiB of JSON), {CLIENTS} clients, best of 2 rounds of {ROUND:?} each:\n  \
         without the cache (standings_cache = \"0s\"): {wo:.0} requests/s ({:.1} ms each)\n  \
         with the cache    (standings_cache = \"1s\"): {w:.0} requests/s ({:.2} ms each)\n  \
         ratio: {:.0}x; 500 students polling every 2 s ask for 250/s",
        STUDENTS,
        STUDENTS * EACH,
        with[0].1 / 1024,
        1000.0 * CLIENTS as f64 / wo,
        1000.0 * CLIENTS as f64 / w,
        w / wo
    );
    assert!(
        w > wo,
        "the cache must serve more polls than computing each"
    );
}

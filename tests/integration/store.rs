//! The store test suite: every case runs against every backend ([`store_suite!`] instantiates
//! it per backend), plus the SQLite upgrade of a database made by an older ojd.

mod history;
mod schema;

pub use history::a_contests_history_loads_under_its_own_ids_once;

use std::borrow::Cow;
use std::sync::Arc;

use ojd_judge::{JudgeReport, TestResult, Verdict};
use ojd_service::contest::standings;
use ojd_store::{
    self as store, Dialect, JudgingInfo, ListFilter, NewSubmission, State, Store, StoreError,
    SubmissionInfo,
};

/// A store and whatever keeps it alive (its folder, its database).
pub struct Fixture {
    pub store: Arc<dyn Store>,
    _keep: Box<dyn std::any::Any>,
}

/// A fresh SQLite file store, opened the way the daemon opens it.
pub fn sqlite() -> Option<Fixture> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ojd.sqlite3");
    let store = store::open(path.to_str().expect("utf-8 path")).expect("open");
    Some(Fixture {
        store,
        _keep: Box::new(dir),
    })
}

/// A fresh database in the private PostgreSQL cluster (`None`: skipped, see pg.rs).
pub fn postgres() -> Option<Fixture> {
    let cluster = crate::pg::Cluster::get()?;
    let url = cluster.database();
    let store = store::open(&url).expect("open");
    Some(Fixture {
        store,
        _keep: Box::new(cluster),
    })
}

/// Instantiates every case of the suite for one backend: `store_suite!(module, make_fixture)`.
macro_rules! store_suite {
    ($backend:ident, $make:path) => {
        mod $backend {
            store_suite!(@cases $make;
                claims_are_fair_between_users,
                a_result_is_stored_once_and_stale_claims_are_refused,
                a_cancelled_claim_leaves_an_unfinished_judging,
                rejudge_makes_the_new_judging_current,
                a_rejudging_waits_for_make_current,
                make_current_is_all_or_nothing,
                a_rejudging_of_an_unjudged_submission_becomes_current,
                list_filters_and_pages,
                list_filters_by_current_verdict_and_language,
                counts_follow_the_current_judging,
                tokens_round_trip,
                concurrent_claims_take_each_submission_once,
                an_expired_lease_is_claimed_again,
                an_expired_claim_comes_before_a_backlog,
                a_hosts_death_is_not_the_submissions_crash,
                a_host_claims_no_submission_in_a_language_it_skips,
                a_fast_host_clock_cannot_take_live_claims,
                a_host_that_takes_over_its_own_claim_renews_it,
                a_live_identity_is_refused_and_a_dead_namesakes_claims_come_back,
                an_admin_drains_and_resumes_a_host,
                unused_packages_blobs_and_hosts_are_collected,
                packages_are_content_addressed,
                web_sessions_codes_and_token_activity,
                exact_points_are_stored_and_read_everywhere,
                the_standings_input_is_the_current_judgings,
                every_override_is_kept_in_its_history,
                a_contests_history_loads_under_its_own_ids_once,
            );
        }
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                let Some(fixture) = $make() else { return };
                crate::store::$case(fixture.store.as_ref());
            }
        )*
    };
}

store_suite!(sqlite_suite, crate::store::sqlite);
store_suite!(postgres_suite, crate::store::postgres);

pub fn concurrent_claims_take_each_submission_once(s: &dyn Store) {
    let n = 60;
    for i in 0..n {
        s.insert(&sub(&format!("u{}", i % 7), "p"), 0)
            .expect("insert");
    }
    let claimed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for w in 0..6 {
            let claimed = &claimed;
            scope.spawn(move || {
                let host = format!("w{w}");
                while let Some(c) = s.claim(&host, 1, 100_000).expect("claim") {
                    assert!(s
                        .finish(c.id, c.attempt, &report(Verdict::Accepted, 1), "", 2)
                        .expect("finish"));
                    claimed.lock().expect("lock").push(c.id);
                }
            });
        }
    });
    let mut ids = claimed.into_inner().expect("lock");
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!((before, ids.len()), (n, n), "each claimed exactly once");
    let counts = s.counts().expect("counts");
    assert_eq!(
        (counts.done, counts.queued, counts.judging),
        (n as u64, 0, 0)
    );
}

/// Lets a lease of `SHORT` milliseconds run out by the database's clock.
const SHORT: i64 = 300;
fn let_short_leases_run_out() {
    std::thread::sleep(std::time::Duration::from_millis(SHORT as u64 + 200));
}

pub fn an_expired_lease_is_claimed_again(s: &dyn Store) {
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let dead = s
        .claim("dead", 1000, SHORT)
        .expect("claim")
        .expect("queued");
    let other = s.insert(&sub("b", "p"), 0).expect("insert");
    let alive = s
        .claim("alive", 1000, 60_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(alive.id, other);
    assert!(
        !dead.expired_lease && !alive.expired_lease,
        "taken from the queue"
    );
    assert!(
        s.claim("x", 5000, 60_000).expect("claim").is_none(),
        "leases hold"
    );
    assert_eq!(s.expired_leases().expect("expired"), 0);
    let_short_leases_run_out();
    // A host renews only what its workers say they judge: a claim it holds but no longer
    // judges (its worker died) is left to run out.
    assert_eq!(
        s.heartbeat("alive", "worker", 900, 60_000, &[], &Default::default())
            .expect("beat")
            .renewed,
        0,
        "nothing judged, nothing renewed"
    );
    assert_eq!(
        s.heartbeat(
            "alive",
            "worker",
            900,
            60_000,
            &[dead.id],
            &Default::default()
        )
        .expect("beat")
        .renewed,
        0,
        "another host's claim is not this host's to renew"
    );
    // Only the living host renews.
    let before = ojd_store::now_ms();
    assert_eq!(
        s.heartbeat(
            "alive",
            "worker",
            900,
            60_000,
            &[other],
            &[("judged".to_string(), 7)].into_iter().collect()
        )
        .expect("beat")
        .renewed,
        1
    );
    let hosts = s.hosts().expect("hosts");
    assert_eq!(hosts.len(), 1);
    assert_eq!(
        (
            hosts[0].name.as_str(),
            hosts[0].role.as_str(),
            hosts[0].judging.clone()
        ),
        ("alive", "worker", vec![other])
    );
    assert!(
        (before - 5000..before + 5000).contains(&hosts[0].last_seen),
        "last seen by the database's clock: {} vs {before}",
        hosts[0].last_seen
    );
    assert!((0..5000).contains(&hosts[0].seen_ago_ms));
    assert_eq!(
        hosts[0].stats.get("judged"),
        Some(&7),
        "its counters travel with it"
    );
    assert_eq!(
        s.expired_leases().expect("expired"),
        1,
        "the dead host's claim waits for another host"
    );
    let again = s
        .claim("alive", 12_000, 60_000)
        .expect("claim")
        .expect("expired");
    assert_eq!(
        (again.id, again.attempt, again.expired_lease),
        (id, 2, true)
    );
    assert_eq!(s.expired_leases().expect("expired"), 0);
    assert!(
        !s.finish(
            dead.id,
            dead.attempt,
            &report(Verdict::Accepted, 1),
            "",
            12_500
        )
        .expect("finish"),
        "the dead host's late verdict is refused"
    );
    assert!(s
        .finish(
            again.id,
            again.attempt,
            &report(Verdict::WrongAnswer, 1),
            "",
            13_000
        )
        .expect("finish"));
    assert!(
        s.claim("x", 13_000, 60_000).expect("claim").is_none(),
        "the renewed lease holds"
    );
    let i = info(s, id);
    assert_eq!(
        (i.verdict, i.judged, i.judged_by.as_deref()),
        (Some(Verdict::WrongAnswer), 1, Some("alive"))
    );
    // A restarted host takes back only its own claims.
    assert_eq!(s.requeue_interrupted(Some("nobody")).expect("requeue"), 0);
    assert_eq!(s.requeue_interrupted(Some("alive")).expect("requeue"), 1);
}

/// Leases are set and judged by the database's clock: a host whose clock runs an hour fast
/// takes no live claim, and one running an hour slow cannot keep a dead one.
/// A dead host's claim is taken again before any queued submission, whatever the queue's depth
/// and however recently its user was served: fairness orders the queue, not the work a dead
/// host dropped.
pub fn an_expired_claim_comes_before_a_backlog(s: &dyn Store) {
    let id = s.insert(&sub("served", "p"), 0).expect("insert");
    // A lease that has run out as it is made (by the database's clock): no wait.
    let dead = s
        .claim("dead", 1000, -60_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(dead.id, id);
    for i in 0..40 {
        s.insert(&sub(&format!("u{}", i % 10), "p"), 0)
            .expect("insert");
    }
    let next = s
        .claim("alive", 2000, 60_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(next.id, id, "the expired claim waited behind the backlog");
    assert!(next.expired_lease, "{next:?}");
    let after = s
        .claim("alive", 2000, 60_000)
        .expect("claim")
        .expect("queued");
    assert!(after.id != id && !after.expired_lease, "{after:?}");
}

/// The poison-pill rule tells a host's death from a judging that ended under a live host.
/// Two holders that die in turn (their heartbeat stops with the lease: killed, stopped) are
/// the hosts' fault: a third host judges the submission as any other. A judging whose lease
/// runs out while its host goes on beating (the judge crashed, the host lived) counts against
/// the submission, and twice sets it aside; so does a third host's death.
pub fn a_hosts_death_is_not_the_submissions_crash(s: &dyn Store) {
    let beat = |host: &str, judging: &[i64]| {
        s.heartbeat(host, "worker", 0, SHORT, judging, &Default::default())
            .expect("beat");
    };
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    beat("dead1", &[]);
    let first = s.claim("dead1", 1, SHORT).expect("claim").expect("queued");
    assert_eq!(first.id, id);
    // dead1 beats once more, renewing the lease, then dies: its last beat is its last renewal.
    beat("dead1", &[id]);
    let_short_leases_run_out();
    beat("dead2", &[]);
    let second = s.claim("dead2", 2, SHORT).expect("claim").expect("expired");
    assert_eq!((second.id, second.expired_lease), (id, true));
    assert_eq!(
        (second.holder_alive, second.crashes, second.host_deaths),
        (false, 0, 1),
        "dead1's heartbeat stopped with its lease: {second:?}"
    );
    // dead2 beats once just after its claim without renewing it (the beat read its judgings
    // before the claim), then dies: still a host's death.
    beat("dead2", &[]);
    let_short_leases_run_out();
    let third = s
        .claim("judge3", 3, SHORT)
        .expect("claim")
        .expect("expired");
    assert_eq!(
        (
            third.id,
            third.holder_alive,
            third.crashes,
            third.host_deaths
        ),
        (id, false, 0, 2),
        "{third:?}"
    );
    assert!(
        !third.is_poison(),
        "two hosts' deaths set it aside: {third:?}"
    );
    // judge3 lives on, but its judging of the submission ended: its heartbeats go on without
    // renewing that lease.
    let_short_leases_run_out();
    beat("judge3", &[]);
    let fourth = s
        .claim("judge4", 4, SHORT)
        .expect("claim")
        .expect("expired");
    assert_eq!(
        (
            fourth.id,
            fourth.holder_alive,
            fourth.crashes,
            fourth.host_deaths
        ),
        (id, true, 1, 2),
        "judge3 lived on past the lease: {fourth:?}"
    );
    assert!(!fourth.is_poison(), "{fourth:?}");
    let_short_leases_run_out();
    beat("judge4", &[]);
    let fifth = s
        .claim("judge5", 5, SHORT)
        .expect("claim")
        .expect("expired");
    assert_eq!((fifth.crashes, fifth.holder_alive), (2, true), "{fifth:?}");
    assert!(
        fifth.is_poison(),
        "its judge ended twice under a live host: {fifth:?}"
    );
    // A rejudging starts over; three hosts' deaths in a row set it aside as well.
    s.rejudge(id).expect("rejudge");
    for (n, host) in ["d1", "d2", "d3"].into_iter().enumerate() {
        let c = s.claim(host, 6, SHORT).expect("claim").expect("claimable");
        assert_eq!((c.id, c.crashes, c.host_deaths), (id, 0, n as u32), "{c:?}");
        assert!(!c.is_poison(), "{c:?}");
        let_short_leases_run_out();
    }
    let last = s.claim("d4", 7, SHORT).expect("claim").expect("expired");
    assert_eq!((last.crashes, last.host_deaths), (0, 3), "{last:?}");
    assert!(last.is_poison(), "{last:?}");
}

/// A host that cannot judge a language (its toolchain missing or failed) claims none of its
/// submissions, expired ones included: they stay for a host that can.
pub fn a_host_claims_no_submission_in_a_language_it_skips(s: &dyn Store) {
    let mut py = sub("a", "p");
    py.language = "py".into();
    let py = s.insert(&py, 0).expect("insert");
    let c = s.insert(&sub("b", "p"), 0).expect("insert");
    let skip = ["py".to_string()];
    let got = s.claim_except("h", 1000, -60_000, &skip).expect("claim");
    assert_eq!(
        got.map(|c| c.id),
        Some(c),
        "the submission in another language"
    );
    // The expired claim is in a language this host judges: taken again; py never.
    let got = s.claim_except("h", 1000, 60_000, &skip).expect("claim");
    assert_eq!(got.map(|c| (c.id, c.expired_lease)), Some((c, true)));
    assert!(
        s.claim_except("h", 1000, 60_000, &skip)
            .expect("claim")
            .is_none(),
        "only a skipped language is left"
    );
    let got = s.claim("other", 1000, 60_000).expect("claim");
    assert_eq!(
        got.map(|c| c.id),
        Some(py),
        "a host that judges it takes it"
    );
}

pub fn a_fast_host_clock_cannot_take_live_claims(s: &dyn Store) {
    let hour = 3_600_000;
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let now = ojd_store::now_ms();
    let slow = s
        .claim("slow", now - hour, SHORT)
        .expect("claim")
        .expect("queued");
    assert_eq!(slow.id, id);
    assert!(
        s.claim("fast", now + hour, 60_000)
            .expect("claim")
            .is_none(),
        "a clock an hour fast takes nothing live"
    );
    assert_eq!(s.expired_leases().expect("expired"), 0);
    let_short_leases_run_out();
    // The slow host's heartbeats would have set a lease far in the past under its own clock;
    // the lease runs out SHORT after the database's now, whatever the host thinks.
    let fast = s
        .claim("fast", now + hour, 60_000)
        .expect("claim")
        .expect("the expired claim");
    assert_eq!((fast.id, fast.expired_lease), (id, true));
    assert!(
        s.claim("slow", now - hour, 60_000)
            .expect("claim")
            .is_none(),
        "nothing else to take"
    );
}

/// A host cut from the database past its lease takes its own claim over when it comes back:
/// the new claim's lease is renewed by its heartbeat, and nobody takes it a third time.
pub fn a_host_that_takes_over_its_own_claim_renews_it(s: &dyn Store) {
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let first = s.claim("h", 1, SHORT).expect("claim").expect("queued");
    let_short_leases_run_out();
    let second = s.claim("h", 2, SHORT).expect("claim").expect("expired");
    assert_eq!(
        (second.id, second.attempt, second.expired_lease),
        (id, 2, true)
    );
    assert_eq!(
        s.heartbeat("h", "worker", 0, 60_000, &[id], &Default::default())
            .expect("beat")
            .renewed,
        1
    );
    let_short_leases_run_out();
    assert!(
        s.claim("other", 3, 60_000).expect("claim").is_none(),
        "the renewed claim is not taken a third time"
    );
    assert!(!s
        .finish(id, first.attempt, &report(Verdict::Accepted, 1), "", 4)
        .expect("finish"));
    assert!(s
        .finish(id, second.attempt, &report(Verdict::Accepted, 1), "", 5)
        .expect("finish"));
    assert_eq!(info(s, id).judged, 1, "judged once");
}

fn start<'a>(identity: &'a str, label: &'a str) -> ojd_store::HostStart<'a> {
    ojd_store::HostStart {
        identity,
        label,
        role: "worker",
        version: "9.9.9",
        started_at: 1,
    }
}

/// Two processes given one name have their own identities: starting one never takes back the
/// other's live claims, only a dead namesake's; a second process of a live identity is refused.
pub fn a_live_identity_is_refused_and_a_dead_namesakes_claims_come_back(s: &dyn Store) {
    let live = s.insert(&sub("a", "p"), 0).expect("insert");
    let dead = s.insert(&sub("b", "p"), 0).expect("insert");
    assert_eq!(
        s.register_host(&start("w~1", "w"), 60_000).expect("start"),
        0
    );
    assert_eq!(
        s.register_host(&start("w~2", "w"), 60_000).expect("start"),
        0
    );
    match s.register_host(&start("w~1", "w"), 60_000) {
        Err(StoreError::Conflict(m)) => assert!(
            m.contains("\"w~1\"") && m.contains("is alive"),
            "the refusal names the identity: {m}"
        ),
        other => panic!("a second process of a live identity must be refused: {other:?}"),
    }
    let a = s.claim("w~1", 1, 60_000).expect("claim").expect("queued");
    let b = s.claim("w~2", 1, 60_000).expect("claim").expect("queued");
    assert_eq!((a.id, b.id), (live, dead));
    let_short_leases_run_out();
    s.heartbeat("w~1", "worker", 1, 60_000, &[live], &Default::default())
        .expect("beat");
    // A third process named w starts: w~2 has not beaten for longer than the lease (SHORT
    // here), w~1 just did.
    assert_eq!(
        s.register_host(&start("w~3", "w"), SHORT).expect("start"),
        1,
        "the dead namesake's claim comes back, the live one's stays"
    );
    assert_eq!(info(s, live).state, State::Judging);
    assert_eq!(info(s, dead).state, State::Queued);
    // Another name's dead host is not this one's to requeue.
    let other = s.insert(&sub("c", "p"), 0).expect("insert");
    assert_eq!(
        s.register_host(&start("x~1", "x"), 60_000).expect("start"),
        0
    );
    let mut got = Vec::new();
    while let Some(c) = s.claim("x~1", 1, 60_000).expect("claim") {
        got.push(c.id);
    }
    got.sort();
    assert_eq!(got, vec![dead, other]);
    // A clean stop lets the identity start again at once, taking back its own claims.
    s.host_stopped("w~1").expect("stop");
    assert_eq!(
        s.register_host(&start("w~1", "w"), 60_000).expect("start"),
        1
    );
    let hosts = s.hosts().expect("hosts");
    let w1 = hosts.iter().find(|h| h.name == "w~1").expect("listed");
    assert_eq!(
        (w1.label.as_str(), w1.version.as_str(), w1.stopped_at),
        ("w", "9.9.9", None)
    );
}

/// An admin's drain request reaches the host with its next heartbeat, and so does resuming.
pub fn an_admin_drains_and_resumes_a_host(s: &dyn Store) {
    s.register_host(&start("h~1", "h"), 60_000).expect("start");
    let beat = |s: &dyn Store| {
        s.heartbeat("h~1", "worker", 1, 60_000, &[], &Default::default())
            .expect("beat")
            .drain
    };
    assert_eq!(beat(s), None);
    assert!(s.set_drain("h~1", Some("new disk")).expect("drain"));
    assert!(
        !s.set_drain("nobody", Some("x")).expect("drain"),
        "no such host"
    );
    assert_eq!(beat(s).as_deref(), Some("new disk"));
    let hosts = s.hosts().expect("hosts");
    assert_eq!(hosts[0].drain.as_deref(), Some("new disk"));
    assert!(s.set_drain("h~1", None).expect("resume"));
    assert_eq!(beat(s), None);
}

/// Collection removes package versions nothing uses (not current, no judging in flight, no
/// current judging), their blobs and silent hosts without claims; never a version a judging in
/// flight or a current judging uses, nor anything younger than the retention; and rejudging an
/// old submission still works afterwards.
pub fn unused_packages_blobs_and_hosts_are_collected(s: &dyn Store) {
    let files = |n: u8| {
        vec![
            ("problem.toml".to_string(), b"title = 'x'".to_vec()),
            ("tests/1.in".to_string(), vec![b'0' + n; 8]),
        ]
    };
    let finish = |c: &ojd_store::Claim| {
        assert!(s
            .finish(c.id, c.attempt, &report(Verdict::Accepted, 1), "", 5)
            .expect("finish"))
    };
    // v1: used by a judging in flight. v2: the current judging of a submission. v3: nothing.
    let v1 = s.publish("p", &files(1), 1).expect("publish");
    s.insert(&sub("a", "p"), 0).expect("insert");
    let in_flight = s.claim("h", 2, 60_000).expect("claim").expect("queued");
    let v2 = s.publish("p", &files(2), 1).expect("publish");
    let judged = s.insert(&sub("b", "p"), 0).expect("insert");
    let c = s.claim("h", 3, 60_000).expect("claim").expect("queued");
    assert_eq!(c.package_version.as_deref(), Some(v2.as_str()));
    finish(&c);
    let v3 = s.publish("p", &files(3), 1).expect("publish");
    // v4: recent and unused; v5: current.
    let v4 = s
        .publish("p", &files(4), ojd_store::now_ms())
        .expect("publish");
    let v5 = s.publish("p", &files(5), 1).expect("publish");
    s.heartbeat(
        "h",
        "worker",
        1,
        60_000,
        &[in_flight.id],
        &Default::default(),
    )
    .expect("beat");
    s.heartbeat("idle", "worker", 1, 60_000, &[], &Default::default())
        .expect("beat");
    let hour = 3_600_000;
    let got = s.collect(hour).expect("collect");
    assert_eq!((got.packages, got.hosts), (1, 0), "v3 only: {got:?}");
    assert_eq!(
        got.blobs,
        if s.stores_blobs() { 1 } else { 0 },
        "v3's own test file (problem.toml is shared)"
    );
    let exists = |v: &str| s.package(v).expect("package").is_some();
    assert!(!exists(&v3));
    for v in [&v1, &v2, &v4, &v5] {
        assert!(exists(v), "{v} is kept");
    }
    if s.stores_blobs() {
        let v3_test = ojd_store::sha256_hex(&files(3)[1].1);
        assert_eq!(s.blob(&v3_test).expect("blob"), None);
        let shared = ojd_store::sha256_hex(&files(3)[0].1);
        assert!(s.blob(&shared).expect("blob").is_some(), "still used");
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    let got = s.collect(0).expect("collect");
    assert_eq!(
        (got.packages, got.hosts),
        (1, 1),
        "v4, and the idle host: {got:?}"
    );
    let hosts: Vec<String> = s
        .hosts()
        .expect("hosts")
        .into_iter()
        .map(|h| h.name)
        .collect();
    assert_eq!(hosts, vec!["h".to_string()], "the host with a claim stays");
    // The judging in flight ends with its version; an old submission is rejudged with the
    // current one.
    finish(&in_flight);
    assert!(s.rejudge(judged).expect("rejudge"));
    let again = s.claim("h", 6, 60_000).expect("claim").expect("queued");
    assert_eq!(again.package_version.as_deref(), Some(v5.as_str()));
    let current = s.package(&v5).expect("package").expect("current");
    for f in &current.files {
        if s.stores_blobs() {
            assert!(s.blob(&f.hash).expect("blob").is_some(), "{}", f.path);
        }
    }
    finish(&again);
    assert_eq!(info(s, judged).judged, 2);
    // Now v1 is a current judging's version: kept; v2 no longer is (its submission's current
    // judging is the rejudge's): collected.
    assert_eq!(s.collect(0).expect("collect").packages, 1);
    assert!(exists(&v1) && !exists(&v2));
}

pub fn packages_are_content_addressed(s: &dyn Store) {
    use ojd_store::sha256_hex;
    let files = vec![
        ("problem.toml".to_string(), b"title = 'x'".to_vec()),
        ("tests/1.in".to_string(), b"1 2\n".to_vec()),
        ("tests/1.ans".to_string(), b"3\n".to_vec()),
    ];
    let v1 = s.publish("p", &files, 1).expect("publish");
    assert_eq!(
        s.publish("p", &files, 2).expect("publish"),
        v1,
        "same files, same version"
    );
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let c = s.claim("h", 3, 100).expect("claim").expect("queued");
    assert_eq!(c.package_version.as_deref(), Some(v1.as_str()));
    let package = s.package(&v1).expect("package").expect("published");
    assert_eq!(package.problem, "p");
    assert_eq!(
        package
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["problem.toml", "tests/1.ans", "tests/1.in"]
    );
    for f in &package.files {
        let data = s.blob(&f.hash).expect("blob");
        if !s.stores_blobs() {
            assert!(
                data.is_none(),
                "one host keeps no second copy of {}",
                f.path
            );
            continue;
        }
        let data = data.expect("stored");
        assert_eq!(
            (sha256_hex(&data), data.len() as u64),
            (f.hash.clone(), f.size)
        );
    }
    let mut changed = files.clone();
    changed[2].1 = b"4\n".to_vec();
    let v2 = s.publish("p", &changed, 4).expect("publish");
    assert_ne!(v1, v2);
    assert_ne!(
        s.publish("q", &files, 5).expect("publish"),
        v1,
        "another problem, another version"
    );
    assert!(s
        .finish(id, c.attempt, &report(Verdict::Accepted, 1), "", 6)
        .expect("finish"));
    assert_eq!(
        s.judgings(id).expect("judgings")[0]
            .package_version
            .as_deref(),
        Some(v1.as_str())
    );
    s.rejudge(id).expect("rejudge");
    let c = s.claim("h", 7, 100).expect("claim").expect("queued");
    assert_eq!(
        c.package_version.as_deref(),
        Some(v2.as_str()),
        "a rejudge uses the new version"
    );
    assert!(s.package("nope").expect("package").is_none());
    assert!(s.blob(&sha256_hex(b"nothing")).expect("blob").is_none());
    s.ping().expect("ping");
}

pub fn web_sessions_codes_and_token_activity(s: &dyn Store) {
    use ojd_store::{CodeState, Holder};
    let alice = Holder {
        name: "alice".into(),
        admin: false,
        contest: None,
    };
    s.add_session("h1", &alice, 100, 0).expect("add");
    assert_eq!(s.session("h1", 50).expect("get"), Some(alice.clone()));
    assert_eq!(s.session("h1", 100).expect("get"), None, "expired");
    s.end_session("h1").expect("end");
    assert_eq!(s.session("h1", 50).expect("get"), None);
    s.add_session("h2", &alice, 100, 0).expect("add");
    assert_eq!(s.end_sessions_of("alice").expect("end"), 1);
    s.add_login_code("c1", &alice, 100).expect("code");
    assert_eq!(
        s.take_login_code("c1", 10).expect("take"),
        CodeState::Live(alice.clone())
    );
    assert_eq!(
        s.take_login_code("c1", 10).expect("take"),
        CodeState::Unknown,
        "used once"
    );
    s.add_login_code("c2", &alice, 100).expect("code");
    let late = s.take_login_code("c2", 100).expect("take");
    assert_eq!(late, CodeState::Unknown, "expired");
    // A hall sheet's code, bound to its contest, revoked: it says so, and is never spent.
    let sheet = Holder {
        contest: Some("final".into()),
        ..alice.clone()
    };
    s.add_login_code("c3", &sheet, 100).expect("code");
    assert_eq!(s.revoke_codes_in("final", None, 5).expect("revoke"), 1);
    for _ in 0..2 {
        let got = s.take_login_code("c3", 10).expect("take");
        assert_eq!(got, CodeState::Revoked(sheet.clone()));
    }
    s.add_session("h3", &sheet, 100, 0).expect("add");
    assert_eq!(s.session("h3", 1).expect("get"), Some(sheet.clone()));
    assert_eq!(s.end_sessions_in("alice", "final").expect("end"), 1);

    let (h1, h2) = ("a".repeat(64), "b".repeat(64));
    s.add_token(&h1, "alice", false, 5).expect("add");
    s.add_token(&h2, "alice", false, 6).expect("add");
    s.token_used(&h1, 9).expect("used");
    let list = s.token_activity().expect("list");
    assert_eq!(list.len(), 2);
    assert_eq!((list[0].last_used, list[1].last_used), (Some(9), None));
    assert_eq!(s.revoke_token("alice", &list[1].id).expect("revoke"), 1);
    assert_eq!(s.revoke_token("alice", "zz").expect("revoke"), 0);
    assert_eq!(s.token_activity().expect("list").len(), 1);
}

fn sub(user: &str, problem: &str) -> NewSubmission {
    NewSubmission {
        user: user.into(),
        problem: problem.into(),
        language: "c".into(),
        source: b"int main(){}".to_vec(),
    }
}

fn report(verdict: Verdict, tests: usize) -> JudgeReport {
    let mut r = JudgeReport::new("p", "c", verdict, vec!["a warning".into()]);
    r.score = if verdict == Verdict::Accepted { 100 } else { 0 };
    r.compile_output = format!("compiled for {verdict:?}");
    r.max_cpu_ms = 7;
    r.max_memory_kib = 300;
    r.tests = (0..tests)
        .map(|i| TestResult {
            name: format!("{}", i + 1),
            sample: i == 0,
            verdict,
            cpu_ms: 1 + i as u64,
            wall_ms: 10 + i as u64,
            memory_kib: 3,
            exit: Some("0".into()),
            message: String::new(),
            diff: None,
        })
        .collect();
    r
}

fn info(s: &dyn Store, id: i64) -> SubmissionInfo {
    s.info(id).expect("read").expect("exists")
}

/// Claims the next submission as `host` and stores `verdict` for it; returns the claim's judging.
fn judge_next(s: &dyn Store, host: &str, verdict: Verdict, now: i64) -> (i64, i64) {
    let c = s
        .claim(host, now, now + 1_000_000)
        .expect("claim")
        .expect("something queued");
    assert!(s
        .finish(c.id, c.attempt, &report(verdict, 2), "", now + 1)
        .expect("finish"));
    (c.id, c.judging)
}

pub fn claims_are_fair_between_users(s: &dyn Store) {
    // Alice's burst of four arrives first, then Bob's two and Carol's one.
    let users = ["alice", "alice", "alice", "alice", "bob", "bob", "carol"];
    for u in users {
        s.insert(&sub(u, "p"), 0).expect("insert");
    }
    let order: Vec<String> = std::iter::from_fn(|| s.claim("h", 1, 1_000_000).expect("claim"))
        .map(|c| c.user)
        .collect();
    assert_eq!(
        order,
        ["alice", "bob", "carol", "alice", "bob", "alice", "alice"]
    );
}

pub fn a_result_is_stored_once_and_stale_claims_are_refused(s: &dyn Store) {
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let c = s
        .claim("host-1", 1, 1_000_000)
        .expect("claim")
        .expect("queued");
    assert_eq!((c.id, c.attempt, c.rejudging), (id, 1, None));
    assert_eq!(info(s, id).state, State::Judging);
    // A restart requeues the half-judged submission; the old claim is now stale.
    assert_eq!(s.requeue_interrupted(None).expect("requeue"), 1);
    let c2 = s
        .claim("host-2", 2, 1_000_000)
        .expect("claim")
        .expect("queued again");
    assert_eq!((c2.id, c2.attempt), (id, 2));
    assert_ne!(c.judging, c2.judging);
    assert!(!s
        .finish(c.id, c.attempt, &report(Verdict::WrongAnswer, 2), "", 3)
        .expect("finish"));
    assert!(s
        .finish(c2.id, c2.attempt, &report(Verdict::Accepted, 3), "", 4)
        .expect("finish"));
    assert!(
        !s.finish(c2.id, c2.attempt, &report(Verdict::Accepted, 3), "", 5)
            .expect("finish"),
        "a second finish is refused"
    );
    let d = s.get(id).expect("get").expect("exists");
    assert_eq!(
        (d.info.state, d.info.verdict, d.info.judged, d.tests.len()),
        (State::Done, Some(Verdict::Accepted), 1, 3)
    );
    assert_eq!(d.info.judging, Some(c2.judging));
    assert_eq!(d.info.judged_by.as_deref(), Some("host-2"));
    assert_eq!(d.info.attempts, 2);
    assert_eq!((d.info.started_at, d.info.finished_at), (Some(2), Some(4)));
    assert_eq!(d.compile_output, "compiled for Accepted");
    assert_eq!(d.warnings, ["a warning"]);
    assert_eq!(d.source, b"int main(){}");
    assert_eq!(d.tests[2].wall_ms, 12);
    assert!(s.claim("host-1", 6, 1_000_000).expect("claim").is_none());

    let history = s.judgings(id).expect("judgings");
    assert_eq!(history.len(), 2, "{history:?}");
    let first = &history[0];
    assert_eq!(
        (
            first.attempt,
            first.judged_by.as_str(),
            first.finished_at,
            first.verdict,
            first.current
        ),
        (1, "host-1", None, None, false),
        "the interrupted attempt stays in the history, unfinished"
    );
    let second = &history[1];
    assert_eq!(
        (
            second.attempt,
            second.judged_by.as_str(),
            second.verdict,
            second.current
        ),
        (2, "host-2", Some(Verdict::Accepted), true)
    );
    assert_eq!(second.max_wall_ms, Some(12));
    let detail = s.judging(c2.judging).expect("judging").expect("exists");
    assert_eq!(detail.tests.len(), 3);
    assert_eq!(detail.info, *second);
    assert!(s.judging(c2.judging + 100).expect("judging").is_none());
}

pub fn a_cancelled_claim_leaves_an_unfinished_judging(s: &dyn Store) {
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let c = s.claim("h", 1, 1_000_000).expect("claim").expect("queued");
    assert!(
        !s.requeue(id, c.attempt + 1).expect("requeue"),
        "wrong attempt"
    );
    assert!(s.requeue(id, c.attempt).expect("requeue"));
    let i = info(s, id);
    assert_eq!(
        (i.state, i.verdict, i.judging, i.judged),
        (State::Queued, None, None, 0)
    );
    let c2 = s.claim("h", 2, 1_000_000).expect("claim").expect("queued");
    assert_eq!(c2.attempt, 2);
    assert!(s
        .finish(
            id,
            c2.attempt,
            &report(Verdict::TimeLimitExceeded, 1),
            "",
            3
        )
        .expect("finish"));
    let history = s.judgings(id).expect("judgings");
    assert_eq!(
        history
            .iter()
            .map(|j| (j.finished_at.is_some(), j.current))
            .collect::<Vec<_>>(),
        [(false, false), (true, true)]
    );
}

pub fn rejudge_makes_the_new_judging_current(s: &dyn Store) {
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    let (_, first) = judge_next(s, "h", Verdict::WrongAnswer, 1);
    assert!(s.rejudge(id).expect("rejudge"));
    assert!(!s.rejudge(id + 1).expect("rejudge"), "no such submission");
    let i = info(s, id);
    assert_eq!(
        (i.state, i.verdict, i.judging),
        (State::Queued, Some(Verdict::WrongAnswer), Some(first)),
        "until the new judging finishes, the old verdict shows"
    );
    let (_, second) = judge_next(s, "h", Verdict::Accepted, 5);
    let i = info(s, id);
    assert_eq!(
        (i.state, i.verdict, i.judging, i.judged),
        (State::Done, Some(Verdict::Accepted), Some(second), 2)
    );
    assert_eq!(s.rejudge_problem("p").expect("rejudge"), 1);
    assert_eq!(s.rejudge_problem("other").expect("rejudge"), 0);
}

pub fn a_rejudging_waits_for_make_current(s: &dyn Store) {
    let a = s.insert(&sub("a", "p"), 0).expect("insert");
    let b = s.insert(&sub("b", "p"), 0).expect("insert");
    let (_, a1) = judge_next(s, "h", Verdict::WrongAnswer, 1);
    let (_, b1) = judge_next(s, "h", Verdict::WrongAnswer, 2);
    assert_eq!(
        s.enqueue_rejudging(&[a, b, b + 10], 77).expect("enqueue"),
        2
    );
    let mut new = Vec::new();
    while let Some(c) = s.claim("h", 3, 1_000_000).expect("claim") {
        assert_eq!(c.rejudging, Some(77));
        assert!(s
            .finish(c.id, c.attempt, &report(Verdict::Accepted, 2), "", 4)
            .expect("finish"));
        new.push(c.judging);
    }
    assert_eq!(new.len(), 2);
    for (id, old) in [(a, a1), (b, b1)] {
        let i = info(s, id);
        assert_eq!(
            (i.state, i.verdict, i.judging),
            (State::Done, Some(Verdict::WrongAnswer), Some(old)),
            "a rejudging's results are not shown before it is applied"
        );
    }
    let history: Vec<JudgingInfo> = s.judgings(a).expect("judgings");
    assert_eq!(
        history
            .iter()
            .map(|j| (j.rejudging, j.verdict, j.current))
            .collect::<Vec<_>>(),
        [
            (None, Some(Verdict::WrongAnswer), true),
            (Some(77), Some(Verdict::Accepted), false)
        ]
    );
    assert_eq!(s.make_current(&new).expect("apply"), 2);
    for id in [a, b] {
        let i = info(s, id);
        assert_eq!(i.verdict, Some(Verdict::Accepted));
        assert!(new.contains(&i.judging.expect("current")));
    }
    let counts = s.counts().expect("counts");
    assert_eq!(counts.by_verdict, [(Verdict::Accepted, 2)]);
    // And back (a rejudging that is reverted).
    assert_eq!(s.make_current(&[a1, b1]).expect("revert"), 2);
    assert_eq!(info(s, a).verdict, Some(Verdict::WrongAnswer));
}

pub fn make_current_is_all_or_nothing(s: &dyn Store) {
    let a = s.insert(&sub("a", "p"), 0).expect("insert");
    let b = s.insert(&sub("b", "p"), 0).expect("insert");
    judge_next(s, "h", Verdict::WrongAnswer, 1);
    judge_next(s, "h", Verdict::WrongAnswer, 1);
    s.enqueue_rejudging(&[a, b], 5).expect("enqueue");
    let ca = s.claim("h", 2, 1_000_000).expect("claim").expect("queued");
    assert!(s
        .finish(ca.id, ca.attempt, &report(Verdict::Accepted, 1), "", 3)
        .expect("finish"));
    // b's rejudging judging is still in flight.
    let cb = s.claim("h", 2, 1_000_000).expect("claim").expect("queued");
    let err = s
        .make_current(&[ca.judging, cb.judging])
        .expect_err("an unfinished judging cannot be current");
    assert!(matches!(err, StoreError::Conflict(_)), "{err}");
    assert!(err.to_string().contains(&cb.judging.to_string()), "{err}");
    assert_eq!(
        info(s, ca.id).verdict,
        Some(Verdict::WrongAnswer),
        "nothing was applied"
    );
    assert!(matches!(
        s.make_current(&[cb.judging + 1000]),
        Err(StoreError::Conflict(_))
    ));
}

pub fn a_rejudging_of_an_unjudged_submission_becomes_current(s: &dyn Store) {
    let id = s.insert(&sub("a", "p"), 0).expect("insert");
    assert_eq!(s.enqueue_rejudging(&[id], 9).expect("enqueue"), 1);
    let (_, j) = judge_next(s, "h", Verdict::Accepted, 1);
    assert_eq!(
        info(s, id).judging,
        Some(j),
        "there was nothing to compare with"
    );
}

pub fn list_filters_and_pages(s: &dyn Store) {
    let mut ids = Vec::new();
    for (u, p) in [("a", "p"), ("b", "p"), ("a", "q"), ("a", "p")] {
        ids.push(s.insert(&sub(u, p), 0).expect("insert"));
    }
    judge_next(s, "h", Verdict::Accepted, 1);
    let list = |user: Option<&str>, problem: Option<&str>, before: Option<i64>, limit| {
        s.list(&ListFilter {
            user: user.map(String::from),
            problem: problem.map(String::from),
            before,
            limit,
            ..Default::default()
        })
        .expect("list")
        .into_iter()
        .map(|i| i.id)
        .collect::<Vec<_>>()
    };
    assert_eq!(list(None, None, None, 10), [ids[3], ids[2], ids[1], ids[0]]);
    assert_eq!(list(Some("a"), None, None, 10), [ids[3], ids[2], ids[0]]);
    assert_eq!(list(Some("a"), Some("p"), None, 10), [ids[3], ids[0]]);
    assert_eq!(list(None, None, Some(ids[2]), 1), [ids[1]]);
    let all = s
        .list(&ListFilter {
            limit: 10,
            ..Default::default()
        })
        .expect("list");
    let judged = all.iter().find(|i| i.id == ids[0]).expect("listed");
    assert_eq!(
        (
            judged.verdict,
            judged.judged_by.as_deref(),
            judged.source_bytes
        ),
        (Some(Verdict::Accepted), Some("h"), 12)
    );
    assert!(s.get(ids[3] + 1).expect("get").is_none());
    // Pending: queued or being judged, never done (the queue page's one query).
    let pending = ListFilter {
        pending: true,
        limit: 10,
        ..Default::default()
    };
    let pending_ids = |s: &dyn Store| {
        s.list(&pending)
            .expect("list")
            .into_iter()
            .map(|i| i.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(pending_ids(s), [ids[3], ids[2], ids[1]]);
    assert_eq!(s.count_matching(&pending).expect("count"), 3);
    let c = s.claim("h", 3, 10_000).expect("claim").expect("queued");
    assert_eq!(pending_ids(s).len(), 3, "one being judged is still pending");
    assert!(s.rejudge(ids[0]).expect("rejudge"));
    assert_eq!(
        pending_ids(s),
        [ids[3], ids[2], ids[1], ids[0]],
        "an old one queued again"
    );
    assert!(s
        .finish(c.id, c.attempt, &report(Verdict::Accepted, 1), "", 4)
        .expect("finish"));
    assert_eq!(s.count_matching(&pending).expect("count"), 3);
}

pub fn list_filters_by_current_verdict_and_language(s: &dyn Store) {
    // Seven submissions: (language, verdict of the first judging); the last stays queued.
    let plan = [
        ("c", Some(Verdict::Accepted)),
        ("py", Some(Verdict::WrongAnswer)),
        ("c", Some(Verdict::WrongAnswer)),
        ("py", Some(Verdict::Accepted)),
        ("c", Some(Verdict::TimeLimitExceeded)),
        ("c", Some(Verdict::WrongAnswer)),
        ("c", None),
    ];
    let mut ids = Vec::new();
    for (i, (lang, _)) in plan.iter().enumerate() {
        let mut new = sub(if i % 2 == 0 { "a" } else { "b" }, "p");
        new.language = lang.to_string();
        ids.push(s.insert(&new, 0).expect("insert"));
    }
    for (id, (_, verdict)) in ids.iter().zip(plan) {
        let Some(verdict) = verdict else { continue };
        let c = s.claim("h", 1, 1_000_000).expect("claim").expect("queued");
        assert_eq!(c.id, *id, "claims follow the queue here");
        assert!(s
            .finish(c.id, c.attempt, &report(verdict, 1), "", 2)
            .expect("finish"));
    }
    let filter =
        |verdict: Option<Verdict>, language: Option<&str>, user: Option<&str>| ListFilter {
            verdict,
            language: language.map(String::from),
            user: user.map(String::from),
            limit: 100,
            ..Default::default()
        };
    let ids_of = |f: &ListFilter| {
        s.list(f)
            .expect("list")
            .into_iter()
            .map(|i| i.id)
            .collect::<Vec<_>>()
    };
    let wa = filter(Some(Verdict::WrongAnswer), None, None);
    assert_eq!(ids_of(&wa), [ids[5], ids[2], ids[1]]);
    assert_eq!(s.count_matching(&wa).expect("count"), 3);
    let c_wa = filter(Some(Verdict::WrongAnswer), Some("c"), None);
    assert_eq!(ids_of(&c_wa), [ids[5], ids[2]]);
    let py = filter(None, Some("py"), None);
    assert_eq!(ids_of(&py), [ids[3], ids[1]]);
    assert_eq!(s.count_matching(&py).expect("count"), 2);
    let a_c = filter(None, Some("c"), Some("a"));
    assert_eq!(ids_of(&a_c), [ids[6], ids[4], ids[2], ids[0]]);
    assert!(ids_of(&filter(Some(Verdict::MemoryLimitExceeded), None, None)).is_empty());
    assert_eq!(
        s.count_matching(&filter(None, None, None)).expect("count"),
        7
    );

    // Pages of two over the four C submissions that have a verdict... and the queued one.
    let mut page = filter(None, Some("c"), None);
    page.limit = 2;
    let first = s.list_page(&page).expect("page");
    assert_eq!(
        (
            first.rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            first.has_more
        ),
        (vec![ids[6], ids[5]], true)
    );
    page.before = Some(ids[5]);
    let second = s.list_page(&page).expect("page");
    assert_eq!(
        (
            second.rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            second.has_more
        ),
        (vec![ids[4], ids[2]], true)
    );
    page.before = Some(ids[2]);
    let last = s.list_page(&page).expect("page");
    assert_eq!(
        (
            last.rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            last.has_more
        ),
        (vec![ids[0]], false)
    );
    // `before` and `limit` do not change the total.
    assert_eq!(s.count_matching(&page).expect("count"), 5);

    // The filter reads the CURRENT judging: a rejudging waits for its apply, a plain rejudge
    // switches as soon as it finishes.
    assert_eq!(s.enqueue_rejudging(&[ids[0]], 77).expect("enqueue"), 1);
    let c = s.claim("h", 3, 1_000_000).expect("claim").expect("queued");
    assert!(s
        .finish(c.id, c.attempt, &report(Verdict::WrongAnswer, 1), "", 4)
        .expect("finish"));
    assert!(
        !ids_of(&wa).contains(&ids[0]),
        "an unapplied rejudging does not change the listed verdict"
    );
    assert!(ids_of(&filter(Some(Verdict::Accepted), None, None)).contains(&ids[0]));
    assert!(s.make_current(&[c.judging]).expect("apply") == 1);
    assert_eq!(ids_of(&wa), [ids[5], ids[2], ids[1], ids[0]]);
    assert_eq!(s.count_matching(&wa).expect("count"), 4);

    // By contest: the contest's own submissions (the jury's included), newest first, and
    // their count; other filters still apply.
    let c1 = s
        .insert_in_contest(&sub("a", "p"), "c1", 1)
        .expect("insert");
    let other = s
        .insert_in_contest(&sub("a", "p"), "c2", 2)
        .expect("insert");
    let jury = s
        .insert_in_contest_as(&sub("admin", "p"), "c1", true, 3)
        .expect("insert");
    let mut in_c1 = filter(None, None, None);
    in_c1.contest = Some("c1".into());
    assert_eq!(ids_of(&in_c1), [jury, c1], "not {other} of c2");
    assert_eq!(s.count_matching(&in_c1).expect("count"), 2);
    in_c1.user = Some("a".into());
    assert_eq!(ids_of(&in_c1), [c1]);
    assert_eq!(s.count_matching(&in_c1).expect("count"), 1);
    in_c1.contest = Some("none".into());
    assert!(ids_of(&in_c1).is_empty());
}

pub fn counts_follow_the_current_judging(s: &dyn Store) {
    for u in ["a", "b", "c"] {
        s.insert(&sub(u, "p"), 0).expect("insert");
    }
    judge_next(s, "h", Verdict::WrongAnswer, 1);
    s.claim("h", 2, 1_000_000).expect("claim").expect("queued");
    let counts = s.counts().expect("counts");
    assert_eq!(
        (
            counts.queued,
            counts.judging,
            counts.done,
            counts.by_verdict
        ),
        (1, 1, 1, vec![(Verdict::WrongAnswer, 1)])
    );
}

pub fn tokens_round_trip(s: &dyn Store) {
    s.add_token("h1", "alice", false, 1).expect("add");
    s.add_token("h2", "root", true, 2).expect("add");
    let t = s.find_token("h1").expect("find").expect("exists");
    assert_eq!(
        (t.name.as_str(), t.admin, t.created_at),
        ("alice", false, 1)
    );
    assert!(s.find_token("h3").expect("find").is_none());
    assert_eq!(
        s.tokens()
            .expect("list")
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["alice", "root"]
    );
    assert_eq!(s.revoke_tokens("alice").expect("revoke"), 1);
    assert_eq!(s.revoke_tokens("alice").expect("revoke"), 0);
    assert_eq!(s.tokens().expect("list").len(), 1);
}

/// A database written by the previous schema (one verdict column per submission, results keyed
/// by submission) opens, keeps every submission and shows each stored verdict as its current
/// judging.
#[test]
fn a_database_from_before_judgings_history_is_upgraded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("old.sqlite3");
    {
        let old = rusqlite::Connection::open(&path).expect("create");
        old.execute_batch(&store::migrations(Dialect::Sqlite)[0])
            .expect("old schema");
        old.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO submissions (user, problem, language, source, state, verdict, score,
                 max_cpu_ms, max_memory_kib, compile_output, message, warnings, judge_version,
                 queued_at, started_at, finished_at, attempts, judged)
             VALUES
             ('alice', 'aplusb', 'c', x'696e74', 'done', 'AC', 100, 5, 1000, 'ok', '', '[\"w\"]',
                 'ojd 0.1', 10, 11, 12, 1, 1),
             ('bob', 'aplusb', 'py', x'7072696e74', 'done', 'WA', 0, 6, 2000, '', '', '[]',
                 'ojd 0.1', 20, 21, 22, 2, 2),
             ('carol', 'aplusb', 'c', x'00', 'judging', NULL, NULL, NULL, NULL, '', '', '[]',
                 NULL, 30, 31, NULL, 1, 0),
             ('dave', 'aplusb', 'c', x'01', 'queued', NULL, NULL, NULL, NULL, '', '', '[]',
                 NULL, 40, NULL, NULL, 0, 0);
             INSERT INTO results VALUES
             (1, 0, '1', 1, 'AC', 1, 5, 100, '0', '', NULL),
             (1, 1, '2', 0, 'AC', 2, 9, 100, '0', '', NULL),
             (2, 0, '1', 1, 'WA', 1, 4, 100, '0', 'wrong', '{\"lines\":[]}');
             INSERT INTO tokens VALUES ('hash', 'alice', 0, 5);",
        )
        .expect("old rows");
    }
    let s = store::open(path.to_str().expect("utf-8")).expect("the old database opens");
    let all = s
        .list(&ListFilter {
            limit: 10,
            ..Default::default()
        })
        .expect("list");
    assert_eq!(all.len(), 4, "every submission kept: {all:?}");
    let a = s.get(1).expect("get").expect("alice's");
    assert_eq!(
        (
            a.info.state,
            a.info.verdict,
            a.info.score,
            a.info.judged,
            a.info.attempts
        ),
        (State::Done, Some(Verdict::Accepted), Some(100), 1, 1)
    );
    assert_eq!(
        (
            a.info.started_at,
            a.info.finished_at,
            a.info.judge_version.as_deref()
        ),
        (Some(11), Some(12), Some("ojd 0.1"))
    );
    assert_eq!(
        (a.compile_output.as_str(), a.warnings.clone()),
        ("ok", vec!["w".to_string()])
    );
    assert_eq!(
        a.tests.iter().map(|t| t.wall_ms).collect::<Vec<_>>(),
        [5, 9]
    );
    assert_eq!(a.source, b"int");
    let b = s.get(2).expect("get").expect("bob's");
    assert_eq!(b.info.verdict, Some(Verdict::WrongAnswer));
    assert_eq!(b.tests[0].message, "wrong");
    let history = s.judgings(1).expect("judgings");
    assert_eq!(history.len(), 1);
    assert_eq!(
        (
            history[0].attempt,
            history[0].current,
            history[0].max_wall_ms
        ),
        (1, true, Some(9))
    );
    let c = s.info(3).expect("info").expect("carol's");
    assert_eq!(
        (c.state, c.verdict, c.judging, c.started_at),
        (State::Judging, None, None, Some(31))
    );
    assert!(s.find_token("hash").expect("token").is_some());
    // The upgraded database works as a queue: the interrupted and the queued one get judged.
    assert_eq!(s.requeue_interrupted(None).expect("requeue"), 1);
    let first = s.claim("h", 50, 1_000_000).expect("claim").expect("queued");
    assert_eq!((first.id, first.attempt), (3, 2));
    assert!(s
        .finish(
            first.id,
            first.attempt,
            &report(Verdict::Accepted, 1),
            "",
            51
        )
        .expect("finish"));
    let second = s.claim("h", 52, 1_000_000).expect("claim").expect("queued");
    assert_eq!(second.id, 4);
    drop(s);
    // Opening again runs nothing twice.
    let s = store::open(path.to_str().expect("utf-8")).expect("reopens");
    assert_eq!(
        s.info(3).expect("info").expect("row").verdict,
        Some(Verdict::Accepted)
    );
}

/// One host reads its problems from its folder: SQLite keeps a package's manifest and version
/// but not its files, and a database from an older ojd that kept them gives the space back.
#[test]
fn sqlite_keeps_no_second_copy_of_problem_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let size = |p: &std::path::Path| {
        // The file and its write-ahead log: what the database takes on disk.
        let mut wal = p.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
            + std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0)
    };
    // 4 MiB of test data that does not compress away.
    let big: Vec<u8> = (0..4u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let files = vec![
        ("problem.toml".to_string(), b"title = 'x'".to_vec()),
        ("tests/1.in".to_string(), big.clone()),
    ];

    // A fresh database: publishing records the version, not the bytes.
    let fresh = dir.path().join("fresh.sqlite3");
    {
        let s = store::open(fresh.to_str().expect("utf-8")).expect("open");
        let empty = size(&fresh);
        let v = s.publish("p", &files, 1).expect("publish");
        assert!(s.package(&v).expect("package").is_some());
        let grown = size(&fresh).saturating_sub(empty);
        eprintln!("fresh database: {empty} bytes empty, +{grown} bytes after publishing 4 MiB");
        assert!(grown < 1 << 20, "publishing grew the file by {grown} bytes");
    }

    // A database from the ojd that stored blobs (schema 6), holding a 4 MiB blob.
    let old = dir.path().join("old.sqlite3");
    {
        let mut conn = rusqlite::Connection::open(&old).expect("create");
        for (i, m) in store::migrations(Dialect::Sqlite)
            .iter()
            .take(6)
            .enumerate()
        {
            let tx = conn.transaction().expect("tx");
            tx.execute_batch(m).expect("migrate");
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .expect("version");
            tx.commit().expect("commit");
        }
        conn.execute(
            "INSERT INTO blobs (hash, size, data) VALUES ('h', ?1, ?2)",
            rusqlite::params![big.len() as i64, big],
        )
        .expect("an old blob");
    }
    let before = size(&old);
    assert!(
        before > 4 << 20,
        "the old file holds the blob: {before} bytes"
    );
    let s = store::open(old.to_str().expect("utf-8")).expect("upgrade");
    drop(s);
    let after = size(&old);
    eprintln!("old database: {before} bytes before the upgrade, {after} after");
    assert!(
        after < 1 << 20,
        "the upgrade gave the space back: {after} bytes"
    );
}

#[test]
fn a_database_newer_than_this_ojd_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("new.sqlite3");
    rusqlite::Connection::open(&path)
        .expect("create")
        .execute_batch("PRAGMA user_version = 999")
        .expect("version");
    let err = store::open(path.to_str().expect("utf-8"))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("schema version 999"), "{err}");
}

/// The database's cost per submission, SQLite and PostgreSQL side by side in one run: queueing
/// it, then claim + 3 heartbeats + storing a 20-test verdict (one statement on PostgreSQL),
/// from 1 and from 4 threads (judge hosts); then the same with the judging's 43 live events
/// (started, compiled, 20 × test started/finished, done) sent as the hub sends them, in one
/// batch, and, for comparison, one statement per event. From it: the submissions per second
/// one database could serve before it, not the judge hosts, is the limit. Opt-in:
/// `cargo test --release --test integration store::database_cost -- --ignored --nocapture`
#[test]
#[ignore]
fn database_cost_per_submission() {
    use std::time::Instant;
    let n = 300usize;
    let events: Vec<String> = (0..43)
        .map(|i| format!(r#"{{"from":"h","live":{{"kind":"test_finished","id":1,"index":{i},"result":{{"name":"{i}","verdict":"AC","cpu_ms":1,"wall_ms":2,"memory_kib":300}}}}}}"#))
        .collect();
    let mut table = String::new();
    for (name, fixture) in [("sqlite", sqlite()), ("postgres", postgres())] {
        let Some(f) = fixture else { continue };
        let s = f.store.as_ref();
        // (label, events per submission in how many statements)
        for (label, batches) in [
            ("no events", 0usize),
            ("events batched", 1),
            ("events one by one", 43),
        ] {
            for threads in [1usize, 4] {
                let t = Instant::now();
                for i in 0..n {
                    s.insert(&sub(&format!("u{}", i % 50), "p"), 0)
                        .expect("insert");
                }
                let insert = t.elapsed();
                let events = &events;
                let t = Instant::now();
                std::thread::scope(|scope| {
                    for w in 0..threads {
                        scope.spawn(move || {
                            let host = format!("h{w}");
                            while let Some(c) = s.claim(&host, 1, 100_000).expect("claim") {
                                for _ in 0..3 {
                                    s.heartbeat(
                                        &host,
                                        "worker",
                                        0,
                                        100_000,
                                        &[c.id],
                                        &Default::default(),
                                    )
                                    .expect("beat");
                                }
                                if batches > 0 {
                                    for chunk in events.chunks(events.len().div_ceil(batches)) {
                                        s.notify(chunk).expect("notify");
                                    }
                                }
                                assert!(s
                                    .finish(c.id, c.attempt, &report(Verdict::Accepted, 20), "", 2)
                                    .expect("finish"));
                            }
                        });
                    }
                });
                let per = t.elapsed().as_secs_f64() * 1000.0 / n as f64;
                let line = format!(
                    "| {name} | {label} | {threads} | {:.1} ms | {per:.1} ms | {:.0} |\n",
                    insert.as_secs_f64() * 1000.0 / n as f64,
                    1000.0 / per
                );
                print!("{line}");
                table.push_str(&line);
            }
        }
    }
    println!("\n| store | live events | threads | queue | claim + 3 heartbeats (+ events) + store | submissions/s |\n|---|---|---|---|---|---|\n{table}");
}

/// A half-published package version is never judged: a publish is one transaction, so a claim
/// made while another node is publishing (blobs stored, manifest and "current" written, not
/// committed) names the previous version, and so does a claim after that publish failed; a
/// judge host asked for a version whose blobs are not all in the database lays nothing out
/// and loads nothing, and lays it out whole once they are.
#[test]
fn a_half_published_version_is_never_judged() {
    use ojd_store::manifest;
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let s = store::open(&url).expect("open");
    let dir = crate::common::testdata("aplusb");
    let files = ojd_service::package_files(&dir).expect("package files");
    let v1 = s.publish("aplusb", &files, 1).expect("publish");

    // Another node starts publishing a changed package and stops halfway: one new blob of two
    // stored, its manifest and the new current version written, nothing committed.
    let mut changed = files.clone();
    changed.push(("tests/03-new.in".into(), b"1\n40 2\n".to_vec()));
    changed.push(("tests/03-new.ans".into(), b"42\n".to_vec()));
    let (list, v2) = manifest("aplusb", &changed);
    let mut other = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut tx = other.transaction().expect("begin");
    let new_in = list
        .iter()
        .find(|f| f.path == "tests/03-new.in")
        .expect("in manifest");
    tx.execute(
        "INSERT INTO blobs (hash, size, data) VALUES ($1, $2, $3)",
        &[&new_in.hash, &(new_in.size as i64), &b"1\n40 2\n".to_vec()],
    )
    .expect("half the blobs");
    tx.execute(
        "INSERT INTO packages (version, problem, manifest, published_at) VALUES ($1, 'aplusb', $2, 2)",
        &[&v2, &serde_json::to_string(&list).expect("json")],
    )
    .expect("manifest");
    tx.execute(
        "UPDATE problem_current SET version = $1 WHERE problem = 'aplusb'",
        &[&v2],
    )
    .expect("current");

    let mut sub = sub("a", "aplusb");
    sub.language = "py".into();
    s.insert(&sub, 3).expect("insert");
    s.insert(&sub, 3).expect("insert");
    let during = s.claim("h", 4, 100_000).expect("claim").expect("queued");
    assert_eq!(
        during.package_version.as_deref(),
        Some(v1.as_str()),
        "a claim during the publish judges the last whole version"
    );
    tx.rollback().expect("the publish fails");
    let after = s.claim("h", 5, 100_000).expect("claim").expect("queued");
    assert_eq!(after.package_version.as_deref(), Some(v1.as_str()));

    // Had a claim named a version with a blob missing, the judge host would refuse to lay it
    // out: no folder appears, nothing is loaded, and nothing is judged against it.
    let mut tx = other.transaction().expect("begin");
    tx.execute(
        "INSERT INTO packages (version, problem, manifest, published_at) VALUES ($1, 'aplusb', $2, 2)",
        &[&v2, &serde_json::to_string(&list).expect("json")],
    )
    .expect("manifest alone");
    tx.commit().expect("commit");
    let cache_dir = tempfile::tempdir().expect("cache");
    let cache = ojd_service::Cache::new(cache_dir.path()).expect("cache");
    let err = cache
        .problem(s.as_ref(), "aplusb", Some(&v2))
        .expect_err("refused");
    assert!(
        matches!(err, ojd_service::BlobError::NoBlob { .. }),
        "{err}"
    );
    assert!(
        !cache_dir.path().join("packages").join(&v2).exists(),
        "nothing laid out for a version with missing blobs"
    );
    assert_eq!(cache.loaded_count(), 0);

    // Published whole (the other node retries), it is current and lays out completely.
    let v2_again = s.publish("aplusb", &changed, 6).expect("publish");
    assert_eq!(v2_again, v2);
    let problem = cache
        .problem(s.as_ref(), "aplusb", Some(&v2))
        .expect("laid out");
    assert!(
        problem.tests.iter().any(|t| t.name.contains("03-new")),
        "the whole version, with its new test"
    );
    let fetched = cache.fetched.load(std::sync::atomic::Ordering::Relaxed);
    let distinct: std::collections::BTreeSet<&str> = list.iter().map(|f| f.hash.as_str()).collect();
    assert_eq!(
        fetched as usize,
        distinct.len(),
        "every distinct blob fetched once"
    );
    s.rejudge(after.id).expect("rejudge");
    let next = s.claim("h", 7, 100_000).expect("claim").expect("queued");
    assert_eq!(next.package_version.as_deref(), Some(v2.as_str()));
}

/// What the health check, a submissions page, the counts and a contest's standings input cost
/// at a million submissions, on both stores (opt-in, `#[ignore]`): seeds 1,000,000 judged
/// submissions of 500 users (one statement per store, through the counters' triggers), of
/// which the first 5,000 (10 per user, each with a finished judging) are a contest's; then
/// times `pending_counts` (what `/healthz` asks), the newest page of the list, unfiltered and
/// for one user, the unfiltered total and the counts by state and verdict (`/metrics`, the
/// queue page), the contest's submissions with every column (the old standings' input: the
/// first call cold), the light standings input and its ranking, 200 times each, and prints
/// median and p99.
/// Then [`serve_measure`]: the standings cold and cached, and `/healthz`, over HTTP.
/// `cargo test --release --test integration store::a_million_submissions -- --ignored --nocapture`
#[test]
#[ignore = "a load measurement: run it on its own with --ignored"]
fn a_million_submissions() {
    use std::time::{Duration, Instant};
    const N: i64 = 1_000_000;
    const CONTEST: i64 = 5_000;
    let seed_lite = format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {N})
         INSERT INTO submissions (\"user\", problem, language, source, state, queued_at, attempts)
         SELECT 'u' || (i % 500), 'p' || (i % 20), 'py', x'00', 'done', i, 1 FROM n;
         INSERT INTO judgings (submission, attempt, judged_by, started_at, finished_at, verdict)
         SELECT id, 1, 'h', queued_at, queued_at, CASE WHEN id % 3 = 0 THEN 'AC' ELSE 'WA' END
         FROM submissions WHERE id <= {CONTEST};
         UPDATE submissions SET current_judging = (SELECT j.id FROM judgings j
           WHERE j.submission = submissions.id) WHERE id <= {CONTEST};
         INSERT INTO contest_submissions (submission, contest)
         SELECT id, 'big' FROM submissions WHERE id <= {CONTEST};"
    );
    let seed_pg = format!(
        "INSERT INTO submissions (\"user\", problem, language, source, state, queued_at, attempts)
         SELECT 'u' || (i % 500), 'p' || (i % 20), 'py', '\\x00', 'done', i, 1
         FROM generate_series(1, {N}) AS i;
         INSERT INTO judgings (submission, attempt, judged_by, started_at, finished_at, verdict)
         SELECT id, 1, 'h', queued_at, queued_at, CASE WHEN id % 3 = 0 THEN 'AC' ELSE 'WA' END
         FROM submissions WHERE id <= {CONTEST};
         UPDATE submissions s SET current_judging = j.id FROM judgings j
           WHERE j.submission = s.id AND s.id <= {CONTEST};
         INSERT INTO contest_submissions (submission, contest)
         SELECT id, 'big' FROM submissions WHERE id <= {CONTEST};
         ANALYZE;"
    );
    let time = |what: &str, s: &dyn Store, f: &dyn Fn(&dyn Store)| {
        let t = Instant::now();
        f(s);
        let first = t.elapsed();
        let runs = 200;
        let mut took: Vec<Duration> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                f(s);
                t.elapsed()
            })
            .collect();
        took.sort();
        eprintln!(
            "  {what}: median {:.2} ms, p99 {:.2} ms ({runs} runs; the first {:.2} ms)",
            took[runs / 2].as_secs_f64() * 1e3,
            took[runs * 99 / 100].as_secs_f64() * 1e3,
            first.as_secs_f64() * 1e3
        );
    };
    let measure = |name: &str, s: &dyn Store| {
        for i in 0..5 {
            s.insert(&sub(&format!("u{i}"), "p1"), N + i)
                .expect("insert");
        }
        eprintln!("{name}, {N} submissions:");
        time(
            "contest of 500 users: its submissions with everything (the old standings input)",
            s,
            &|s| {
                let subs = s.contest_submissions("big").expect("contest");
                assert_eq!(subs.len(), CONTEST as usize);
            },
        );
        time(
            "contest of 500 users: the standings input (standings_input)",
            s,
            &|s| {
                let subs = s.standings_input("big").expect("contest");
                assert_eq!(subs.len(), CONTEST as usize);
            },
        );
        let big = big_contest();
        time(
            "the standings computed from that input (ranking, no JSON)",
            s,
            &|s| {
                let attempts: Vec<standings::Attempt> = s
                    .standings_input("big")
                    .expect("contest")
                    .into_iter()
                    .map(|e| standings::Attempt {
                        id: e.id,
                        user: e.user,
                        problem: e.problem,
                        at_ms: e.queued_at,
                        result: e.verdict.map(|verdict| standings::Judged {
                            verdict,
                            score_milli: e.score_milli.unwrap_or(0),
                            groups: Vec::new(),
                        }),
                    })
                    .collect();
                let table = standings::compute(&big, &attempts, &[], None);
                assert_eq!(table.rows.len(), 500);
            },
        );
        time("pending_counts (/healthz)", s, &|s| {
            assert_eq!(s.pending_counts().expect("counts"), (5, 0));
        });
        let page = |user: Option<&str>| ListFilter {
            user: user.map(str::to_string),
            limit: 50,
            ..Default::default()
        };
        time("newest page of 50", s, &|s| {
            assert_eq!(s.list_page(&page(None)).expect("page").rows.len(), 50);
        });
        time("one user's newest page of 50", s, &|s| {
            assert_eq!(s.list_page(&page(Some("u7"))).expect("page").rows.len(), 50);
        });
        time("count_matching, unfiltered (the list's total)", s, &|s| {
            assert_eq!(s.count_matching(&page(None)).expect("count"), N as u64 + 5);
        });
        time(
            "counts by state and verdict (/metrics, queue page)",
            s,
            &|s| {
                let c = s.counts().expect("counts");
                assert_eq!((c.queued, c.done), (5, N as u64));
            },
        );
    };
    // SQLite.
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("big.sqlite3");
    drop(store::open(path.to_str().expect("utf-8")).expect("create"));
    let t = Instant::now();
    let c = rusqlite::Connection::open(&path).expect("open");
    c.execute_batch(&seed_lite).expect("seed");
    c.execute_batch("ANALYZE").expect("analyze");
    drop(c);
    eprintln!("SQLite seeded in {:?}", t.elapsed());
    let lite = store::open(path.to_str().expect("utf-8")).expect("open");
    measure("SQLite", lite.as_ref());
    drop(lite);
    serve_measure("SQLite", path.to_str().expect("utf-8"));
    drop(dir);
    // PostgreSQL.
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let pg = store::open(&url).expect("open");
    let t = Instant::now();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    c.batch_execute(&seed_pg).expect("seed");
    eprintln!("PostgreSQL seeded in {:?}", t.elapsed());
    // What autovacuum does within a minute (the counters' table after 1,000 dead rows): the
    // seed's one transaction folded its counter rows some 8,000 times.
    c.batch_execute("VACUUM ANALYZE").expect("vacuum");
    measure("PostgreSQL", pg.as_ref());
    serve_measure("PostgreSQL", &url);
}

/// The bench's contest: its 5,000 submissions (queued at 1 to 5,000 ms after the epoch) over
/// problems `p0` to `p19`, ICPC rules.
fn big_contest() -> ojd_service::contest::Contest {
    use ojd_service::contest::{Contest, ContestProblem, Participants, Scoring};
    Contest {
        id: "big".into(),
        dir: Default::default(),
        title: "big".into(),
        start_ms: 0,
        utc_offset_s: 0,
        duration: std::time::Duration::from_secs(2 * 3600),
        freeze: None,
        scoring: Scoring::Icpc,
        penalty_minutes: 20,
        compile_errors_count: false,
        problems: (0..20)
            .map(|i| ContestProblem {
                label: format!("P{i}"),
                problem: format!("p{i}"),
                color: None,
            })
            .collect(),
        participants: Participants::Anyone,
        public_standings: true,
        teams: Vec::new(),
        awards: Default::default(),
        finalized_ms: None,
        feedback: Default::default(),
    }
}

/// Median and p99 of `took`, as the bench prints them.
fn stats(what: &str, mut took: Vec<std::time::Duration>) {
    took.sort();
    let n = took.len();
    eprintln!(
        "  {what}: median {:.2} ms, p99 {:.2} ms ({n} runs)",
        took[n / 2].as_secs_f64() * 1e3,
        took[(n * 99 / 100).min(n - 1)].as_secs_f64() * 1e3,
    );
}

/// The daemon's side of [`a_million_submissions`]: `ojd serve` (no local workers) on the
/// seeded `database`, with the contest `big` over its 5,000 submissions (problems `p0` to
/// `p19`, copies of the fixture), times over HTTP the standings as an admin sees them cold (each
/// after a reload, which empties the cache: store read, ranking and JSON) and cached (what
/// every participant's poll gets until a verdict or an admin changes them), and `/healthz`.
fn serve_measure(name: &str, database: &str) {
    use crate::daemon::{Site, ADMIN};
    use serde_json::json;
    use std::time::Instant;
    let contests = tempfile::tempdir().expect("dir");
    let site = Site::with_database(
        Some(database),
        &format!(
            "contests = \"{}\"\ngenerate_answers = false\nrate_limit_per_minute = 0\n\
             local_workers = false\nstandings_cache = \"1h\"",
            contests.path().display()
        ),
    );
    let problems = site.path().join("problems");
    let mut text =
        String::from("title = \"big\"\nstart = \"1970-01-01T00:00:00Z\"\nduration = \"2h\"\n");
    for p in 0..20 {
        let copy = std::process::Command::new("cp")
            .arg("-r")
            .arg(problems.join("aplusb"))
            .arg(problems.join(format!("p{p}")))
            .status()
            .expect("cp");
        assert!(copy.success());
        text.push_str(&format!("[[problem]]\nid = \"p{p}\"\n"));
    }
    std::fs::create_dir_all(contests.path().join("big")).expect("mkdir");
    std::fs::write(contests.path().join("big/contest.toml"), text).expect("contest");
    let d = site.start();
    let url = "/api/v1/contests/big/standings";
    let (code, s) = d.get(url, Some(ADMIN));
    assert_eq!(code, 200, "{s}");
    assert_eq!(
        s["rows"].as_array().map(Vec::len),
        Some(500),
        "every user ranked"
    );
    // Timed without parsing the JSON (half a megabyte): what the server takes, and the transfer.
    let get = || {
        let (code, s) = d.get_text(url, Some(ADMIN));
        assert_eq!(code, 200, "{s}");
    };
    eprintln!("{name}, ojd serve over HTTP (standings_cache = 1h):");
    // Each override (set, then removed) forgets the tables: the next poll computes.
    let mut cold = Vec::new();
    for i in 0..20 {
        let verdict = if i % 2 == 0 { json!("AC") } else { json!(null) };
        let body = json!({"verdict": verdict, "reason": "bench"});
        let (code, r) = d.post_json("/api/v1/admin/submissions/1/override", Some(ADMIN), &body);
        assert_eq!(code, 200, "{r}");
        let t = Instant::now();
        get();
        cold.push(t.elapsed());
    }
    stats(
        "standings of 500 users, 5,000 submissions, cold (after an override)",
        cold,
    );
    let cached = (0..200)
        .map(|_| {
            let t = Instant::now();
            get();
            t.elapsed()
        })
        .collect();
    stats("the same, cached", cached);
    let health = (0..200)
        .map(|_| {
            let t = Instant::now();
            let (code, _) = d.get_text("/healthz", None);
            assert_eq!(code, 200);
            t.elapsed()
        })
        .collect();
    stats("/healthz", health);
}

/// What the counters say (`counts`, `pending_counts`, the unfiltered totals) next to a real
/// `COUNT(*)` of the tables, run by `truth` on a connection of the test's own.
fn counters_agree(
    s: &dyn Store,
    truth: &mut dyn FnMut() -> Vec<(String, String, String, i64)>,
    when: &str,
) {
    let by_language = truth();
    let real: Vec<(String, String, i64)> = by_language
        .iter()
        .map(|(st, v, _, n)| (st.clone(), v.clone(), *n))
        .collect();
    let sum = |f: &dyn Fn(&str, &str) -> bool| -> u64 {
        real.iter()
            .filter(|(st, v, _)| f(st, v))
            .map(|(_, _, n)| *n as u64)
            .sum()
    };
    let counts = s.counts().expect("counts");
    assert_eq!(
        (counts.queued, counts.judging, counts.done),
        (
            sum(&|st, _| st == "queued"),
            sum(&|st, _| st == "judging"),
            sum(&|st, _| st == "done")
        ),
        "states {when}: counters {counts:?}, the table {real:?}"
    );
    let mut by_verdict: Vec<(String, u64)> = counts
        .by_verdict
        .iter()
        .map(|(v, n)| (v.code().to_string(), *n))
        .collect();
    by_verdict.sort();
    // Summed over the languages (the rows are by language too).
    let mut per_verdict = std::collections::BTreeMap::<String, u64>::new();
    for (_, v, n) in real
        .iter()
        .filter(|(st, v, _)| st == "done" && !v.is_empty())
    {
        *per_verdict.entry(v.clone()).or_default() += *n as u64;
    }
    let real_verdicts: Vec<(String, u64)> = per_verdict.into_iter().collect();
    assert_eq!(by_verdict, real_verdicts, "verdicts {when}");
    assert_eq!(
        s.pending_counts().expect("pending"),
        (sum(&|st, _| st == "queued"), sum(&|st, _| st == "judging")),
        "pending {when}"
    );
    let all = ListFilter::default();
    let pending = ListFilter {
        pending: true,
        ..Default::default()
    };
    assert_eq!(
        s.count_matching(&all).expect("count"),
        sum(&|_, _| true),
        "total {when}"
    );
    assert_eq!(
        s.count_matching(&pending).expect("count"),
        sum(&|st, _| st != "done"),
        "pending total {when}"
    );
    // A language's totals, all and pending (the language counters, entry 25).
    for language in ["c", "py", "none"] {
        let real = |pending: bool| -> u64 {
            by_language
                .iter()
                .filter(|(st, _, l, _)| l == language && (!pending || st != "done"))
                .map(|(_, _, _, n)| *n as u64)
                .sum()
        };
        for pending in [false, true] {
            let filter = ListFilter {
                language: Some(language.into()),
                pending,
                ..Default::default()
            };
            assert_eq!(
                s.count_matching(&filter).expect("count"),
                real(pending),
                "{language} total (pending: {pending}) {when}"
            );
        }
    }
}

/// The real count, by state and current verdict.
const REAL_COUNTS: &str = "SELECT s.state, COALESCE(j.verdict, ''), s.language, COUNT(*)
    FROM submissions s LEFT JOIN judgings j ON j.id = s.current_judging
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3";

/// A submission of `user` to problem `p` in C, or in Python for every third `i`.
fn sub_in(user: &str, problem: &str, i: i64) -> NewSubmission {
    let mut new = sub(user, problem);
    if i % 3 == 0 {
        new.language = "py".into();
    }
    new
}

/// Every kind of change a submission's state or current verdict goes through, each followed by
/// a comparison of the counters with a real count.
fn counters_follow_every_change(
    s: &dyn Store,
    truth: &mut dyn FnMut() -> Vec<(String, String, String, i64)>,
    delete: &mut dyn FnMut(&[i64]),
) {
    counters_agree(s, truth, "at first");
    let mut ids = Vec::new();
    for i in 0..30 {
        let user = format!("u{}", i % 4);
        ids.push(s.insert(&sub_in(&user, "p", i), i).expect("insert"));
    }
    counters_agree(s, truth, "after inserts");
    let verdicts = [
        Verdict::Accepted,
        Verdict::WrongAnswer,
        Verdict::TimeLimitExceeded,
    ];
    for i in 0..20 {
        judge_next(s, "h1", verdicts[i % 3], 10 + i as i64);
    }
    counters_agree(s, truth, "after finishes");
    // Claims left open, one given back, the rest interrupted.
    let c1 = s
        .claim("h1", 40, 1_000_000)
        .expect("claim")
        .expect("queued");
    s.claim("h2", 41, 1_000_000)
        .expect("claim")
        .expect("queued");
    s.claim("h2", 42, 1_000_000)
        .expect("claim")
        .expect("queued");
    counters_agree(s, truth, "after claims");
    assert!(s.requeue(c1.id, c1.attempt).expect("requeue"));
    counters_agree(s, truth, "after a requeue");
    assert_eq!(s.requeue_interrupted(Some("h2")).expect("requeue"), 2);
    counters_agree(s, truth, "after requeueing a host's claims");
    // Rejudgings: one submission, a problem, an admin's rejudging applied and one auto-applied.
    assert!(s.rejudge(ids[0]).expect("rejudge"));
    counters_agree(s, truth, "after a rejudge");
    while let Some(c) = s.claim("h1", 50, 1_000_000).expect("claim") {
        let v = verdicts[(c.id % 3) as usize];
        assert!(s
            .finish(c.id, c.attempt, &report(v, 1), "", 51)
            .expect("finish"));
    }
    counters_agree(s, truth, "after judging the rest");
    let rj = s
        .create_rejudging("all", "admin", &ids[..10], false, 60)
        .expect("rejudging");
    counters_agree(s, truth, "after queueing a rejudging");
    while let Some(c) = s.claim("h1", 61, 1_000_000).expect("claim") {
        assert!(s
            .finish(c.id, c.attempt, &report(Verdict::RuntimeError, 1), "", 62)
            .expect("finish"));
    }
    counters_agree(s, truth, "after judging a rejudging");
    assert_eq!(s.apply_rejudging(rj, "admin", 63).expect("apply"), 10);
    counters_agree(s, truth, "after applying a rejudging");
    s.create_rejudging("some", "admin", &ids[10..15], true, 64)
        .expect("rejudging");
    while let Some(c) = s.claim("h1", 65, 1_000_000).expect("claim") {
        assert!(s
            .finish(c.id, c.attempt, &report(Verdict::Accepted, 1), "", 66)
            .expect("finish"));
    }
    counters_agree(s, truth, "after an auto-applied rejudging");
    let old: Vec<i64> = s
        .judgings(ids[0])
        .expect("judgings")
        .iter()
        .filter(|j| !j.current && j.finished_at.is_some())
        .map(|j| j.id)
        .collect();
    assert_eq!(s.make_current(&old[..1]).expect("revert"), 1);
    counters_agree(s, truth, "after making an old judging current");
    assert_eq!(s.rejudge_problem("p").expect("rejudge"), 30);
    counters_agree(s, truth, "after rejudging a problem");
    s.claim("h3", 70, 1_000_000)
        .expect("claim")
        .expect("queued");
    // A host's restart gives its claims back; the collector removes what nothing uses.
    let start = ojd_store::HostStart {
        identity: "h3",
        label: "h3",
        role: "worker",
        version: "test",
        started_at: 71,
    };
    assert_eq!(s.register_host(&start, 1_000).expect("register"), 1);
    counters_agree(s, truth, "after a host's restart");
    s.collect(0).expect("collect");
    counters_agree(s, truth, "after collecting");
    // Deleted rows (an operator's clean-up) leave the counters too, whatever their state.
    judge_next(s, "h1", Verdict::WrongAnswer, 80);
    s.claim("h1", 81, 1_000_000)
        .expect("claim")
        .expect("queued");
    delete(&ids[..6]);
    counters_agree(s, truth, "after deleting submissions");
    // Many writers at once, past the point where PostgreSQL folds its counter rows.
    let more: Vec<i64> = (0..300)
        .map(|i| {
            s.insert(&sub_in(&format!("w{}", i % 7), "q", i), 100 + i)
                .expect("insert")
        })
        .collect();
    std::thread::scope(|scope| {
        for w in 0..4 {
            scope.spawn(move || {
                let host = format!("w{w}");
                while let Some(c) = s.claim(&host, 200, 1_000_000).expect("claim") {
                    let v = verdicts[(c.id % 3) as usize];
                    // `false` when the rejudging below queued it again meanwhile.
                    s.finish(c.id, c.attempt, &report(v, 1), "", 201)
                        .expect("finish");
                }
            });
        }
        scope.spawn(move || {
            for chunk in more.chunks(50) {
                s.enqueue_rejudging(chunk, 999).expect("enqueue");
            }
        });
    });
    while let Some(c) = s.claim("h1", 300, 1_000_000).expect("claim") {
        assert!(s
            .finish(c.id, c.attempt, &report(Verdict::Accepted, 1), "", 301)
            .expect("finish"));
    }
    counters_agree(s, truth, "after many writers at once");
}

/// Where the counters' migration is in a list: the databases made by the entries before it
/// have submissions the migration's backfill counts.
fn counters_migration(list: &[Cow<str>]) -> usize {
    list.iter()
        .position(|m| m.contains("CREATE TABLE submission_counts"))
        .expect("the counters' migration")
}

/// Submissions from before the counters: two queued, one judging, three judged (AC, WA, WA,
/// one of them queued again for a rejudge; `SRC`: a source in the engine's spelling), in
/// the schema before the counters came.
const BEFORE_COUNTERS: &str = r#"
    INSERT INTO submissions (id, "user", problem, language, source, state, queued_at, attempts)
    VALUES (1, 'a', 'old', 'c', SRC, 'queued', 1, 0), (2, 'b', 'old', 'c', SRC, 'queued', 1, 0),
        (3, 'a', 'old', 'c', SRC, 'judging', 1, 1), (4, 'a', 'old', 'c', SRC, 'done', 1, 1),
        (5, 'b', 'old', 'c', SRC, 'done', 1, 1), (6, 'c', 'old', 'c', SRC, 'queued', 1, 1);
    INSERT INTO judgings (id, submission, attempt, started_at, finished_at, verdict)
    VALUES (1, 3, 1, 2, NULL, NULL), (2, 4, 1, 2, 3, 'AC'), (3, 5, 1, 2, 3, 'WA'),
        (4, 6, 1, 2, 3, 'WA');
    UPDATE submissions SET current_judging = id - 2 WHERE id >= 4;"#;

/// The store's counters (item 8 of issue 21: `/healthz`, `/metrics`, the queue page and a
/// list's total read them instead of counting the table) equal a real `COUNT(*)` after every
/// kind of change, on SQLite, starting from a database that had submissions before the
/// counters came (the migration counts them).
#[test]
fn counters_match_a_real_count_on_sqlite() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("ojd.sqlite3");
    {
        let mut c = rusqlite::Connection::open(&path).expect("open");
        let list = store::migrations(Dialect::Sqlite);
        for (i, m) in list.iter().take(counters_migration(&list)).enumerate() {
            let tx = c.transaction().expect("tx");
            tx.execute_batch(m).expect("migrate");
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .expect("version");
            tx.commit().expect("commit");
        }
        c.execute_batch(&BEFORE_COUNTERS.replace("SRC", "x'78'"))
            .expect("old submissions");
    }
    let s = store::open(path.to_str().expect("utf-8")).expect("open");
    let c = rusqlite::Connection::open(&path).expect("open");
    let mut truth = || {
        let mut st = c.prepare(REAL_COUNTS).expect("prepare");
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .expect("count");
        rows.map(|r| r.expect("row")).collect()
    };
    assert_eq!(s.count_matching(&ListFilter::default()).expect("count"), 6);
    let d = rusqlite::Connection::open(&path).expect("open");
    d.execute_batch("PRAGMA foreign_keys = ON")
        .expect("foreign keys");
    let mut delete = |ids: &[i64]| {
        for id in ids {
            d.execute("DELETE FROM submissions WHERE id = ?1", [id])
                .expect("delete");
        }
    };
    counters_follow_every_change(s.as_ref(), &mut truth, &mut delete);
}

/// The same on PostgreSQL, where several hosts write at once.
#[test]
fn counters_match_a_real_count_on_postgres() {
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let list = store::migrations(Dialect::Postgres);
    let before = counters_migration(&list);
    for m in &list[..before] {
        c.batch_execute(m).expect("migrate");
    }
    c.batch_execute(&format!(
        "CREATE TABLE ojd_schema (version BIGINT NOT NULL);
         INSERT INTO ojd_schema VALUES ({before}); {}
         SELECT setval(pg_get_serial_sequence('submissions', 'id'), 6);
         SELECT setval(pg_get_serial_sequence('judgings', 'id'), 4);",
        BEFORE_COUNTERS.replace("SRC", "'\\x78'::BYTEA")
    ))
    .expect("old submissions");
    let s = store::open(&url).expect("open");
    assert_eq!(s.count_matching(&ListFilter::default()).expect("count"), 6);
    let mut d = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut truth = || {
        c.query(REAL_COUNTS, &[])
            .expect("count")
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect()
    };
    let mut delete = |ids: &[i64]| {
        d.execute("DELETE FROM submissions WHERE id = ANY($1)", &[&ids])
            .expect("delete");
    };
    counters_follow_every_change(s.as_ref(), &mut truth, &mut delete);
    // Folded as it goes: the counter rows stay few, however many changes there were.
    let rows: i64 = d
        .query_one("SELECT COUNT(*) FROM submission_counts", &[])
        .expect("rows")
        .get(0);
    assert!(rows < 300, "{rows} counter rows after about 2,000 changes");
    let rows: i64 = d
        .query_one("SELECT COUNT(*) FROM language_counts", &[])
        .expect("rows")
        .get(0);
    assert!(
        rows < 300,
        "{rows} language counter rows after about 2,000 changes"
    );
}

// ---- issue 25: exact points; issue 21: the standings' light input ----

/// A report of fractional points (a CMS group worth 12.5): whole `score` rounded down, the exact
/// one in thousandths.
fn report_of_points(milli: u64) -> JudgeReport {
    let mut r = report(Verdict::WrongAnswer, 2);
    r.score_milli = milli;
    r.score = ojd_judge::points::whole(milli);
    r
}

/// The judge's exact score is stored and read back by every read that carries a score: the
/// submission (get, info, list), its judgings, the Contest API's judgings and the standings'
/// input. A report without an exact score (an older worker's) keeps its whole points.
pub fn exact_points_are_stored_and_read_everywhere(s: &dyn Store) {
    let a = s
        .insert_in_contest(&sub("alice", "p"), "c", 1)
        .expect("insert");
    let b = s.insert(&sub("bob", "p"), 1).expect("insert");
    let c = s.claim("h", 2, 1_000_000).expect("claim").expect("queued");
    assert_eq!(c.id, a);
    // Test "2" earned a quarter of its credit (a `cms` checker's 0.25).
    let mut fractional = report_of_points(12_500);
    fractional.partial = [("2".to_string(), 250)].into();
    assert!(s.finish(a, c.attempt, &fractional, "", 3).expect("finish"));
    let c = s.claim("h", 4, 1_000_000).expect("claim").expect("queued");
    let mut old = report(Verdict::WrongAnswer, 1);
    old.score = 60;
    old.score_milli = 0;
    assert!(s.finish(b, c.attempt, &old, "", 5).expect("finish"));

    let got = info(s, a);
    assert_eq!((got.score, got.score_milli), (Some(12), Some(12_500)));
    let detail = s.get(a).expect("get").expect("exists");
    assert_eq!(detail.info.score_milli, Some(12_500));
    assert_eq!(
        detail.source, b"int main(){}",
        "the source after the new column"
    );
    assert_eq!(detail.partial, fractional.partial, "partial credit kept");
    assert_eq!(detail.tests, fractional.tests);
    assert_eq!(info(s, b).score_milli, Some(60_000), "whole points x 1000");
    let listed: Vec<(i64, Option<u64>)> = s
        .list(&ListFilter {
            limit: 10,
            ..Default::default()
        })
        .expect("list")
        .into_iter()
        .map(|i| (i.id, i.score_milli))
        .collect();
    assert_eq!(listed, [(b, Some(60_000)), (a, Some(12_500))]);
    let judgings = s.judgings(a).expect("judgings");
    assert_eq!(judgings[0].score_milli, Some(12_500));
    let judging = s.judging(judgings[0].id).expect("judging").expect("exists");
    assert_eq!(
        (judging.info.score, judging.info.score_milli),
        (Some(12), Some(12_500))
    );
    assert_eq!(judging.partial, fractional.partial);
    let other = s.get(b).expect("get").expect("exists");
    assert!(other.partial.is_empty(), "{:?}", other.partial);
    let ccs = s.contest_judgings("c").expect("contest judgings");
    assert_eq!(ccs.len(), 1);
    assert_eq!((ccs[0].score, ccs[0].score_milli), (Some(12), Some(12_500)));
    let input = s.standings_input("c").expect("standings input");
    assert_eq!(input.len(), 1);
    assert_eq!(input[0].score_milli, Some(12_500));
}

/// The standings' input: each submission made through the contest once, by id, with its
/// current judging (not a newer one of a rejudging waiting for its apply), the jury's flagged,
/// other contests' and practice submissions left out.
pub fn the_standings_input_is_the_current_judgings(s: &dyn Store) {
    let a = s
        .insert_in_contest(&sub("alice", "p"), "c", 10)
        .expect("insert");
    let j = s
        .insert_in_contest_as(&sub("admin", "p"), "c", true, 11)
        .expect("insert");
    s.insert_in_contest(&sub("bob", "p"), "other", 12)
        .expect("insert");
    s.insert(&sub("alice", "p"), 13).expect("insert");
    while let Some(c) = s.claim("h", 20, 1_000_000).expect("claim") {
        assert!(s
            .finish(c.id, c.attempt, &report_of_points(30_000), "", 21)
            .expect("finish"));
    }
    // A rejudging's new judging (worth more) is not current before its apply.
    let r = s
        .create_rejudging("test", "admin", &[a], false, 22)
        .expect("rejudging");
    let c = s.claim("h", 23, 1_000_000).expect("claim").expect("queued");
    assert_eq!(c.id, a);
    assert!(s
        .finish(c.id, c.attempt, &report_of_points(99_900), "", 24)
        .expect("finish"));
    let queued = s
        .insert_in_contest(&sub("carol", "q"), "c", 14)
        .expect("insert");
    let current = info(s, a).judging;
    /// id, user, problem, queued_at, jury, judging, score_milli.
    type Line = (i64, String, String, i64, bool, Option<i64>, Option<u64>);
    let got: Vec<Line> = s
        .standings_input("c")
        .expect("standings input")
        .into_iter()
        .map(|e| {
            (
                e.id,
                e.user,
                e.problem,
                e.queued_at,
                e.jury,
                e.judging,
                e.score_milli,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                a,
                "alice".into(),
                "p".into(),
                10,
                false,
                current,
                Some(30_000)
            ),
            (
                j,
                "admin".into(),
                "p".into(),
                11,
                true,
                info(s, j).judging,
                Some(30_000)
            ),
            (queued, "carol".into(), "q".into(), 14, false, None, None),
        ]
    );
    s.apply_rejudging(r, "admin", 25).expect("apply");
    let input = s.standings_input("c").expect("standings input");
    assert_eq!(
        input[0].score_milli,
        Some(99_900),
        "applied: the new judging"
    );
    assert_eq!(input[0].verdict, Some(Verdict::WrongAnswer));
}

/// A judging stored before exact points (whole `score` only), in the schema just before the
/// migration that added them (`SRC`: a source in the engine's spelling).
const BEFORE_EXACT_POINTS: &str = r#"
    INSERT INTO submissions (id, "user", problem, language, source, state, queued_at, attempts)
    VALUES (1, 'a', 'p', 'c', SRC, 'done', 1, 1), (2, 'b', 'p', 'c', SRC, 'queued', 1, 0);
    INSERT INTO judgings (id, submission, attempt, started_at, finished_at, verdict, score)
    VALUES (1, 1, 1, 2, 3, 'WA', 70);
    UPDATE submissions SET current_judging = 1 WHERE id = 1;"#;

/// The migration that added exact points: where it is in a list.
fn exact_points_migration(list: &[Cow<str>]) -> usize {
    list.iter()
        .position(|m| m.contains("ADD COLUMN score_milli"))
        .expect("the exact points' migration")
}

/// What the backfill must give: the old whole score x 1000, and nothing for no judging.
fn exact_points_backfilled(s: &dyn Store) {
    let a = info(s, 1);
    assert_eq!((a.score, a.score_milli), (Some(70), Some(70_000)));
    assert_eq!(info(s, 2).score_milli, None);
    assert_eq!(
        s.judgings(1).expect("judgings")[0].score_milli,
        Some(70_000)
    );
}

/// Exact points (issue 25) on a SQLite database from before them: backfilled from the whole
/// score.
#[test]
fn exact_points_are_backfilled_on_sqlite() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("ojd.sqlite3");
    {
        let mut c = rusqlite::Connection::open(&path).expect("open");
        let list = store::migrations(Dialect::Sqlite);
        for (i, m) in list.iter().take(exact_points_migration(&list)).enumerate() {
            let tx = c.transaction().expect("tx");
            tx.execute_batch(m).expect("migrate");
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .expect("version");
            tx.commit().expect("commit");
        }
        c.execute_batch(&BEFORE_EXACT_POINTS.replace("SRC", "x'78'"))
            .expect("old judging");
    }
    let s = store::open(path.to_str().expect("utf-8")).expect("open");
    exact_points_backfilled(s.as_ref());
}

/// The same on PostgreSQL.
#[test]
fn exact_points_are_backfilled_on_postgres() {
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let list = store::migrations(Dialect::Postgres);
    let before = exact_points_migration(&list);
    for m in &list[..before] {
        c.batch_execute(m).expect("migrate");
    }
    c.batch_execute(&format!(
        "CREATE TABLE ojd_schema (version BIGINT NOT NULL);
         INSERT INTO ojd_schema VALUES ({before}); {}
         SELECT setval(pg_get_serial_sequence('submissions', 'id'), 2);
         SELECT setval(pg_get_serial_sequence('judgings', 'id'), 1);",
        BEFORE_EXACT_POINTS.replace("SRC", "'\\x78'::BYTEA")
    ))
    .expect("old judging");
    let s = store::open(&url).expect("open");
    exact_points_backfilled(s.as_ref());
}

/// Each change of the jury's verdict (set, replaced, removed) is a row of the submission's
/// override history, with what was shown before and after (the jury's verdict, else the
/// judge's, "none" unjudged), who, when and why, oldest first; another submission's are its
/// own; an unknown submission changes nothing.
pub fn every_override_is_kept_in_its_history(s: &dyn Store) {
    use ojd_store::{OverrideChange, OVERRIDE_REMOVED as REMOVED};
    let a = s
        .insert_in_contest(&sub("alice", "p"), "c", 10)
        .expect("insert");
    judge_next(s, "h", Verdict::WrongAnswer, 20);
    let unjudged = s
        .insert_in_contest(&sub("bob", "p"), "c", 30)
        .expect("insert");
    let set = |id: i64, v: Option<(Verdict, &str)>, by: &str, at: i64| {
        assert!(s.set_override(id, v, by, at).expect("override"), "{id}");
    };
    set(
        a,
        Some((Verdict::Accepted, "the checker was wrong")),
        "admin",
        100,
    );
    set(
        unjudged,
        Some((Verdict::Accepted, "judged by hand")),
        "admin",
        150,
    );
    set(
        a,
        Some((Verdict::WrongAnswer, "a second look")),
        "jury2",
        200,
    );
    set(a, None, "admin", 300);
    assert!(!s
        .set_override(999_999, Some((Verdict::Accepted, "x")), "admin", 400)
        .expect("override"));
    let change =
        |from: &str, to: &str, reason: &str, by: &str, at: i64, removed: bool| OverrideChange {
            submission: a,
            at,
            by: by.into(),
            from: from.into(),
            to: to.into(),
            reason: reason.into(),
            removed,
        };
    assert_eq!(
        s.override_history(a).expect("history"),
        [
            change("WA", "AC", "the checker was wrong", "admin", 100, false),
            change("AC", "WA", "a second look", "jury2", 200, false),
            change("WA", "WA", REMOVED, "admin", 300, true),
        ]
    );
    let other = s.override_history(unjudged).expect("history");
    assert_eq!(other.len(), 1, "{other:?}");
    assert_eq!(
        (
            other[0].from.as_str(),
            other[0].to.as_str(),
            other[0].submission
        ),
        ("none", "AC", unjudged)
    );
    assert!(s.override_history(999_999).expect("history").is_empty());
    // The current overrides are what the history ends with.
    let now: Vec<i64> = s
        .overrides_of(&[a, unjudged])
        .expect("overrides")
        .into_iter()
        .map(|o| o.submission)
        .collect();
    assert_eq!(now, [unjudged]);
}

/// The override history's migration: where it is in a list.
fn override_history_migration(list: &[Cow<str>]) -> usize {
    list.iter()
        .position(|m| m.contains("CREATE TABLE verdict_override_history"))
        .expect("the override history's migration")
}

/// A submission judged WA whose verdict the jury set to AC, before the history's table.
const BEFORE_OVERRIDE_HISTORY: &str = r#"
    INSERT INTO submissions (id, "user", problem, language, source, state, queued_at, attempts)
    VALUES (1, 'a', 'p', 'c', SRC, 'done', 1, 1), (2, 'b', 'p', 'c', SRC, 'done', 1, 1);
    INSERT INTO judgings (id, submission, attempt, started_at, finished_at, verdict, score)
    VALUES (1, 1, 1, 2, 3, 'WA', 0), (2, 2, 1, 2, 3, 'AC', 100);
    UPDATE submissions SET current_judging = id;
    INSERT INTO verdict_overrides (submission, verdict, reason, by_user, at)
    VALUES (1, 'AC', 'the checker was wrong', 'jury', 50);"#;

/// What the backfill must give: the current override, its earlier verdict unknown; nothing
/// for a submission without one; and a new override after it is kept with what it replaced.
fn override_history_backfilled(s: &dyn Store) {
    let h = s.override_history(1).expect("history");
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(
        (
            h[0].from.as_str(),
            h[0].to.as_str(),
            h[0].reason.as_str(),
            h[0].by.as_str(),
            h[0].at,
            h[0].removed
        ),
        ("?", "AC", "the checker was wrong", "jury", 50, false)
    );
    assert!(s.override_history(2).expect("history").is_empty());
    assert!(s.set_override(1, None, "admin", 60).expect("remove"));
    let h = s.override_history(1).expect("history");
    assert_eq!(
        h.iter()
            .map(|c| (c.from.as_str(), c.to.as_str(), c.removed))
            .collect::<Vec<_>>(),
        [("?", "AC", false), ("AC", "WA", true)]
    );
}

/// A SQLite database made before the override history's table gets it filled from its
/// current overrides.
#[test]
fn the_override_history_is_backfilled_on_sqlite() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("ojd.sqlite3");
    {
        let mut c = rusqlite::Connection::open(&path).expect("open");
        let list = store::migrations(Dialect::Sqlite);
        for (i, m) in list
            .iter()
            .take(override_history_migration(&list))
            .enumerate()
        {
            let tx = c.transaction().expect("tx");
            tx.execute_batch(m).expect("migrate");
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .expect("version");
            tx.commit().expect("commit");
        }
        c.execute_batch(&BEFORE_OVERRIDE_HISTORY.replace("SRC", "x'78'"))
            .expect("an old override");
    }
    let s = store::open(path.to_str().expect("utf-8")).expect("open");
    override_history_backfilled(s.as_ref());
}

/// The same on PostgreSQL.
#[test]
fn the_override_history_is_backfilled_on_postgres() {
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let list = store::migrations(Dialect::Postgres);
    let before = override_history_migration(&list);
    for m in &list[..before] {
        c.batch_execute(m).expect("migrate");
    }
    c.batch_execute(&format!(
        "CREATE TABLE ojd_schema (version BIGINT NOT NULL);
         INSERT INTO ojd_schema VALUES ({before}); {}
         SELECT setval(pg_get_serial_sequence('submissions', 'id'), 2);
         SELECT setval(pg_get_serial_sequence('judgings', 'id'), 2);",
        BEFORE_OVERRIDE_HISTORY.replace("SRC", "'\\x78'::BYTEA")
    ))
    .expect("an old override");
    let s = store::open(&url).expect("open");
    override_history_backfilled(s.as_ref());
}

// ---- issue 20: `ojd doctor`'s check on PostgreSQL ----

/// `ojd_store::check` (what `ojd doctor` says of the database) on PostgreSQL: it migrates a
/// new database as `serve` would and says what answered without the password; a database
/// migrated by a newer ojd is refused; a server that does not answer is an unreachable error
/// naming host, port and database, never the password.
#[test]
fn check_on_postgresql_migrates_answers_and_hides_the_password() {
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let secret = url.replacen("postgres://postgres@", "postgres://postgres:hunter2@", 1);
    assert_ne!(secret, url, "the URL carries a password");
    let said = store::check(&secret).expect("check");
    assert_eq!(said, format!("PostgreSQL {url} answers"));
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let version = |c: &mut postgres::Client| -> i64 {
        c.query_one("SELECT version FROM ojd_schema", &[])
            .expect("the schema's version")
            .get(0)
    };
    let known = store::migrations(Dialect::Postgres).len() as i64;
    assert_eq!(version(&mut c), known, "check migrated the new database");
    assert_eq!(store::check(&secret).expect("again"), said);

    c.batch_execute("UPDATE ojd_schema SET version = version + 1")
        .expect("a newer ojd's version");
    match store::check(&secret) {
        Err(StoreError::TooNew {
            found, known: k, ..
        }) => {
            assert_eq!((found, k), (known + 1, known))
        }
        other => panic!("a newer schema: {other:?}"),
    }
    assert_eq!(version(&mut c), known + 1, "check changed nothing");

    let port = crate::pg::free_port();
    let dead = format!("postgres://postgres:hunter2@127.0.0.1:{port}/ojd");
    let err = store::check(&dead).expect_err("nothing listens there");
    assert!(err.is_unreachable(), "{err}");
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    assert!(
        text.contains(&format!("host 127.0.0.1, port {port}, database ojd")),
        "{text}"
    );
    assert!(!text.contains("hunter2"), "{text}");
}

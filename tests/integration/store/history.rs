//! A contest's history loaded from a contest package (`HistoryStore::load_history`), on each
//! engine: rows under the package's own ids, the last judging current and never claimed
//! again, a submission without one queued, the same history twice stored once, a clash
//! refused whole, and the engine's own ids carrying on after the loaded ones.

use ojd_judge::Verdict;
use ojd_store::{
    History, NewClarification, NewSubmission, PastClarification, PastJudging, PastSubmission,
    State, Store, StoreError, IMPORTED,
};

fn judging(id: i64, verdict: Verdict) -> PastJudging {
    PastJudging {
        id,
        started_at: 1_000,
        finished_at: 2_000,
        verdict,
        score_milli: 0,
        max_cpu_ms: 12,
        runs: vec![(Verdict::Accepted, 10), (verdict, 12)],
    }
}

fn past(id: i64, user: &str, judgings: Vec<PastJudging>) -> PastSubmission {
    PastSubmission {
        id,
        user: user.into(),
        problem: "p".into(),
        language: "c".into(),
        source: b"int main(){}".to_vec(),
        at: 1_000 + id,
        judgings,
    }
}

pub fn a_contests_history_loads_under_its_own_ids_once(s: &dyn Store) {
    let history = History {
        submissions: vec![
            past(
                40,
                "alice",
                vec![
                    judging(70, Verdict::WrongAnswer),
                    judging(75, Verdict::Accepted),
                ],
            ),
            past(41, "bob", vec![]),
        ],
        clarifications: vec![PastClarification {
            id: 9,
            user: Some("alice".into()),
            to_user: None,
            to_more: Vec::new(),
            to_groups: Vec::new(),
            problem: Some("p".into()),
            text: "May a be negative?".into(),
            at: 1_500,
            answer: Some(("Yes.".into(), true, 1_600)),
        }],
        thawed_at: Some(5_000),
    };
    let loaded = s.load_history("wf", &history).expect("load");
    assert_eq!(
        (
            loaded.submissions,
            loaded.judgings,
            loaded.clarifications,
            loaded.kept
        ),
        (2, 2, 1, 0)
    );
    // The last judging is current; both are the package's, with their runs.
    let judged = s.info(40).expect("info").expect("stored under its id");
    assert_eq!(
        (judged.state, judged.verdict, judged.user.as_str()),
        (State::Done, Some(Verdict::Accepted), "alice")
    );
    let judgings = s.contest_judgings("wf").expect("judgings");
    let ids: Vec<(i64, i64)> = judgings.iter().map(|j| (j.id, j.submission)).collect();
    assert_eq!(ids, [(70, 40), (75, 40)]);
    assert!(s
        .judgings(40)
        .expect("history")
        .iter()
        .all(|j| j.judged_by == IMPORTED));
    assert_eq!(s.contest_runs("wf").expect("runs").len(), 4);
    let q = &s.clarifications("wf").expect("clarifications")[0];
    assert_eq!(
        (q.id, q.answer.as_deref(), q.public),
        (9, Some("Yes."), true)
    );
    assert!(s
        .freeze_change("wf")
        .expect("thaw")
        .is_some_and(|f| f.unfrozen));
    // Only the one without a judgement is judged here.
    let claim = s
        .claim("h", 3_000, 60_000)
        .expect("claim")
        .expect("41 waits");
    assert_eq!(claim.id, 41);
    assert!(s.claim("h", 3_000, 60_000).expect("claim").is_none());

    // The same history again: kept, nothing doubles.
    let again = s.load_history("wf", &history).expect("again");
    assert_eq!((again.submissions, again.kept), (0, 3));
    assert_eq!(s.judgings(40).expect("history").len(), 2);

    // One whose clarification is another row: refused whole (submission 42 with it).
    let mut clash = history.clone();
    clash
        .submissions
        .push(past(42, "carol", vec![judging(80, Verdict::Accepted)]));
    clash.clarifications[0].at = 99;
    let e = s.load_history("wf", &clash).expect_err("a clash");
    assert!(
        matches!(&e, StoreError::Conflict(m) if m.contains("clarification 9")),
        "{e}"
    );
    assert!(
        s.info(42).expect("info").is_none(),
        "nothing of it is stored"
    );

    // The engine's own ids carry on after the loaded ones.
    let new = NewSubmission {
        user: "dave".into(),
        problem: "p".into(),
        language: "c".into(),
        source: b"int main(){}".to_vec(),
    };
    assert!(s.insert(&new, 6_000).expect("insert") > 41);
    let ask = NewClarification {
        user: Some("dave"),
        problem: None,
        category: "general",
        to_user: None,
        text: "?",
    };
    assert!(s.add_clarification_to("wf", &ask, 6_000).expect("ask") > 9);
}

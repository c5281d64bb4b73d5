//! The one policy, viewer kind by viewer kind: what each sees of the same submissions, as a
//! submission and as a list row (the live stream's `done` is such a row).

use std::collections::BTreeMap;
use std::time::Duration;

use std::sync::Arc;

use ojd_judge::{TestResult, Verdict};
use ojd_store::SubmissionInfo;

use super::{seen, seen_rows};
use crate::catalog::Catalog;
use crate::contest::{Category, ContestProblem, Participants, Scoring, Team};
use crate::contest::{Contest, Feedback};
use crate::viewer::*;
use ojd_store::{State, SubmissionDetail, VerdictOverride};

const START: i64 = 1_800_000_000_000;
const HOUR: i64 = 3_600_000;

fn result(name: &str, sample: bool, verdict: Verdict, message: &str) -> TestResult {
    TestResult {
        name: name.into(),
        sample,
        verdict,
        cpu_ms: 1,
        wall_ms: 1,
        memory_kib: 1,
        exit: None,
        message: message.into(),
        diff: Some(ojd_judge::Diff {
            line: 1,
            column: 1,
            lines: Vec::new(),
            trimmed: false,
        }),
    }
}

/// A contest over `p` from START for five hours, frozen for its last hour, under
/// `first_failure`; `jury` is its jury account, `team` a participant.
fn contest() -> Contest {
    Contest {
        id: "c".into(),
        dir: Default::default(),
        title: "t".into(),
        start_ms: START,
        utc_offset_s: 0,
        duration: Duration::from_secs(5 * 3600),
        freeze: Some(Duration::from_secs(3600)),
        scoring: Scoring::Icpc,
        penalty_minutes: 20,
        compile_errors_count: false,
        problems: vec![ContestProblem {
            label: "A".into(),
            problem: "p".into(),
            color: None,
        }],
        participants: Participants::Anyone,
        public_standings: true,
        teams: ["team", "jury"]
            .iter()
            .map(|u| Team {
                user: u.to_string(),
                name: u.to_string(),
                affiliation: None,
                category: if *u == "jury" {
                    Category::Jury
                } else {
                    Category::Participant
                },
                group: None,
                members: Vec::new(),
                place: Default::default(),
            })
            .collect(),
        awards: Default::default(),
        finalized_ms: None,
        feedback: Feedback::FirstFailure,
    }
}

fn detail(user: &str) -> SubmissionDetail {
    SubmissionDetail {
        info: SubmissionInfo {
            id: 7,
            user: user.into(),
            problem: "p".into(),
            language: "c".into(),
            state: State::Done,
            verdict: Some(Verdict::WrongAnswer),
            score: Some(0),
            score_milli: Some(0),
            max_cpu_ms: Some(1),
            max_memory_kib: Some(1),
            queued_at: START,
            started_at: Some(START),
            finished_at: Some(START),
            judge_version: None,
            attempts: 1,
            judged: 1,
            source_bytes: 3,
            judging: Some(1),
            judged_by: Some("box-1".into()),
        },
        source: b"x;\n".to_vec(),
        compile_output: String::new(),
        message: "the checker crashed".into(),
        warnings: vec!["no cgroup".into()],
        tests: vec![
            result("s", true, Verdict::Accepted, "ok"),
            result("a", false, Verdict::WrongAnswer, "expected 5"),
            result("b", false, Verdict::Accepted, "ok"),
        ],
        partial: BTreeMap::new(),
    }
}

/// What a viewer kind sees of `user`'s submission made through contest `c`, `now` into it.
fn sees(viewer: Viewer<'_>, user: &str, now_ms: i64) -> (Option<crate::Seen>, usize) {
    let server = ojd_config::Config::defaults().server;
    let contests = [Arc::new(contest())];
    let policy = Policy {
        server: &server,
        contests: &contests,
        now_ms,
    };
    let one = seen(detail(user), Some("c".into()), None, viewer, policy);
    let rows = seen_rows(
        vec![detail(user).info],
        vec![(7, "c".into())],
        Vec::new(),
        viewer,
        policy,
        &Catalog::default(),
    );
    // A row and the submission are one decision: shown on both channels or on neither.
    assert_eq!(one.is_some(), rows.len() == 1, "{viewer:?}");
    if let (Some(s), Some(r)) = (&one, rows.first()) {
        assert_eq!(s.info.judged_by, r.info.judged_by, "{viewer:?}");
        assert_eq!(s.info.verdict, r.info.verdict, "{viewer:?}");
    }
    (one, rows.len())
}

const FROZEN: i64 = START + 4 * HOUR + HOUR / 2;
const TEAM: Viewer<'static> = Viewer::User {
    name: "team",
    admin: false,
};

#[test]
fn an_anonymous_viewer_sees_no_submission() {
    assert!(sees(Viewer::Anonymous, "team", FROZEN).0.is_none());
}

#[test]
fn a_student_sees_their_own_without_the_operators_fields_and_not_anothers() {
    let alice = Viewer::User {
        name: "alice",
        admin: false,
    };
    assert!(sees(alice, "team", FROZEN).0.is_none());
    let s = sees(alice, "alice", FROZEN).0.expect("her own");
    assert_eq!(s.info.judged_by, None);
    assert_eq!(s.judge_message, None);
    assert!(s.warnings.is_empty());
    assert!(s.sight.own && !s.sight.admin);
    // Made through the contest, she is shown under its `first_failure` policy.
    assert_eq!(s.feedback, Some(Feedback::FirstFailure));
}

#[test]
fn a_team_in_a_frozen_contest_sees_its_own_verdict_under_the_feedback_policy() {
    let s = sees(TEAM, "team", FROZEN).0.expect("its own");
    assert_eq!(
        s.info.verdict,
        Some(Verdict::WrongAnswer),
        "the freeze hides standings only"
    );
    assert_eq!(s.info.judged_by, None);
    let names: Vec<_> = s.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["s", "a"], "up to the first failure");
    assert!(s.tests[0].diff.is_some(), "a sample's diff is public");
    assert!(s.tests[1].diff.is_none());
    assert_eq!(
        s.tests[1].message,
        "wrong answer (details of secret tests are hidden)"
    );
    assert!(sees(TEAM, "jury", FROZEN).0.is_none(), "another's");
}

#[test]
fn a_contest_problem_is_hidden_before_the_start_except_from_admins() {
    assert!(sees(TEAM, "team", START - HOUR).0.is_none());
    let root = Viewer::User {
        name: "root",
        admin: true,
    };
    assert!(sees(root, "team", START - HOUR).0.is_some());
}

#[test]
fn a_jury_account_sees_only_its_own_under_the_feedback_policy() {
    let jury = Viewer::User {
        name: "jury",
        admin: false,
    };
    let s = sees(jury, "jury", FROZEN).0.expect("its own");
    assert_eq!(s.feedback, Some(Feedback::FirstFailure));
    assert_eq!(s.tests.len(), 2);
    assert_eq!(s.info.judged_by, None);
    assert!(sees(jury, "team", FROZEN).0.is_none(), "a team's");
}

#[test]
fn an_admin_sees_everything() {
    let root = Viewer::User {
        name: "root",
        admin: true,
    };
    let s = sees(root, "team", FROZEN).0.expect("anyone's");
    assert_eq!(s.info.judged_by.as_deref(), Some("box-1"));
    assert_eq!(s.judge_message.as_deref(), Some("the checker crashed"));
    assert_eq!(s.warnings, ["no cgroup"]);
    assert_eq!(s.feedback, None);
    assert_eq!(s.tests.len(), 3);
    assert_eq!(s.tests[1].message, "expected 5");
    assert!(!s.sight.own);
}

#[test]
fn the_jurys_verdict_replaces_the_judges_for_every_viewer() {
    let server = ojd_config::Config::defaults().server;
    let policy = Policy {
        server: &server,
        contests: &[],
        now_ms: FROZEN,
    };
    let over = VerdictOverride {
        submission: 7,
        verdict: Verdict::Accepted,
        reason: "bad test".into(),
        by: "root".into(),
        at: START,
    };
    let s = seen(detail("team"), None, Some(over.clone()), TEAM, policy).expect("own");
    assert_eq!(
        (s.info.verdict, s.judged_verdict),
        (Some(Verdict::Accepted), Some(Verdict::WrongAnswer))
    );
    let rows = seen_rows(
        vec![detail("team").info],
        Vec::new(),
        vec![over],
        TEAM,
        policy,
        &Catalog::default(),
    );
    assert_eq!(rows[0].info.verdict, Some(Verdict::Accepted));
}

#[test]
fn the_live_stream_follows_the_feedback_policy() {
    let at = |feedback| Sight {
        admin: false,
        own: true,
        secrets: true,
        feedback,
    };
    // Before and after a shown test failed.
    let shown = |f| (at(f).shows_test(false), at(f).shows_test(true));
    assert_eq!(shown(Feedback::All), (true, true));
    assert_eq!(shown(Feedback::FirstFailure), (true, false));
    assert_eq!(shown(Feedback::Verdict), (false, false));
    let t = result("secret", false, Verdict::WrongAnswer, "expected 5");
    // Even where secret diffs are shown, `first_failure` sends a hidden test's without it.
    assert!(at(Feedback::All).test(&t).diff.is_some());
    let r = at(Feedback::FirstFailure).test(&t);
    assert!(r.diff.is_none() && r.message == "expected 5");
}

#[test]
fn secret_details_are_hidden_unless_allowed() {
    let cases = [
        (
            false,
            Verdict::WrongAnswer,
            "expected 5",
            false,
            "wrong answer (details of secret tests are hidden)",
        ),
        (
            false,
            Verdict::RuntimeError,
            "exit 3; stderr: secret",
            false,
            "exit 3",
        ),
        (
            false,
            Verdict::JudgeError,
            "checker crashed",
            false,
            "the judge failed on this test (not your fault)",
        ),
        (
            false,
            Verdict::WrongAnswer,
            "expected 5",
            true,
            "expected 5",
        ),
        (
            true,
            Verdict::WrongAnswer,
            "expected 5",
            false,
            "expected 5",
        ),
    ];
    for (sample, verdict, message, show, want) in cases {
        assert_eq!(
            redact(&result("t", sample, verdict, message), show).message,
            want
        );
    }
}

#[test]
fn the_feedback_policy_keeps_what_it_allows() {
    let tests = vec![
        result("s", true, Verdict::WrongAnswer, "m"),
        result("a", false, Verdict::Accepted, "m"),
        result("b", false, Verdict::WrongAnswer, "m"),
        result("c", false, Verdict::Accepted, "m"),
    ];
    let names = |t: &[TestResult]| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&apply_feedback(Feedback::All, tests.clone())),
        ["s", "a", "b", "c"]
    );
    assert!(apply_feedback(Feedback::Verdict, tests.clone()).is_empty());
    // The first failure is the sample: it alone, with its diff (a sample's is public).
    let first = apply_feedback(Feedback::FirstFailure, tests.clone());
    assert_eq!(names(&first), ["s"]);
    assert!(first[0].diff.is_some());
    // The first failure is hidden: up to it, with its message and without its diff.
    let first = apply_feedback(Feedback::FirstFailure, tests[1..].to_vec());
    assert_eq!(names(&first), ["a", "b"]);
    assert!(first.iter().all(|t| t.diff.is_none()));
    assert_eq!(first[1].message, "m");
    // No failure: every test.
    let passed = apply_feedback(
        Feedback::FirstFailure,
        vec![tests[1].clone(), tests[3].clone()],
    );
    assert_eq!(names(&passed), ["a", "c"]);
}

//! Awards on hand-made standings.

use std::time::Duration;

use super::*;
use crate::model::{Category, ContestProblem, Participants, Team};
use crate::standings::{self, Attempt, Judged};
use ojd_judge::Verdict;

const START: i64 = 1_800_000_000_000;

fn contest(medals: Medals, teams: Vec<Team>) -> Contest {
    Contest {
        id: "c".into(),
        dir: Default::default(),
        title: "t".into(),
        start_ms: START,
        utc_offset_s: 0,
        duration: Duration::from_secs(5 * 3600),
        freeze: None,
        scoring: Scoring::Icpc,
        penalty_minutes: 20,
        compile_errors_count: false,
        problems: ["pa", "pb"]
            .iter()
            .enumerate()
            .map(|(i, p)| ContestProblem {
                label: ((b'A' + i as u8) as char).to_string(),
                problem: p.to_string(),
                color: None,
            })
            .collect(),
        participants: Participants::Anyone,
        public_standings: true,
        teams,
        awards: medals,
        finalized_ms: None,
        feedback: Default::default(),
    }
}

fn team(user: &str, group: Option<&str>) -> Team {
    Team {
        user: user.into(),
        name: user.into(),
        affiliation: None,
        category: Category::Participant,
        group: group.map(str::to_string),
        members: Vec::new(),
        place: Default::default(),
    }
}

fn ac(id: i64, user: &str, problem: &str, minute: i64) -> Attempt {
    Attempt {
        id,
        user: user.into(),
        problem: problem.into(),
        at_ms: START + minute * 60_000,
        result: Some(Judged {
            verdict: Verdict::Accepted,
            score_milli: 100_000,
            groups: Vec::new(),
        }),
    }
}

fn users<'a>(awards: &'a [Award], id: &str) -> Option<Vec<&'a str>> {
    awards
        .iter()
        .find(|a| a.id == id)
        .map(|a| a.users.iter().map(String::as_str).collect())
}

/// ann 2 solved; bob and cat 1 solved at minute 10 (tied: rank 2); dan 1 at minute 30;
/// eve nothing (a wrong answer only).
fn history() -> Vec<Attempt> {
    let mut wa = ac(9, "eve", "pa", 1);
    wa.result = Some(Judged {
        verdict: Verdict::WrongAnswer,
        score_milli: 0,
        groups: Vec::new(),
    });
    vec![
        ac(1, "ann", "pa", 20),
        ac(2, "ann", "pb", 25),
        ac(3, "bob", "pa", 10),
        ac(4, "cat", "pb", 10),
        ac(5, "dan", "pa", 30),
        wa,
    ]
}

#[test]
fn medals_by_rank_share_ties_and_skip_who_solved_nothing() {
    let medals = Medals {
        gold: 1,
        silver: 1,
        bronze: 5,
    };
    let c = contest(medals, Vec::new());
    let s = standings::compute(&c, &history(), &[], None);
    let a = compute(&c, &s);
    assert_eq!(users(&a, "winner"), Some(vec!["ann"]));
    assert_eq!(users(&a, "gold-medal"), Some(vec!["ann"]));
    // bob and cat tie on rank 2, the last silver place: both silver.
    assert_eq!(users(&a, "silver-medal"), Some(vec!["bob", "cat"]));
    // eve solved nothing: no bronze although places are left.
    assert_eq!(users(&a, "bronze-medal"), Some(vec!["dan"]));
    // bob's A at minute 10 was first; cat's B at minute 10 was first.
    assert_eq!(users(&a, "first-to-solve-pa"), Some(vec!["bob"]));
    assert_eq!(users(&a, "first-to-solve-pb"), Some(vec!["cat"]));
    let tsv = results_tsv(&c, &s, &a);
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines[0], "results\t1");
    assert_eq!(lines[1], "ann\t1\tGold Medal\t2\t45\t25\t");
    assert!(
        lines.contains(&"bob\t2\tSilver Medal\t1\t10\t10\t"),
        "{tsv}"
    );
    assert!(
        lines.contains(&"dan\t4\tBronze Medal\t1\t30\t30\t"),
        "{tsv}"
    );
    assert!(lines.contains(&"eve\t\tHonorable\t0\t0\t0\t"), "{tsv}");
}

#[test]
fn no_medals_unless_configured_and_group_winners() {
    let teams = vec![
        team("ann", Some("Senior")),
        team("bob", Some("Junior")),
        team("cat", Some("Junior")),
        team("dan", Some("Junior")),
        team("eve", Some("Novice")),
    ];
    let c = contest(Medals::default(), teams);
    let s = standings::compute(&c, &history(), &[], None);
    let a = compute(&c, &s);
    assert_eq!(users(&a, "gold-medal"), None, "no [awards]: no medals");
    assert_eq!(users(&a, "group-winner-senior"), Some(vec!["ann"]));
    assert_eq!(users(&a, "group-winner-junior"), Some(vec!["bob", "cat"]));
    assert_eq!(users(&a, "group-winner-novice"), None, "eve solved nothing");
    let tsv = results_tsv(&c, &s, &a);
    assert!(tsv.contains("bob\t2\tRanked\t1\t10\t10\tJunior\n"), "{tsv}");
    assert!(tsv.contains("dan\t4\tRanked\t1\t30\t30\t\n"), "{tsv}");
}

#[test]
fn medal_places_and_slugs() {
    let m = Medals {
        gold: 4,
        silver: 4,
        bronze: 4,
    };
    assert_eq!(medal(&m, 4), Some("gold"));
    assert_eq!(medal(&m, 5), Some("silver"));
    assert_eq!(medal(&m, 12), Some("bronze"));
    assert_eq!(medal(&m, 13), None);
    assert_eq!(medal(&m, 0), None);
    assert_eq!(slug("North America / East"), "north-america-east");
}

#[test]
fn roster_values_that_a_spreadsheet_would_run_are_neutralised() {
    for (raw, cell) in [
        ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
        ("+1", "'+1"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("ann", "ann"),
        ("a=b", "a=b"),
    ] {
        assert_eq!(neutralised(raw), cell);
    }
}

/// A rostered team that never submitted is ranked all the same: a row with nothing solved in
/// the standings, "Honorable" in results.tsv; observers and the jury get none.
#[test]
fn every_rostered_team_is_ranked_even_without_a_submission() {
    let mut observer = team("obs", None);
    observer.category = Category::Observer;
    let teams = vec![team("ann", None), team("zoe", None), observer];
    let mut c = contest(Medals::default(), teams);
    let s = standings::compute(&c, &[ac(1, "ann", "pa", 10)], &c.ranked_users(), None);
    let rows: Vec<(&str, u32)> = s.rows.iter().map(|r| (r.user.as_str(), r.solved)).collect();
    assert_eq!(rows, [("ann", 1), ("zoe", 0)]);
    let tsv = results_tsv(&c, &s, &compute(&c, &s));
    assert!(
        tsv.lines().any(|l| l.starts_with("zoe\t\tHonorable\t0")),
        "{tsv}"
    );
    assert!(!tsv.contains("obs"), "{tsv}");
    // In a listed contest, a team whose user is not listed is not admitted: no row.
    c.participants = Participants::Listed(vec!["ann".into()]);
    assert_eq!(c.ranked_users(), ["ann"]);
}

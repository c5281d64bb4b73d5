//! Standings on hand-made histories, each with the expected table written out.

use std::time::Duration;

use super::*;
use crate::model::{ContestProblem, Participants};
use Verdict::*;

const START: i64 = 1_800_000_000_000;

fn contest(scoring: Scoring, problems: &[&str]) -> Contest {
    Contest {
        id: "c".into(),
        dir: Default::default(),
        title: "t".into(),
        start_ms: START,
        utc_offset_s: 0,
        duration: Duration::from_secs(5 * 3600),
        freeze: Some(Duration::from_secs(3600)),
        scoring,
        penalty_minutes: 20,
        compile_errors_count: false,
        problems: problems
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
        teams: Vec::new(),
        awards: Default::default(),
        finalized_ms: None,
        feedback: Default::default(),
    }
}

/// Builds attempts from (user, problem, minute, seconds, verdict or None, score, groups).
struct History(Vec<Attempt>);

impl History {
    fn at(
        &mut self,
        user: &str,
        problem: &str,
        min: i64,
        sec: i64,
        v: Option<Verdict>,
    ) -> &mut Self {
        self.scored(user, problem, min, sec, v, 0, &[])
    }

    #[allow(clippy::too_many_arguments)]
    fn scored(
        &mut self,
        user: &str,
        problem: &str,
        min: i64,
        sec: i64,
        v: Option<Verdict>,
        score: u32,
        groups: &[u32],
    ) -> &mut Self {
        let id = self.0.len() as i64 + 1;
        self.0.push(Attempt {
            id,
            user: user.into(),
            problem: problem.into(),
            at_ms: START + min * 60_000 + sec * 1000,
            result: v.map(|verdict| Judged {
                verdict,
                score_milli: u64::from(score) * 1000,
                groups: groups.iter().map(|g| u64::from(*g) * 1000).collect(),
            }),
        });
        self
    }
}

/// One line per row: "rank user solved penalty | cells" (ICPC) or "rank user score | cells".
fn table(s: &Standings) -> String {
    let mut out = String::new();
    for r in &s.rows {
        let cells: Vec<String> = r
            .cells
            .iter()
            .map(|c| {
                let mut t = match s.scoring {
                    Scoring::Icpc if c.solved => {
                        let tries = if c.tries > 0 {
                            c.tries.to_string()
                        } else {
                            String::new()
                        };
                        let first = if c.first_solve { "*" } else { "" };
                        format!("+{tries}@{}{first}", c.minute.unwrap_or(0))
                    }
                    Scoring::Icpc if c.tries > 0 => format!("-{}", c.tries),
                    Scoring::Ioi => c.score.map(|s| s.to_string()).unwrap_or_default(),
                    _ => String::new(),
                };
                if c.pending > 0 {
                    t.push_str(&format!("?{}", c.pending));
                }
                if t.is_empty() {
                    t.push('.');
                }
                t
            })
            .collect();
        let figures = match s.scoring {
            Scoring::Icpc => format!("{} {}", r.solved, r.penalty),
            Scoring::Ioi => r.score.to_string(),
        };
        out.push_str(&format!(
            "{} {} {figures} | {}\n",
            r.rank,
            r.user,
            cells.join(" ")
        ));
    }
    out
}

fn icpc_history() -> Vec<Attempt> {
    let mut h = History(Vec::new());
    h.at("alice", "pa", -5, 0, Some(Accepted)) // before the start: not counted
        .at("alice", "pa", 10, 30, Some(WrongAnswer))
        .at("alice", "pa", 25, 30, Some(Accepted))
        .at("alice", "pa", 50, 0, Some(WrongAnswer)) // after the AC: not counted
        .at("alice", "pb", 30, 0, Some(CompileError)) // CE: no penalty by default
        .at("alice", "pb", 40, 0, Some(Accepted))
        .at("alice", "pc", 301, 0, Some(Accepted)) // after the end: not counted
        .at("bob", "pa", 20, 0, Some(Accepted))
        .at("bob", "pb", 30, 0, Some(WrongAnswer))
        .at("bob", "pb", 35, 0, Some(TimeLimitExceeded))
        .at("bob", "pb", 45, 0, Some(Accepted))
        .at("carol", "pa", 30, 0, Some(Accepted))
        .at("carol", "pb", 55, 0, Some(Accepted))
        .at("carol", "pc", 250, 0, Some(WrongAnswer)) // after the freeze (240)
        .at("carol", "pc", 270, 0, Some(Accepted))
        .at("dave", "pa", 25, 40, Some(Accepted))
        .at("dave", "pb", 60, 0, Some(Accepted))
        .at("erin", "pa", 60, 10, Some(Accepted))
        .at("erin", "pb", 25, 0, Some(Accepted))
        .at("frank", "pc", 10, 0, Some(WrongAnswer))
        .at("frank", "pc", 12, 0, Some(TimeLimitExceeded))
        .at("frank", "pc", 14, 0, Some(JudgeError)) // never the student's fault
        .at("frank", "pc", 16, 0, Some(RuntimeError))
        .at("frank", "pa", 100, 0, None); // still in the queue
    h.0
}

#[test]
fn icpc_penalties_ties_first_solves_and_ce() {
    let c = contest(Scoring::Icpc, &["pa", "pb", "pc"]);
    let s = compute(&c, &icpc_history(), &["gina".to_string()], None);
    assert_eq!(
        table(&s),
        "\
1 carol 3 375 | +@30 +@55 +1@270*
2 alice 2 85 | +1@25 +@40 .
3 dave 2 85 | +@25 +@60 .
3 erin 2 85 | +@60 +@25* .
5 bob 2 105 | +@20* +2@45 .
6 frank 0 0 | ?1 . -3
6 gina 0 0 | . . .
"
    );
    let solved: Vec<u32> = s.problems.iter().map(|p| p.solved).collect();
    assert_eq!(solved, [5, 5, 1]);
    assert!(!s.frozen);
}

#[test]
fn icpc_compile_errors_count_when_configured() {
    let mut c = contest(Scoring::Icpc, &["pa", "pb", "pc"]);
    c.compile_errors_count = true;
    let s = compute(&c, &icpc_history(), &[], None);
    let alice = s.row("alice").expect("alice has a row");
    // B: CE at 30 is now a try: 40 + 20.
    assert_eq!((alice.rank, alice.solved, alice.penalty), (4, 2, 105));
    let bob = s.row("bob").expect("bob has a row");
    assert_eq!(
        bob.rank, 5,
        "equal penalty, bob's last AC (45) is later than alice's (40)"
    );
}

#[test]
fn icpc_freeze_hides_later_attempts_from_students_only() {
    let c = contest(Scoring::Icpc, &["pa", "pb", "pc"]);
    let student = compute(&c, &icpc_history(), &["gina".to_string()], c.freeze_ms());
    assert_eq!(
        table(&student),
        "\
1 alice 2 85 | +1@25 +@40 .
2 carol 2 85 | +@30 +@55 ?2
3 dave 2 85 | +@25 +@60 .
3 erin 2 85 | +@60 +@25* .
5 bob 2 105 | +@20* +2@45 .
6 frank 0 0 | ?1 . -3
6 gina 0 0 | . . .
"
    );
    assert!(student.frozen);
    let mut own = student.clone();
    own.only("carol");
    assert_eq!(own.rows.len(), 1);
    assert_eq!(own.rows[0].rank, 2, "a private view keeps the real rank");
}

#[test]
fn ioi_best_per_group_across_submissions() {
    let c = contest(Scoring::Ioi, &["pa", "pb"]);
    let mut h = History(Vec::new());
    // pa has two groups worth 30 and 70; pb has none (score = share of tests passed).
    h.scored("alice", "pa", 10, 0, Some(WrongAnswer), 30, &[30, 0])
        .scored("alice", "pa", 20, 0, Some(WrongAnswer), 70, &[0, 70])
        .scored("alice", "pb", 30, 0, Some(WrongAnswer), 40, &[])
        .scored("alice", "pb", 40, 0, Some(WrongAnswer), 60, &[])
        .scored("alice", "pb", 50, 0, Some(WrongAnswer), 20, &[])
        .scored("bob", "pa", 10, 0, Some(Accepted), 100, &[30, 70])
        .scored("bob", "pb", 10, 0, Some(CompileError), 0, &[])
        .scored("carol", "pa", 10, 0, Some(WrongAnswer), 30, &[30, 0])
        .scored("carol", "pa", 11, 0, None, 0, &[])
        .scored("carol", "pb", 12, 0, Some(WrongAnswer), 60, &[])
        .scored("carol", "pb", 260, 0, Some(Accepted), 100, &[]) // after the freeze
        .scored("dave", "pa", 10, 0, Some(WrongAnswer), 70, &[0, 70])
        .scored("dave", "pb", 10, 0, Some(WrongAnswer), 90, &[]);
    let admin = compute(&c, &h.0, &[], None);
    assert_eq!(
        table(&admin),
        "\
1 alice 160 | 100 60
1 dave 160 | 70 90
3 carol 130 | 30?1 100
4 bob 100 | 100 0
"
    );
    let student = compute(&c, &h.0, &[], c.freeze_ms());
    assert_eq!(
        table(&student),
        "\
1 alice 160 | 100 60
1 dave 160 | 70 90
3 bob 100 | 100 0
4 carol 90 | 30?1 60?1
"
    );
}

/// Exact points (issue 25): a group worth 12.5 and fractional totals are summed and ranked in
/// thousandths, not in whole points rounded down per problem.
#[test]
fn ioi_points_are_exact_thousandths() {
    let c = contest(Scoring::Ioi, &["pa", "pb"]);
    let judged = |id: i64, user: &str, problem: &str, milli: u64, groups: &[u64]| Attempt {
        id,
        user: user.into(),
        problem: problem.into(),
        at_ms: START + id * 60_000,
        result: Some(Judged {
            verdict: WrongAnswer,
            score_milli: milli,
            groups: groups.to_vec(),
        }),
    };
    let list = [
        // alice: 12.5 on pa (one group of 12.5 and one of 87.5), then 0.75 on pb: 13.25.
        judged(1, "alice", "pa", 12_500, &[12_500, 0]),
        judged(2, "alice", "pb", 750, &[]),
        // bob: 6.6 + 6.6 = 13.2: whole points per problem (6 + 6) would rank him far lower, the
        // sum of the whole points of the two (13) would tie him with alice.
        judged(3, "bob", "pa", 6_600, &[]),
        judged(4, "bob", "pb", 6_600, &[]),
        // carol: the groups' best across her two submissions: 12.5 + 87.5 = 100.
        judged(5, "carol", "pa", 12_500, &[12_500, 0]),
        judged(6, "carol", "pa", 87_500, &[0, 87_500]),
    ];
    let s = compute(&c, &list, &[], None);
    /// rank, user, whole score, exact score, each cell's exact score.
    type Line<'a> = (u32, &'a str, u32, u64, Vec<Option<u64>>);
    let got: Vec<Line> = s
        .rows
        .iter()
        .map(|r| {
            let cells = r.cells.iter().map(|c| c.score_milli).collect();
            (r.rank, r.user.as_str(), r.score, r.score_milli, cells)
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, "carol", 100, 100_000, vec![Some(100_000), None]),
            (2, "alice", 13, 13_250, vec![Some(12_500), Some(750)]),
            (3, "bob", 13, 13_200, vec![Some(6_600), Some(6_600)]),
        ]
    );
    assert_eq!(
        s.rows[1].cells[0].score,
        Some(12),
        "whole points round down"
    );
    assert_eq!(
        [13_250, 12_500, 30_000, 3_334, 0, 100]
            .map(points_text)
            .join(" "),
        "13.25 12.5 30 3.334 0 0.1"
    );
}

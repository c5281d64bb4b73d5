//! A contest's standings from the store's current judgings: the attempts, the IOI group
//! scores, the freeze, private standings cut down to the viewer, and the table shared by
//! everyone with the same view (computed once per change, see [`super::cache`]). Blocking:
//! everything here reads the store.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::cache;
use crate::user::User;
use crate::App;
use ojd_judge::Problem;
use ojd_judge::{TestResult, Verdict};
use ojd_service::contest::standings::{self, Attempt, Judged, Standings};
use ojd_service::contest::{Contest, Participants, Scoring};
use ojd_service::{now_ms, StandingsEntry, StoreError};

/// Thousandths of a point per scoring group that a judging's tests earned, by the judge's own
/// rule: a group earns its exact points times the smallest share of credit among its tests (all
/// of it for an accepted test, a `cms` checker's share from `partial` for one that earned part,
/// none otherwise; CMS's GroupMin).
pub(crate) fn group_scores(
    problem: &Problem,
    tests: &[TestResult],
    partial: &BTreeMap<String, u32>,
) -> Vec<u64> {
    let earned = |name: &str| -> u64 {
        match tests.iter().find(|t| t.name == name) {
            Some(t) if t.verdict == Verdict::Accepted => u64::from(ojd_judge::points::MILLI),
            Some(_) => partial.get(name).copied().map_or(0, u64::from),
            None => 0,
        }
    };
    problem
        .groups
        .iter()
        .map(|g| {
            let least = (problem.tests.iter())
                .filter(|t| g.tests.iter().any(|p| t.name.starts_with(p.as_str())))
                .map(|t| earned(&t.name))
                .min()
                .unwrap_or(0);
            u64::from(g.points_milli) * least / u64::from(ojd_judge::points::MILLI)
        })
        .collect()
}

/// Whether a contest's standings need per-test results (IOI with scoring groups).
fn needs_groups(app: &App, c: &Contest, problem: &str) -> Option<Arc<Problem>> {
    if c.scoring != Scoring::Ioi {
        return None;
    }
    let p = app.node.catalog().get(problem)?.problem.clone();
    (!p.groups.is_empty()).then_some(p)
}

/// The attempts of a contest from its submissions' current judgings, the jury's verdicts over the
/// judge's ([`jury`]).
pub(crate) fn attempts(
    app: &App,
    c: &Contest,
    subs: &[StandingsEntry],
) -> Result<Vec<Attempt>, StoreError> {
    subs.iter()
        .map(|s| {
            let result = match (s.verdict, s.judging) {
                _ if s.overridden.is_some() => s.overridden.map(jury),
                (Some(verdict), Some(judging)) => {
                    let groups = match needs_groups(app, c, &s.problem) {
                        Some(p) => app.contests.standings.groups_of(judging, || {
                            Ok(app
                                .node
                                .judging_detail(judging)?
                                .map(|j| group_scores(&p, &j.tests, &j.partial))
                                .unwrap_or_default())
                        })?,
                        None => Vec::new(),
                    };
                    Some(Judged {
                        verdict,
                        score_milli: s.score_milli.unwrap_or(0),
                        groups,
                    })
                }
                _ => None,
            };
            Ok(Attempt {
                id: s.id,
                user: s.user.clone(),
                problem: s.problem.clone(),
                at_ms: s.queued_at,
                result,
            })
        })
        .collect()
}

/// The users who always get a row ([`Contest::ranked_users`]): the listed participants and the
/// rostered teams, less observers and the jury.
pub(crate) fn participants(c: &Contest) -> Vec<String> {
    c.ranked_users()
}

/// The standings table `viewer`'s view shares with everyone who has the same view (computed
/// once per change, see [`cache`]). Private standings still need [`for_viewer`].
fn shared_standings(
    app: &App,
    c: &Contest,
    viewer: Option<&User>,
) -> Result<Arc<cache::Table>, StoreError> {
    let admin = viewer.is_some_and(|u| u.admin);
    let registry = &app.contests;
    let hide = match c.freeze_ms() {
        Some(f)
            if !admin
                && now_ms() >= f
                && !registry
                    .standings
                    .unfrozen(&c.id, || Ok(super::read_freeze(app, c)?.unfrozen))? =>
        {
            Some(f)
        }
        _ => None,
    };
    registry.standings.get(
        &c.id,
        hide,
        || app.node.hub().subscribe(),
        || compute(app, c, hide),
    )
}

/// The submissions of a contest that are ranked: the participants' (a listed contest's
/// participants; in an open one, anyone's), never the jury's (an admin's test through the
/// contest). The standings and the rejudging preview both rank these. One light query
/// ([`ojd_service::Node::standings_input`]).
pub(crate) fn ranked_submissions(
    app: &App,
    c: &Contest,
) -> Result<Vec<StandingsEntry>, StoreError> {
    let mut subs = app.node.standings_input(&c.id)?;
    // Observers' and the jury's accounts (`[[team]]` categories), looked up once each.
    let unranked: std::collections::HashSet<&str> = (c.teams.iter())
        .filter(|t| !c.ranked(&t.user))
        .map(|t| t.user.as_str())
        .collect();
    subs.retain(|s| !s.jury && !unranked.contains(s.user.as_str()));
    if let Participants::Listed(users) = &c.participants {
        let listed: std::collections::HashSet<&str> = users.iter().map(String::as_str).collect();
        subs.retain(|s| listed.contains(s.user.as_str()));
    }
    Ok(subs)
}

/// What an attempt overridden by the jury counts as: the jury's verdict, an accepted one with
/// full points, any other with none.
pub(crate) fn jury(verdict: Verdict) -> Judged {
    Judged {
        verdict,
        score_milli: if verdict == Verdict::Accepted {
            100_000
        } else {
            0
        },
        groups: Vec::new(),
    }
}

/// The standings from the store's current judgings, hidden after `hide`.
fn compute(app: &App, c: &Contest, hide: Option<i64>) -> Result<Standings, StoreError> {
    let subs = ranked_submissions(app, c)?;
    let list = attempts(app, c, &subs)?;
    Ok(standings::compute(c, &list, &participants(c), hide))
}

/// The standings with nothing hidden (the final results, the awards' input). Blocking.
pub(crate) fn final_standings(app: &App, c: &Contest) -> Result<Standings, StoreError> {
    compute(app, c, None)
}

/// Before the start, what a non-admin sees: no problem and no row (the problem set is not
/// told before the start, not even its size or labels).
fn before_start(c: &Contest, viewer: Option<&User>) -> bool {
    !viewer.is_some_and(|u| u.admin) && c.phase(now_ms()) == ojd_service::contest::Phase::Before
}

fn empty(c: &Contest) -> Standings {
    Standings {
        scoring: c.scoring,
        problems: Vec::new(),
        rows: Vec::new(),
        frozen: false,
    }
}

/// Whether `viewer` sees only a part of the shared table (private standings).
fn private_for(c: &Contest, viewer: Option<&User>) -> bool {
    !c.public_standings && !viewer.is_some_and(|u| u.admin)
}

/// The shared table cut down to what `viewer` may see of private standings.
fn for_viewer(mut s: Standings, viewer: Option<&User>) -> Standings {
    match viewer {
        Some(u) => s.only(&u.name),
        None => s.rows.clear(),
    }
    s
}

/// The standings as `viewer` may see them.
pub(crate) fn standings(
    app: &App,
    c: &Contest,
    viewer: Option<&User>,
) -> Result<Standings, StoreError> {
    if before_start(c, viewer) {
        return Ok(empty(c));
    }
    let table = shared_standings(app, c, viewer)?;
    let s = table.standings.clone();
    Ok(if private_for(c, viewer) {
        for_viewer(s, viewer)
    } else {
        s
    })
}

/// The standings as JSON for `viewer`: the shared table's bytes as they are, unless
/// the standings are private.
pub(crate) fn json(
    app: &App,
    c: &Contest,
    viewer: Option<&User>,
) -> Result<axum::body::Bytes, StoreError> {
    if before_start(c, viewer) {
        return Ok(serde_json::to_vec(&empty(c)).unwrap_or_default().into());
    }
    let table = shared_standings(app, c, viewer)?;
    if !private_for(c, viewer) {
        return Ok(table.json.clone());
    }
    let s = for_viewer(table.standings.clone(), viewer);
    Ok(serde_json::to_vec(&s).unwrap_or_default().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_judge::Group;

    fn test(name: &str, verdict: Verdict) -> TestResult {
        TestResult {
            name: name.into(),
            sample: false,
            verdict,
            cpu_ms: 0,
            wall_ms: 0,
            memory_kib: 0,
            exit: None,
            message: String::new(),
            diff: None,
        }
    }

    /// The judge's own rule, partial credit included (a `cms` checker's share): the groups'
    /// points on a submission's page and in IOI standings add up to the judge's exact score.
    #[test]
    fn group_scores_count_partial_credit_as_the_judge_does() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/aplusb");
        let mut p = Problem::load(&dir).expect("the fixture problem");
        p.groups = vec![
            Group::exact("big", 12_500, vec!["01".into()]),
            Group::exact("many", 87_500, vec!["02".into()]),
        ];
        let tests = [
            test("sample-1", Verdict::Accepted),
            test("01-big", Verdict::Accepted),
            test("02-many", Verdict::WrongAnswer),
        ];
        let none = BTreeMap::new();
        assert_eq!(group_scores(&p, &tests, &none), [12_500, 0]);
        // 02-many earned 0.4 of its credit: 87.5 x 0.4 = 35 points.
        let partial = BTreeMap::from([("02-many".to_string(), 400)]);
        assert_eq!(group_scores(&p, &tests, &partial), [12_500, 35_000]);
        assert_eq!(
            group_scores(&p, &tests, &partial).iter().sum::<u64>(),
            47_500,
            "12.5 + 35"
        );
        // A test missing from the results earns nothing.
        assert_eq!(group_scores(&p, &tests[..2], &partial), [12_500, 0]);
    }
}

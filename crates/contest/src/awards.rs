//! Awards from final standings: medals by rank, the first to solve each problem, and the
//! winners of each group of teams; and the ICPC results file (`results.tsv`).
//!
//! # Rules
//!
//! **Medals.** `[awards]` in `contest.toml` sets how many gold, silver and bronze medals there
//! are (`gold = 4`, `silver = 4`, `bronze = 4`; each 0 when not given). A row whose rank is at
//! most `gold` gets gold, at most `gold + silver` silver, at most `gold + silver + bronze`
//! bronze: rows tied on a rank share its medal, so a tie at the last gold place gives one more
//! gold (as at the ICPC World Finals). A team that solved nothing (ICPC) or scored nothing
//! (IOI) gets no medal.
//!
//! **First to solve.** ICPC: the team(s) whose accepted submission of a problem came first
//! (the standings' first solve mark).
//!
//! **Group winners.** Per `group` of `[[team]]`, the best-ranked team(s) of the group that
//! solved or scored something.
//!
//! **Winner.** The rows ranked first, when they solved or scored something.
//!
//! Only ranked rows take part: the standings never rank observers or the jury. The caller
//! passes the standings without the freeze (the final results).

use serde::Serialize;

use super::model::{Contest, Scoring};
use super::standings::{Row, Standings};

/// How many medals of each colour `[awards]` gives (part of the model, which reads it).
pub use super::model::Medals;

/// One award: the Contest API's award object (`id`, `citation`, the users it goes to).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Award {
    /// "winner", "gold-medal", "silver-medal", "bronze-medal", `"first-to-solve-<problem>"`,
    /// `"group-winner-<group>"`.
    pub id: String,
    /// What the award says ("Gold medal", "Winner", "First to solve A").
    pub citation: String,
    /// The user names it goes to, in rank order (empty: nobody earned it).
    pub users: Vec<String>,
}

fn earned(s: &Standings, r: &Row) -> bool {
    match s.scoring {
        Scoring::Icpc => r.solved > 0,
        Scoring::Ioi => r.score_milli > 0,
    }
}

/// The medal of a row ranked `rank`: "gold", "silver", "bronze" or none.
pub(crate) fn medal(m: &Medals, rank: u32) -> Option<&'static str> {
    if rank == 0 {
        None
    } else if rank <= m.gold {
        Some("gold")
    } else if rank <= m.gold + m.silver {
        Some("silver")
    } else if rank <= m.gold + m.silver + m.bronze {
        Some("bronze")
    } else {
        None
    }
}

/// A group's id in an award id: lower case, runs of anything but letters and digits as "-".
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The awards of `c` from its final standings `s`.
pub fn compute(c: &Contest, s: &Standings) -> Vec<Award> {
    let mut out = Vec::new();
    let rows: Vec<&Row> = s.rows.iter().filter(|r| earned(s, r)).collect();
    let winners: Vec<String> = rows
        .iter()
        .filter(|r| r.rank == 1)
        .map(|r| r.user.clone())
        .collect();
    if !winners.is_empty() {
        out.push(Award {
            id: "winner".into(),
            citation: "Contest winner".into(),
            users: winners,
        });
    }
    for (colour, n) in [
        ("gold", c.awards.gold),
        ("silver", c.awards.silver),
        ("bronze", c.awards.bronze),
    ] {
        if n == 0 {
            continue;
        }
        let users = rows
            .iter()
            .filter(|r| medal(&c.awards, r.rank) == Some(colour))
            .map(|r| r.user.clone())
            .collect();
        let mut name = colour.to_string();
        name[..1].make_ascii_uppercase();
        out.push(Award {
            id: format!("{colour}-medal"),
            citation: format!("{name} medal winner"),
            users,
        });
    }
    if s.scoring == Scoring::Icpc {
        for (i, p) in s.problems.iter().enumerate() {
            let users: Vec<String> = rows
                .iter()
                .filter(|r| r.cells.get(i).is_some_and(|c| c.first_solve))
                .map(|r| r.user.clone())
                .collect();
            if !users.is_empty() {
                out.push(Award {
                    id: format!("first-to-solve-{}", p.problem),
                    citation: format!("First to solve problem {}", p.label),
                    users,
                });
            }
        }
    }
    let mut groups: Vec<&str> = c.teams.iter().filter_map(|t| t.group.as_deref()).collect();
    groups.sort();
    groups.dedup();
    for g in groups {
        let in_group: Vec<&&Row> = rows
            .iter()
            .filter(|r| c.team(&r.user).and_then(|t| t.group.as_deref()) == Some(g))
            .collect();
        let Some(best) = in_group.iter().map(|r| r.rank).min() else {
            continue;
        };
        out.push(Award {
            id: format!("group-winner-{}", slug(g)),
            citation: format!("Winner of group {g}"),
            users: in_group
                .iter()
                .filter(|r| r.rank == best)
                .map(|r| r.user.clone())
                .collect(),
        });
    }
    out
}

/// A roster value as a spreadsheet cell that is never a formula: one starting with `=`, `+`,
/// `-` or `@` (a team name of the roster, which its author chose) gets a leading `'`, which a
/// spreadsheet shows as text.
pub fn neutralised(value: &str) -> String {
    if value.starts_with(['=', '+', '-', '@']) {
        format!("'{value}")
    } else {
        value.to_string()
    }
}

/// The ICPC results file: `results\t1`, then per ranked team: team, rank, award ("Gold
/// Medal", "Silver Medal", "Bronze Medal", "Ranked" or "Honorable" for a team that solved
/// nothing, which has no rank), solved, total time, minute of the last accepted submission,
/// and the group it won (or empty).
pub fn results_tsv(c: &Contest, s: &Standings, awards: &[Award]) -> String {
    let clean = |t: &str| neutralised(&t.replace(['\t', '\n', '\r'], " "));
    let mut out = String::from("results\t1\n");
    for r in &s.rows {
        let ranked = earned(s, r);
        let award = match (ranked, medal(&c.awards, r.rank)) {
            (false, _) => "Honorable",
            (true, Some("gold")) => "Gold Medal",
            (true, Some("silver")) => "Silver Medal",
            (true, Some("bronze")) => "Bronze Medal",
            (true, _) => "Ranked",
        };
        let group = awards
            .iter()
            .filter(|a| a.id.starts_with("group-winner-") && a.users.contains(&r.user))
            .filter_map(|_| c.team(&r.user).and_then(|t| t.group.clone()))
            .next()
            .unwrap_or_default();
        let (solved, time) = match s.scoring {
            Scoring::Icpc => (r.solved, r.penalty),
            Scoring::Ioi => (r.score, 0),
        };
        out.push_str(&format!(
            "{}\t{}\t{award}\t{solved}\t{time}\t{}\t{}\n",
            clean(&r.user),
            if ranked {
                r.rank.to_string()
            } else {
                String::new()
            },
            r.last_ac_minute.unwrap_or(0),
            clean(&group),
        ));
    }
    out
}

#[cfg(test)]
mod tests;

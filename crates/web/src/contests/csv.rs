//! Standings as CSV, the admins' download.

use ojd_service::contest::model::Scoring;
use ojd_service::contest::standings::Standings;

/// Standings as CSV (admins): rank, user, solved, penalty, score, then one column per problem.
pub(crate) fn standings_csv(s: &Standings) -> String {
    let quote = |t: &str| {
        if t.contains([',', '"', '\n']) {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            t.to_string()
        }
    };
    let mut out = String::from("rank,user,solved,penalty,score");
    for p in &s.problems {
        out.push(',');
        out.push_str(&quote(&p.label));
    }
    out.push('\n');
    for r in &s.rows {
        out.push_str(&format!(
            "{},{},{},{},{}",
            r.rank,
            quote(&r.user),
            r.solved,
            r.penalty,
            r.score
        ));
        for c in &r.cells {
            let cell = match s.scoring {
                Scoring::Icpc if c.solved => format!("+{} {}", c.tries, c.minute.unwrap_or(0)),
                Scoring::Icpc if c.tries > 0 => format!("-{}", c.tries),
                Scoring::Ioi => c.score.map(|s| s.to_string()).unwrap_or_default(),
                _ => String::new(),
            };
            out.push(',');
            out.push_str(&cell);
        }
        out.push('\n');
    }
    out
}


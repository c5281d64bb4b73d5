//! Standings as CSV, the admins' download.

use ojd_service::contest::standings::{points_text, Standings};
use ojd_service::contest::Scoring;

/// Standings as CSV (admins): rank, user, solved, penalty, score, then one column per problem.
pub(crate) fn standings_csv(s: &Standings) -> String {
    let quote = |t: &str| {
        // A roster value is never a formula in a spreadsheet.
        let t = &ojd_service::contest::awards::neutralised(t);
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
            points_text(r.score_milli)
        ));
        for c in &r.cells {
            let cell = match s.scoring {
                Scoring::Icpc if c.solved => format!("+{} {}", c.tries, c.minute.unwrap_or(0)),
                Scoring::Icpc if c.tries > 0 => format!("-{}", c.tries),
                Scoring::Ioi => c.score_milli.map(points_text).unwrap_or_default(),
                _ => String::new(),
            };
            out.push(',');
            out.push_str(&cell);
        }
        out.push('\n');
    }
    out
}

/// The final results as CSV: the standings' columns, then `awards` (the citations of each
/// row's awards, separated by "; ").
pub(crate) fn results_csv(s: &Standings, awards: &[ojd_service::contest::awards::Award]) -> String {
    let table = standings_csv(s);
    let mut out = String::new();
    for (i, line) in table.lines().enumerate() {
        out.push_str(line);
        if i == 0 {
            out.push_str(",awards\n");
            continue;
        }
        let user = &s.rows[i - 1].user;
        let mine: Vec<&str> = awards
            .iter()
            .filter(|a| a.users.contains(user))
            .map(|a| a.citation.as_str())
            .collect();
        let text = ojd_service::contest::awards::neutralised(&mine.join("; "));
        out.push(',');
        if text.contains([',', '"']) {
            out.push_str(&format!("\"{}\"", text.replace('"', "\"\"")));
        } else {
            out.push_str(&text);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_service::contest::standings::{Cell, Column, Row};

    #[test]
    fn icpc_cells_and_quoting() {
        // A cell has a private field: made by `default`, then filled in.
        let cell = |tries: u32, minute: Option<u64>| {
            let mut c = Cell::default();
            c.tries = tries;
            c.solved = minute.is_some();
            c.minute = minute;
            c
        };
        let column = |label: &str| Column {
            label: label.into(),
            problem: label.to_lowercase(),
            solved: 1,
        };
        let s = Standings {
            scoring: Scoring::Icpc,
            problems: vec![column("A"), column("B")],
            rows: vec![Row {
                rank: 1,
                user: "o\"k, x".into(),
                name: None,
                affiliation: None,
                members: Vec::new(),
                solved: 1,
                penalty: 27,
                score: 0,
                score_milli: 0,
                last_ac_minute: Some(7),
                cells: vec![cell(2, Some(7)), cell(3, None)],
            }],
            frozen: false,
        };
        assert_eq!(
            standings_csv(&s),
            "rank,user,solved,penalty,score,A,B\n1,\"o\"\"k, x\",1,27,0,+2 7,-3\n"
        );
    }
}

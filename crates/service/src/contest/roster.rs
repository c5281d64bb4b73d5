//! A contest's roster: the `[[team]]` tables of its `contest.toml`, read from a CSV a director
//! pastes or uploads ([`parse_csv`]) and written back into the file ([`write_teams`]), which
//! stays the truth (see [`super::clock`]).
//!
//! The CSV has a header line naming its columns, `user` required, `name`, `affiliation` and
//! `category` optional, in any order (`user,name,affiliation,category`); fields may be quoted
//! with `"` (a `""` inside is a quote). Blank lines and lines starting with `#` are skipped.
//! Every error names its line.

use std::path::Path;

use super::model::{Category, Contest, Team};

/// Reads a roster CSV; all errors at once, each naming its line.
pub fn parse_csv(text: &str) -> Result<Vec<Team>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((hn, header)) = lines.next() else {
        return Err("the roster is empty: a header line `user,name,affiliation,category` and one line per team".into());
    };
    let columns: Vec<String> = fields(header)
        .map_err(|e| format!("line {hn}: {e}"))?
        .into_iter()
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let mut errors = Vec::new();
    for c in &columns {
        if !["user", "name", "affiliation", "category"].contains(&c.as_str()) {
            errors.push(format!(
                "line {hn}: unknown column {c:?} (known: user, name, affiliation, category)"
            ));
        }
    }
    let at = |name: &str| columns.iter().position(|c| c == name);
    let Some(user_col) = at("user") else {
        errors.push(format!("line {hn}: no `user` column in the header"));
        return Err(errors.join("\n"));
    };
    let mut teams: Vec<Team> = Vec::new();
    for (n, line) in lines {
        let row = match fields(line) {
            Ok(r) => r,
            Err(e) => {
                errors.push(format!("line {n}: {e}"));
                continue;
            }
        };
        if row.len() != columns.len() {
            errors.push(format!(
                "line {n}: {} fields where the header has {}",
                row.len(),
                columns.len()
            ));
            continue;
        }
        let get = |name: &str| {
            at(name)
                .map(|i| row[i].trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let user = row[user_col].trim().to_string();
        if user.is_empty()
            || user.len() > 64
            || !user
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            errors.push(format!(
                "line {n}: user {user:?}: 1 to 64 letters, digits, '.', '_' or '-'"
            ));
            continue;
        }
        if teams.iter().any(|t| t.user == user) {
            errors.push(format!("line {n}: user {user:?} is listed twice"));
            continue;
        }
        let category = match get("category").as_deref() {
            None | Some("participant") => Category::Participant,
            Some("observer") => Category::Observer,
            Some("jury") => Category::Jury,
            Some(other) => {
                errors.push(format!(
                    "line {n}: category {other:?}: expected participant, observer or jury"
                ));
                continue;
            }
        };
        teams.push(Team {
            name: get("name").unwrap_or_else(|| user.clone()),
            affiliation: get("affiliation"),
            user,
            category,
        });
    }
    if teams.is_empty() && errors.is_empty() {
        errors.push("the roster has a header but no team".into());
    }
    if errors.is_empty() {
        Ok(teams)
    } else {
        Err(errors.join("\n"))
    }
}

/// The fields of one CSV line.
fn fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if cur.trim().is_empty() && !was_quoted => {
                cur.clear();
                quoted = true;
                was_quoted = true;
            }
            ',' if !quoted => {
                out.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            c => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    out.push(cur);
    Ok(out)
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The text of a `contest.toml` with its `[[team]]` tables replaced by `teams`.
pub fn replace_teams(text: &str, teams: &[Team]) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut in_team = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_team = t == "[[team]]";
        }
        if !in_team {
            out.push(line);
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let mut s = out.join("\n");
    s.push('\n');
    for t in teams {
        s.push_str(&format!(
            "\n[[team]]\nuser = {}\nname = {}\n",
            quote(&t.user),
            quote(&t.name)
        ));
        if let Some(a) = &t.affiliation {
            s.push_str(&format!("affiliation = {}\n", quote(a)));
        }
        let cat = match t.category {
            Category::Participant => "participant",
            Category::Observer => "observer",
            Category::Jury => "jury",
        };
        s.push_str(&format!("category = \"{cat}\"\n"));
    }
    s
}

/// Writes `teams` into `dir/contest.toml` (replacing its `[[team]]` tables) and checks that the
/// result loads; if not, the old file is put back and the error returned.
pub fn write_teams(dir: &Path, problems: &Path, teams: &[Team]) -> Result<Contest, String> {
    let file = dir.join("contest.toml");
    let old = std::fs::read_to_string(&file)
        .map_err(|e| format!("{}: failed to read: {e}", file.display()))?;
    let tmp = dir.join(".contest.toml.new");
    std::fs::write(&tmp, replace_teams(&old, teams))
        .and_then(|()| std::fs::rename(&tmp, &file))
        .map_err(|e| format!("{}: failed to write: {e}", file.display()))?;
    match Contest::load(dir, problems) {
        Ok(c) => Ok(c),
        Err(e) => {
            let _ = std::fs::write(&file, &old);
            Err(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roster_is_read_with_its_errors_named_by_line() {
        let csv = "# the hall\nname,user,affiliation,category\n\"Rocket, Inc.\",alice,PKU,\n\
                   bob,bob,,observer\n";
        let teams = parse_csv(csv).expect("roster");
        assert_eq!(teams.len(), 2);
        assert_eq!(
            (
                teams[0].user.as_str(),
                teams[0].name.as_str(),
                teams[0].affiliation.as_deref()
            ),
            ("alice", "Rocket, Inc.", Some("PKU"))
        );
        assert_eq!(teams[1].category, Category::Observer);
        let bad = "user,name\nalice,A\nal ice,B\nalice,C\ncarol\n";
        let e = parse_csv(bad).expect_err("errors");
        assert_eq!(
            e,
            "line 3: user \"al ice\": 1 to 64 letters, digits, '.', '_' or '-'\n\
             line 4: user \"alice\" is listed twice\n\
             line 5: 1 fields where the header has 2"
        );
        assert!(parse_csv("name\nx\n")
            .expect_err("no user")
            .contains("no `user` column"));
    }

    #[test]
    fn teams_replace_the_old_ones_and_nothing_else() {
        let text = "title = \"x\"\n[[problem]]\nid = \"a\"\n\n[[team]]\nuser = \"old\"\n";
        let teams = vec![Team {
            user: "alice".into(),
            name: "Say \"hi\"".into(),
            affiliation: None,
            category: Category::Participant,
        }];
        assert_eq!(
            replace_teams(text, &teams),
            "title = \"x\"\n[[problem]]\nid = \"a\"\n\n[[team]]\nuser = \"alice\"\n\
             name = \"Say \\\"hi\\\"\"\ncategory = \"participant\"\n"
        );
    }
}

//! A contest's roster: the `[[team]]` tables of its `contest.toml`, read from a CSV a director
//! pastes or uploads (`parse_csv`) and written back into the file ([`write_teams`]), which
//! stays the truth (see [`super::clock`]).
//!
//! The CSV has a header line naming its columns, `user` required, `name`, `affiliation`,
//! `category`, `group`, `members`, `groups` (further groups, separated by `;`), `country` (ISO
//! 3166-1 alpha-3) and `location` (`x;y;rotation`) optional, in any order
//! (`user,name,affiliation,category`); fields may be quoted
//! with `"` (a `""` inside is a quote). Blank lines and lines starting with `#` are skipped.
//! Every error names its line.
//!
//! DOMjudge's files are read too ([`parse`] tells them by their first line): `teams.tsv`
//! (`teams<TAB>1`, then `id, external id, category id, name[, institution, short name,
//! country]` per line), optionally followed by `accounts.tsv` (`accounts<TAB>1`, then
//! `type, full name, username, password[, team id]`). A team's user is the username of the
//! `team` account that names its id, else `team<id>`; its name is the team name and its
//! affiliation the institution. Category ids are each site's own, so every team is a
//! participant (mark observers in the CSV or in `contest.toml`). The `team` accounts'
//! passwords are read by [`passwords`]: the daemon keeps them hashed, never in the file.

use std::path::Path;

use super::clock::rewrite_keys;
use super::model::{Category, Contest, Participants, Team};

/// Reads a roster: DOMjudge's `teams.tsv` (with `accounts.tsv` after it) when the text starts
/// with `teams<TAB>`, else the CSV.
pub fn parse(text: &str) -> Result<Vec<Team>, String> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first.starts_with("teams\t") {
        parse_domjudge(text)
    } else {
        parse_csv(text)
    }
}

/// The passwords of the `team` accounts in a DOMjudge `accounts.tsv` section of `text`:
/// (line, username, password), in file order; empty for a CSV roster or no accounts.
pub fn passwords(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut accounts = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        if f.len() == 2 && (f[0] == "teams" || f[0] == "accounts") {
            accounts = f[0] == "accounts";
            continue;
        }
        if accounts && f.len() >= 4 && f[0] == "team" && !f[3].is_empty() {
            out.push((
                i + 1,
                f[2].to_string(),
                line.split('\t').nth(3).unwrap_or("").to_string(),
            ));
        }
    }
    out
}

/// DOMjudge's `teams.tsv`, optionally followed by its `accounts.tsv`.
fn parse_domjudge(text: &str) -> Result<Vec<Team>, String> {
    let mut errors = Vec::new();
    let mut section = "";
    // (line, id, name, institution)
    let mut rows: Vec<(usize, String, String, Option<String>)> = Vec::new();
    let mut users: Vec<(String, String)> = Vec::new(); // (team id, username)
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        match (f[0], f.len()) {
            ("teams", 2) | ("accounts", 2) => {
                if f[1] != "1" {
                    errors.push(format!(
                        "line {n}: {} version {:?}: only version 1 is read",
                        f[0], f[1]
                    ));
                }
                section = if f[0] == "teams" { "teams" } else { "accounts" };
            }
            _ if section == "teams" => {
                if f.len() < 4 || f[0].is_empty() || f[3].is_empty() {
                    errors.push(format!(
                        "line {n}: expected id, external id, category id and name, tab-separated"
                    ));
                    continue;
                }
                let institution = f.get(4).filter(|s| !s.is_empty()).map(|s| s.to_string());
                rows.push((n, f[0].to_string(), f[3].to_string(), institution));
            }
            _ if section == "accounts" => {
                if f.len() < 4 {
                    errors.push(format!(
                        "line {n}: expected type, full name, username and password, tab-separated"
                    ));
                    continue;
                }
                if f[0] == "team" {
                    if let Some(id) = f.get(4).filter(|s| !s.is_empty()) {
                        users.push((id.to_string(), f[2].to_string()));
                    }
                }
            }
            _ => errors.push(format!("line {n}: before the `teams\t1` line")),
        }
    }
    let mut teams: Vec<Team> = Vec::new();
    for (n, id, name, affiliation) in rows {
        let user = users
            .iter()
            .find(|(t, _)| *t == id)
            .map(|(_, u)| u.clone())
            .unwrap_or_else(|| format!("team{id}"));
        if !valid_user(&user) {
            errors.push(format!(
                "line {n}: user {user:?}: 1 to 64 letters, digits, '.', '_' or '-'"
            ));
            continue;
        }
        if teams.iter().any(|t| t.user == user) {
            errors.push(format!("line {n}: user {user:?} has two teams"));
            continue;
        }
        teams.push(Team {
            user,
            name,
            affiliation,
            category: Category::Participant,
            group: None,
            // teams.tsv has no members (DOMjudge keeps them in teams.json, not read here).
            members: Vec::new(),
            place: Default::default(),
        });
    }
    if teams.is_empty() && errors.is_empty() {
        errors.push("teams.tsv has no team".into());
    }
    if errors.is_empty() {
        Ok(teams)
    } else {
        Err(errors.join("\n"))
    }
}

fn valid_user(user: &str) -> bool {
    !user.is_empty()
        && user.len() <= 64
        && user
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// Reads a roster CSV; all errors at once, each naming its line.
pub(crate) fn parse_csv(text: &str) -> Result<Vec<Team>, String> {
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
    let known = || super::model::TEAM_FIELDS.iter().chain(PLACE_COLUMNS);
    for c in &columns {
        if !known().any(|k| k == c) {
            let names: Vec<&str> = known().copied().collect();
            errors.push(format!(
                "line {hn}: unknown column {c:?} (known: {})",
                names.join(", ")
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
        if !valid_user(&user) {
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
        let members = split_members(&get("members").unwrap_or_default());
        if let Err(e) = super::model::check_members(&members) {
            errors.push(format!("line {n}: members: {e}"));
            continue;
        }
        let place = match place_of(&get) {
            Ok(p) => p,
            Err(e) => {
                errors.push(format!("line {n}: {e}"));
                continue;
            }
        };
        teams.push(Team {
            name: get("name").unwrap_or_else(|| user.clone()),
            affiliation: get("affiliation"),
            user,
            category,
            group: place.groups.first().cloned(),
            members,
            place,
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

/// The roster's columns for a team's place (`group` being one of [`super::model::TEAM_FIELDS`]):
/// further groups separated by `;`, the country (ISO 3166-1 alpha-3) and the seat as
/// `x;y;rotation` (metres, degrees).
const PLACE_COLUMNS: &[&str] = &["groups", "country", "location"];

/// A row's place from its `group`, `groups`, `country` and `location` fields, checked as a
/// `[[team]]` table's (the same words for the same mistakes); the first mistake named by its
/// column.
fn place_of(get: &dyn Fn(&str) -> Option<String>) -> Result<crate::place::Place, String> {
    let mut t = toml::Table::new();
    let mut groups: Vec<String> = get("group").into_iter().collect();
    for g in get("groups").iter().flat_map(|g| g.split(';')) {
        let g = g.trim().to_string();
        if !g.is_empty() && !groups.contains(&g) {
            groups.push(g);
        }
    }
    if !groups.is_empty() {
        let list = groups.into_iter().map(toml::Value::String).collect();
        t.insert("groups".into(), toml::Value::Array(list));
    }
    if let Some(c) = get("country") {
        t.insert("country".into(), toml::Value::String(c));
    }
    if let Some(l) = get("location") {
        let parts: Vec<&str> = l.split(';').map(str::trim).collect();
        let numbers: Option<Vec<f64>> = parts.iter().map(|p| p.parse().ok()).collect();
        let mut seat = toml::Table::new();
        match numbers.as_deref() {
            Some([x, y, rotation]) => {
                for (k, v) in [("x", x), ("y", y), ("rotation", rotation)] {
                    seat.insert(k.into(), toml::Value::Float(*v));
                }
            }
            _ => {
                return Err(format!(
                    "location: {l:?} is not `x;y;rotation` (metres, degrees from 0 to 360)"
                ))
            }
        }
        t.insert("location".into(), toml::Value::Table(seat));
    }
    let (place, mistakes) = crate::place::read(&t);
    match mistakes.into_iter().next() {
        None => Ok(place),
        Some(("location", _)) => Err(format!(
            "location: {:?} is not `x;y;rotation` (metres, degrees from 0 to 360)",
            get("location").unwrap_or_default()
        )),
        Some((k, why)) => Err(format!("{k}: {why}")),
    }
}

/// A team's members as typed: separated by `;` or by lines, blanks dropped.
pub fn split_members(text: &str) -> Vec<String> {
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .collect()
}

/// One team as a director types it on the teams page or sends it to the API.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamDraft {
    /// The user name of the team it replaces; empty for a new team.
    #[serde(default)]
    pub original: String,
    /// The team's user name (its login and id).
    pub user: String,
    /// The team's display name; empty: the user name.
    #[serde(default)]
    pub name: String,
    /// The team's organization, by name.
    #[serde(default)]
    pub affiliation: String,
    /// "participant" (or empty), "observer" or "jury".
    #[serde(default)]
    pub category: String,
    /// The team's group, by name (ranked within it).
    #[serde(default)]
    pub group: String,
    /// Names separated by `;` or by lines.
    #[serde(default)]
    pub members: String,
}

impl TeamDraft {
    /// The draft of an existing team (what its edit form starts with).
    pub fn of(t: &Team) -> TeamDraft {
        TeamDraft {
            original: t.user.clone(),
            user: t.user.clone(),
            name: t.name.clone(),
            affiliation: t.affiliation.clone().unwrap_or_default(),
            category: category_name(t.category).into(),
            group: t.group.clone().unwrap_or_default(),
            members: t.members.join("; "),
        }
    }

    /// The contest's teams with this one added or put in the place of `original`; or every
    /// bad field, each named (`user`, `name`, `affiliation`, `category`, `group`, `members`).
    pub fn apply(&self, teams: &[Team]) -> Result<Vec<Team>, Vec<super::edit::FieldError>> {
        let mut errors = Vec::new();
        let mut err = |field: &str, message: String| {
            errors.push(super::edit::FieldError {
                field: field.into(),
                message,
            })
        };
        let user = self.user.trim().to_string();
        let original = self.original.trim();
        if !valid_user(&user) {
            err(
                "user",
                format!("{user:?}: expected 1 to 64 letters, digits, '.', '_' or '-'"),
            );
        } else if user != original && teams.iter().any(|t| t.user == user) {
            err("user", format!("user {user:?} has a team already"));
        }
        if !original.is_empty() && !teams.iter().any(|t| t.user == original) {
            err("original", format!("no team of user {original:?}"));
        }
        let one_line = |v: &str| v.trim().chars().count() <= 200 && !v.contains(['\n', '\r']);
        for (field, value) in [
            ("name", &self.name),
            ("affiliation", &self.affiliation),
            ("group", &self.group),
        ] {
            if !one_line(value) {
                err(field, "expected one line of at most 200 characters".into());
            }
        }
        let category = match self.category.trim() {
            "" | "participant" => Category::Participant,
            "observer" => Category::Observer,
            "jury" => Category::Jury,
            other => {
                err(
                    "category",
                    format!("expected participant, observer or jury, found {other:?}"),
                );
                Category::Participant
            }
        };
        let members = split_members(&self.members);
        if let Err(e) = super::model::check_members(&members) {
            err("members", e);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let text = |v: &str| Some(v.trim().to_string()).filter(|v| !v.is_empty());
        // What the form has no field for (further groups, country, seat) stays as it was; the
        // form's group is the first.
        let mut place = (teams
            .iter()
            .find(|t| t.user == original && !original.is_empty()))
        .map(|t| t.place.clone())
        .unwrap_or_default();
        let group = text(&self.group);
        if !place.groups.is_empty() {
            place.groups.remove(0);
        }
        if let Some(g) = &group {
            place.groups.retain(|x| x != g);
            if !place.groups.is_empty() {
                place.groups.insert(0, g.clone());
            }
        }
        let team = Team {
            name: text(&self.name).unwrap_or_else(|| user.clone()),
            affiliation: text(&self.affiliation),
            user,
            category,
            group,
            members,
            place,
        };
        let mut out = teams.to_vec();
        match out.iter().position(|t| t.user == original) {
            Some(i) if !original.is_empty() => out[i] = team,
            _ => out.push(team),
        }
        Ok(out)
    }
}

/// A category as `contest.toml` and the forms write it.
pub fn category_name(c: Category) -> &'static str {
    match c {
        Category::Participant => "participant",
        Category::Observer => "observer",
        Category::Jury => "jury",
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
pub(crate) fn replace_teams(text: &str, teams: &[Team]) -> String {
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
        let place = crate::place::Place {
            groups: t.groups().into_iter().map(str::to_string).collect(),
            ..t.place.clone()
        };
        s.push_str(&crate::place::write(&place, quote));
        if !t.members.is_empty() {
            let names: Vec<String> = t.members.iter().map(|m| quote(m)).collect();
            s.push_str(&format!("members = [{}]\n", names.join(", ")));
        }
        s.push_str(&format!("category = \"{}\"\n", category_name(t.category)));
    }
    s
}

/// What writing a contest's teams changed in the `participants` it lists: a new team's user
/// is admitted (else the team could not submit), a removed team's user is no longer listed.
/// Empty for a contest open to anyone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// Users added to `participants`, in the teams' order.
    pub admitted: Vec<String>,
    /// Users taken off `participants`, in the old teams' order.
    pub dismissed: Vec<String>,
}

impl Admission {
    /// Whether nobody was admitted or dismissed.
    pub fn is_empty(&self) -> bool {
        self.admitted.is_empty() && self.dismissed.is_empty()
    }

    /// `detail` (an audit line) with what changed: "team \"bob\" added…; participants: +bob".
    pub fn told_after(&self, detail: String) -> String {
        if self.is_empty() {
            detail
        } else {
            format!("{detail}; {}", self.describe())
        }
    }

    /// "participants: +bob, -carol" (the audit's words), or "" when nothing changed.
    pub fn describe(&self) -> String {
        if self.is_empty() {
            return String::new();
        }
        let words: Vec<String> = self
            .admitted
            .iter()
            .map(|u| format!("+{u}"))
            .chain(self.dismissed.iter().map(|u| format!("-{u}")))
            .collect();
        format!("participants: {}", words.join(", "))
    }
}

/// The listed participants once the teams `old` become `new`: every new team's user added at
/// the end, every user of a team no longer there taken off (a listed user who never had a team
/// stays), with what changed.
pub fn participants_after(
    listed: &[String],
    old: &[Team],
    new: &[Team],
) -> (Vec<String>, Admission) {
    let has_team = |teams: &[Team], u: &str| teams.iter().any(|t| t.user == u);
    let dismissed: Vec<String> = old
        .iter()
        .filter(|t| !has_team(new, &t.user) && listed.contains(&t.user))
        .map(|t| t.user.clone())
        .collect();
    let mut users: Vec<String> = listed
        .iter()
        .filter(|u| !dismissed.contains(u))
        .cloned()
        .collect();
    let mut admitted = Vec::new();
    for t in new {
        if !users.contains(&t.user) {
            users.push(t.user.clone());
            admitted.push(t.user.clone());
        }
    }
    (
        users,
        Admission {
            admitted,
            dismissed,
        },
    )
}

/// Writes `teams` into `dir/contest.toml` (replacing its `[[team]]` tables, and its
/// `participants` when it lists them: see [`participants_after`]) and checks that the result
/// loads; if not, the old file is put back and the error returned.
pub fn write_teams(
    dir: &Path,
    problems: &Path,
    teams: &[Team],
) -> Result<(Contest, Admission), String> {
    let file = dir.join("contest.toml");
    let was = Contest::load(dir, problems).map_err(|e| e.to_string())?;
    let old = std::fs::read_to_string(&file)
        .map_err(|e| format!("{}: failed to read: {e}", file.display()))?;
    let mut text = replace_teams(&old, teams);
    let mut admission = Admission::default();
    if let Participants::Listed(listed) = &was.participants {
        let (users, changed) = participants_after(listed, &was.teams, teams);
        if !changed.is_empty() {
            let list: Vec<String> = users.iter().map(|u| quote(u)).collect();
            text = rewrite_keys(
                &text,
                vec![("participants", Some(format!("[{}]", list.join(", "))))],
            );
            admission = changed;
        }
    }
    let tmp = dir.join(".contest.toml.new");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &file))
        .map_err(|e| format!("{}: failed to write: {e}", file.display()))?;
    match Contest::load(dir, problems) {
        Ok(c) => Ok((c, admission)),
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
    fn a_roster_gives_groups_country_and_seat_and_names_their_mistakes() {
        let csv = "user,group,groups,country,location\n\
                   alice,Students,Women; Students ;Locals,NLD,1.5;2;90\n\
                   bob,,,,\n";
        let teams = parse_csv(csv).expect("roster");
        let alice = &teams[0];
        assert_eq!(alice.group.as_deref(), Some("Students"));
        assert_eq!(alice.groups(), ["Students", "Women", "Locals"]);
        assert_eq!(alice.place.country.as_deref(), Some("NLD"));
        let seat = alice.place.location.expect("a seat");
        assert_eq!((seat.x, seat.y, seat.rotation), (1.5, 2.0, 90.0));
        assert_eq!(teams[1].place, Default::default());
        assert_eq!(teams[1].group, None);
        // Written into contest.toml as a [[team]] table says them.
        let text = replace_teams("title = \"T\"\n", &teams);
        assert!(
            text.contains(
                "groups = [\"Students\", \"Women\", \"Locals\"]\ncountry = \"NLD\"\n\
                           location = { x = 1.5, y = 2.0, rotation = 90.0 }\n"
            ),
            "{text}"
        );
        let bad = "user,country,location\na,Belgium,\nb,,1;2\nc,,1;2;400\n";
        let e = parse_csv(bad).expect_err("errors");
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(lines.len(), 3, "{e}");
        assert!(lines[0].starts_with("line 2: country: "), "{e}");
        assert!(
            lines[1].starts_with("line 3: location: \"1;2\" is not `x;y;rotation`"),
            "{e}"
        );
        assert!(lines[2].starts_with("line 4: location: \"1;2;400\""), "{e}");
        assert!(parse_csv("user,seat\na,1\n")
            .expect_err("unknown")
            .contains("known: user, name"));
    }

    #[test]
    fn domjudge_team_passwords_are_read() {
        let text = "teams\t1\n1\t\t3\tRocket\naccounts\t1\nteam\tRocket\talice\ts3cret pw\t1\n\
                    judge\tJ\tjudge1\tx\nteam\tLima\tbob\t\t2\n";
        assert_eq!(
            passwords(text),
            [(4, "alice".to_string(), "s3cret pw".to_string())]
        );
        assert!(passwords("user,name\nalice,Rocket\n").is_empty());
    }

    #[test]
    fn domjudge_teams_and_accounts_are_read() {
        let text = "teams\t1\n1\t1001\t3\tRocket\tPeking University\tPKU\tCHN\n\
                    2\t1002\t3\tLima\n\
                    accounts\t1\nteam\tRocket\talice\tsecret\t1\njudge\tJ\tjudge1\tx\n";
        let teams = parse(text).expect("teams.tsv");
        let got: Vec<(&str, &str, Option<&str>)> = teams
            .iter()
            .map(|t| (t.user.as_str(), t.name.as_str(), t.affiliation.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("alice", "Rocket", Some("Peking University")),
                ("team2", "Lima", None)
            ]
        );
        let e = parse("teams\t2\n1\tx\n").expect_err("version");
        assert!(
            e.contains("line 1: teams version \"2\"") && e.contains("line 2:"),
            "{e}"
        );
        assert_eq!(parse("user\nbob\n").expect("csv")[0].user, "bob");
    }

    #[test]
    fn teams_replace_the_old_ones_and_nothing_else() {
        let text = "title = \"x\"\n[[problem]]\nid = \"a\"\n\n[[team]]\nuser = \"old\"\n";
        let teams = vec![Team {
            user: "alice".into(),
            name: "Say \"hi\"".into(),
            affiliation: None,
            category: Category::Participant,
            group: None,
            members: Vec::new(),
            place: Default::default(),
        }];
        assert_eq!(
            replace_teams(text, &teams),
            "title = \"x\"\n[[problem]]\nid = \"a\"\n\n[[team]]\nuser = \"alice\"\n\
             name = \"Say \\\"hi\\\"\"\ncategory = \"participant\"\n"
        );
    }

    #[test]
    fn members_are_read_from_the_csv_checked_and_written() {
        let teams =
            parse("user,name,members\nalice,Rocket,Ann Lee; Bo Chen ;\nbob,,\n").expect("csv");
        assert_eq!(teams[0].members, ["Ann Lee", "Bo Chen"]);
        assert!(teams[1].members.is_empty());
        let e = parse("user,members\nalice,Ann;Ann\n").expect_err("twice");
        assert!(
            e.contains("line 2: members: member \"Ann\" is listed twice"),
            "{e}"
        );
        let text = replace_teams("title = \"x\"\n", &teams);
        assert!(
            text.contains("name = \"Rocket\"\nmembers = [\"Ann Lee\", \"Bo Chen\"]\n"),
            "{text}"
        );
        let table: toml::Table = text.parse().expect("valid TOML");
        assert_eq!(table["team"][0]["members"][1].as_str(), Some("Bo Chen"));
    }

    #[test]
    fn a_team_is_added_edited_and_refused_field_by_field() {
        let teams = parse("user,name\nalice,Rocket\n").expect("csv");
        let add = TeamDraft {
            user: "bob".into(),
            name: "Comet".into(),
            members: "Cy\nDee".into(),
            category: "observer".into(),
            ..TeamDraft::default()
        };
        let after = add.apply(&teams).expect("added");
        assert_eq!(after.len(), 2);
        assert_eq!(after[1].members, ["Cy", "Dee"]);
        assert_eq!(after[1].category, Category::Observer);
        let mut edit = TeamDraft::of(&after[0]);
        assert_eq!(edit.original, "alice");
        edit.user = "alice2".into();
        edit.affiliation = "MIT".into();
        let again = edit.apply(&after).expect("edited");
        assert_eq!(
            (
                again[0].user.as_str(),
                again[0].name.as_str(),
                again[0].affiliation.as_deref()
            ),
            ("alice2", "Rocket", Some("MIT"))
        );
        let bad = TeamDraft {
            original: "nobody".into(),
            user: "bob".into(),
            name: "two\nlines".into(),
            category: "guest".into(),
            members: "Ann; Ann".into(),
            ..TeamDraft::default()
        };
        let fields: Vec<String> = bad
            .apply(&after)
            .expect_err("refused")
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(fields, ["user", "original", "name", "category", "members"]);
    }

    #[test]
    fn a_team_added_is_admitted_and_a_team_removed_is_not_listed_any_more() {
        let teams = |csv: &str| parse(csv).expect("csv");
        let listed: Vec<String> = ["alice", "judge1"].map(String::from).to_vec();
        let old = teams("user\nalice\n");
        let (users, a) = participants_after(&listed, &old, &teams("user\nalice\nbob\n"));
        assert_eq!(users, ["alice", "judge1", "bob"]);
        assert_eq!(
            (a.admitted.clone(), a.dismissed.clone()),
            (vec!["bob".to_string()], vec![])
        );
        assert_eq!(
            a.told_after("team \"bob\" added".into()),
            "team \"bob\" added; participants: +bob"
        );
        // A user renamed: the old one goes, the new one comes; a listed user without a team
        // (the jury's judge1) stays.
        let (users, a) = participants_after(&listed, &old, &teams("user\nalice2\n"));
        assert_eq!(users, ["judge1", "alice2"]);
        assert_eq!(a.describe(), "participants: +alice2, -alice");
        let (users, a) = participants_after(&listed, &old, &old);
        assert_eq!((users, a.is_empty()), (listed.clone(), true));
        assert_eq!(a.told_after("x".into()), "x");
    }

    #[test]
    fn writing_the_teams_writes_the_listed_participants_too() {
        let problems = tempfile::tempdir().expect("dir");
        std::fs::create_dir(problems.path().join("a")).expect("mkdir");
        let root = tempfile::tempdir().expect("dir");
        let dir = root.path().join("c");
        std::fs::create_dir(&dir).expect("mkdir");
        let head = "title = \"c\"\nstart = \"2026-12-01T09:00:00Z\"\nduration = \"5h\"\n";
        std::fs::write(
            dir.join("contest.toml"),
            format!(
                "{head}participants = [\n  \"alice\",   # the first\n  \"judge1\",\n]\n\
                 [[problem]]\nid = \"a\"\n\n[[team]]\nuser = \"alice\"\n"
            ),
        )
        .expect("write");
        let (c, a) = write_teams(&dir, problems.path(), &parse("user\nbob\n").expect("csv"))
            .expect("written");
        assert_eq!(a.describe(), "participants: +bob, -alice");
        assert_eq!(
            c.participants,
            Participants::Listed(vec!["judge1".into(), "bob".into()])
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("contest.toml")).expect("read"),
            format!(
                "{head}participants = [\"judge1\", \"bob\"]\n[[problem]]\nid = \"a\"\n\n\
                 [[team]]\nuser = \"bob\"\nname = \"bob\"\ncategory = \"participant\"\n"
            )
        );
        // Open to anyone: nothing to list.
        let open = format!("{head}[[problem]]\nid = \"a\"\n");
        std::fs::write(dir.join("contest.toml"), &open).expect("write");
        let (c, a) = write_teams(&dir, problems.path(), &parse("user\nbob\n").expect("csv"))
            .expect("written");
        assert!(
            a.is_empty() && c.participants == Participants::Anyone,
            "{a:?}"
        );
    }
}

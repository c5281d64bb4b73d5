//! `contest.toml`: the raw manifest as written and the validated [`Contest`] the daemon runs.
//!
//! [`Contest::load`] reads `contests/<id>/contest.toml`, checks every key and collects *all*
//! errors before failing, each naming the file and the key
//! (`contests/x/contest.toml: start: expected an RFC 3339 time with an offset, ...`), as
//! ojd-judge's `Problem::load` does for problems. Times inside a contest are Unix milliseconds; durations are
//! whole minutes or finer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

/// How the standings are computed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// Solved problems, then penalty minutes, then the time of the last accepted submission.
    Icpc,
    /// Sum of per-problem best scores (per group, best across submissions: the IOI 2017 rule).
    Ioi,
}

/// Who may submit to a contest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "users")]
pub enum Participants {
    /// Anyone holding a token.
    Anyone,
    /// Only these users (admins are always allowed).
    Listed(Vec<String>),
}

/// One problem of a contest: its label and the folder under `problems/` it refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContestProblem {
    /// "A", "B", ... or as given.
    pub label: String,
    /// The problem's folder name (its id).
    pub problem: String,
    /// Its colour on the pages and in the Contest API (`#rrggbb`), if given (`color`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

/// Who a team is on the board: a category decides whether the public standings rank it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Ranked on the standings.
    Participant,
    /// Takes part, never ranked (a guest, an out-of-competition team).
    Observer,
    /// The jury's account: never ranked.
    Jury,
}

/// A participant's name on the board: `[[team]]` in `contest.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Team {
    /// The user name (a token's or a login's) this team submits as.
    pub user: String,
    /// The name shown on the standings (default: the user name).
    pub name: String,
    /// The team's university or club, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affiliation: Option<String>,
    /// Whether the team is ranked (a participant) or not (an observer, the jury).
    pub category: Category,
    /// The group the team is ranked in for the group winners' awards ("Undergraduate", a
    /// region), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The names of its people (`members = ["Ann Lee", "Bo Chen"]`), shown with its name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// Its groups when it has several (`groups = [..]`, the first being `group`), its country
    /// and its seat.
    #[serde(flatten)]
    pub place: crate::place::Place,
}

impl Team {
    /// Its groups: `group` first, then the others of `groups`.
    pub fn groups(&self) -> Vec<&str> {
        let first = self.group.as_deref();
        let rest = self.place.groups.iter().map(String::as_str);
        first
            .into_iter()
            .chain(rest.filter(|g| Some(*g) != first))
            .collect()
    }
}

/// A team's fields: the keys of a `[[team]]` table and the columns of a roster CSV.
pub(crate) const TEAM_FIELDS: &[&str] = &[
    "user",
    "name",
    "affiliation",
    "category",
    "group",
    "members",
];

/// The keys of a `[[team]]` table beyond [`TEAM_FIELDS`] (no roster column: see `place`).
const TEAM_TABLE_ONLY: &[&str] = &["groups", "country", "location"];

/// The most members a team may list.
pub(crate) const MAX_MEMBERS: usize = 20;

/// Checks a team's members: at most [`MAX_MEMBERS`], each 1 to 100 characters on one line,
/// none twice.
pub(crate) fn check_members(members: &[String]) -> Result<(), String> {
    if members.len() > MAX_MEMBERS {
        return Err(format!("{} members: at most {MAX_MEMBERS}", members.len()));
    }
    for (i, m) in members.iter().enumerate() {
        if m.trim().is_empty() || m.chars().count() > 100 || m.chars().any(char::is_control) {
            return Err(format!(
                "member {:?}: expected a name of 1 to 100 characters on one line",
                m
            ));
        }
        if members[..i].contains(m) {
            return Err(format!("member {m:?} is listed twice"));
        }
    }
    Ok(())
}

/// How many medals of each colour `[awards]` gives.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Medals {
    /// Gold medals: ranks 1 to `gold`.
    pub gold: u32,
    /// Silver medals: the next `silver` ranks.
    pub silver: u32,
    /// Bronze medals: the next `bronze` ranks.
    pub bronze: u32,
}

/// A validated contest.
#[derive(Clone, Debug, Serialize)]
pub struct Contest {
    /// The folder name.
    pub id: String,
    /// The contest's folder (where `contest.toml` is).
    #[serde(skip)]
    pub dir: PathBuf,
    /// The title shown on every page.
    pub title: String,
    /// Start, Unix milliseconds.
    pub start_ms: i64,
    /// The offset the start was written with, in seconds east of UTC (for display).
    pub utc_offset_s: i32,
    /// How long it runs from the start.
    #[serde(skip)]
    pub duration: Duration,
    /// The scoreboard freezes this long before the end (ICPC's last hour).
    #[serde(skip)]
    pub freeze: Option<Duration>,
    /// How it ranks: ICPC or IOI.
    pub scoring: Scoring,
    /// Penalty minutes per rejected try before the first accepted one (ICPC).
    pub penalty_minutes: u32,
    /// Whether a compile error counts as a rejected try (ICPC).
    pub compile_errors_count: bool,
    /// Its problems, in label order.
    pub problems: Vec<ContestProblem>,
    /// Who may take part: anyone, or the listed users.
    pub participants: Participants,
    /// Students see every row of the standings; false: only their own.
    pub public_standings: bool,
    /// Display names, affiliations and categories (`[[team]]`); a user without one is a
    /// participant shown by their user name.
    pub teams: Vec<Team>,
    /// How many medals `[awards]` gives (the awards module gives them).
    pub awards: Medals,
    /// When a director finalized the results (`finalized` in the file), Unix ms: the
    /// standings are final, the awards public.
    pub finalized_ms: Option<i64>,
    /// What a participant sees of their own submissions made for this contest.
    pub feedback: Feedback,
}

/// What a participant sees of their own submissions made for a contest (`feedback` in
/// `contest.toml`); the jury and admins always see everything.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Feedback {
    /// The final verdict (and score) only: no per-test rows, no diff, no checker message.
    Verdict,
    /// The tests up to and including the first failing one, with its message; no diff of a
    /// hidden test.
    FirstFailure,
    /// Everything the judge's own visibility rules allow (the default).
    #[default]
    All,
}

impl Feedback {
    /// The policy's name as `contest.toml` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Feedback::Verdict => "verdict",
            Feedback::FirstFailure => "first_failure",
            Feedback::All => "all",
        }
    }

    /// The policy `contest.toml` names `s`, if it is one.
    pub fn parse(s: &str) -> Option<Feedback> {
        match s {
            "verdict" => Some(Feedback::Verdict),
            "first_failure" => Some(Feedback::FirstFailure),
            "all" => Some(Feedback::All),
            _ => None,
        }
    }

    /// The error for a value that is none of `Feedback::NAMES`.
    pub fn expected(found: &str) -> String {
        format!("expected \"verdict\", \"first_failure\" or \"all\", found {found:?}")
    }
}

/// Where a contest is on its clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Not started yet.
    Before,
    /// Running, before the freeze time (or without a freeze).
    Running,
    /// Running, and past the freeze time.
    Frozen,
    /// Over.
    Ended,
}

/// Every problem found while loading a contest.
#[derive(Debug, thiserror::Error)]
#[error("{}", .errors.join("\n"))]
pub struct ContestError {
    /// Each problem found, one line each, naming the file and the key.
    pub errors: Vec<String>,
}

impl Contest {
    /// The end, Unix ms: the start plus the duration.
    pub fn end_ms(&self) -> i64 {
        self.start_ms + self.duration.as_millis() as i64
    }

    /// When nothing of the contest changes any more (the Contest API's `state.end_of_updates`):
    /// its finalization, which is refused while the standings are frozen and needs every
    /// warning of [`super::finalize::Checklist`] confirmed, so the results are final then.
    pub fn end_of_updates_ms(&self) -> Option<i64> {
        self.finalized_ms
    }

    /// When the scoreboard freezes, if it does.
    pub fn freeze_ms(&self) -> Option<i64> {
        self.freeze.map(|f| self.end_ms() - f.as_millis() as i64)
    }

    /// Where the contest is on its clock at `now_ms`.
    pub fn phase(&self, now_ms: i64) -> Phase {
        if now_ms < self.start_ms {
            Phase::Before
        } else if now_ms >= self.end_ms() {
            Phase::Ended
        } else if self.freeze_ms().is_some_and(|f| now_ms >= f) {
            Phase::Frozen
        } else {
            Phase::Running
        }
    }

    /// Whether `user` takes part (admins always may; the caller checks that).
    pub fn admits(&self, user: &str) -> bool {
        match &self.participants {
            Participants::Anyone => true,
            Participants::Listed(users) => users.iter().any(|u| u == user),
        }
    }

    /// The users who are ranked whether or not they submitted: a listed contest's participants
    /// and every `[[team]]` the contest admits, less observers and the jury. A team that never
    /// submitted still has its row (zero solved), in the standings, the results and the awards'
    /// input.
    pub fn ranked_users(&self) -> Vec<String> {
        let mut users: Vec<String> = match &self.participants {
            Participants::Anyone => Vec::new(),
            Participants::Listed(u) => u.iter().filter(|u| self.ranked(u)).cloned().collect(),
        };
        for t in &self.teams {
            if self.ranked(&t.user) && self.admits(&t.user) && !users.contains(&t.user) {
                users.push(t.user.clone());
            }
        }
        users
    }

    /// The team of `user`, if `[[team]]` names it.
    pub fn team(&self, user: &str) -> Option<&Team> {
        self.teams.iter().find(|t| t.user == user)
    }

    /// Whether `user` is ranked: not an observer's or the jury's account.
    pub fn ranked(&self, user: &str) -> bool {
        self.team(user)
            .is_none_or(|t| t.category == Category::Participant)
    }

    /// The contest problem with this label or problem id.
    pub fn problem(&self, key: &str) -> Option<&ContestProblem> {
        self.problems
            .iter()
            .find(|p| p.label == key || p.problem == key)
    }

    /// The label of a problem id in this contest.
    pub fn label_of(&self, problem: &str) -> Option<&str> {
        self.problems
            .iter()
            .find(|p| p.problem == problem)
            .map(|p| p.label.as_str())
    }

    /// The start as written, in its own offset: "2026-12-01 09:00 +08:00".
    pub fn start_text(&self) -> String {
        format_time(self.start_ms, self.utc_offset_s)
    }

    /// Loads and validates `dir/contest.toml`; problem ids must be folders of `problems`.
    pub fn load(dir: &Path, problems: &Path) -> Result<Contest, ContestError> {
        let file = dir.join("contest.toml");
        let name = file.display().to_string();
        let one = |msg: String| ContestError { errors: vec![msg] };
        let text = std::fs::read_to_string(&file)
            .map_err(|e| one(format!("{name}: failed to read: {e}")))?;
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let at = e
                .span()
                .map(|s| format!("line {}: ", text[..s.start].matches('\n').count() + 1))
                .unwrap_or_default();
            one(format!("{name}: {at}{}", e.message()))
        })?;
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut cx = Ctx {
            file: name,
            errors: Vec::new(),
        };
        let contest = parse(&mut cx, &table, id, dir, problems);
        match contest {
            Some(c) if cx.errors.is_empty() => Ok(c),
            _ => Err(ContestError { errors: cx.errors }),
        }
    }
}

const KNOWN_KEYS: &[&str] = &[
    "title",
    "start",
    "duration",
    "freeze",
    "scoring",
    "penalty",
    "compile_errors_count",
    "participants",
    "public_standings",
    "problem",
    "team",
    "awards",
    "finalized",
    "feedback",
];

struct Ctx {
    file: String,
    errors: Vec<String>,
}

impl Ctx {
    fn err(&mut self, key: &str, msg: impl std::fmt::Display) {
        self.errors.push(format!("{}: {key}: {msg}", self.file));
    }

    fn string(&mut self, t: &toml::Table, key: &str, shown: &str) -> Option<String> {
        match t.get(key) {
            None => None,
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.err(shown, "expected a string");
                None
            }
        }
    }

    fn bool(&mut self, t: &toml::Table, key: &str, default: bool) -> bool {
        match t.get(key) {
            None => default,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                self.err(key, "expected true or false");
                default
            }
        }
    }

    fn minutes(&mut self, t: &toml::Table, key: &str) -> Option<Duration> {
        let s = self.string(t, key, key)?;
        match parse_span(&s) {
            Some(d) if d > Duration::ZERO => Some(d),
            _ => {
                self.err(
                    key,
                    format!("expected a duration like \"5h\", \"4h30m\" or \"90m\", found {s:?}"),
                );
                None
            }
        }
    }
}

fn parse(
    cx: &mut Ctx,
    t: &toml::Table,
    id: String,
    dir: &Path,
    problems_dir: &Path,
) -> Option<Contest> {
    for k in t.keys() {
        if !KNOWN_KEYS.contains(&k.as_str()) {
            cx.err(k, format!("unknown key (known: {})", KNOWN_KEYS.join(", ")));
        }
    }
    let title = cx.string(t, "title", "title");
    if !t.contains_key("title") {
        cx.err("title", "missing");
    }
    let start = match cx.string(t, "start", "start") {
        Some(s) => parse_start(&s).or_else(|| {
            cx.err(
                "start",
                format!(
                    "expected an RFC 3339 time with an offset like \"2026-12-01T09:00:00+08:00\", found {s:?}"
                ),
            );
            None
        }),
        None => {
            if !t.contains_key("start") {
                cx.err("start", "missing");
            }
            None
        }
    };
    if !t.contains_key("duration") {
        cx.err("duration", "missing");
    }
    let duration = cx.minutes(t, "duration");
    let freeze = cx.minutes(t, "freeze");
    if let (Some(d), Some(f)) = (duration, freeze) {
        if f > d {
            cx.err("freeze", "is longer than the contest's duration");
        }
    }
    let scoring = match cx.string(t, "scoring", "scoring").as_deref() {
        None | Some("icpc") => Scoring::Icpc,
        Some("ioi") => Scoring::Ioi,
        Some(other) => {
            cx.err(
                "scoring",
                format!("expected \"icpc\" or \"ioi\", found {other:?}"),
            );
            Scoring::Icpc
        }
    };
    let penalty_minutes = match t.get("penalty") {
        None => 20,
        Some(toml::Value::Integer(n)) if (0..=1000).contains(n) => *n as u32,
        Some(_) => {
            cx.err("penalty", "expected whole minutes from 0 to 1000");
            20
        }
    };
    let compile_errors_count = cx.bool(t, "compile_errors_count", false);
    let feedback = match cx.string(t, "feedback", "feedback") {
        None => Feedback::All,
        Some(s) => Feedback::parse(&s).unwrap_or_else(|| {
            cx.err("feedback", Feedback::expected(&s));
            Feedback::All
        }),
    };
    let public_standings = cx.bool(t, "public_standings", true);
    let participants = parse_participants(cx, t.get("participants"));
    let problems = parse_problems(cx, t.get("problem"), problems_dir);
    let teams = parse_teams(cx, t.get("team"));
    let awards = parse_awards(cx, t.get("awards"));
    let finalized_ms = cx.string(t, "finalized", "finalized").and_then(|s| {
        let at = parse_start(&s).map(|(ms, _)| ms);
        if at.is_none() {
            cx.err(
                "finalized",
                format!("expected an RFC 3339 time with an offset, found {s:?}"),
            );
        }
        at
    });
    if let (Some(f), Some((start, _)), Some(d)) = (finalized_ms, start, duration) {
        if f < start + d.as_millis() as i64 {
            cx.err(
                "finalized",
                "is before the contest's end (a contest is finalized after it ends)",
            );
        }
    }
    Some(Contest {
        id,
        dir: dir.to_path_buf(),
        title: title?,
        start_ms: start?.0,
        utc_offset_s: start?.1,
        duration: duration?,
        freeze,
        scoring,
        penalty_minutes,
        compile_errors_count,
        problems,
        participants,
        public_standings,
        teams,
        awards,
        finalized_ms,
        feedback,
    })
}

fn parse_awards(cx: &mut Ctx, v: Option<&toml::Value>) -> Medals {
    let mut m = Medals::default();
    let Some(v) = v else {
        return m;
    };
    let Some(t) = v.as_table() else {
        cx.err(
            "awards",
            "expected a table: [awards] with gold, silver, bronze",
        );
        return m;
    };
    for (k, x) in t {
        let slot = match k.as_str() {
            "gold" => &mut m.gold,
            "silver" => &mut m.silver,
            "bronze" => &mut m.bronze,
            _ => {
                cx.err(
                    &format!("awards.{k}"),
                    "unknown key (known: gold, silver, bronze)",
                );
                continue;
            }
        };
        match x.as_integer() {
            Some(n) if (0..=1000).contains(&n) => *slot = n as u32,
            _ => cx.err(
                &format!("awards.{k}"),
                "expected a number of medals from 0 to 1000",
            ),
        }
    }
    m
}

fn parse_teams(cx: &mut Ctx, v: Option<&toml::Value>) -> Vec<Team> {
    let Some(v) = v else {
        return Vec::new();
    };
    let Some(items) = v.as_array() else {
        cx.err("team", "expected [[team]] tables");
        return Vec::new();
    };
    let mut out: Vec<Team> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = |k: &str| format!("team[{i}].{k}");
        let Some(tt) = item.as_table() else {
            cx.err(&format!("team[{i}]"), "expected a table");
            continue;
        };
        for k in tt.keys() {
            if !TEAM_FIELDS.contains(&k.as_str()) && !TEAM_TABLE_ONLY.contains(&k.as_str()) {
                cx.err(
                    &key(k),
                    format!(
                        "unknown key (known: {}, {})",
                        TEAM_FIELDS.join(", "),
                        TEAM_TABLE_ONLY.join(", ")
                    ),
                );
            }
        }
        let Some(user) = cx
            .string(tt, "user", &key("user"))
            .filter(|u| !u.trim().is_empty())
        else {
            cx.err(&key("user"), "missing (the user name the team submits as)");
            continue;
        };
        if out.iter().any(|t| t.user == user) {
            cx.err(&key("user"), format!("user {user:?} has two teams"));
        }
        let name = cx
            .string(tt, "name", &key("name"))
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| user.clone());
        let affiliation = cx
            .string(tt, "affiliation", &key("affiliation"))
            .filter(|a| !a.trim().is_empty());
        let category = match cx.string(tt, "category", &key("category")).as_deref() {
            None | Some("participant") => Category::Participant,
            Some("observer") => Category::Observer,
            Some("jury") => Category::Jury,
            Some(other) => {
                cx.err(
                    &key("category"),
                    format!("expected \"participant\", \"observer\" or \"jury\", found {other:?}"),
                );
                Category::Participant
            }
        };
        let (place, mistakes) = crate::place::read(tt);
        for (k, why) in mistakes {
            cx.err(&key(k), why);
        }
        let group = place.groups.first().cloned();
        let members = match tt.get("members") {
            None => Vec::new(),
            Some(v) => match v.as_array().and_then(|a| {
                a.iter()
                    .map(|m| m.as_str().map(|m| m.trim().to_string()))
                    .collect::<Option<Vec<String>>>()
            }) {
                None => {
                    cx.err(
                        &key("members"),
                        "expected a list of names: [\"Ann\", \"Bo\"]",
                    );
                    Vec::new()
                }
                Some(m) => {
                    if let Err(e) = check_members(&m) {
                        cx.err(&key("members"), e);
                    }
                    m
                }
            },
        };
        out.push(Team {
            user,
            name,
            affiliation,
            category,
            group,
            members,
            place,
        });
    }
    out
}

fn parse_participants(cx: &mut Ctx, v: Option<&toml::Value>) -> Participants {
    let expected = "expected \"anyone\" or an array of user names";
    match v {
        None => Participants::Anyone,
        Some(toml::Value::String(s)) if s == "anyone" => Participants::Anyone,
        Some(toml::Value::Array(a)) => {
            let mut users = Vec::new();
            for (i, u) in a.iter().enumerate() {
                match u.as_str() {
                    Some(s) if !s.trim().is_empty() => users.push(s.to_string()),
                    _ => cx.err(&format!("participants[{i}]"), "expected a user name"),
                }
            }
            Participants::Listed(users)
        }
        Some(_) => {
            cx.err("participants", expected);
            Participants::Anyone
        }
    }
}

fn parse_problems(
    cx: &mut Ctx,
    v: Option<&toml::Value>,
    problems_dir: &Path,
) -> Vec<ContestProblem> {
    let Some(toml::Value::Array(items)) = v else {
        let msg = match v {
            None => "missing: at least one [[problem]] table with an id",
            Some(_) => "expected [[problem]] tables",
        };
        cx.err("problem", msg);
        return Vec::new();
    };
    if items.is_empty() {
        cx.err("problem", "at least one [[problem]] is needed");
    }
    let mut out: Vec<ContestProblem> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = |k: &str| format!("problem[{i}].{k}");
        let Some(pt) = item.as_table() else {
            cx.err(&format!("problem[{i}]"), "expected a table");
            continue;
        };
        for k in pt.keys() {
            if k != "id" && k != "label" && k != "color" {
                cx.err(&key(k), "unknown key (known: id, label, color)");
            }
        }
        let Some(problem) = cx.string(pt, "id", &key("id")) else {
            if !pt.contains_key("id") {
                cx.err(&key("id"), "missing (the problem's folder under problems/)");
            }
            continue;
        };
        if problem.is_empty()
            || problem.contains('/')
            || problem.starts_with('.')
            || !problems_dir.join(&problem).is_dir()
        {
            cx.err(
                &key("id"),
                format!(
                    "{problem:?} is not a problem folder in {}",
                    problems_dir.display()
                ),
            );
        }
        let label = cx
            .string(pt, "label", &key("label"))
            .unwrap_or_else(|| default_label(i));
        if label.trim().is_empty() || label.len() > 8 {
            cx.err(&key("label"), "expected 1 to 8 characters");
        }
        if out.iter().any(|p| p.label == label) {
            cx.err(&key("label"), format!("label {label:?} is used twice"));
        }
        if out.iter().any(|p| p.problem == problem) {
            cx.err(&key("id"), format!("problem {problem:?} is listed twice"));
        }
        let color = cx.string(pt, "color", &key("color"));
        if let Some(c) = &color {
            let ok =
                c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|c| c.is_ascii_hexdigit());
            if !ok {
                cx.err(
                    &key("color"),
                    format!("expected a colour like \"#1e90ff\", found {c:?}"),
                );
            }
        }
        out.push(ContestProblem {
            label,
            problem,
            color,
        });
    }
    out
}

/// "A".."Z", then "AA", "AB", ...
pub(crate) fn default_label(i: usize) -> String {
    let letter = |n: usize| char::from(b'A' + (n % 26) as u8);
    if i < 26 {
        letter(i).to_string()
    } else {
        format!("{}{}", letter(i / 26 - 1), letter(i))
    }
}

/// Parses "5h", "4h30m", "90m", "300min", "45s" into a duration.
pub(crate) fn parse_span(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = 0u64;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let secs = match rest[..unit_len].trim() {
            "h" => 3600,
            "m" | "min" => 60,
            "s" => 1,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(secs)?)?;
        rest = &rest[unit_len..];
    }
    (total <= 366 * 24 * 3600).then(|| Duration::from_secs(total))
}

/// An RFC 3339 time with an explicit offset ("Z" counts) → (Unix ms, offset seconds).
pub fn parse_start(text: &str) -> Option<(i64, i32)> {
    use time::format_description::well_known::Rfc3339;
    let t = time::OffsetDateTime::parse(text.trim(), &Rfc3339).ok()?;
    let ms = (t.unix_timestamp_nanos() / 1_000_000) as i64;
    Some((ms, t.offset().whole_seconds()))
}

/// "2026-12-01 09:00 +08:00" (or "... UTC") for a Unix-ms time shown at an offset; with the
/// seconds when they are not zero ("09:00:30"), so that a start is never shown early.
pub fn format_time(ms: i64, offset_s: i32) -> String {
    let Ok(t) = time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000) else {
        return ms.to_string();
    };
    let off = time::UtcOffset::from_whole_seconds(offset_s).unwrap_or(time::UtcOffset::UTC);
    let t = t.to_offset(off);
    let zone = if offset_s == 0 {
        "UTC".to_string()
    } else {
        let sign = if offset_s < 0 { '-' } else { '+' };
        let a = offset_s.unsigned_abs();
        format!("{sign}{:02}:{:02}", a / 3600, a % 3600 / 60)
    };
    let seconds = match t.second() {
        0 => String::new(),
        s => format!(":{s:02}"),
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}{seconds} {zone}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// Every contest folder under `dir` (a missing `dir` is no contests): loaded ones and the
/// errors of those that failed, by folder name.
pub fn load_all(dir: &Path, problems: &Path) -> (Vec<Contest>, Vec<(String, ContestError)>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (ok, failed);
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && p.join("contest.toml").is_file())
        // A hidden folder is a contest being written (the web's staging copy), never served.
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    dirs.sort();
    for d in dirs {
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match Contest::load(&d, problems) {
            Ok(c) => ok.push(c),
            Err(e) => failed.push((name, e)),
        }
    }
    (ok, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(toml: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().expect("temp dir");
        let problems = tmp.path().join("problems");
        std::fs::create_dir_all(problems.join("aplusb")).expect("mkdir");
        std::fs::create_dir_all(problems.join("huarong")).expect("mkdir");
        let dir = tmp.path().join("contests").join("c1");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("contest.toml"), toml).expect("write");
        (tmp, dir, problems)
    }

    #[test]
    fn a_full_manifest_loads_with_defaults() {
        let (_t, dir, problems) = write(
            r#"title = "Round 1"
start = "2026-12-01T09:00:00+08:00"
duration = "5h"
freeze = "1h"
[[problem]]
id = "aplusb"
[[problem]]
id = "huarong"
label = "H"
"#,
        );
        let c = Contest::load(&dir, &problems).expect("loads");
        assert_eq!(c.id, "c1");
        assert_eq!(c.start_ms, 1_796_086_800_000);
        assert_eq!(c.utc_offset_s, 8 * 3600);
        assert_eq!(c.start_text(), "2026-12-01 09:00 +08:00");
        assert_eq!(c.end_ms() - c.start_ms, 5 * 3600 * 1000);
        assert_eq!(c.freeze_ms(), Some(c.start_ms + 4 * 3600 * 1000));
        assert_eq!((c.scoring, c.penalty_minutes), (Scoring::Icpc, 20));
        assert!(!c.compile_errors_count && c.public_standings);
        assert_eq!(c.participants, Participants::Anyone);
        let labels: Vec<_> = c.problems.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["A", "H"]);
        assert_eq!(c.phase(c.start_ms - 1), Phase::Before);
        assert_eq!(c.phase(c.start_ms), Phase::Running);
        assert_eq!(c.phase(c.freeze_ms().expect("freeze")), Phase::Frozen);
        assert_eq!(c.phase(c.end_ms()), Phase::Ended);
    }

    #[test]
    fn every_error_is_named_by_file_and_key() {
        let (_t, dir, problems) = write(
            r#"title = 3
start = "2026-12-01 09:00"
duration = "forever"
scoring = "codeforces"
penalty = -1
participants = 5
colour = "red"
[[problem]]
id = "nope"
[[problem]]
id = "aplusb"
label = "A"
"#,
        );
        let e = Contest::load(&dir, &problems).expect_err("invalid");
        let file = dir.join("contest.toml").display().to_string();
        let keys: Vec<String> = e
            .errors
            .iter()
            .map(|m| {
                let rest = m
                    .strip_prefix(&format!("{file}: "))
                    .expect("names the file");
                rest.split(':').next().unwrap_or_default().to_string()
            })
            .collect();
        assert_eq!(
            keys,
            [
                "colour",
                "title",
                "start",
                "duration",
                "scoring",
                "penalty",
                "participants",
                "problem[0].id",
                "problem[1].label"
            ],
            "{e}"
        );
    }

    #[test]
    fn feedback_defaults_to_all_and_a_bad_value_names_the_key() {
        let base = "title = \"R\"\nstart = \"2026-12-01T09:00:00Z\"\nduration = \"5h\"\n[[problem]]\nid = \"aplusb\"\n";
        let (_t, dir, problems) = write(base);
        assert_eq!(
            Contest::load(&dir, &problems).expect("loads").feedback,
            Feedback::All
        );
        for (v, f) in [
            ("verdict", Feedback::Verdict),
            ("first_failure", Feedback::FirstFailure),
            ("all", Feedback::All),
        ] {
            let (_t, dir, problems) = write(&format!("feedback = \"{v}\"\n{base}"));
            assert_eq!(Contest::load(&dir, &problems).expect("loads").feedback, f);
        }
        let (_t, dir, problems) = write(&format!("feedback = \"tests\"\n{base}"));
        let e = Contest::load(&dir, &problems)
            .expect_err("invalid")
            .to_string();
        assert!(
            e.contains(
                "feedback: expected \"verdict\", \"first_failure\" or \"all\", found \"tests\""
            ),
            "{e}"
        );
    }

    #[test]
    fn awards_finalized_and_groups_load() {
        let (_t, dir, problems) = write(
            r#"title = "Final"
start = "2026-12-01T09:00:00Z"
duration = "5h"
finalized = "2026-12-01T15:00:00Z"
[awards]
gold = 4
silver = 3
[[problem]]
id = "aplusb"
[[team]]
user = "alice"
group = "Junior"
"#,
        );
        let c = Contest::load(&dir, &problems).expect("loads");
        assert_eq!((c.awards.gold, c.awards.silver, c.awards.bronze), (4, 3, 0));
        assert_eq!(c.finalized_ms, Some(c.start_ms + 6 * 3600 * 1000));
        assert_eq!(c.teams[0].group.as_deref(), Some("Junior"));
        let (_t, dir, problems) = write(
            "title = \"x\"\nstart = \"2026-12-01T09:00:00Z\"\nduration = \"5h\"\n\
             finalized = \"2026-12-01T13:59:59Z\"\n[[problem]]\nid = \"aplusb\"\n",
        );
        let e = Contest::load(&dir, &problems)
            .expect_err("early")
            .to_string();
        assert!(e.contains("finalized: is before the contest's end"), "{e}");
        let (_t, dir, problems) = write(
            "title = \"x\"\nstart = \"2026-12-01T09:00:00Z\"\nduration = \"5h\"\n\
             finalized = \"yesterday\"\n[awards]\ngold = -1\nplatinum = 1\n\
             [[problem]]\nid = \"aplusb\"\n",
        );
        let e = Contest::load(&dir, &problems)
            .expect_err("invalid")
            .to_string();
        for key in ["finalized:", "awards.gold:", "awards.platinum: unknown key"] {
            assert!(e.contains(key), "{key} in {e}");
        }
    }

    #[test]
    fn spans_and_labels() {
        assert_eq!(parse_span("4h30m"), Some(Duration::from_secs(16200)));
        assert_eq!(parse_span("90min"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_span("1h 5m"), Some(Duration::from_secs(3900)));
        assert_eq!(parse_span("5 hours"), None);
        assert_eq!(parse_span(""), None);
        assert_eq!(default_label(0), "A");
        assert_eq!(default_label(25), "Z");
        assert_eq!(default_label(26), "AA");
        assert_eq!(format_time(0, 0), "1970-01-01 00:00 UTC");
        assert_eq!(format_time(39_000, 3600), "1970-01-01 01:00:39 +01:00");
    }

    #[test]
    fn the_committed_example_loads() {
        // The repository's root, two folders above this crate's.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let (ok, failed) = load_all(&root.join("contests"), &root.join("problems"));
        assert!(failed.is_empty(), "{:?}", failed);
        let example = ok
            .iter()
            .find(|c| c.id == "example")
            .expect("example contest");
        assert_eq!(example.problems.len(), 5);
        assert_eq!(example.problems[4].label, "E");
    }
}

//! A contest's definition as a director edits it on the web ([`Draft`]): validated field by
//! field (every error names its field, [`Draft::check`]), described against the contest it
//! changes ([`changes`], so a started contest's director confirms what the standings will
//! recompute), and written as `contest.toml` text: a new file ([`Draft::new_text`]) or the old
//! one with its edited keys and `[[problem]]` tables replaced and everything else (comments,
//! `[[team]]`, `[awards]`, the clock lines) kept ([`Draft::edit_text`]). The file stays the
//! truth, as for the clock (see [`super::clock`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::awards::Medals;
use super::clock::rewrite_keys;
use super::model::{parse_span, Contest, ContestProblem, Feedback, Participants, Scoring};

/// One row of the problem list as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftProblem {
    /// "A", "B", …; empty: the default label of its place.
    #[serde(default)]
    pub label: String,
    /// The problem's folder under `problems/`.
    pub problem: String,
    /// `#rrggbb`, or empty.
    #[serde(default)]
    pub color: String,
}

/// `[awards]` as typed: how many gold, silver and bronze medals (whole numbers from 0 to 1000;
/// empty is 0). See [`super::awards`] for how they are given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftAwards {
    /// Gold medals, as typed.
    #[serde(default, deserialize_with = "number_or_text")]
    pub gold: String,
    /// Silver medals, as typed.
    #[serde(default, deserialize_with = "number_or_text")]
    pub silver: String,
    /// Bronze medals, as typed.
    #[serde(default, deserialize_with = "number_or_text")]
    pub bronze: String,
}

/// A count sent as a JSON number or as text (as typed in the form).
fn number_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Typed {
        Number(i64),
        Text(String),
    }
    Ok(match Typed::deserialize(d)? {
        Typed::Number(n) => n.to_string(),
        Typed::Text(t) => t,
    })
}

/// The medals' names in `[awards]`, in order.
const MEDALS: [&str; 3] = ["gold", "silver", "bronze"];

impl DraftAwards {
    /// The counts as typed, in the order of [`MEDALS`].
    fn typed(&self) -> [&str; 3] {
        [&self.gold, &self.silver, &self.bronze]
    }

    /// The medals (a checked draft; a bad count reads as 0).
    pub fn medals(&self) -> Medals {
        let n = |t: &str| t.trim().parse::<u32>().unwrap_or(0);
        Medals {
            gold: n(&self.gold),
            silver: n(&self.silver),
            bronze: n(&self.bronze),
        }
    }

    fn of(m: &Medals) -> DraftAwards {
        DraftAwards {
            gold: m.gold.to_string(),
            silver: m.silver.to_string(),
            bronze: m.bronze.to_string(),
        }
    }
}

/// How medals read in a change line: "gold 4, silver 4, bronze 4", or "none".
fn medals_text(m: &Medals) -> String {
    if *m == Medals::default() {
        return "none".into();
    }
    format!("gold {}, silver {}, bronze {}", m.gold, m.silver, m.bronze)
}

/// The `[awards]` table of `m` (nothing when it gives no medal).
fn awards_table(m: &Medals) -> String {
    if *m == Medals::default() {
        return String::new();
    }
    format!(
        "\n[awards]\ngold = {}\nsilver = {}\nbronze = {}\n",
        m.gold, m.silver, m.bronze
    )
}

/// The medals an old `contest.toml` text gives (none when it does not parse or has none).
fn medals_in(text: &str) -> Medals {
    let n = |t: &toml::Table, k: &str| {
        t.get(k)
            .and_then(toml::Value::as_integer)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0)
    };
    match text
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("awards").cloned())
    {
        Some(toml::Value::Table(t)) => Medals {
            gold: n(&t, "gold"),
            silver: n(&t, "silver"),
            bronze: n(&t, "bronze"),
        },
        _ => Medals::default(),
    }
}

/// A contest's definition as typed in the form or sent to the API (text fields as typed, so a
/// refused form comes back with what was typed).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draft {
    /// The contest's title.
    pub title: String,
    /// RFC 3339 with an offset; only for a new contest (an existing one's clock has its own
    /// controls).
    #[serde(default)]
    pub start: String,
    /// The contest's length as typed: "5h", "4h30m", "90m" (not zero).
    #[serde(default)]
    pub duration: String,
    /// Empty: no freeze.
    #[serde(default)]
    pub freeze: String,
    /// "icpc" or "ioi".
    pub scoring: String,
    /// Whole minutes per rejected try (ICPC), as typed.
    #[serde(default = "default_penalty")]
    pub penalty: String,
    /// Whether a compile error counts as a rejected try (ICPC).
    #[serde(default)]
    pub compile_errors_count: bool,
    /// Whether students see every row of the standings (false: only their own).
    #[serde(default = "yes")]
    pub public_standings: bool,
    /// "anyone", or user names separated by commas, spaces or lines.
    #[serde(default = "anyone")]
    pub participants: String,
    /// What participants see of their submissions: "verdict", "first_failure" or "all".
    #[serde(default = "all")]
    pub feedback: String,
    /// The contest's problems, in order.
    pub problems: Vec<DraftProblem>,
    /// `[awards]`: the medals by rank. `None` (a body without the field, an older form):
    /// the file's medals stay as they are (a new contest has none).
    #[serde(default)]
    pub awards: Option<DraftAwards>,
}

fn default_penalty() -> String {
    "20".into()
}

fn yes() -> bool {
    true
}

fn all() -> String {
    "all".into()
}

fn anyone() -> String {
    "anyone".into()
}

/// A field refused, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// The field as the form and the API name it: `title`, `problems[2].label`, …
    pub field: String,
    /// What is wrong with it, as a sentence for the form.
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Whether `s` may be a contest id, a problem id or a user name: 1 to 64 of letters, digits,
/// `.`, `_`, `-`, not starting with a dot.
pub fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn valid_color(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].chars().all(|c| c.is_ascii_hexdigit())
}

/// The TOML string literal of `s`.
fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

impl Draft {
    /// The draft of an existing contest (what its edit form starts with).
    pub fn of(c: &Contest) -> Draft {
        Draft {
            title: c.title.clone(),
            start: super::clock::rfc3339(c.start_ms, c.utc_offset_s),
            duration: super::clock::format_span(c.duration),
            freeze: c.freeze.map(super::clock::format_span).unwrap_or_default(),
            scoring: match c.scoring {
                Scoring::Icpc => "icpc".into(),
                Scoring::Ioi => "ioi".into(),
            },
            penalty: c.penalty_minutes.to_string(),
            compile_errors_count: c.compile_errors_count,
            public_standings: c.public_standings,
            participants: match &c.participants {
                Participants::Anyone => "anyone".into(),
                Participants::Listed(u) => u.join(", "),
            },
            feedback: c.feedback.name().into(),
            problems: c
                .problems
                .iter()
                .map(|p| DraftProblem {
                    label: p.label.clone(),
                    problem: p.problem.clone(),
                    color: p.color.clone().unwrap_or_default(),
                })
                .collect(),
            awards: Some(DraftAwards::of(&c.awards)),
        }
    }

    /// The problem rows that say something (a row left empty in the form is no problem).
    fn rows(&self) -> impl Iterator<Item = (usize, &DraftProblem)> {
        self.problems.iter().enumerate().filter(|(_, p)| {
            !(p.problem.trim().is_empty() && p.label.trim().is_empty() && p.color.trim().is_empty())
        })
    }

    /// The participants typed: `None` for anyone.
    pub(crate) fn participant_list(&self) -> Option<Vec<String>> {
        let t = self.participants.trim();
        if t.is_empty() || t == "anyone" {
            return None;
        }
        Some(
            t.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|u| !u.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    /// Every problem with its label (typed or the default of its place) and colour.
    pub(crate) fn problem_list(&self) -> Vec<ContestProblem> {
        self.rows()
            .enumerate()
            .map(|(place, (_, p))| ContestProblem {
                label: if p.label.trim().is_empty() {
                    super::model::default_label(place)
                } else {
                    p.label.trim().to_string()
                },
                problem: p.problem.trim().to_string(),
                color: Some(p.color.trim().to_ascii_lowercase()).filter(|c| !c.is_empty()),
            })
            .collect()
    }

    /// Checks every field; `clock`: whether start, duration and freeze are part of it (a new
    /// contest). Problem ids must be folders of `problems_dir`.
    pub fn check(&self, problems_dir: &Path, clock: bool) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let mut err = |field: &str, message: String| {
            errors.push(FieldError {
                field: field.to_string(),
                message,
            })
        };
        let title = self.title.trim();
        if title.is_empty() {
            err("title", "missing: the contest's name".into());
        } else if title.chars().count() > 200 || title.contains(['\n', '\r']) {
            err(
                "title",
                "expected one line of at most 200 characters".into(),
            );
        }
        if clock {
            if super::model::parse_start(self.start.trim()).is_none() {
                err(
                    "start",
                    format!(
                        "expected an RFC 3339 time with an offset like \"2026-12-01T09:00:00+08:00\", found {:?}",
                        self.start
                    ),
                );
            }
            let duration = parse_span(self.duration.trim()).filter(|d| !d.is_zero());
            if duration.is_none() {
                err(
                    "duration",
                    format!(
                        "expected a duration like \"5h\", \"4h30m\" or \"90m\", found {:?}",
                        self.duration
                    ),
                );
            }
            if !self.freeze.trim().is_empty() {
                match parse_span(self.freeze.trim()).filter(|d| !d.is_zero()) {
                    None => err(
                        "freeze",
                        format!(
                            "expected a duration like \"1h\" (or nothing: no freeze), found {:?}",
                            self.freeze
                        ),
                    ),
                    Some(f) if duration.is_some_and(|d| f > d) => {
                        err("freeze", "is longer than the contest's duration".into())
                    }
                    Some(_) => {}
                }
            }
        }
        if !matches!(self.scoring.as_str(), "icpc" | "ioi") {
            err(
                "scoring",
                format!("expected \"icpc\" or \"ioi\", found {:?}", self.scoring),
            );
        }
        match self.penalty.trim().parse::<u32>() {
            Ok(n) if n <= 1000 => {}
            _ => err(
                "penalty",
                format!(
                    "expected whole minutes from 0 to 1000, found {:?}",
                    self.penalty
                ),
            ),
        }
        if Feedback::parse(self.feedback.trim()).is_none() {
            err("feedback", Feedback::expected(&self.feedback));
        }
        if let Some(users) = self.participant_list() {
            for u in &users {
                if !valid_id(u) {
                    err(
                        "participants",
                        format!(
                            "{u:?} is not a user name (1 to 64 letters, digits, '.', '_' or '-'); \
                             write \"anyone\" or the user names"
                        ),
                    );
                }
            }
            if users
                .iter()
                .enumerate()
                .any(|(i, u)| users[..i].contains(u))
            {
                err("participants", "a user is listed twice".into());
            }
        }
        let typed = self
            .awards
            .as_ref()
            .map(DraftAwards::typed)
            .unwrap_or_default();
        for (medal, typed) in MEDALS.iter().zip(typed) {
            let t = typed.trim();
            if !t.is_empty() && !t.parse::<u32>().is_ok_and(|n| n <= 1000) {
                err(
                    &format!("awards.{medal}"),
                    format!(
                        "expected a number of {medal} medals from 0 to 1000 (empty: none), found {typed:?}"
                    ),
                );
            }
        }
        if self.rows().next().is_none() {
            err("problems", "at least one problem is needed".into());
        }
        let list = self.problem_list();
        for (place, ((i, row), p)) in self.rows().zip(&list).enumerate() {
            let f = |k: &str| format!("problems[{}].{k}", i + 1);
            if row.problem.trim().is_empty() {
                err(&f("problem"), "missing: choose the problem".into());
            } else if !valid_id(&p.problem) || !problems_dir.join(&p.problem).is_dir() {
                err(
                    &f("problem"),
                    format!("{:?} is not a problem of this judge", p.problem),
                );
            } else if list[..place].iter().any(|q| q.problem == p.problem) {
                err(
                    &f("problem"),
                    format!("problem {:?} is listed twice", p.problem),
                );
            }
            if p.label.chars().count() > 8 || p.label.chars().any(char::is_whitespace) {
                err(
                    &f("label"),
                    format!(
                        "expected 1 to 8 characters without spaces, found {:?}",
                        p.label
                    ),
                );
            } else if list[..place].iter().any(|q| q.label == p.label) {
                err(&f("label"), format!("label {:?} is used twice", p.label));
            }
            if let Some(c) = &p.color {
                if !valid_color(c) {
                    err(
                        &f("color"),
                        format!(
                            "expected a colour like \"#1e90ff\" (or nothing), found {:?}",
                            row.color
                        ),
                    );
                }
            }
        }
        errors
    }

    /// The top-level keys this draft sets (TOML values), in the order a new file has them.
    fn keys(&self, clock: bool) -> Vec<(&'static str, Option<String>)> {
        let mut keys = vec![("title", Some(quote(self.title.trim())))];
        if clock {
            keys.push(("start", Some(quote(self.start.trim()))));
            keys.push(("duration", Some(quote(self.duration.trim()))));
            keys.push((
                "freeze",
                Some(self.freeze.trim())
                    .filter(|f| !f.is_empty())
                    .map(quote),
            ));
        }
        keys.push(("scoring", Some(quote(&self.scoring))));
        keys.push(("penalty", Some(self.penalty.trim().to_string())));
        keys.push((
            "compile_errors_count",
            Some(self.compile_errors_count.to_string()),
        ));
        keys.push((
            "participants",
            Some(match self.participant_list() {
                None => quote("anyone"),
                Some(users) => format!(
                    "[{}]",
                    users
                        .iter()
                        .map(|u| quote(u))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        ));
        keys.push(("public_standings", Some(self.public_standings.to_string())));
        // "all" is the default: a file that never said otherwise stays without the key.
        keys.push((
            "feedback",
            Some(self.feedback.trim())
                .filter(|f| *f != "all")
                .map(quote),
        ));
        keys
    }

    fn problem_tables(&self) -> String {
        let mut s = String::new();
        for p in self.problem_list() {
            s.push_str(&format!(
                "\n[[problem]]\nid = {}\nlabel = {}\n",
                quote(&p.problem),
                quote(&p.label)
            ));
            if let Some(c) = &p.color {
                s.push_str(&format!("color = {}\n", quote(c)));
            }
        }
        s
    }

    /// A new contest's `contest.toml` (a checked draft).
    pub fn new_text(&self) -> String {
        let mut s = String::from("# Written by a director on the web; edit it by hand or there.\n");
        for (k, v) in self.keys(true) {
            if let Some(v) = v {
                s.push_str(&format!("{k} = {v}\n"));
            }
        }
        s.push_str(&self.problem_tables());
        if let Some(a) = &self.awards {
            s.push_str(&awards_table(&a.medals()));
        }
        s
    }

    /// The old `contest.toml` text with this draft's keys (not the clock's) and problems in
    /// it, and its `[awards]` table when the medals changed (written again at the end, without
    /// the comments it had); comments, `[[team]]`, unchanged `[awards]` and the clock lines
    /// stay as written.
    pub fn edit_text(&self, old: &str) -> String {
        let medals = self.awards.as_ref().map(DraftAwards::medals);
        let new_awards = medals.is_some_and(|m| m != medals_in(old));
        let mut keys = self.keys(false);
        if new_awards {
            // An inline `awards = { … }` goes as well: the table below replaces it.
            keys.push(("awards", None));
        }
        let with_keys = rewrite_keys(old, keys);
        let mut out: Vec<&str> = Vec::new();
        let mut dropped = false;
        for line in with_keys.lines() {
            let t = line.trim();
            if t.starts_with('[') {
                // The table's name, without a trailing comment.
                let t = t.split('#').next().unwrap_or("").trim();
                dropped = t == "[[problem]]" || (new_awards && t == "[awards]");
            }
            if !dropped {
                out.push(line);
            }
        }
        // The problems go before the first table that is left (a [[team]] or [awards]), so
        // that no key of theirs lands inside another table.
        let first_table = out.iter().position(|l| l.trim_start().starts_with('['));
        let (head, tail) = out.split_at(first_table.unwrap_or(out.len()));
        let mut head: Vec<&str> = head.to_vec();
        while head.last().is_some_and(|l| l.trim().is_empty()) {
            head.pop();
        }
        let mut s = head.join("\n");
        s.push('\n');
        s.push_str(&self.problem_tables());
        if !tail.is_empty() {
            s.push('\n');
            s.push_str(&tail.join("\n"));
            s.push('\n');
        }
        if let Some(m) = medals.filter(|_| new_awards) {
            s.push_str(&awards_table(&m));
        }
        s
    }
}

/// What changes from `old` to `new` (a checked draft), one line each, and whether any of it
/// recomputes the standings (problems, scoring, penalty, compile errors, participants).
pub fn changes(old: &Contest, new: &Draft) -> (Vec<String>, bool) {
    let was = Draft::of(old);
    let mut out = Vec::new();
    let mut recompute = false;
    if was.title != new.title.trim() {
        out.push(format!("title: {:?} → {:?}", was.title, new.title.trim()));
    }
    let mut scalar = |name: &str, a: String, b: String, standings: bool| {
        if a != b {
            out.push(format!("{name}: {a} → {b}"));
            recompute |= standings;
        }
    };
    scalar("scoring", was.scoring.clone(), new.scoring.clone(), true);
    scalar(
        "penalty",
        format!("{} min", was.penalty),
        format!("{} min", new.penalty.trim()),
        old.scoring == Scoring::Icpc || new.scoring == "icpc",
    );
    scalar(
        "compile errors count",
        was.compile_errors_count.to_string(),
        new.compile_errors_count.to_string(),
        true,
    );
    scalar(
        "public standings",
        was.public_standings.to_string(),
        new.public_standings.to_string(),
        false,
    );
    let who = |d: &Draft| match d.participant_list() {
        None => "anyone".to_string(),
        Some(u) => u.join(", "),
    };
    scalar("participants", who(&was), who(new), true);
    scalar(
        "feedback",
        was.feedback.clone(),
        new.feedback.trim().to_string(),
        false,
    );
    if let Some(a) = &new.awards {
        scalar(
            "medals",
            medals_text(&old.awards),
            medals_text(&a.medals()),
            false,
        );
    }
    let (before, after) = (old.problems.clone(), new.problem_list());
    for p in &before {
        if !after.iter().any(|q| q.problem == p.problem) {
            out.push(format!("problem {} ({}) removed", p.label, p.problem));
            recompute = true;
        }
    }
    for q in &after {
        match before.iter().find(|p| p.problem == q.problem) {
            None => {
                out.push(format!("problem {} ({}) added", q.label, q.problem));
                recompute = true;
            }
            Some(p) if p.label != q.label => {
                out.push(format!(
                    "problem {}: label {} → {}",
                    q.problem, p.label, q.label
                ));
            }
            Some(_) => {}
        }
    }
    let order = |l: &[ContestProblem]| {
        l.iter()
            .filter(|p| before.iter().any(|b| b.problem == p.problem))
            .filter(|p| after.iter().any(|a| a.problem == p.problem))
            .map(|p| p.problem.clone())
            .collect::<Vec<_>>()
    };
    if order(&before) != order(&after) {
        out.push(format!(
            "order: {} → {}",
            before
                .iter()
                .map(|p| p.label.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            after
                .iter()
                .map(|p| p.label.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    for q in &after {
        if let Some(p) = before.iter().find(|p| p.problem == q.problem) {
            if p.color != q.color {
                out.push(format!(
                    "problem {}: colour {} → {}",
                    q.label,
                    p.color.as_deref().unwrap_or("none"),
                    q.color.as_deref().unwrap_or("none")
                ));
            }
        }
    }
    (out, recompute)
}

/// The problems of `old` that `new` no longer has.
pub fn removed(old: &Contest, new: &Draft) -> Vec<ContestProblem> {
    let after = new.problem_list();
    old.problems
        .iter()
        .filter(|p| !after.iter().any(|q| q.problem == p.problem))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;

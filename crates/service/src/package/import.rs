//! A CLICS contest package made an ojd contest: its documents read as data ([`Package::read`]),
//! checked whole before anything is written ([`plan`]: every error names the file and the key),
//! then written as `contest.toml` (through the web's own [`Draft`], with a `[[team]]` per team)
//! and `ccs.json` beside it (what the standard says that `contest.toml` has no key for:
//! organizations, groups, teams' other properties, colours' names) ([`write()`]). The problems'
//! own packages are imported by the caller, between [`plan`] and [`write()`].

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::PackageError;
use crate::ccs::{is_id, valid};
use crate::contest::edit::{valid_id, Draft, DraftAwards, DraftProblem};
use crate::contest::place::{is_country, Location, Place};
use crate::contest::roster::write_teams;
use crate::contest::{parse_start, Category, Contest, Team};

/// A package's documents as read from its folder, each with the file it came from.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package's folder; nothing outside it is read.
    pub dir: PathBuf,
    /// `contest.json` (or `.yaml`): the contest object.
    pub contest: (PathBuf, Value),
    /// `problems.json` (or `.yaml`): the problem objects, in the file's order.
    pub problems: (PathBuf, Vec<Value>),
    /// `teams.json`: the team objects, empty when the file is absent.
    pub teams: (PathBuf, Vec<Value>),
    /// `organizations.json`: the organization objects, empty when the file is absent.
    pub organizations: (PathBuf, Vec<Value>),
    /// `groups.json`: the group objects, empty when the file is absent.
    pub groups: (PathBuf, Vec<Value>),
    /// `accounts.json`: the account objects, empty when the file is absent.
    pub accounts: (PathBuf, Vec<Value>),
    /// `ojd.json` (see [`super::Documents::settings`]), `Null` when the package has none.
    pub settings: (PathBuf, Value),
}

/// What an import will write: the contest's id, its `contest.toml` as a [`Draft`] and its
/// teams, `ccs.json`, the problems (the package's objects, in order) and what is not kept.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The contest's id (its folder name under `contests/`).
    pub id: String,
    /// The contest's settings and problems, written as `contest.toml` by the contest form's code.
    pub draft: Draft,
    /// The roster as `[[team]]` entries of `contest.toml`.
    pub teams: Vec<Team>,
    /// The `ccs.json` beside `contest.toml`: the organizations, groups and team keys `[[team]]` cannot hold.
    pub ccs: Value,
    /// The package's problem objects in the contest's order, each with its place in the file.
    pub problems: Vec<(usize, Value)>,
    /// What the import leaves out (accounts' passwords), to be told.
    pub warnings: Vec<String>,
    /// When the package's contest was finalized (`state.json`'s `finalized`), Unix ms.
    pub finalized_ms: Option<i64>,
    /// The contest folder holds this very package's import already (its `ccs.json` and
    /// title are the package's): [`write()`] keeps it, and only the history missing from
    /// the database is loaded.
    pub again: bool,
}

impl Package {
    /// Reads the package in `dir`: `contest.yaml` or `contest.json` (required), `problems`
    /// (required), `teams`, `organizations`, `groups`, `accounts` (each `.yaml` or `.json`,
    /// empty when absent) and `ojd.json`. Only regular files inside the folder are read,
    /// never through a link (a package is untrusted and the import may run as root).
    pub fn read(dir: &Path) -> Result<Package, PackageError> {
        let contest = read_doc(dir, "contest")?.ok_or_else(|| {
            PackageError::Bad(format!(
                "{}: no contest.yaml or contest.json",
                dir.display()
            ))
        })?;
        let problems = match read_doc(dir, "problems")? {
            Some((p, Value::Array(a))) => (p, a),
            Some((p, _)) => return Err(bad(&p, "expected a list of problems")),
            None => {
                return Err(PackageError::Bad(format!(
                    "{}: no problems.yaml or problems.json",
                    dir.display()
                )))
            }
        };
        let settings_path = dir.join("ojd.json");
        let settings = match read_confined(&settings_path)? {
            None => Value::Null,
            Some(t) => serde_json::from_str(&t)
                .map_err(|e| bad(&settings_path, &format!("not valid JSON: {e}")))?,
        };
        Ok(Package {
            dir: dir.to_path_buf(),
            contest,
            problems,
            teams: read_list(dir, "teams")?,
            organizations: read_list(dir, "organizations")?,
            groups: read_list(dir, "groups")?,
            accounts: read_list(dir, "accounts")?,
            settings: (settings_path, settings),
        })
    }
}

pub(super) fn bad(path: &Path, msg: &str) -> PackageError {
    PackageError::Bad(format!("{}: {msg}", path.display()))
}

/// Reads `DIR/<name>.yaml` or `DIR/<name>.json` (YAML is a superset of JSON); `None` when
/// neither exists.
pub(super) fn read_doc(dir: &Path, name: &str) -> Result<Option<(PathBuf, Value)>, PackageError> {
    for ext in ["yaml", "json"] {
        let p = dir.join(format!("{name}.{ext}"));
        let Some(text) = read_confined(&p)? else {
            continue;
        };
        let v: Value = if ext == "json" {
            serde_json::from_str(&text).map_err(|e| bad(&p, &format!("not valid JSON: {e}")))?
        } else {
            serde_norway::from_str(&text).map_err(|e| bad(&p, &format!("not valid YAML: {e}")))?
        };
        return Ok(Some((p, v)));
    }
    Ok(None)
}

/// A list file (`teams.json`…), empty when absent; an id written as a number (`id: 3` in
/// YAML) is its text.
fn read_list(dir: &Path, name: &str) -> Result<(PathBuf, Vec<Value>), PackageError> {
    let (p, mut list) = match read_doc(dir, name)? {
        None => return Ok((dir.join(format!("{name}.json")), Vec::new())),
        Some((p, Value::Array(a))) => (p, a),
        Some((p, _)) => return Err(bad(&p, "expected a list")),
    };
    for o in &mut list {
        for key in ["id", "team_id"] {
            if let Some(n) = o.get(key).filter(|v| v.is_number()).map(|v| v.to_string()) {
                o[key] = json!(n);
            }
        }
    }
    Ok((p, list))
}

/// A text file of the package, read as [`read_bytes`] does.
fn read_confined(p: &Path) -> Result<Option<String>, PackageError> {
    match read_bytes(p)? {
        None => Ok(None),
        Some(b) => String::from_utf8(b)
            .map(Some)
            .map_err(|e| bad(p, &format!("not UTF-8 text: {e}"))),
    }
}

/// A file of the package, read as data: a regular file in its folder, never through a link;
/// `None` when missing.
pub(super) fn read_bytes(p: &Path) -> Result<Option<Vec<u8>>, PackageError> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let seen = match std::fs::symlink_metadata(p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(PackageError::io(p, e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(bad(
                p,
                "a symbolic link (a package's files are read only inside its folder)",
            ))
        }
        Ok(m) if !m.is_file() => return Err(bad(p, "not a regular file")),
        Ok(m) => m,
    };
    let mut file = std::fs::File::open(p).map_err(|e| PackageError::io(p, e))?;
    // The file opened is the one looked at, not a link swapped in between.
    let opened = file.metadata().map_err(|e| PackageError::io(p, e))?;
    if (opened.dev(), opened.ino()) != (seen.dev(), seen.ino()) {
        return Err(bad(p, "changed while it was read"));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| PackageError::io(p, e))?;
    Ok(Some(bytes))
}

/// A string key of a YAML/JSON object (numbers written unquoted in YAML count too).
fn text(v: &Value, key: &str) -> Option<String> {
    match &v[key] {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A CLICS TIME (`2014-06-25T10:00:00+01`) as RFC 3339 (`…+01:00`).
pub(super) fn clics_time(time: &str) -> Option<String> {
    let t = time.trim();
    let cut = t.len().checked_sub(3).filter(|&i| t.is_char_boundary(i));
    let fixed = match cut.map(|i| t.split_at(i)) {
        Some((head, zone))
            if (zone.starts_with('+') || zone.starts_with('-'))
                && zone[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            format!("{head}{zone}:00")
        }
        _ => t.to_string(),
    };
    parse_start(&fixed).map(|_| fixed)
}

/// A RELTIME (`5:00:00`, `1:30:00.000`) as an ojd span (`5h0m0s`).
fn span(reltime: &str) -> Option<String> {
    let parts: Vec<&str> = reltime.trim().split(':').collect();
    let [h, m, s] = parts[..] else { return None };
    let h: u64 = h.parse().ok()?;
    let m: u64 = m.parse().ok().filter(|m| *m < 60)?;
    let s: f64 = s.parse().ok().filter(|s| (0.0..60.0).contains(s))?;
    Some(format!("{h}h{m}m{}s", s.floor() as u64))
}

/// A problem's `rgb` as contest.toml takes it (`#rrggbb`): `#rgb` written out, a bare
/// `rrggbb` (as some older packages write it) given its `#`. `None` when it is no colour.
fn rgb(v: &Value) -> Option<String> {
    let s = v.as_str()?.trim();
    let hex = s.strip_prefix('#').unwrap_or(s);
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    match hex.len() {
        6 => Some(format!("#{}", hex.to_ascii_lowercase())),
        3 => Some(
            std::iter::once('#')
                .chain(hex.to_ascii_lowercase().chars().flat_map(|d| [d, d]))
                .collect(),
        ),
        _ => None,
    }
}

/// Checks the whole package `p` and says what importing it as contest `id` (default: the
/// package's `id`, else its folder's name) into `contests_dir` writes.
pub fn plan(p: &Package, id: Option<String>, contests_dir: &Path) -> Result<Plan, PackageError> {
    let (cpath, contest) = (&p.contest.0, &p.contest.1);
    let at = |key: &str, msg: String| bad(cpath, &format!("{key}: {msg}"));
    let folder = p
        .dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
    let id = id
        .or_else(|| text(contest, "id"))
        .or(folder)
        .unwrap_or_default();
    if !valid_id(&id) {
        return Err(at(
            "id",
            format!("{id:?} cannot name a contest folder (letters, digits, '.', '_', '-')"),
        ));
    }
    let dest = contests_dir.join(&id);
    let title = text(contest, "name").ok_or_else(|| at("name", "missing".into()))?;
    let start = text(contest, "start_time")
        .ok_or_else(|| at("start_time", "missing (ojd needs a scheduled start)".into()))?;
    let start = clics_time(&start).ok_or_else(|| {
        at(
            "start_time",
            format!("{start:?} is not a TIME (yyyy-mm-ddThh:mm:ss±zz)"),
        )
    })?;
    let duration = text(contest, "duration").ok_or_else(|| at("duration", "missing".into()))?;
    let duration = span(&duration).ok_or_else(|| {
        at(
            "duration",
            format!("{duration:?} is not a RELTIME (h:mm:ss)"),
        )
    })?;
    let freeze = match text(contest, "scoreboard_freeze_duration") {
        None => String::new(),
        Some(f) => span(&f).ok_or_else(|| {
            at(
                "scoreboard_freeze_duration",
                format!("{f:?} is not a RELTIME"),
            )
        })?,
    };
    let scoring = match text(contest, "scoreboard_type").as_deref() {
        None | Some("pass-fail") => "icpc",
        Some("score") => "ioi",
        Some(other) => {
            return Err(at(
                "scoreboard_type",
                format!("{other:?} is neither pass-fail nor score"),
            ))
        }
    };
    let penalty = match &contest["penalty_time"] {
        Value::Null => 20,
        v => v
            .as_u64()
            .ok_or_else(|| at("penalty_time", format!("{v} is not a number of minutes")))?,
    };

    let (problems, colours) = problems(p)?;
    let (teams, participants) = roster(p)?;
    let (accounts, warnings) = accounts(p, &participants)?;

    let (spath, s) = (&p.settings.0, &p.settings.1);
    let flag = |k: &str, default: bool| -> Result<bool, PackageError> {
        match &s[k] {
            Value::Null => Ok(default),
            Value::Bool(b) => Ok(*b),
            v => Err(bad(spath, &format!("{k}: {v} is not true or false"))),
        }
    };
    let medal = |k: &str| s["medals"][k].as_u64().unwrap_or(0).to_string();
    let open = flag("open", participants.is_empty())?;
    let draft = Draft {
        title,
        start,
        duration,
        freeze,
        scoring: scoring.into(),
        penalty: penalty.to_string(),
        compile_errors_count: flag("compile_errors_count", false)?,
        public_standings: flag("public_standings", true)?,
        participants: if open {
            "anyone".into()
        } else {
            participants.join(", ")
        },
        feedback: s["feedback"].as_str().unwrap_or("all").to_string(),
        problems: problems
            .iter()
            .map(|(_, v)| DraftProblem {
                label: text(v, "label").unwrap_or_default(),
                problem: text(v, "id").unwrap_or_default(),
                color: v.get("rgb").and_then(rgb).unwrap_or_default(),
            })
            .collect(),
        awards: Some(DraftAwards {
            gold: medal("gold"),
            silver: medal("silver"),
            bronze: medal("bronze"),
        }),
    };
    let ccs = json!({
        "teams": p.teams.1,
        "organizations": p.organizations.1,
        "groups": p.groups.1,
        "accounts": accounts,
        "problems": colours,
    });
    let finalized_ms = match read_doc(&p.dir, "state")? {
        Some((path, state)) => match text(&state, "finalized") {
            None => None,
            Some(t) => Some(
                clics_time(&t)
                    .and_then(|f| parse_start(&f))
                    .map(|(ms, _)| ms)
                    .ok_or_else(|| bad(&path, &format!("finalized: {t:?} is not a TIME")))?,
            ),
        },
        None => None,
    };
    let mut ccs = ccs;
    if finalized_ms.is_some() {
        ccs["awards"] = Value::Array(awards(p)?);
    }
    let again = dest.exists() && imported_before(&dest, &ccs, &draft.title);
    if dest.exists() && !again {
        return Err(bad(
            &dest,
            "the contest folder exists already (not as this package's import); remove it or pass --id",
        ));
    }
    Ok(Plan {
        id,
        draft,
        teams,
        ccs,
        problems,
        warnings,
        finalized_ms,
        again,
    })
}

/// The awards of record of a finalized contest's package (`awards.json`, empty when absent):
/// each an `id`, a `citation` and `team_ids` of teams in `teams.json`, kept as they are so
/// that the imported contest serves the awards its jury gave, not ones computed again.
fn awards(p: &Package) -> Result<Vec<Value>, PackageError> {
    let Some((path, doc)) = read_doc(&p.dir, "awards")? else {
        return Ok(Vec::new());
    };
    let Value::Array(list) = doc else {
        return Err(bad(&path, "expected a list of awards"));
    };
    let known: HashSet<&str> = p.teams.1.iter().filter_map(|t| t["id"].as_str()).collect();
    for (i, a) in list.iter().enumerate() {
        let at = |key: &str, msg: String| bad(&path, &format!("[{i}].{key}: {msg}"));
        match a["id"].as_str() {
            Some(id) if is_id(id) => {}
            _ => return Err(at("id", format!("{} is not an ID", a["id"]))),
        }
        if !a["citation"].is_string() {
            let msg = format!("{} is not a string", a["citation"]);
            return Err(at("citation", msg));
        }
        let Value::Array(teams) = &a["team_ids"] else {
            let msg = format!("{} is not a list of team ids", a["team_ids"]);
            return Err(at("team_ids", msg));
        };
        for t in teams {
            match t.as_str() {
                Some(t) if known.contains(t) => {}
                _ => return Err(at("team_ids", format!("{t} is not a team of teams.json"))),
            }
        }
    }
    Ok(list)
}

/// Whether `dest` is what importing a package with this `ccs.json` and `title` wrote.
fn imported_before(dest: &Path, ccs: &Value, title: &str) -> bool {
    let read = |name: &str| std::fs::read_to_string(dest.join(name)).ok();
    let same_ccs = read("ccs.json")
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| &v == ccs);
    let same_title = read("contest.toml")
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.get("title").and_then(|v| v.as_str()) == Some(title));
    same_ccs && same_title
}

/// By problem id: the colours `ccs.json` keeps (`{"rgb": "#00f", "color": "blue"}`).
type Colours = BTreeMap<String, Value>;

/// The problems in the package's order (`ordinal`, else as listed), checked, and the colours
/// `ccs.json` keeps (a colour's name and `rgb` as the package spelled it).
fn problems(p: &Package) -> Result<(Vec<(usize, Value)>, Colours), PackageError> {
    let ppath = &p.problems.0;
    let mut sorted: Vec<(usize, &Value)> = p.problems.1.iter().enumerate().collect();
    sorted.sort_by_key(|(i, v)| (v["ordinal"].as_u64().unwrap_or(*i as u64), *i));
    let mut colours = BTreeMap::new();
    let mut seen = HashSet::new();
    for (i, v) in &sorted {
        let pat = |key: &str, msg: String| bad(ppath, &format!("[{i}].{key}: {msg}"));
        let pid = text(v, "id").ok_or_else(|| pat("id", "missing".into()))?;
        if !valid_id(&pid) {
            return Err(pat("id", format!("{pid:?} cannot name a problem folder")));
        }
        if !seen.insert(pid.clone()) {
            return Err(pat("id", format!("{pid:?} appears twice")));
        }
        let mut colour = serde_json::Map::new();
        if let Some(x) = v.get("rgb").filter(|x| !x.is_null()) {
            rgb(x).ok_or_else(|| pat("rgb", format!("{x} is not a colour (#rrggbb)")))?;
            // As the package spelled it (`#00f`), with the `#` the standard asks for.
            let hex = x.as_str().map(str::trim).unwrap_or_default();
            let spelled = format!("#{}", hex.strip_prefix('#').unwrap_or(hex));
            colour.insert("rgb".into(), json!(spelled));
        }
        if let Some(x) = v.get("color").filter(|x| !x.is_null()) {
            if !x.is_string() {
                return Err(pat("color", format!("{x} is not a string")));
            }
            colour.insert("color".into(), x.clone());
        }
        if !colour.is_empty() {
            colours.insert(pid, Value::Object(colour));
        }
    }
    Ok((
        sorted.into_iter().map(|(i, v)| (i, v.clone())).collect(),
        colours,
    ))
}

/// The teams as `[[team]]` tables, and their ids (the users they submit as), after checking
/// organizations, groups and teams: ids, references, and every property of the standard's
/// type.
fn roster(p: &Package) -> Result<(Vec<Team>, Vec<String>), PackageError> {
    let (opath, orgs) = (&p.organizations.0, &p.organizations.1);
    let (gpath, groups) = (&p.groups.0, &p.groups.1);
    let find = |list: &'_ [Value], id: &str| list.iter().find(|x| x["id"] == id).cloned();
    let mut teams = Vec::new();
    let mut users = Vec::new();
    for (ty, (path, list)) in [
        ("organizations", &p.organizations),
        ("groups", &p.groups),
        ("teams", &p.teams),
    ] {
        let mut seen = HashSet::new();
        for (i, o) in list.iter().enumerate() {
            let at = |key: &str, msg: String| bad(path, &format!("[{i}].{key}: {msg}"));
            let Some(obj) = o.as_object() else {
                return Err(bad(path, &format!("[{i}]: expected an object")));
            };
            let oid = text(o, "id").ok_or_else(|| at("id", "missing".into()))?;
            if !is_id(&oid) || (ty == "teams" && !valid_id(&oid)) {
                return Err(at(
                    "id",
                    format!("{oid:?} is not an id (at most 36 letters, digits, '.', '_', '-')"),
                ));
            }
            if !seen.insert(oid.clone()) {
                return Err(at("id", format!("{oid:?} appears twice")));
            }
            for (k, v) in obj {
                if crate::ccs::properties(ty).contains(&k.as_str()) && !valid(ty, k, v) {
                    return Err(at(k, format!("{v} {}", why(ty, k))));
                }
            }
            if ty != "teams" {
                continue;
            }
            let org = match o["organization_id"].as_str() {
                None => None,
                Some(org) => Some(find(orgs, org).ok_or_else(|| {
                    at(
                        "organization_id",
                        format!("{org:?} is not in {}", opath.display()),
                    )
                })?),
            };
            let name_of = |v: &Value| text(v, "name").or_else(|| text(v, "id"));
            let mut group_names = Vec::new();
            for g in o["group_ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let found = find(groups, g).ok_or_else(|| {
                    at("group_ids", format!("{g:?} is not in {}", gpath.display()))
                })?;
                group_names.extend(name_of(&found));
            }
            // Every group, the country of its organization and its seat, in `[[team]]` too.
            let location = o["location"].as_object().and_then(|l| {
                let n = |k: &str| l.get(k).and_then(Value::as_f64);
                Some(Location {
                    x: n("x")?,
                    y: n("y")?,
                    rotation: n("rotation")?,
                })
            });
            let country = org
                .as_ref()
                .and_then(|o| o["country"].as_str())
                .filter(|c| is_country(c))
                .map(str::to_string);
            teams.push(Team {
                user: oid.clone(),
                name: text(o, "name").unwrap_or_else(|| oid.clone()),
                affiliation: org.as_ref().and_then(name_of),
                category: if o["hidden"] == true {
                    Category::Observer
                } else {
                    Category::Participant
                },
                group: group_names.first().cloned(),
                members: Vec::new(),
                place: Place {
                    groups: if group_names.len() > 1 {
                        group_names
                    } else {
                        Vec::new()
                    },
                    country,
                    location,
                },
            });
            users.push(oid);
        }
    }
    Ok((teams, users))
}

/// Why property `k` of a `ty` is refused (its value is not of the standard's type).
fn why(ty: &str, k: &str) -> &'static str {
    match (ty, k) {
        (_, "id") => "is not an id (letters, digits, '.', '_', '-')",
        ("organizations", "country") => {
            "is not a country code (ISO 3166-1 alpha-3: three capitals)"
        }
        ("organizations", "country_subdivision") => {
            "is not a subdivision code (ISO 3166-2: `NL-NH`)"
        }
        ("teams", "organization_id") => "is not an organization id",
        ("teams", "group_ids") => "is not a list of distinct group ids",
        ("teams", "hidden") => "is not true or false",
        ("teams", "location") => "is not a location (x, y, rotation from 0 to 360)",
        (_, "name") | ("teams", "label") | ("organizations", "formal_name") => "is not a string",
        _ => "is not a string or null",
    }
}

/// The accounts `ccs.json` keeps (without passwords: ojd users log in with tokens), and a
/// warning for each password left out.
fn accounts(p: &Package, teams: &[String]) -> Result<(Vec<Value>, Vec<String>), PackageError> {
    let apath = &p.accounts.0;
    let mut kept = Vec::new();
    let mut warnings = Vec::new();
    for (i, acc) in p.accounts.1.iter().enumerate() {
        let mut a = acc.clone();
        let Some(o) = a.as_object_mut() else {
            return Err(bad(apath, &format!("[{i}]: expected an object")));
        };
        if o.remove("password").is_some_and(|p| !p.is_null()) {
            warnings.push(format!(
                "{}: [{i}].password is not kept (ojd users log in with tokens)",
                apath.display()
            ));
        }
        if a["type"] == "team" && !teams.iter().any(|t| a["team_id"] == t.as_str()) {
            return Err(bad(
                apath,
                &format!(
                    "[{i}].team_id: {} is not a team of teams.json",
                    a["team_id"]
                ),
            ));
        }
        kept.push(a);
    }
    Ok((kept, warnings))
}

/// Writes the planned contest into `contests_dir` (its problems must be in `problems_dir`
/// by now) and loads it as the daemon will; nothing is left behind when it does not load.
pub fn write(
    plan: &Plan,
    contests_dir: &Path,
    problems_dir: &Path,
) -> Result<Contest, PackageError> {
    let dest = contests_dir.join(&plan.id);
    if plan.again {
        return Contest::load(&dest, problems_dir)
            .map_err(|e| PackageError::Bad(format!("the imported contest does not load: {e}")));
    }
    let errors = plan.draft.check(problems_dir, true);
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(PackageError::Bad(format!(
            "the package makes a contest ojd refuses: {}",
            list.join("; ")
        )));
    }
    let text = plan.draft.new_text().replacen(
        "# Written by a director on the web; edit it by hand or there.",
        "# Imported from a CLICS contest package (`ojd contest import`, or the admin page's import).",
        1,
    );
    let ccs = serde_json::to_string_pretty(&plan.ccs).expect("JSON values serialize");
    let written = std::fs::create_dir_all(&dest)
        .and_then(|()| std::fs::write(dest.join("contest.toml"), text))
        .and_then(|()| std::fs::write(dest.join("ccs.json"), ccs));
    let result = match written {
        Err(e) => Err(PackageError::io(&dest, e)),
        Ok(()) if plan.teams.is_empty() => Contest::load(&dest, problems_dir)
            .map_err(|e| PackageError::Bad(format!("the imported contest does not load: {e}"))),
        Ok(()) => write_teams(&dest, problems_dir, &plan.teams)
            .map(|(c, _)| c)
            .map_err(|e| PackageError::Bad(format!("the imported contest does not load: {e}"))),
    };
    // A finalized contest stays finalized, at the package's time.
    let result = match (result, plan.finalized_ms) {
        (Ok(c), Some(at)) => {
            crate::contest::clock::finalize(&dest, problems_dir, at, c.utc_offset_s)
                .map_err(|e| PackageError::Bad(format!("state.json: finalized: {e}")))
        }
        (r, _) => r,
    };
    if result.is_err() {
        // Best effort: the folder was created above, by this import.
        let _ = std::fs::remove_dir_all(&dest);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clics_times_spans_and_colours() {
        assert_eq!(
            clics_time("2014-06-25T10:00:00+01").as_deref(),
            Some("2014-06-25T10:00:00+01:00")
        );
        assert_eq!(clics_time("2014-06-25 10:00"), None);
        for odd in ["2014-06-25T10:00:00+é", "😀", "é"] {
            assert_eq!(clics_time(odd), None, "{odd}");
        }
        assert_eq!(span("1:30:15.250").as_deref(), Some("1h30m15s"));
        assert_eq!(span("1:75:00"), None);
        assert_eq!(rgb(&json!("#A953c2")).as_deref(), Some("#a953c2"));
        assert_eq!(rgb(&json!("00f")).as_deref(), Some("#0000ff"));
        assert_eq!(rgb(&json!("red")), None);
    }
}

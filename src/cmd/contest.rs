//! `ojd contest import|export`: contests in the CLICS Contest Package format (what DOMjudge
//! and the ICPC tools exchange), problems as Kattis packages through `ojd-import`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use serde_json::{json, Value};

use ojd_import::clics::{property_error, reltime, rfc3339, rgb, span, text, valid_id, yaml};

use crate::{print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};

/// Import or export a contest as a CLICS Contest Package.
///
/// `import DIR` reads contest.yaml (or contest.json), problems.yaml (or problems.json),
/// teams.json, organizations.json, groups.json and accounts.yaml (or accounts.json), imports
/// each problem's Kattis package (the folder `DIR/<problem id>` or `DIR/problems/<problem
/// id>`) into the problems folder (a problem folder that exists already is used as it is), and
/// writes `contests/<id>/contest.toml` with `ccs.json` beside it (teams' names, organizations,
/// groups, problems' colours). Teams become the participants, by team id (an ojd user name);
/// accounts' passwords are not kept: give each team a token (`ojd token`).
///
/// `export ID --to DIR` writes the contest as a package: contest.yaml, problems.yaml,
/// teams.json, organizations.json, groups.json, accounts.json and each problem as a Kattis
/// package in `DIR/<problem id>`. Exit code: 0 done, 2 bad input (the message names the file
/// and key), 3 an I/O failure.
///
/// Examples:
///   ojd contest import ~/wf2026-package
///   ojd contest export example --to /tmp/example-package --without huarong
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Import a CLICS Contest Package folder as an ojd contest.
    Import {
        /// The package folder (holding contest.yaml or contest.json).
        dir: PathBuf,
        /// The contest's id (default: the package's `id`, else the folder's name).
        #[arg(long)]
        id: Option<String>,
    },
    /// Export an ojd contest as a CLICS Contest Package.
    Export {
        /// The contest's id (its folder under the contests folder).
        id: String,
        /// The new package folder (it must not exist yet).
        #[arg(long)]
        to: PathBuf,
        /// Leave this problem out of the package (repeatable): for a problem the Kattis
        /// format cannot express (file I/O, for one), which otherwise refuses the export.
        #[arg(long, value_name = "PROBLEM")]
        without: Vec<String>,
    },
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let result = match a.action {
        Action::Import { dir, id } => import(&dir, id, &config),
        Action::Export { id, to, without } => export(&id, &to, &without, &config),
    };
    match result {
        Ok(()) => Ok(0),
        Err(Failure::Bad(e)) => {
            print_error(e.as_ref() as &(dyn std::error::Error + 'static));
            Ok(EXIT_BAD_INPUT)
        }
        Err(Failure::Io(e)) => {
            print_error(e.as_ref() as &(dyn std::error::Error + 'static));
            Ok(EXIT_JUDGE_FAILED)
        }
    }
}

enum Failure {
    Bad(anyhow::Error),
    Io(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Bad(e)
    }
}

fn io(e: impl Into<anyhow::Error>) -> Failure {
    Failure::Io(e.into())
}

/// Reads `DIR/<name>.yaml` or `DIR/<name>.json` (YAML is a superset of JSON); `None` when
/// neither exists.
fn read_doc(dir: &Path, name: &str) -> Result<Option<(PathBuf, Value)>, Failure> {
    for ext in ["yaml", "json"] {
        let p = dir.join(format!("{name}.{ext}"));
        let Some(text) = read_confined(&p)? else {
            continue;
        };
        let v: Value = if ext == "json" {
            serde_json::from_str(&text).with_context(|| format!("{}: not valid JSON", p.display()))?
        } else {
            serde_norway::from_str(&text).with_context(|| format!("{}: not valid YAML", p.display()))?
        };
        return Ok(Some((p, v)));
    }
    Ok(None)
}

/// A file of the package, read as data: a regular file in its folder, never through a link (a
/// package is untrusted and the import may run as root); `None` when missing.
fn read_confined(p: &Path) -> Result<Option<String>, Failure> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let seen = match std::fs::symlink_metadata(p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(anyhow!("{}: {e}", p.display()).into()),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(anyhow!("{}: a symbolic link (a package's files are read only inside its folder)", p.display()).into())
        }
        Ok(m) if !m.is_file() => return Err(anyhow!("{}: not a regular file", p.display()).into()),
        Ok(m) => m,
    };
    let mut file = std::fs::File::open(p).with_context(|| format!("{}: cannot be read", p.display()))?;
    // The file opened is the one looked at, not a link swapped in between.
    let opened = file.metadata().map_err(io)?;
    if (opened.dev(), opened.ino()) != (seen.dev(), seen.ino()) {
        return Err(anyhow!("{}: changed while it was read", p.display()).into());
    }
    let mut text = String::new();
    file.read_to_string(&mut text).with_context(|| format!("{}: not UTF-8 text", p.display()))?;
    Ok(Some(text))
}

/// Whether `p` is a folder of the package itself (a link to one elsewhere is not).
fn own_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// A list file (`teams.json`…), empty when absent.
fn read_list(dir: &Path, name: &str) -> Result<(PathBuf, Vec<Value>), Failure> {
    match read_doc(dir, name)? {
        None => Ok((dir.join(format!("{name}.json")), Vec::new())),
        Some((p, Value::Array(a))) => Ok((p, a)),
        Some((p, _)) => Err(anyhow!("{}: expected a list", p.display()).into()),
    }
}

fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn import(dir: &Path, id: Option<String>, config: &ojd_config::Config) -> Result<(), Failure> {
    let (cpath, contest) = read_doc(dir, "contest")?
        .ok_or_else(|| anyhow!("{}: no contest.yaml or contest.json", dir.display()))?;
    let at = |key: &str| format!("{}: {key}", cpath.display());
    let folder = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let id = id.or_else(|| text(&contest, "id")).or(folder).unwrap_or_default();
    if !valid_id(&id) {
        return Err(anyhow!("{}: {id:?} cannot name a contest folder (letters, digits, '.', '_', '-')", at("id")).into());
    }
    let name = text(&contest, "name").ok_or_else(|| anyhow!("{}: missing", at("name")))?;
    let start = text(&contest, "start_time")
        .ok_or_else(|| anyhow!("{}: missing (ojd needs a scheduled start)", at("start_time")))?;
    let start = rfc3339(&start).ok_or_else(|| anyhow!("{}: {start:?} is not a TIME (yyyy-mm-ddThh:mm:ss±zz)", at("start_time")))?;
    let duration = text(&contest, "duration").ok_or_else(|| anyhow!("{}: missing", at("duration")))?;
    let duration = span(&duration).ok_or_else(|| anyhow!("{}: {duration:?} is not a RELTIME (h:mm:ss)", at("duration")))?;
    let freeze = match text(&contest, "scoreboard_freeze_duration") {
        None => None,
        Some(f) => Some(span(&f).ok_or_else(|| anyhow!("{}: {f:?} is not a RELTIME", at("scoreboard_freeze_duration")))?),
    };
    let scoring = match text(&contest, "scoreboard_type").as_deref() {
        None | Some("pass-fail") => "icpc",
        Some("score") => "ioi",
        Some(other) => return Err(anyhow!("{}: {other:?} is neither pass-fail nor score", at("scoreboard_type")).into()),
    };
    let penalty = match &contest["penalty_time"] {
        Value::Null => 20,
        v => v.as_u64().ok_or_else(|| anyhow!("{}: {v} is not a number of minutes", at("penalty_time")))?,
    };

    let (ppath, problems) = match read_doc(dir, "problems")? {
        Some((p, Value::Array(a))) => (p, a),
        Some((p, _)) => return Err(anyhow!("{}: expected a list of problems", p.display()).into()),
        None => return Err(anyhow!("{}: no problems.yaml or problems.json", dir.display()).into()),
    };
    let mut sorted: Vec<(usize, &Value)> = problems.iter().enumerate().collect();
    sorted.sort_by_key(|(i, p)| (p["ordinal"].as_u64().unwrap_or(*i as u64), *i));
    let (tpath, mut teams) = read_list(dir, "teams")?;
    let (opath, mut organizations) = read_list(dir, "organizations")?;
    let (gpath, mut groups) = read_list(dir, "groups")?;
    // An id written as a number (`id: 3` in YAML) is its text.
    for o in teams.iter_mut().chain(organizations.iter_mut()).chain(groups.iter_mut()) {
        if let Some(n) = o.get("id").filter(|v| v.is_number()).map(|v| v.to_string()) {
            o["id"] = json!(n);
        }
    }
    let (apath, accounts) = read_list(dir, "accounts")?;

    // Everything is checked before anything is written.
    let mut participants = Vec::new();
    for (ty, list, path) in [("organizations", &organizations, &opath), ("groups", &groups, &gpath), ("teams", &teams, &tpath)] {
        let mut seen = std::collections::HashSet::new();
        for (i, o) in list.iter().enumerate() {
            let Some(obj) = o.as_object() else {
                return Err(anyhow!("{}: [{i}]: expected an object", path.display()).into());
            };
            let oid = text(o, "id").ok_or_else(|| anyhow!("{}: [{i}].id: missing", path.display()))?;
            if !valid_id(&oid) {
                let what = if ty == "teams" { "cannot be an ojd user name" } else { "is not an id" };
                return Err(anyhow!("{}: [{i}].id: {oid:?} {what} (letters, digits, '.', '_', '-')", path.display()).into());
            }
            if !seen.insert(oid.clone()) {
                return Err(anyhow!("{}: [{i}].id: {oid:?} appears twice", path.display()).into());
            }
            for (k, v) in obj {
                if let Some(why) = property_error(ty, k, v) {
                    return Err(anyhow!("{}: [{i}].{k}: {v} {why}", path.display()).into());
                }
            }
            if ty == "teams" {
                if let Some(org) = o["organization_id"].as_str() {
                    if !organizations.iter().any(|x| text(x, "id").as_deref() == Some(org)) {
                        return Err(anyhow!("{}: [{i}].organization_id: {org:?} is not in {}", path.display(), opath.display()).into());
                    }
                }
                for g in o["group_ids"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !groups.iter().any(|x| text(x, "id").as_deref() == Some(g)) {
                        return Err(anyhow!("{}: [{i}].group_ids: {g:?} is not in {}", path.display(), gpath.display()).into());
                    }
                }
                participants.push(oid);
            }
        }
    }
    let mut kept_accounts = Vec::new();
    for (i, acc) in accounts.iter().enumerate() {
        if acc.get("password").is_some_and(|p| !p.is_null()) {
            eprintln!("warning: {}: [{i}].password is not kept (ojd users log in with tokens)", apath.display());
        }
        let mut a = acc.clone();
        if let Some(o) = a.as_object_mut() {
            o.remove("password");
        }
        if let Some(n) = a.get("team_id").filter(|v| v.is_number()).map(|v| v.to_string()) {
            a["team_id"] = json!(n);
        }
        if a["type"] == "team" && !participants.iter().any(|p| a["team_id"] == p.as_str()) {
            return Err(anyhow!("{}: [{i}].team_id: {} is not a team of teams.json", apath.display(), a["team_id"]).into());
        }
        kept_accounts.push(a);
    }
    let mut colours = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for (i, p) in &sorted {
        let pat = |key: &str| format!("{}: [{i}].{key}", ppath.display());
        let pid = text(p, "id").ok_or_else(|| anyhow!("{}: missing", pat("id")))?;
        if !valid_id(&pid) {
            return Err(anyhow!("{}: {pid:?} cannot name a problem folder", pat("id")).into());
        }
        if !seen.insert(pid.clone()) {
            return Err(anyhow!("{}: {pid:?} appears twice", pat("id")).into());
        }
        let mut colour = serde_json::Map::new();
        if let Some(v) = p.get("rgb").filter(|v| !v.is_null()) {
            let c = rgb(v).ok_or_else(|| anyhow!("{}: {v} is not a colour (#rrggbb)", pat("rgb")))?;
            colour.insert("rgb".into(), json!(c));
        }
        if let Some(v) = p.get("color").filter(|v| !v.is_null()) {
            let c = v.as_str().ok_or_else(|| anyhow!("{}: {v} is not a string", pat("color")))?;
            colour.insert("color".into(), json!(c));
        }
        if !colour.is_empty() {
            colours.insert(pid, Value::Object(colour));
        }
    }

    let dest = config.server.contests.join(&id);
    if dest.exists() {
        return Err(anyhow!("{}: the contest folder exists already; remove it or pass --id", dest.display()).into());
    }
    // Problems first: a contest.toml is written only over problems that exist. The ones this
    // import creates are removed again if anything after fails.
    let mut created: Vec<PathBuf> = Vec::new();
    let result = import_problems(dir, &sorted, &ppath, config, &mut created)
        .and_then(|toml_problems| {
            write_contest(&dest, &name, &start, &duration, freeze.as_deref(), scoring, penalty, &participants, &toml_problems, json!({
                "teams": teams,
                "organizations": organizations,
                "groups": groups,
                "accounts": kept_accounts,
                "problems": colours,
            }), config)
        });
    if result.is_err() {
        for d in &created {
            let _ = std::fs::remove_dir_all(d);
        }
        return result;
    }
    println!(
        "imported contest {id} ({} problems, {} teams) into {}",
        sorted.len(),
        participants.len(),
        dest.display()
    );
    Ok(())
}

/// Imports each problem's Kattis package that is not in the problems folder yet (recording
/// the folders it creates in `created`); returns the contest.toml's `[[problem]]` tables.
fn import_problems(
    dir: &Path,
    sorted: &[(usize, &Value)],
    ppath: &Path,
    config: &ojd_config::Config,
    created: &mut Vec<PathBuf>,
) -> Result<String, Failure> {
    let judge = ojd_judge::Judge::new(config.judging(), 1).map_err(io)?;
    let mut toml_problems = String::new();
    for (i, p) in sorted {
        let pat = |key: &str| format!("{}: [{i}].{key}", ppath.display());
        let pid = text(p, "id").unwrap_or_default();
        let target = config.server.problems.join(&pid);
        if target.join("problem.toml").exists() {
            eprintln!("problem {pid}: {} exists already; used as it is", target.display());
        } else {
            let package = [dir.join(&pid), dir.join("problems").join(&pid)]
                .into_iter()
                .find(|d| own_dir(d) && d.join("problem.yaml").exists());
            let Some(package) = package else {
                let zipped = [dir.join(format!("{pid}.zip")), dir.join("problems").join(&pid).join(format!("{pid}.zip"))]
                    .into_iter()
                    .find(|z| z.is_file());
                let hint = match zipped {
                    Some(z) => format!(" ({} is a zip: unpack it into {}/ first)", z.display(), dir.join(&pid).display()),
                    None => String::new(),
                };
                return Err(anyhow!("{}: no Kattis package {pid}/ or problems/{pid}/ (with problem.yaml) in {}{hint}", pat("id"), dir.display()).into());
            };
            if !target.exists() {
                created.push(target.clone());
            }
            let imported = ojd_import::kattis::import(
                &package,
                config,
                Some(&judge),
                &ojd_import::kattis::Options { to: Some(target.clone()) },
            )
            .map_err(|e| anyhow!("problem {pid} ({}): {e}", package.display()))?;
            for w in &imported.warnings {
                eprintln!("warning: problem {pid}: {w}");
            }
            println!("problem {pid}: imported {} tests into {}", imported.tests, imported.dir.display());
        }
        // The package's time limit is the problem's own; problems.yaml's is informational,
        // but a different one is likely a mistake worth saying.
        if let Some(want) = p.get("time_limit").and_then(Value::as_f64) {
            if let Ok(problem) = ojd_judge::Problem::load(&target) {
                let have = problem.time_limit.as_secs_f64();
                if (have - want).abs() > 0.0005 {
                    eprintln!(
                        "warning: {}: {want} s, but problem {pid}'s package sets {have} s (used)",
                        pat("time_limit")
                    );
                }
            }
        }
        toml_problems.push_str(&format!("\n[[problem]]\nid = {}\n", toml_str(&pid)));
        if let Some(label) = text(p, "label") {
            toml_problems.push_str(&format!("label = {}\n", toml_str(&label)));
        }
        // The colour belongs to the contest (its pages, balloons and API), not only to ccs.json.
        if let Some(c) = p.get("rgb").and_then(rgb) {
            // contest.toml takes #rrggbb: a #rgb is written out.
            let full: String = if c.len() == 4 {
                std::iter::once('#').chain(c[1..].chars().flat_map(|d| [d, d])).collect()
            } else {
                c
            };
            toml_problems.push_str(&format!("color = {}\n", toml_str(&full)));
        }
    }
    Ok(toml_problems)
}

/// Writes `dest` (contest.toml and ccs.json) and loads it as the daemon will; removed again
/// when it does not load.
#[allow(clippy::too_many_arguments)]
fn write_contest(
    dest: &Path,
    name: &str,
    start: &str,
    duration: &str,
    freeze: Option<&str>,
    scoring: &str,
    penalty: u64,
    participants: &[String],
    toml_problems: &str,
    extra: Value,
    config: &ojd_config::Config,
) -> Result<(), Failure> {
    let mut toml = format!(
        "# Imported from a CLICS Contest Package by `ojd contest import`.\ntitle = {}\nstart = {}\nduration = {}\n",
        toml_str(name),
        toml_str(start),
        toml_str(duration)
    );
    if let Some(f) = freeze {
        toml.push_str(&format!("freeze = {}\n", toml_str(f)));
    }
    toml.push_str(&format!("scoring = \"{scoring}\"\npenalty = {penalty}\n"));
    if participants.is_empty() {
        toml.push_str("participants = \"anyone\"\n");
    } else {
        let list: Vec<String> = participants.iter().map(|p| toml_str(p)).collect();
        toml.push_str(&format!("participants = [{}]\n", list.join(", ")));
    }
    toml.push_str(toml_problems);
    let written = std::fs::create_dir_all(dest)
        .and_then(|()| std::fs::write(dest.join("contest.toml"), toml))
        .and_then(|()| std::fs::write(dest.join("ccs.json"), serde_json::to_string_pretty(&extra).unwrap_or_default()));
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(dest);
        return Err(io(e));
    }
    // Loaded as the daemon will load it: a mistake shows now, not at the next start.
    if let Err(e) = ojd_service::contest::Contest::load(dest, &config.server.problems) {
        let _ = std::fs::remove_dir_all(dest);
        return Err(anyhow!("the imported contest does not load: {e}").into());
    }
    Ok(())
}

fn export(
    id: &str,
    to: &Path,
    without: &[String],
    config: &ojd_config::Config,
) -> Result<(), Failure> {
    let dir = config.server.contests.join(id);
    let mut c = ojd_service::contest::Contest::load(&dir, &config.server.problems)
        .map_err(|e| anyhow!("contest {id}: {e}"))?;
    if let Some(w) = without.iter().find(|w| !c.problems.iter().any(|p| &p.problem == *w)) {
        bail_bad(format!("--without {w}: not a problem of contest {id}"))?;
    }
    c.problems.retain(|p| !without.contains(&p.problem));
    if to.exists() {
        bail_bad(format!("{}: exists already (the package goes into a new folder)", to.display()))?;
    }
    let extra: Value = std::fs::read(dir.join("ccs.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| json!({}));
    let staging = to.with_extension("partial");
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(io)?;
    let result = write_package(&c, &extra, &staging, config);
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
        return result;
    }
    std::fs::rename(&staging, to).map_err(io)?;
    println!("exported contest {id} ({} problems) to {}", c.problems.len(), to.display());
    Ok(())
}

fn bail_bad(msg: String) -> Result<(), Failure> {
    Err(Failure::Bad(anyhow!(msg)))
}

fn write_package(
    c: &ojd_service::contest::Contest,
    extra: &Value,
    to: &Path,
    config: &ojd_config::Config,
) -> Result<(), Failure> {
    let start = time::OffsetDateTime::from_unix_timestamp_nanos(c.start_ms as i128 * 1_000_000)
        .map_err(|e| anyhow!("start: {e}"))?
        .to_offset(time::UtcOffset::from_whole_seconds(c.utc_offset_s).unwrap_or(time::UtcOffset::UTC));
    let start = start
        .format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| anyhow!("start: {e}"))?;
    let mut contest = json!({
        "id": c.id,
        "name": c.title,
        "formal_name": c.title,
        "start_time": start,
        "duration": reltime(c.duration.as_secs()),
        "scoreboard_type": match c.scoring { ojd_service::contest::Scoring::Icpc => "pass-fail", ojd_service::contest::Scoring::Ioi => "score" },
        "penalty_time": c.penalty_minutes,
    });
    if let Some(f) = c.freeze {
        contest["scoreboard_freeze_duration"] = json!(reltime(f.as_secs()));
    }
    std::fs::write(to.join("contest.yaml"), yaml(&contest)).map_err(io)?;
    let mut problems = Vec::new();
    for (i, p) in c.problems.iter().enumerate() {
        let problem = crate::load_problem(&config.server.problems.join(&p.problem))
            .ok_or_else(|| anyhow!("problem {}: does not load", p.problem))?;
        let mut v = json!({
            "id": p.problem,
            "label": p.label,
            "name": problem.title,
            "ordinal": i + 1,
            "time_limit": problem.time_limit.as_millis() as f64 / 1000.0,
            "test_data_count": problem.tests.len(),
        });
        // The colour the contest gives (contest.toml, the web's form); an imported package's
        // own spelling of it (ccs.json) is kept as it came.
        if let Some(rgb) = &p.color {
            v["rgb"] = json!(rgb);
        }
        if let Some(Value::Object(colour)) = extra["problems"].get(&p.problem) {
            for (k, x) in colour {
                v[k] = x.clone();
            }
        }
        problems.push(v);
        let e = ojd_import::export::export_kattis(&problem, &to.join(&p.problem)).map_err(|e| {
            anyhow!(
                "problem {}: {e}\n(leave it out of the package with --without {})",
                p.problem,
                p.problem
            )
        })?;
        for w in &e.warnings {
            eprintln!("warning: problem {}: {w}", p.problem);
        }
    }
    std::fs::write(to.join("problems.yaml"), yaml(&json!(problems))).map_err(io)?;
    let listed: Vec<String> = match &c.participants {
        ojd_service::contest::Participants::Listed(u) => u.clone(),
        ojd_service::contest::Participants::Anyone => Vec::new(),
    };
    let known = extra["teams"].as_array().cloned().unwrap_or_default();
    let teams: Vec<Value> = listed
        .iter()
        .map(|u| {
            let mut t = known
                .iter()
                .find(|t| t["id"] == u.as_str())
                .cloned()
                .unwrap_or_else(|| json!({"id": u, "name": u}));
            if t.get("name").is_none() {
                t["name"] = json!(u);
            }
            t
        })
        .collect();
    let accounts: Vec<Value> = match extra["accounts"].as_array() {
        Some(a) if !a.is_empty() => a.clone(),
        _ => listed
            .iter()
            .map(|u| json!({"id": u, "username": u, "type": "team", "team_id": u}))
            .collect(),
    };
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    std::fs::write(to.join("teams.json"), pretty(&json!(teams))).map_err(io)?;
    std::fs::write(to.join("accounts.json"), pretty(&json!(accounts))).map_err(io)?;
    for k in ["organizations", "groups"] {
        let v = extra.get(k).cloned().unwrap_or_else(|| json!([]));
        std::fs::write(to.join(format!("{k}.json")), pretty(&v)).map_err(io)?;
    }
    Ok(())
}

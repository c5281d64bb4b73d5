//! What happened in a packaged contest, read as data ([`history`]) and stored ([`load`]):
//! `submissions.json` with each submission's `submissions/<id>/files.zip`, `judgements.json`
//! and `runs.json` (verdicts of record: stored as judged, never judged again unless an admin
//! asks), `clarifications.json` and `state.json`'s thaw. Every mistake names the file, the
//! object's place and the key; nothing is stored until the whole package reads.
//!
//! ojd serves a submission, judgement or clarification under its stored row's number, so the
//! package's ids must be numbers (ojd's own packages' are) and stay the rows' ids. A reply is
//! stored with its question (ojd keeps a question and its answer as one clarification, the
//! first reply served as `<question id>-reply`, each later one as `<question id>-reply-<n>`,
//! n from 2, and kept in its answer history).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use ojd_judge::Verdict;
use ojd_store::{History, HistoryMore, Loaded, PastClarification, PastJudging, PastSubmission};

use super::import::{bad, clics_time, read_bytes, read_doc, Plan};
use super::PackageError;
use crate::contest::parse_start;

/// The largest source a submission's `files.zip` may unpack to (ojd keeps one file).
const MAX_SOURCE: u64 = 16 << 20;

/// A package's history and what the reading left out (to be told).
#[derive(Debug, Clone, Default)]
pub struct Past {
    /// What the store is given.
    pub history: History,
    /// The replies to a question after its first.
    pub more: HistoryMore,
    /// What was not kept, one line each.
    pub warnings: Vec<String>,
}

/// The list in `DIR/<name>.json` (empty when absent), each object with its place.
fn list(dir: &Path, name: &str) -> Result<(PathBuf, Vec<Value>), PackageError> {
    match read_doc(dir, name)? {
        None => Ok((dir.join(format!("{name}.json")), Vec::new())),
        Some((p, Value::Array(a))) => Ok((p, a)),
        Some((p, _)) => Err(bad(&p, "expected a list")),
    }
}

/// A field reader for object `i` of file `path`.
struct At<'a> {
    path: &'a Path,
    i: usize,
    v: &'a Value,
}

impl At<'_> {
    fn err(&self, key: &str, msg: impl std::fmt::Display) -> PackageError {
        bad(self.path, &format!("[{}].{key}: {msg}", self.i))
    }

    fn text(&self, key: &str) -> Result<String, PackageError> {
        match &self.v[key] {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Null => Err(self.err(key, "missing")),
            v => Err(self.err(key, format!("{v} is not a string"))),
        }
    }

    fn opt(&self, key: &str) -> Result<Option<String>, PackageError> {
        match &self.v[key] {
            Value::Null => Ok(None),
            _ => self.text(key).map(Some),
        }
    }

    /// A numeric id (ojd's rows are numbered).
    fn id(&self, key: &str) -> Result<i64, PackageError> {
        let t = self.text(key)?;
        t.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
            self.err(
                key,
                format!("{t:?} is not a positive number (ojd keeps its rows by number)"),
            )
        })
    }

    /// A TIME as Unix ms.
    fn time(&self, key: &str) -> Result<i64, PackageError> {
        let t = self.text(key)?;
        clics_time(&t)
            .and_then(|fixed| parse_start(&fixed))
            .map(|(ms, _)| ms)
            .ok_or_else(|| self.err(key, format!("{t:?} is not a TIME")))
    }

    /// Seconds (a number) as milliseconds.
    fn millis(&self, key: &str) -> Result<u64, PackageError> {
        match &self.v[key] {
            Value::Null => Ok(0),
            v => v
                .as_f64()
                .filter(|s| *s >= 0.0)
                .map(|s| (s * 1000.0).round() as u64)
                .ok_or_else(|| self.err(key, format!("{v} is not a number of seconds"))),
        }
    }

    fn verdict(&self, key: &str) -> Result<Verdict, PackageError> {
        let t = self.text(key)?;
        judgement_verdict(&t).ok_or_else(|| {
            self.err(
                key,
                format!("{t:?} is no judgement type ojd has (AC, WA, TLE, MLE, OLE, RTE, CE, JE)"),
            )
        })
    }
}

/// The ojd verdict of a judgement type id (the Contest API's, as ojd serves them).
pub(crate) fn judgement_verdict(id: &str) -> Option<Verdict> {
    match id {
        "RTE" => Some(Verdict::RuntimeError),
        "CS" => Some(Verdict::Skipped),
        other => Verdict::from_code(other).filter(|v| *v != Verdict::Skipped),
    }
}

/// Reads the history of the package in `dir` that `plan` makes a contest of: every
/// submission of one of its teams (or any team, in a contest open to anyone) on one of its
/// problems.
pub fn history(dir: &Path, plan: &Plan) -> Result<Past, PackageError> {
    let mut warnings = Vec::new();
    let problems: Vec<&str> = plan
        .draft
        .problems
        .iter()
        .map(|p| p.problem.as_str())
        .collect();
    let open = plan.draft.participants == "anyone";
    let team = |a: &At<'_>, key: &str| -> Result<String, PackageError> {
        let t = a.text(key)?;
        if open || plan.teams.iter().any(|x| x.user == t) {
            Ok(t)
        } else {
            Err(a.err(key, format!("{t:?} is not a team of teams.json")))
        }
    };

    // Runs by judgement, in order.
    let (rpath, runs) = list(dir, "runs")?;
    let mut runs_of: HashMap<String, BTreeMap<u64, (Verdict, u64)>> = HashMap::new();
    for (i, v) in runs.iter().enumerate() {
        let a = At { path: &rpath, i, v };
        let ordinal = v["ordinal"]
            .as_u64()
            .ok_or_else(|| a.err("ordinal", format!("{} is not a number", v["ordinal"])))?;
        let run = (a.verdict("judgement_type_id")?, a.millis("run_time")?);
        runs_of
            .entry(a.text("judgement_id")?)
            .or_default()
            .insert(ordinal, run);
    }

    // Judgements by submission, in the order they were made (the current one last).
    let (jpath, judgements) = list(dir, "judgements")?;
    let mut judgings_of: HashMap<String, Vec<(bool, PastJudging)>> = HashMap::new();
    for (i, v) in judgements.iter().enumerate() {
        let a = At { path: &jpath, i, v };
        let id = a.id("id")?;
        if v["judgement_type_id"].is_null() || v["end_time"].is_null() {
            warnings.push(format!(
                "{}: [{i}]: judgement {id} had not ended when the package was written (not kept)",
                jpath.display()
            ));
            continue;
        }
        let score_milli = match &v["score"] {
            Value::Null => 0,
            s => s
                .as_f64()
                .filter(|s| *s >= 0.0)
                .map(|s| (s * 1000.0).round() as u64)
                .ok_or_else(|| a.err("score", format!("{s} is not a score")))?,
        };
        let runs = runs_of
            .remove(&id.to_string())
            .map(|r| r.into_values().collect())
            .unwrap_or_default();
        let j = PastJudging {
            id,
            started_at: a.time("start_time")?,
            finished_at: a.time("end_time")?,
            verdict: a.verdict("judgement_type_id")?,
            score_milli,
            max_cpu_ms: a.millis("max_run_time")?,
            runs,
        };
        // 2026-01 says which is current; otherwise the last made is.
        let current = v["current"] != Value::Bool(false);
        judgings_of
            .entry(a.text("submission_id")?)
            .or_default()
            .push((current, j));
    }
    if let Some(orphan) = runs_of.keys().next() {
        return Err(bad(
            &rpath,
            &format!("judgement_id {orphan:?} is not a judgement of judgements.json"),
        ));
    }

    let (spath, subs) = list(dir, "submissions")?;
    let mut submissions = Vec::new();
    for (i, v) in subs.iter().enumerate() {
        let a = At { path: &spath, i, v };
        let id = a.id("id")?;
        let problem = a.text("problem_id")?;
        if !problems.contains(&problem.as_str()) {
            return Err(a.err(
                "problem_id",
                format!("{problem:?} is not a problem of problems.json"),
            ));
        }
        let mut judgings = judgings_of.remove(&id.to_string()).unwrap_or_default();
        judgings.sort_by_key(|(current, j)| (*current, j.id));
        submissions.push(PastSubmission {
            id,
            user: team(&a, "team_id")?,
            problem,
            language: a.text("language_id")?,
            source: source(dir, id)?,
            at: a.time("time")?,
            judgings: judgings.into_iter().map(|(_, j)| j).collect(),
        });
    }
    if let Some(orphan) = judgings_of.keys().next() {
        return Err(bad(
            &jpath,
            &format!("submission_id {orphan:?} is not a submission of submissions.json"),
        ));
    }

    let (cpath, clars) = list(dir, "clarifications")?;
    let mut clarifications: Vec<PastClarification> = Vec::new();
    let mut replies = Vec::new();
    let mut more: Vec<(i64, String, bool, i64)> = Vec::new();
    for (i, v) in clars.iter().enumerate() {
        let a = At { path: &cpath, i, v };
        let problem = a.opt("problem_id")?;
        if let Some(p) = &problem {
            if !problems.contains(&p.as_str()) {
                return Err(a.err(
                    "problem_id",
                    format!("{p:?} is not a problem of problems.json"),
                ));
            }
        }
        if !v["reply_to_id"].is_null() {
            replies.push((i, a.id("reply_to_id")?));
            continue;
        }
        // The recipients: 2023-06's one `to_team_id`, 2026-01's `to_team_ids` and
        // `to_group_ids` (a group's teams are its recipients, as they are on ojd's pages).
        let mut to: Vec<String> = Vec::new();
        match &v["to_team_ids"] {
            Value::Array(list) => {
                for t in list {
                    let Some(t) = t.as_str() else {
                        return Err(a.err("to_team_ids", format!("{t} is not an id")));
                    };
                    if !(open || plan.teams.iter().any(|x| x.user == t)) {
                        let msg = format!("{t:?} is not a team of teams.json");
                        return Err(a.err("to_team_ids", msg));
                    }
                    if !to.iter().any(|u| u == t) {
                        to.push(t.to_string());
                    }
                }
            }
            _ => to.extend(a.opt("to_team_id")?),
        }
        let mut to_groups: Vec<String> = Vec::new();
        if let Value::Array(list) = &v["to_group_ids"] {
            let groups = plan.ccs["groups"].as_array().cloned().unwrap_or_default();
            for g in list {
                let found = groups.iter().find(|x| x["id"] == *g);
                let Some(found) = found else {
                    let msg = format!("{g} is not a group of groups.json");
                    return Err(a.err("to_group_ids", msg));
                };
                let name = found["name"].as_str().or(found["id"].as_str());
                let name = name.unwrap_or_default().to_string();
                for t in plan
                    .teams
                    .iter()
                    .filter(|t| t.groups().contains(&name.as_str()))
                {
                    if !to.contains(&t.user) {
                        to.push(t.user.clone());
                    }
                }
                to_groups.push(name);
            }
        }
        let mut to = to.into_iter();
        let to_user = to.next();
        let to_more: Vec<String> = to.collect();
        let user = match v["from_team_id"] {
            Value::Null => None,
            _ => Some(team(&a, "from_team_id")?),
        };
        clarifications.push(PastClarification {
            id: a.id("id")?,
            user,
            to_user,
            to_more,
            to_groups,
            problem,
            text: a.text("text")?,
            at: a.time("time")?,
            answer: None,
        });
    }
    for (i, question) in replies {
        let v = &clars[i];
        let a = At { path: &cpath, i, v };
        let Some(q) = clarifications
            .iter_mut()
            .find(|q| q.id == question && q.user.is_some())
        else {
            return Err(a.err(
                "reply_to_id",
                format!("{question} is not a team's question in this file"),
            ));
        };
        let public = v["to_team_id"].is_null() && v["to_team_ids"].is_null();
        let reply = (a.text("text")?, public, a.time("time")?);
        // The first reply is the question's answer; each later one is kept after it.
        let n =
            1 + more.iter().filter(|r| r.0 == question).count() + usize::from(q.answer.is_some());
        if q.answer.is_none() {
            q.answer = Some(reply);
        } else {
            more.push((question, reply.0, reply.1, reply.2));
        }
        let id = a.text("id")?;
        let served = crate::ccs::reply_id(question, n);
        if id != served {
            warnings.push(format!(
                "{}: [{i}]: reply {id:?} is served as {served}",
                cpath.display()
            ));
        }
    }

    let state_path = dir.join("state.json");
    let thawed_at = match read_doc(dir, "state")? {
        Some((p, v)) if !v["thawed"].is_null() => {
            let a = At {
                path: &p,
                i: 0,
                v: &v,
            };
            Some(a.time("thawed").map_err(|_| {
                bad(
                    &state_path,
                    &format!("thawed: {} is not a TIME", v["thawed"]),
                )
            })?)
        }
        _ => None,
    };
    Ok(Past {
        history: History {
            submissions,
            clarifications,
            thawed_at,
        },
        more: HistoryMore { replies: more },
        warnings,
    })
}

/// Submission `id`'s source: the one file of `submissions/<id>/files.zip`.
fn source(dir: &Path, id: i64) -> Result<Vec<u8>, PackageError> {
    let p = dir
        .join("submissions")
        .join(id.to_string())
        .join("files.zip");
    let bytes = read_bytes(&p)?.ok_or_else(|| {
        bad(
            &p,
            "missing (a submission is kept with its files; `ojd contest export --from` writes them)",
        )
    })?;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| bad(&p, &format!("not a zip archive: {e}")))?;
    let files: Vec<usize> = (0..zip.len())
        .filter(|i| zip.by_index(*i).is_ok_and(|f| f.is_file()))
        .collect();
    let [only] = files[..] else {
        return Err(bad(
            &p,
            &format!(
                "holds {} files; ojd keeps a submission of one file",
                files.len()
            ),
        ));
    };
    let file = zip
        .by_index(only)
        .map_err(|e| bad(&p, &format!("unreadable: {e}")))?;
    let mut source = Vec::new();
    file.take(MAX_SOURCE + 1)
        .read_to_end(&mut source)
        .map_err(|e| bad(&p, &format!("unreadable: {e}")))?;
    if source.len() as u64 > MAX_SOURCE {
        return Err(bad(&p, "its file is larger than 16 MiB"));
    }
    Ok(source)
}

/// Stores `past` as contest `id`'s in the database `database` (a SQLite path or a
/// PostgreSQL URL), in one transaction. A row the package has that is another in the
/// database is refused as bad input, naming it.
pub fn load(database: &str, id: &str, past: &Past) -> Result<Loaded, PackageError> {
    let store = ojd_store::open(database).map_err(PackageError::Store)?;
    store
        .load_history_more(id, &past.history, &past.more)
        .map_err(|e| match e {
            ojd_store::StoreError::Conflict(why) => {
                PackageError::Bad(format!("contest {id}: {why}; nothing was stored"))
            }
            other => PackageError::Store(other),
        })
}

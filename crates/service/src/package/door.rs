//! The running daemon's door to a contest package: what the admin web imports. The package
//! (a folder the caller unpacked, within its caps) is read as data and checked whole
//! ([`Node::preview_package`]: what the import will create, or the first mistake naming its
//! file and key), then imported ([`Node::import_package`]): `contest.toml` and `ccs.json`
//! written, and the history stored through the node's own store, in one transaction, so the
//! daemon's connection (and its database lock) is the one that writes.
//!
//! The problems are not imported here: a contest package holds Kattis packages, whose import
//! needs the sandbox (`ojd contest import`). Every problem the package names must be served
//! by this daemon already; one that is not is refused naming its place in `problems.json`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{history, plan, write, Package, PackageError, Past, Plan};
use crate::node::{DbError, Node};

/// One import at a time: two at once could both find the contest's folder free.
static IMPORTING: Mutex<()> = Mutex::new(());

/// A problem of the package as the import will use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageProblem {
    /// Its label in the contest ("A").
    pub label: String,
    /// Its id: the folder under `problems/` it is served from.
    pub id: String,
    /// Its title as this daemon serves it.
    pub title: String,
}

/// What importing a package will create, said before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preview {
    /// The contest's id (its folder and its pages' address).
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its start (RFC 3339), or empty: not scheduled.
    pub start: String,
    /// Its length as a director reads it (`5 h (5:00:00)`, `10 min 1 s (0:10:01)`).
    pub duration: String,
    /// Its problems, in the contest's order.
    pub problems: Vec<PackageProblem>,
    /// How many teams the roster has.
    pub teams: usize,
    /// How many of them are hidden (observers and jury).
    pub hidden: usize,
    /// How many organizations and groups `ccs.json` keeps.
    pub organizations: usize,
    /// How many groups.
    pub groups: usize,
    /// Past submissions to store, with their judgements.
    pub submissions: usize,
    /// Judgements among them.
    pub judgements: usize,
    /// Past clarifications to store.
    pub clarifications: usize,
    /// Whether the contest was finalized.
    pub finalized: bool,
    /// The same package was imported already: only what the database misses is stored.
    pub again: bool,
    /// What the import leaves out, one line each.
    pub warnings: Vec<String>,
}

/// What an import stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// What was planned (the same as the preview of that package).
    pub preview: Preview,
    /// Submissions stored now.
    pub submissions: u64,
    /// Judgements stored now.
    pub judgements: u64,
    /// Clarifications stored now.
    pub clarifications: u64,
    /// Items the database held already.
    pub kept: u64,
}

/// The package's mistakes name its files as they are inside it, not where it was unpacked.
fn relative(dir: &Path, e: PackageError) -> PackageError {
    let prefix = format!("{}/", dir.display());
    match e {
        PackageError::Bad(m) => PackageError::Bad(m.replace(&prefix, "")),
        PackageError::Io { path, source } => PackageError::Io {
            path: path
                .strip_prefix(dir)
                .map_or(path.clone(), Path::to_path_buf),
            source,
        },
        other => other,
    }
}

impl Node {
    /// Reads and checks the package in `dir` as contest `id` (default: the package's own id,
    /// else the folder's name) and says what its import will create; nothing is written.
    pub async fn preview_package(
        self: &Arc<Self>,
        dir: PathBuf,
        id: Option<String>,
    ) -> Result<Preview, PackageError> {
        let node = self.clone();
        tokio::task::spawn_blocking(move || {
            node.check_package(&dir, id)
                .map(|(_, _, preview)| preview)
                .map_err(|e| relative(&dir, e))
        })
        .await
        .map_err(|e| PackageError::Bad(format!("the package's check stopped: {e}")))?
    }

    /// Imports the package in `dir` as contest `id` (see [`Node::preview_package`]): its
    /// folder written, its history stored in one transaction; when the history is refused
    /// the folder this import wrote is removed again, so a failed import changes nothing.
    /// The caller reloads its contests afterwards.
    pub async fn import_package(
        self: &Arc<Self>,
        dir: PathBuf,
        id: Option<String>,
    ) -> Result<Imported, PackageError> {
        let node = self.clone();
        let (plan, past, preview) = tokio::task::spawn_blocking(move || {
            let _one = IMPORTING.lock().unwrap_or_else(|e| e.into_inner());
            node.write_package(&dir, id).map_err(|e| relative(&dir, e))
        })
        .await
        .map_err(|e| PackageError::Bad(format!("the import stopped: {e}")))??;
        let contest = plan.id.clone();
        let stored = self
            .db(move |s| s.load_history_more(&contest, &past.history, &past.more))
            .await;
        match stored {
            Ok(loaded) => Ok(Imported {
                preview,
                submissions: loaded.submissions,
                judgements: loaded.judgings,
                clarifications: loaded.clarifications,
                kept: loaded.kept,
            }),
            Err(e) => {
                if !plan.again {
                    // Best effort: the folder was written just now, by this import.
                    let _ = std::fs::remove_dir_all(self.config().server.contests.join(&plan.id));
                }
                Err(match e {
                    DbError::Store(ojd_store::StoreError::Conflict(why)) => {
                        PackageError::Bad(format!("contest {}: {why}; nothing was stored", plan.id))
                    }
                    DbError::Store(other) => PackageError::Store(other),
                    DbError::Task(why) => {
                        PackageError::Bad(format!("storing the history stopped: {why}"))
                    }
                })
            }
        }
    }

    /// The plan, the history and the preview of the package in `dir`, every problem served.
    fn check_package(
        &self,
        dir: &Path,
        id: Option<String>,
    ) -> Result<(Plan, Past, Preview), PackageError> {
        let p = Package::read(dir)?;
        let plan = plan(&p, id, &self.config().server.contests)?;
        let catalog = self.catalog();
        let mut problems = Vec::new();
        for (d, (i, _)) in plan.draft.problems.iter().zip(&plan.problems) {
            let Some(entry) = catalog.problems.get(&d.problem) else {
                return Err(PackageError::Bad(format!(
                    "{}: [{i}].id: problem {:?} is not served here: upload its package on the \
                     problems page first (or import the contest with `ojd contest import`, \
                     which imports its Kattis packages)",
                    p.problems.0.display(),
                    d.problem
                )));
            };
            problems.push(PackageProblem {
                label: d.label.clone(),
                id: d.problem.clone(),
                title: entry.problem.title.clone(),
            });
        }
        let past = history(dir, &plan)?;
        let ccs = |key: &str| plan.ccs[key].as_array().map_or(0, Vec::len);
        let preview = Preview {
            id: plan.id.clone(),
            title: plan.draft.title.clone(),
            start: plan.draft.start.clone(),
            duration: readable_span(&plan.draft.duration),
            problems,
            teams: plan.teams.len(),
            hidden: plan
                .teams
                .iter()
                .filter(|t| t.category != crate::contest::Category::Participant)
                .count(),
            organizations: ccs("organizations"),
            groups: ccs("groups"),
            submissions: past.history.submissions.len(),
            judgements: past
                .history
                .submissions
                .iter()
                .map(|s| s.judgings.len())
                .sum(),
            clarifications: past.history.clarifications.len(),
            finalized: plan.finalized_ms.is_some(),
            again: plan.again,
            warnings: plan
                .warnings
                .iter()
                .chain(&past.warnings)
                .cloned()
                .collect(),
        };
        Ok((plan, past, preview))
    }

    /// Checks the package again (the folder may have changed since the preview) and writes
    /// the contest's folder.
    fn write_package(
        &self,
        dir: &Path,
        id: Option<String>,
    ) -> Result<(Plan, Past, Preview), PackageError> {
        let (plan, past, preview) = self.check_package(dir, id)?;
        let config = self.config();
        write(&plan, &config.server.contests, &config.server.problems)?;
        Ok((plan, past, preview))
    }
}

/// A `contest.toml` span (`0h10m1s`, as the import writes one) as a director reads it, with
/// the standard's RELTIME beside it: `10 min 1 s (0:10:01)`; anything else as it is.
fn readable_span(span: &str) -> String {
    let mut secs = 0u64;
    let mut parts = Vec::new();
    let mut n = String::new();
    for c in span.chars() {
        if c.is_ascii_digit() {
            n.push(c);
            continue;
        }
        let Ok(v) = n.parse::<u64>() else {
            return span.to_string();
        };
        n.clear();
        let (unit, factor) = match c {
            'h' => ("h", 3600),
            'm' => ("min", 60),
            's' => ("s", 1),
            _ => return span.to_string(),
        };
        secs += v * factor;
        if v > 0 {
            parts.push(format!("{v} {unit}"));
        }
    }
    if !n.is_empty() || span.is_empty() {
        return span.to_string();
    }
    let words = if parts.is_empty() {
        "0 s".to_string()
    } else {
        parts.join(" ")
    };
    format!("{words} ({})", super::reltime(secs))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_length_reads_as_words_and_a_reltime() {
        for (span, want) in [
            ("0h10m1s", "10 min 1 s (0:10:01)"),
            ("5h0m0s", "5 h (5:00:00)"),
            ("2h30m0s", "2 h 30 min (2:30:00)"),
            ("0h0m0s", "0 s (0:00:00)"),
            ("five", "five"),
        ] {
            assert_eq!(super::readable_span(span), want, "{span}");
        }
    }
}

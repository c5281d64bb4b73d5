//! The daemon's problems: every package folder under `[server] problems`, loaded and validated,
//! its answers generated when missing or stale, its statement rendered once to HTML.
//!
//! A package that fails to load, or whose answers cannot be built, is reported (log, admin API,
//! metrics) and left out; the others are served. A reload builds a new [`Catalog`] and swaps
//! it in whole, so a judging in flight keeps the [`Problem`] it started with.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use ojd_judge::answers::{self, GenOptions};
use ojd_judge::Config;
use ojd_judge::Judge;
use ojd_judge::Problem;

/// Renders a statement's Markdown to safe HTML: `(text, drop_samples)`, where `drop_samples`
/// says the problem has sample tests that pages show from the files (the web layer's
/// renderer; a judge host, which shows no pages, renders nothing).
pub(crate) type StatementRenderer = fn(&str, bool) -> String;

/// A problem the daemon serves.
pub struct Entry {
    pub problem: Arc<Problem>,
    /// The statement as HTML, made safe by the node's [`StatementRenderer`] (without the
    /// title, which pages show as their heading).
    pub statement_html: String,
}

/// A folder that is not served, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub folder: String,
    pub error: String,
}

#[derive(Default)]
pub struct Catalog {
    pub problems: BTreeMap<String, Entry>,
    pub failed: Vec<Failure>,
}

impl Catalog {
    /// Loads every problem folder (blocking; generates answers when the config says so).
    pub(crate) fn load(config: &Config, judge: &Judge, render: StatementRenderer) -> Catalog {
        let dir = &config.server.problems;
        let mut catalog = Catalog::default();
        let mut folders: Vec<_> = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect(),
            Err(e) => {
                catalog.failed.push(Failure {
                    folder: dir.display().to_string(),
                    error: format!("cannot read the problems folder: {e}"),
                });
                return catalog;
            }
        };
        folders.sort();
        for folder in folders {
            let hidden = folder
                .file_name()
                .and_then(|n| n.to_str())
                .is_none_or(|n| n.starts_with('.'));
            if hidden {
                continue;
            }
            match load_problem(&folder, config.server.generate_answers, judge) {
                Ok(problem) => {
                    let has_samples = problem.tests.iter().any(|t| t.sample);
                    let statement_html =
                        render(&problem.statement().unwrap_or_default(), has_samples);
                    catalog.problems.insert(
                        problem.id.clone(),
                        Entry {
                            problem: Arc::new(problem),
                            statement_html,
                        },
                    );
                }
                Err(error) => catalog.failed.push(Failure {
                    folder: folder.display().to_string(),
                    error,
                }),
            }
        }
        catalog
    }

    /// Logs what was loaded and what failed.
    pub(crate) fn report(&self) {
        let ids: Vec<&str> = self.problems.keys().map(String::as_str).collect();
        crate::logging::log(&format!(
            "{} problem(s) ready: {}",
            ids.len(),
            ids.join(", ")
        ));
        for f in &self.failed {
            crate::logging::log(&format!(
                "problem folder {} is not served:\n{}",
                f.folder, f.error
            ));
        }
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.problems.get(id)
    }

    pub fn ready_count(&self) -> usize {
        self.problems.len()
    }
}

/// Loads one package, generating its answers first when asked and needed.
pub fn load_problem(folder: &Path, generate: bool, judge: &Judge) -> Result<Problem, String> {
    let problem = Problem::load(folder).map_err(|e| e.to_string())?;
    if !generate || !needs_generation(&problem) {
        return check_answers(problem);
    }
    crate::logging::log(&format!(
        "{}: building answers (missing, or stale against {})",
        problem.id,
        answers::LOCK_FILE
    ));
    let summary = answers::generate(judge, &problem, &GenOptions::default())
        .map_err(|e| format!("answers: {e}"))?;
    crate::logging::log(&format!(
        "{}: {} answer(s) written, {} unchanged",
        problem.id, summary.answers_written, summary.answers_unchanged
    ));
    // Generation may have written inputs that the first load did not see.
    check_answers(Problem::load(folder).map_err(|e| e.to_string())?)
}

/// Whether `ojd gen` has work to do, decided from the hashes in `answers.lock` alone, so that an
/// unchanged package starts without compiling its reference.
pub fn needs_generation(problem: &Problem) -> bool {
    !answers::stale_answers(problem).is_empty()
}

fn check_answers(problem: Problem) -> Result<Problem, String> {
    let missing: Vec<&str> = problem
        .missing_answers()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    if missing.is_empty() {
        Ok(problem)
    } else {
        Err(format!(
            "missing answers for {} (run `ojd gen {}`)",
            missing.join(", "),
            problem.dir.display()
        ))
    }
}

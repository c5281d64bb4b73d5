//! The daemon's problems: every package folder under `[server] problems`, loaded and validated,
//! its answers generated when missing or stale, its statement rendered once to HTML.
//!
//! A package that fails to load, whose answers cannot be built or whose statement cannot be
//! rendered, is reported (log, admin API, metrics) and left out; the others are served. A reload builds a new [`Catalog`] and swaps
//! it in whole, so a judging in flight keeps the [`Problem`] it started with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use ojd_config::Config;
use ojd_judge::answers::{self, GenOptions};
use ojd_judge::Judge;
use ojd_judge::Problem;

/// Renders a statement's Markdown to safe HTML: `(text, drop_samples)`, where `drop_samples`
/// says the problem has sample tests that pages show from the files (the web layer's
/// renderer; a judge host, which shows no pages, renders nothing).
pub type StatementRenderer = fn(&str, bool) -> String;

/// A problem the daemon serves.
pub struct Entry {
    /// The validated package.
    pub problem: Arc<Problem>,
    /// The statement as HTML, made safe by the node's [`StatementRenderer`] (without the
    /// title, which pages show as their heading).
    pub statement_html: String,
}

/// A folder that is not served, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    /// The folder under the problems folder.
    pub folder: String,
    /// Why it does not load.
    pub error: String,
}

/// The problems a node serves: those that load, by id, and the folders that do not, with why.
#[derive(Default)]
pub struct Catalog {
    /// The problems that load, by id.
    pub problems: BTreeMap<String, Entry>,
    /// The folders that do not load, with the reason.
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
            let loaded = load_problem(&folder, config.server.generate_answers, judge)
                .and_then(|problem| Ok((render_statement(&problem, render)?, problem)));
            match loaded {
                Ok((statement_html, problem)) => {
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
                    error: error.to_string(),
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

    /// The problem `id`, if it loads.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.problems.get(id)
    }

    /// How many problems load.
    pub fn ready_count(&self) -> usize {
        self.problems.len()
    }
}

/// A problem's statement as HTML by `render`, or why it cannot be shown. A renderer that
/// panics on a statement is a fault of that one package (its author wrote it, the renderer
/// failed on it) and must not take the daemon and every other problem down with it: the
/// panic is caught here and becomes this package's load error.
pub fn render_statement(
    problem: &Problem,
    render: StatementRenderer,
) -> Result<String, ProblemError> {
    let text = problem.statement().unwrap_or_default();
    let has_samples = problem.tests.iter().any(|t| t.sample);
    std::panic::catch_unwind(|| render(&text, has_samples)).map_err(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        ProblemError::Statement {
            dir: problem.dir.clone(),
            why,
        }
    })
}

/// Why a package is not served: each names the package or what to do.
#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    /// The package does not load: every problem found, one a line.
    #[error("{0}")]
    Load(String),
    /// Its answers could not be generated.
    #[error("answers: {0}")]
    Answers(String),
    /// Tests without an answer, and answers are not generated here.
    #[error("missing answers for {} (run `ojd gen {}`)", .tests.join(", "), .dir.display())]
    MissingAnswers {
        /// The tests without an answer, by name.
        tests: Vec<String>,
        /// The package's folder.
        dir: PathBuf,
    },
    /// The statement renderer failed (panicked) on this package's statement.
    #[error("{}: the statement cannot be rendered ({why})", .dir.display())]
    Statement {
        /// The package's folder.
        dir: PathBuf,
        /// The renderer's panic message.
        why: String,
    },
}

/// Loads one package, generating its answers first when asked and needed.
pub fn load_problem(folder: &Path, generate: bool, judge: &Judge) -> Result<Problem, ProblemError> {
    let problem = Problem::load(folder).map_err(|e| ProblemError::Load(e.to_string()))?;
    if !generate || !needs_generation(&problem) {
        return check_answers(problem);
    }
    crate::logging::log(&format!(
        "{}: building answers (missing, or stale against {})",
        problem.id,
        answers::LOCK_FILE
    ));
    let summary = answers::generate(judge, &problem, &GenOptions::default())
        .map_err(|e| ProblemError::Answers(e.to_string()))?;
    crate::logging::log(&format!(
        "{}: {} answer(s) written, {} unchanged",
        problem.id, summary.answers_written, summary.answers_unchanged
    ));
    // Generation may have written inputs that the first load did not see.
    check_answers(Problem::load(folder).map_err(|e| ProblemError::Load(e.to_string()))?)
}

/// Whether `ojd gen` has work to do, decided from the hashes in `answers.lock` alone, so that an
/// unchanged package starts without compiling its reference.
pub fn needs_generation(problem: &Problem) -> bool {
    !answers::stale_answers(problem).is_empty()
}

fn check_answers(problem: Problem) -> Result<Problem, ProblemError> {
    let missing: Vec<String> = problem
        .missing_answers()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    if missing.is_empty() {
        Ok(problem)
    } else {
        Err(ProblemError::MissingAnswers {
            tests: missing,
            dir: problem.dir.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(root: &Path, id: &str, statement: &str) {
        let dir = root.join(id);
        std::fs::create_dir_all(dir.join("tests")).expect("mkdir");
        std::fs::write(
            dir.join("problem.toml"),
            "title = \"T\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\nanswers = \"given\"\n",
        )
        .expect("write");
        std::fs::write(dir.join("statement.md"), statement).expect("write");
        std::fs::write(dir.join("tests/1.in"), "1\n").expect("write");
        std::fs::write(dir.join("tests/1.ans"), "1\n").expect("write");
    }

    /// A renderer that fails on one statement, as the maths renderer once did on `\é`.
    fn fragile(text: &str, _samples: bool) -> String {
        assert!(!text.contains("poison"), "a renderer bug");
        format!("<p>{text}</p>")
    }

    #[test]
    fn a_statement_that_crashes_the_renderer_is_one_packages_load_error() {
        let root = tempfile::tempdir().expect("tempdir");
        package(root.path(), "good", "fine");
        package(root.path(), "bad", "poison");
        let mut config = Config::defaults();
        config.server.problems = root.path().to_path_buf();
        config.server.generate_answers = false;
        let judge = Judge::new(config.judging(), 1).expect("judge");
        let catalog = Catalog::load(&config, &judge, fragile);
        assert!(
            catalog.get("good").is_some(),
            "the others are served: {:?}",
            catalog.failed
        );
        assert!(catalog.get("bad").is_none());
        assert_eq!(catalog.failed.len(), 1, "{:?}", catalog.failed);
        let f = &catalog.failed[0];
        assert!(f.folder.ends_with("bad"), "{f:?}");
        assert!(
            f.error.contains("statement cannot be rendered") && f.error.contains("a renderer bug"),
            "{f:?}"
        );
    }
}

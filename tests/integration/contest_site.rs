//! A contest site for the tests of `contests`, `contests_browser` and `director`, set up in one
//! place: a [`Site`] whose `[server] contests` is a temporary folder of its own, with the
//! settings every contest test runs with (no answers generated, no rate limit), and the
//! `contest.toml` files written into that folder ([`ContestSite::contest`]).
//!
//! ```text
//! let cs = ContestSite::on(database);            // or ContestSite::new() for SQLite
//! cs.contest("live", now_ms() - 600_000).lasting("2h").keys("freeze = \"1h\"").write();
//! let d = cs.start();
//! ```

use std::path::{Path, PathBuf};

use crate::daemon::{Daemon, Site};

/// The settings of every contest site, besides its contests folder.
const SETTINGS: &str = "generate_answers = false\nrate_limit_per_minute = 0";

/// A site with a contests folder of its own (both removed when it is dropped).
pub(crate) struct ContestSite {
    pub(crate) site: Site,
    contests: tempfile::TempDir,
}

/// A contest site with more than the usual: another database, more settings.
#[derive(Default)]
pub(crate) struct SiteBuilder {
    database: Option<String>,
    settings: String,
}

impl SiteBuilder {
    /// The database `url` (PostgreSQL) instead of a SQLite file; `None` keeps SQLite.
    pub(crate) fn database(mut self, url: Option<&str>) -> SiteBuilder {
        self.database = url.map(str::to_string);
        self
    }

    /// More lines of `config.toml` after the usual `[server]` settings (more `[server]` keys,
    /// `[[server.users]]`, other tables).
    pub(crate) fn settings(mut self, lines: &str) -> SiteBuilder {
        self.settings = lines.to_string();
        self
    }

    pub(crate) fn build(self) -> ContestSite {
        let contests = tempfile::tempdir().expect("temp dir");
        let mut server = format!("contests = \"{}\"\n{SETTINGS}", contests.path().display());
        if !self.settings.is_empty() {
            server.push('\n');
            server.push_str(&self.settings);
        }
        let site = Site::with_database(self.database.as_deref(), &server);
        ContestSite { site, contests }
    }
}

impl ContestSite {
    /// A contest site on SQLite.
    pub(crate) fn new() -> ContestSite {
        ContestSite::builder().build()
    }

    /// A contest site on `database` (PostgreSQL), or on SQLite for `None`.
    pub(crate) fn on(database: Option<&str>) -> ContestSite {
        ContestSite::builder().database(database).build()
    }

    pub(crate) fn builder() -> SiteBuilder {
        SiteBuilder::default()
    }

    /// The contests folder.
    pub(crate) fn contests(&self) -> &Path {
        self.contests.path()
    }

    /// `contests/<id>/contest.toml`.
    pub(crate) fn file(&self, id: &str) -> PathBuf {
        self.contests().join(id).join("contest.toml")
    }

    /// The site's folder (its `problems/`, `config.toml`, database).
    pub(crate) fn path(&self) -> &Path {
        self.site.path()
    }

    /// `problems/<name>`: a copy of the fixture problem `aplusb` under another name.
    pub(crate) fn copy_problem(&self, name: &str) {
        let problems = self.path().join("problems");
        let copy = std::process::Command::new("cp")
            .arg("-r")
            .arg(problems.join("aplusb"))
            .arg(problems.join(name))
            .status()
            .expect("cp");
        assert!(copy.success());
    }

    /// A `contest.toml` to write for contest `id`, starting at `start_ms` (Unix ms), over
    /// `aplusb` unless told otherwise.
    pub(crate) fn contest(&self, id: &str, start_ms: i64) -> ContestFile {
        ContestFile {
            dir: self.contests().to_path_buf(),
            id: id.to_string(),
            start_ms,
            duration: None,
            keys: String::new(),
            problems: vec!["aplusb".to_string()],
        }
    }

    /// Starts `ojd serve` on the site.
    pub(crate) fn start(&self) -> Daemon {
        self.site.start()
    }
}

/// A contest's `contest.toml`, written by [`ContestFile::write`]: `title` (its id), `start`,
/// `duration` when given, the other keys and tables as given, then a `[[problem]]` per problem.
pub(crate) struct ContestFile {
    dir: PathBuf,
    id: String,
    start_ms: i64,
    duration: Option<String>,
    keys: String,
    problems: Vec<String>,
}

impl ContestFile {
    /// `duration = "<span>"` ("2h", "90m").
    pub(crate) fn lasting(mut self, span: &str) -> ContestFile {
        self.duration = Some(span.to_string());
        self
    }

    /// More of the file, after the clock and before the problems: keys (`freeze`,
    /// `participants`, `feedback`…) and tables (`[[team]]`, `[awards]`).
    pub(crate) fn keys(mut self, text: &str) -> ContestFile {
        self.keys = text.to_string();
        self
    }

    /// The problems, in order (labels A, B, …).
    pub(crate) fn problems(mut self, ids: &[&str]) -> ContestFile {
        self.problems = ids.iter().map(|p| p.to_string()).collect();
        self
    }

    pub(crate) fn write(self) {
        write_contest_file(
            &self.dir,
            &self.id,
            self.start_ms,
            self.duration.as_deref(),
            &self.keys,
            &self.problems,
        );
    }
}

/// Writes `dir/<id>/contest.toml` (see [`ContestFile`]).
pub(crate) fn write_contest_file(
    dir: &Path,
    id: &str,
    start_ms: i64,
    duration: Option<&str>,
    keys: &str,
    problems: &[String],
) {
    let d = dir.join(id);
    std::fs::create_dir_all(&d).expect("mkdir");
    let mut text = format!(
        "title = \"{id}\"\nstart = \"{}\"\n",
        crate::contests::rfc3339(start_ms)
    );
    if let Some(span) = duration {
        text.push_str(&format!("duration = \"{span}\"\n"));
    }
    text.push_str(keys);
    text.push('\n');
    for p in problems {
        text.push_str(&format!("[[problem]]\nid = \"{p}\"\n"));
    }
    std::fs::write(d.join("contest.toml"), text).expect("write contest");
}

//! ojd's configuration as the daemon reads it: `config.toml`, its `[server]`, `[web]` and users'
//! settings and the secrets among them, assembled over the judging settings of `ojd-judge`
//! ([`Config::judging`] is what a [`ojd_judge::Judge`] gets).
//!
//! The repository's `config.toml` is compiled in (`include_str!`) as the defaults; a user file
//! is layered on top of it key by key, so it needs only what it changes. Unknown keys in the
//! user file are errors that name the key (a typo must not silently keep a default).
//!
//! Relative paths in a config file (problems, contests, database, scratch, cache) are relative to
//! that file's folder, not to the folder the command runs in (`Config::resolve_paths`); without
//! a file, the defaults are relative to the working folder.
//!
//! This crate sits between `ojd-judge` and the crates that read the daemon's settings (the store,
//! the service, the web, import and the binary): the binary without its daemon features reads
//! the same file (the problems folder, the languages), so the file's home cannot be the service.

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ojd_judge::{duration_text, ByteSize, JudgeConfig, LanguageConfig, SandboxConfig};
use serde::{Deserialize, Serialize};

/// A value that must never reach a log line, a page or a dump of the config (a token, a
/// database URL with its password): `Debug`, `Display` and `Serialize` all give
/// [`Secret::SHOWN`]; the code reads it through `Deref`. It is read
/// from a config file like the bare value.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    /// What a secret prints as.
    pub const SHOWN: &'static str = "(secret)";
}

impl<T> std::ops::Deref for Secret<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Secret<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T> From<T> for Secret<T> {
    fn from(value: T) -> Secret<T> {
        Secret(value)
    }
}

impl From<&str> for Secret<String> {
    fn from(value: &str) -> Secret<String> {
        Secret(value.to_string())
    }
}

impl From<&str> for Secret<PathBuf> {
    fn from(value: &str) -> Secret<PathBuf> {
        Secret(PathBuf::from(value))
    }
}

impl<T: PartialEq> PartialEq<T> for Secret<T> {
    fn eq(&self, other: &T) -> bool {
        self.0 == *other
    }
}

impl<T> std::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(Self::SHOWN)
    }
}

impl<T> std::fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(Self::SHOWN)
    }
}

impl<T> Serialize for Secret<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(Self::SHOWN)
    }
}

/// The compiled-in defaults.
const DEFAULT_CONFIG: &str = include_str!("../../../config.toml");

/// The whole configuration file, every table of it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[server]`: folders, the database, the daemon's own limits, users.
    pub server: ServerConfig,
    /// `[sandbox]`: see [`Config::judging`].
    pub sandbox: SandboxConfig,
    /// `[judge]`: see [`Config::judging`].
    pub judge: JudgeConfig,
    /// `[web]`: sessions, login codes, limits of the web layer.
    pub web: WebConfig,
    /// `[languages.*]`: the language profiles by id.
    pub languages: BTreeMap<String, LanguageConfig>,
}

/// `[server]` (every key documented in config.toml).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Address the daemon listens on; the port 0 picks a free port.
    pub listen: String,
    /// Folder holding one folder per problem.
    pub problems: PathBuf,
    /// Folder holding one folder per contest (`<id>/contest.toml`).
    pub contests: PathBuf,
    /// How long a computed standings table is served before it is computed again (see
    /// config.toml); `0s` computes on every request.
    #[serde(default = "one_second", with = "duration_text")]
    pub standings_cache: Duration,
    /// How old an event of the Contest API's feed must be before it is sent (see
    /// config.toml): the window in which another node may still store an earlier one.
    #[serde(default = "two_seconds", with = "duration_text")]
    pub feed_settle: Duration,
    /// A SQLite file or a PostgreSQL URL, which may hold a password: never printed.
    pub database: Secret<PathBuf>,
    /// Judging workers; 0 means one per core.
    pub workers: usize,
    /// Whether this node judges too (false: judge hosts do).
    #[serde(default = "yes")]
    pub local_workers: bool,
    /// Largest submission accepted, source or binary.
    pub max_submission_size: ByteSize,
    /// Submissions one user may make per minute (0: no limit).
    pub rate_limit_per_minute: u32,
    /// Whether students see their diffs on secret tests too.
    pub show_secret_diffs: bool,
    /// Problem ids whose secret-test diffs students see anyway.
    pub show_secret_diffs_for: Vec<String>,
    /// Whether the problem list and statements are readable without logging in.
    pub public_statements: bool,
    /// Whether missing or stale answers are built (`ojd gen`) before serving.
    pub generate_answers: bool,
    /// How long in-flight judgings get to finish on SIGTERM or SIGINT.
    #[serde(with = "duration_text")]
    pub shutdown_grace: Duration,
    /// How long what nothing uses any more is kept before it is collected: problem package
    /// versions neither current nor used by a judging that may be rejudged, their blobs, the
    /// rows of hosts gone silent (see config.toml); `0s`: never collect by itself.
    #[serde(default = "thirty_days", with = "duration_text")]
    pub retention: Duration,
    /// The admin token; empty disables it.
    pub admin_token: Secret<String>,
    /// Students and admins known by token (`[[server.users]]`).
    #[serde(default)]
    pub users: Vec<UserConfig>,
}

fn yes() -> bool {
    true
}

fn thirty_days() -> Duration {
    Duration::from_secs(30 * 86400)
}

fn one_second() -> Duration {
    Duration::from_secs(1)
}

fn two_seconds() -> Duration {
    Duration::from_secs(2)
}

/// A student (or admin) known by token.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    /// The user's name.
    pub name: String,
    /// The token the user signs in with.
    pub token: Secret<String>,
    /// Whether the user is an admin.
    #[serde(default)]
    pub admin: bool,
}

/// The web layer's security settings (`[web]`): sessions, login codes, limits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// A request slower than this is answered 503 (event streams and uploads excepted).
    #[serde(with = "duration_text")]
    pub request_timeout: Duration,
    /// Live event streams one user may hold open at once.
    pub max_event_streams_per_user: usize,
    /// Whether anyone who reaches the port may read `/metrics`.
    pub metrics_public: bool,
    /// Failed logins one address may try per minute.
    pub login_attempts_per_minute: u32,
    /// Whether the session cookie is marked `Secure`.
    pub secure_cookies: bool,
    /// How long a browser session lasts after logging in.
    #[serde(with = "duration_text")]
    pub session_lifetime: Duration,
    /// How long a one-time login link stays valid.
    #[serde(with = "duration_text")]
    pub login_code_lifetime: Duration,
    /// Largest problem package archive an admin may upload.
    pub max_package_size: ByteSize,
    /// Most files and folders an uploaded package may unpack to.
    pub max_package_files: usize,
}

/// An operator's mistake in a configuration file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("failed to read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid configuration.
    #[error("{path}: {message}")]
    Invalid {
        /// The file (or "embedded config.toml").
        path: String,
        /// What is wrong, naming the key.
        message: String,
    },
}

fn merge(base: &mut toml::Table, over: toml::Table, prefix: &str, unknown: &mut Vec<String>) {
    for (key, value) in over {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        // New languages and users are welcome; other new keys are typos.
        let open = prefix == "languages" || path == "server.users";
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o, &path, unknown),
            (Some(slot), v) => *slot = v,
            (None, v) if open || prefix.starts_with("languages.") => {
                base.insert(key, v);
            }
            (None, _) => unknown.push(path),
        }
    }
}

impl Config {
    /// The compiled-in defaults.
    pub fn defaults() -> Config {
        Config::parse_layered(None).expect("the embedded config.toml is valid")
    }

    /// Defaults with `path` layered on top.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.into(),
            source,
        })?;
        let mut config = Config::parse_layered(Some((&path.display().to_string(), &text)))?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // The folder exists (the file was just read): its canonical form keeps `..` out of the
        // paths the commands print.
        let dir = std::fs::canonicalize(dir)
            .or_else(|_| std::path::absolute(dir))
            .unwrap_or_else(|_| dir.to_path_buf());
        config.resolve_paths(&dir);
        Ok(config)
    }

    /// What judging needs of this configuration (`[sandbox]`, `[judge]`, `[languages.*]` and
    /// the submission size limit), for [`ojd_judge::Judge::new`].
    pub fn judging(&self) -> ojd_judge::Config {
        ojd_judge::Config {
            sandbox: self.sandbox.clone(),
            judge: self.judge.clone(),
            languages: self.languages.clone(),
            max_submission_size: self.server.max_submission_size,
        }
    }

    /// The language whose extensions include that of `path` (the first line of the source
    /// decides between profiles sharing one).
    pub fn language_for(&self, path: &Path) -> Option<&str> {
        ojd_judge::language_for(&self.languages, path)
    }

    /// Makes every relative path of the config relative to `dir` (the config file's folder), so
    /// `ojd serve`, `ojd worker`, `ojd token` and `ojd doctor` find the same problems, database,
    /// scratch and cache from any working folder. Empty paths ("use the default") and database
    /// URLs stay as they are.
    fn resolve_paths(&mut self, dir: &Path) {
        let resolve = |p: &mut PathBuf| {
            if !p.as_os_str().is_empty() && p.is_relative() {
                *p = dir.join(&*p);
            }
        };
        resolve(&mut self.server.problems);
        resolve(&mut self.server.contests);
        if !is_postgres_url(&self.server.database.to_string_lossy()) {
            resolve(&mut self.server.database);
        }
        resolve(&mut self.sandbox.scratch);
        resolve(&mut self.judge.cache);
    }

    fn parse_layered(user: Option<(&str, &str)>) -> Result<Config, ConfigError> {
        let mut base: toml::Table =
            DEFAULT_CONFIG
                .parse()
                .map_err(|e: toml::de::Error| ConfigError::Invalid {
                    path: "embedded config.toml".into(),
                    message: e.to_string(),
                })?;
        let name = user.map_or("embedded config.toml", |(n, _)| n).to_string();
        if let Some((name, text)) = user {
            let over: toml::Table =
                text.parse()
                    .map_err(|e: toml::de::Error| ConfigError::Invalid {
                        path: name.into(),
                        message: e.to_string().trim().to_string(),
                    })?;
            let mut unknown = Vec::new();
            merge(&mut base, over, "", &mut unknown);
            if !unknown.is_empty() {
                return Err(ConfigError::Invalid {
                    path: name.into(),
                    message: format!(
                        "unknown key{} {}",
                        if unknown.len() > 1 { "s" } else { "" },
                        unknown.join(", ")
                    ),
                });
            }
        }
        let config: Config =
            toml::Value::Table(base)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::Invalid {
                    path: name.clone(),
                    message: e.message().to_string(),
                })?;
        config
            .judging()
            .validate()
            .map_err(|message| ConfigError::Invalid {
                path: name,
                message,
            })?;
        Ok(config)
    }
}

/// Whether `database` (`[server] database`) names a PostgreSQL server rather than a SQLite file.
pub fn is_postgres_url(database: &str) -> bool {
    database.starts_with("postgres://") || database.starts_with("postgresql://")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layering_and_errors() {
        let c = Config::parse_layered(Some(("my.toml", "[judge]\nprocesses = 8\n"))).unwrap();
        assert_eq!(c.judge.processes, 8);
        assert!(c.judge.run_all_tests, "other keys keep their defaults");

        let e = Config::parse_layered(Some(("my.toml", "[judge]\nprocess = 8\n"))).unwrap_err();
        assert_eq!(e.to_string(), "my.toml: unknown key judge.process");

        let e = Config::parse_layered(Some(("my.toml", "[judge]\ncompile_time = \"soon\"\n")))
            .unwrap_err();
        assert!(e.to_string().contains("expected a duration"), "{e}");

        let e = Config::parse_layered(Some(("my.toml", "[judge]\ntool_time = \"100ms\"\n")))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("judge.tool_time: 100ms: expected at least 1s"),
            "{e}"
        );

        let c = Config::parse_layered(Some((
            "my.toml",
            "[languages.go]\nname = \"Go\"\nextensions = [\"go\"]\nsource = \"main.go\"\nexecutable = \"main\"\nrun = [\"/prog/main\"]\n",
        )))
        .unwrap();
        assert_eq!(c.language_for(Path::new("a.go")), Some("go"));
    }

    #[test]
    fn relative_paths_are_relative_to_the_config_file() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("site.toml");
        std::fs::write(
            &file,
            "[server]\nproblems = \"p\"\ndatabase = \"db/ojd.sqlite3\"\ncontests = \"/abs/c\"\n[judge]\ncache = \"\"\n",
        )
        .expect("write");
        let c = Config::load(&file).expect("loads");
        let base = dir.path().canonicalize().expect("canonical");
        assert_eq!(c.server.problems, base.join("p"));
        assert_eq!(c.server.database, base.join("db/ojd.sqlite3"));
        assert_eq!(
            c.server.contests,
            Path::new("/abs/c"),
            "absolute paths stay"
        );
        assert_eq!(c.judge.cache, Path::new(""), "empty means the default");
        assert_eq!(c.sandbox.scratch, Path::new(""));
        let mut url = Config::defaults();
        url.server.database = "postgres://u@127.0.0.1/db".into();
        url.resolve_paths(dir.path());
        assert_eq!(*url.server.database, Path::new("postgres://u@127.0.0.1/db"));
    }

    #[test]
    fn secrets_never_print() {
        let mut c = Config::defaults();
        c.server.database = "postgres://ojd:hunter2-db@10.0.0.5/ojd".into();
        c.server.admin_token = "admin-tok-3141".into();
        c.server.users.push(UserConfig {
            name: "alice".into(),
            token: "alice-tok-2718".into(),
            admin: false,
        });
        let shown = [
            format!("{c:?}"),
            format!("{:?}", c.server),
            format!("{:#?}", c.server.users),
            format!("{}", c.server.admin_token),
            serde_json::to_string(&c).expect("json"),
            toml::to_string(&c).expect("toml"),
        ];
        for text in &shown {
            for secret in ["hunter2-db", "admin-tok-3141", "alice-tok-2718"] {
                assert!(!text.contains(secret), "{secret} shown in {text}");
            }
            assert!(text.contains(Secret::<String>::SHOWN), "{text}");
        }
        // The code still reads them.
        assert_eq!(c.server.admin_token.as_str(), "admin-tok-3141");
        assert!(is_postgres_url(&c.server.database.to_string_lossy()));
        // And a config file gives them as plain values.
        #[derive(Deserialize)]
        struct File {
            token: Secret<String>,
            database: Secret<PathBuf>,
        }
        let read: File = toml::from_str("token = \"t0k\"\ndatabase = \"x.db\"").expect("parses");
        assert_eq!(read.token.as_str(), "t0k");
        assert_eq!(read.database, PathBuf::from("x.db"));
    }
}

#[cfg(test)]
mod judging_tests {
    use super::*;

    #[test]
    fn the_judging_part_is_the_judge_crates_defaults() {
        let whole = Config::defaults();
        let judging = whole.judging();
        let alone = ojd_judge::Config::defaults();
        assert_eq!(
            judging.max_submission_size,
            whole.server.max_submission_size
        );
        assert_eq!(judging.max_submission_size, alone.max_submission_size);
        assert_eq!(
            judging.languages.keys().collect::<Vec<_>>(),
            alone.languages.keys().collect::<Vec<_>>()
        );
        assert_eq!(judging.judge.processes, alone.judge.processes);
        assert_eq!(judging.sandbox.scratch, alone.sandbox.scratch);
    }
}

//! The judging settings of the configuration: the `[sandbox]`, `[judge]` and `[languages.*]`
//! tables of `config.toml` (the language profiles of [`lang`], [`LanguageConfig`]), and the size
//! limit on a submission. The daemon's whole file (`[server]`, `[web]`, users, secrets, the
//! layering of a user's file over the defaults) is assembled above, in `ojd-config`, which builds
//! this part with its `judging()`; what judges needs nothing else.
//!
//! The repository's `config.toml` is compiled in (`include_str!`): [`Config::defaults`] is its
//! judging part.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::lang::{self, LanguageConfig};
use crate::units::{duration_text, ByteSize};

/// The compiled-in defaults (the whole file; this crate reads its judging tables).
const DEFAULT_CONFIG: &str = include_str!("../../../config.toml");

/// What judging needs of the configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Config {
    /// `[sandbox]`: where and as whom programs run.
    pub sandbox: SandboxConfig,
    /// `[judge]`: limits and caches of the judging itself.
    pub judge: JudgeConfig,
    /// `[languages.*]`: the language profiles by id.
    pub languages: BTreeMap<String, LanguageConfig>,
    /// The largest source accepted (`[server] max_submission_size` in the file).
    pub max_submission_size: ByteSize,
}

/// The judging tables of the compiled-in file, the other tables ignored.
#[derive(Deserialize)]
struct Embedded {
    sandbox: SandboxConfig,
    judge: JudgeConfig,
    languages: BTreeMap<String, LanguageConfig>,
    server: EmbeddedServer,
}

#[derive(Deserialize)]
struct EmbeddedServer {
    max_submission_size: ByteSize,
}

fn thirty_seconds() -> Duration {
    Duration::from_secs(30)
}

fn thirty_days() -> Duration {
    Duration::from_secs(30 * 86400)
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// `[sandbox]` (documented in config.toml).
pub struct SandboxConfig {
    /// Folder for compiled programs, outputs and the keepers' roots; empty: a fresh temporary
    /// folder.
    pub scratch: PathBuf,
    /// The first uid programs run as: keeper `i` runs them as `uid_base + i`, never a real user's
    /// uid.
    pub uid_base: u32,
    /// Whether programs run in namespaces and cgroups; false runs them under rlimits only and needs
    /// `allow_insecure_sandbox`.
    pub isolate: bool,
    /// Judge even without full isolation (see config.toml); off by default.
    #[serde(default)]
    pub allow_insecure_sandbox: bool,
    /// Size of the sandbox's working folder `/box` (a tmpfs, counted as memory).
    pub box_size: ByteSize,
    /// Size of `/tmp` inside the sandbox (a tmpfs, counted as memory).
    pub tmp_size: ByteSize,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// `[judge]` (documented in config.toml).
pub struct JudgeConfig {
    pub(crate) wall_factor: f64,
    #[serde(with = "duration_text")]
    pub(crate) wall_extra: Duration,
    pub(crate) output_limit: ByteSize,
    /// Processes and threads a submission may have alive at once.
    pub processes: u32,
    /// Run every test even after a failure; false: the tests after the first failure are Skipped.
    pub run_all_tests: bool,
    /// CPU time a compiler may take (a language may set its own).
    #[serde(with = "duration_text")]
    pub compile_time: Duration,
    /// Memory a compiler may use (a language may set its own).
    pub compile_memory: ByteSize,
    pub(crate) compile_processes: u32,
    pub(crate) compile_output_limit: ByteSize,
    /// CPU time a package's own program (a generator, a validator, the reference making the
    /// answers) may take on one test; the wall time is twice that.
    #[serde(default = "thirty_seconds", with = "duration_text")]
    pub(crate) tool_time: Duration,
    /// The cache folder (empty: inside the scratch folder): compiled programs under `programs/`, a
    /// worker's fetched packages under `packages/`.
    pub cache: PathBuf,
    /// Bound on the compile cache (`<cache>/programs`), held at every moment: least recently
    /// used programs not in use are evicted to admit a new one, or it is used once, uncached.
    pub cache_size: ByteSize,
    /// Free space the scratch folder and the cache each need before a host claims work.
    pub min_free_space: ByteSize,
    /// The largest program the compile cache admits; a bigger one is used once, uncached.
    pub cache_entry_max: ByteSize,
    /// How long a compiled program nobody uses stays in the compile cache (`0s`: until evicted
    /// for room only): older ones are removed when a judge starts and then hourly, never one a
    /// judging uses.
    #[serde(default = "thirty_days", with = "duration_text")]
    pub(crate) cache_retention: Duration,
    /// Bound on a judge host's package cache (`<cache>/packages`), a budget of its own: package
    /// versions neither current nor in use are evicted past it, oldest first.
    pub package_cache_size: ByteSize,
    /// CPUs the sandbox keepers are pinned to: "auto", "off" or a list ("0,2,4-6").
    #[serde(default = "auto")]
    pub pin_cpus: String,
    /// How long after a language's toolchain failed on this host (not found, its probe failed
    /// or timed out) it is probed again; the wait doubles after each failure, up to 15 times
    /// this.
    #[serde(default = "one_minute", with = "duration_text")]
    pub toolchain_recheck: Duration,
    /// How long a language profile's host command (`sysroot_query`, `version`) may take before
    /// it is killed and the language counts as unavailable for now.
    #[serde(default = "thirty_seconds", with = "duration_text")]
    pub toolchain_timeout: Duration,
}

fn one_minute() -> Duration {
    Duration::from_secs(60)
}

fn auto() -> String {
    "auto".into()
}

impl Config {
    /// The judging part of the compiled-in defaults.
    pub fn defaults() -> Config {
        let e: Embedded =
            toml::from_str(DEFAULT_CONFIG).expect("the embedded config.toml is valid");
        Config {
            sandbox: e.sandbox,
            judge: e.judge,
            languages: e.languages,
            max_submission_size: e.server.max_submission_size,
        }
    }

    /// Checks what the types cannot: the message names the field (`judge.tool_time: ...`).
    pub fn validate(&self) -> Result<(), String> {
        for (id, l) in &self.languages {
            if l.run.is_empty() {
                return Err(format!("languages.{id}.run: must not be empty"));
            }
            if !(l.time_factor > 0.0 && l.time_factor <= 100.0) {
                return Err(format!(
                    "languages.{id}.time_factor: expected a number in (0, 100]"
                ));
            }
            if l.memory_extra.bytes() > 16 << 30 {
                return Err(format!(
                    "languages.{id}.memory_extra: {} is over the most allowed, 16GiB",
                    l.memory_extra
                ));
            }
            if l.source.contains('/') || l.executable.contains('/') {
                return Err(format!(
                    "languages.{id}: source and executable must be plain file names"
                ));
            }
        }
        if self.judge.wall_factor.is_nan() || self.judge.wall_factor < 1.0 {
            return Err("judge.wall_factor: expected a number >= 1".into());
        }
        let retention = self.judge.cache_retention;
        if !retention.is_zero() && retention < std::time::Duration::from_secs(3600) {
            return Err(format!(
                "judge.cache_retention: {}: expected \"0s\" (keep programs until evicted for room) or at least 1h, longer than a judging",
                crate::units::format_duration(retention)
            ));
        }
        if self.judge.tool_time < std::time::Duration::from_secs(1) {
            return Err(format!(
                "judge.tool_time: {}: expected at least 1s",
                crate::units::format_duration(self.judge.tool_time)
            ));
        }
        for (key, value) in [
            ("toolchain_recheck", self.judge.toolchain_recheck),
            ("toolchain_timeout", self.judge.toolchain_timeout),
        ] {
            if value < std::time::Duration::from_secs(1) {
                return Err(format!(
                    "judge.{key}: {}: expected at least 1s",
                    crate::units::format_duration(value)
                ));
            }
        }
        ojd_sandbox::affinity::Pinning::parse(&self.judge.pin_cpus)
            .map_err(|e| format!("judge.pin_cpus: {e}"))?;
        Ok(())
    }

    /// The language whose extensions include that of `path` (the first line of the source
    /// decides between profiles sharing one: see `lang::detect`).
    pub fn language_for(&self, path: &Path) -> Option<&str> {
        language_for(&self.languages, path)
    }
}

/// The language of `languages` whose extensions include that of `path`.
pub fn language_for<'a>(
    languages: &'a BTreeMap<String, LanguageConfig>,
    path: &Path,
) -> Option<&'a str> {
    lang::detect(languages, path, b"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        let c = Config::defaults();
        assert!(c.languages.contains_key("rust"));
        assert_eq!(c.judge.output_limit, ByteSize::mib(64));
        assert_eq!(c.language_for(Path::new("a/b.cpp")), Some("cpp"));
        assert_eq!(c.language_for(Path::new("x.py")), Some("python"));
        assert_eq!(c.language_for(Path::new("x")), None);
    }

    #[test]
    fn detection_by_extension_and_shebang() {
        let c = Config::defaults();
        let d =
            |name: &str, head: &str| lang::detect(&c.languages, Path::new(name), head.as_bytes());
        let table = [
            ("a.py", "print(1)\n", Some("python")),
            ("a.py", "#!/usr/bin/env python3\nprint(1)", Some("python")),
            ("a.py", "#!/usr/bin/python2\nprint 1", Some("python2")),
            ("a.py", "#!/usr/bin/env pypy3\n", Some("pypy3")),
            (
                "a.py",
                "# python2 in a comment is no shebang\n",
                Some("python"),
            ),
            ("Main.java", "", Some("java")),
            ("sol.kt", "", Some("kotlin")),
            ("x.cc", "", Some("cpp")),
            ("x", "", None),
        ];
        for (name, head, want) in table {
            assert_eq!(d(name, head), want, "{name} {head:?}");
        }
    }
}

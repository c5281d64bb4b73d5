//! `ojd import kattis DIR`: a Kattis problem package (legacy, 2023-07 and 2025-09) into an ojd
//! package. The main entry is [`import`].
//!
//! What maps onto what:
//! - `problem.yaml`: `name` (a string, or a map by language: English first), `source` /
//!   `author` / `credits`, `limits` (`time_limit` in seconds, `memory` and `output` in MiB), the
//!   kind of problem (legacy `validation: default | custom | custom interactive`, current
//!   `type: pass-fail | scoring | interactive | multi-pass`, legacy `validation: custom
//!   multi-pass`, with `limits.validation_passes` → `passes`), legacy `validator_flags`, `uuid`;
//! - the time limit: `limits.time_limit`, else a legacy `.timelimit` file, else the multiplier
//!   rule (the slowest accepted submission's CPU time times `time_multiplier` (legacy, default
//!   5) or `time_multipliers.ac_to_time_limit` (default 2), rounded up to a whole second),
//!   measured by judging the accepted submissions in the sandbox;
//! - `generators/generators.yaml` (BAPCtools) with no tests in `data/secret/` → the data made
//!   first, in the sandbox, into a copy of the package that is then imported (`generators`);
//! - `data/sample/**` → `tests/sample-<name>`, `data/secret/<a>/<b>/<t>` → `tests/<a>-<b>-<t>`;
//!   `testdata.yaml` / `test_group.yaml`: `output_validator_flags`, `input_validator_flags`, and
//!   the score of a first-level group of `data/secret` (`score`, `scoring.score`, or legacy
//!   `accept_score` with `grader_flags: min`) → `[[group]]` (with a CMS comparator that `ojd
//!   export kattis` wrapped, each group's flags `threshold T` → its `threshold`);
//! - `output_validators/<name>/`, `output_validators/x.cc` or `output_validator/` → a
//!   `kattis` checker (or the interactor of an interactive problem); without one, the default
//!   validator's flags → the exactly equivalent built-in checker;
//! - `input_validators/` (or legacy `input_format_validators/`) → the validator, accepting on
//!   exit 42;
//! - `problem_statement/` or `statement/`: Markdown kept as `statement.md`; LaTeX kept as
//!   source under `statement/` with a Markdown rendering (`latex_to_markdown`, which the
//!   Polygon import shares);
//! - `submissions/<verdict>/` → `submissions/<verdict>/`, the first accepted one (C++, C or
//!   Rust preferred; a file, never a folder) also named as the reference solution; DOMjudge's
//!   `.c++` and `.py3` renamed `.cpp` and `.py`, and a submission folder holding one program
//!   imported as that program (one C or C++ source with its headers: the headers inlined);
//!   a folder of several sources is kept as a folder, a submission of several files that the
//!   judge compiles together (`ojd_judge::encode_bundle`; skipped, named, when it is in several
//!   languages, in one whose profile judges one file, or has an `entrypoint` other than the
//!   file ojd starts from); `submissions.yaml` / `submissions.json` expectations decide a
//!   submission's folder when ojd can hold them (`expectations`).
//!
//! One file per part of the package: `yaml` reads `problem.yaml`, `data` the tests and
//! groups, `validators` the output and input validators, `statement` the statement,
//! `submissions` the submissions and the timing of the accepted ones, `expectations` the
//! expectations file; [`import`] below puts
//! them together into the new package.

mod data;
mod expectations;
mod generators;
mod statement;
mod submissions;
mod validators;
mod yaml;

use std::path::{Path, PathBuf};

use crate::files::{safe_name, write_file, Confined, Staging};
use crate::manifest::Manifest;
use crate::{ImportError, Imported};
use ojd_config::Config;
use yaml::{Src, Version};

/// C++ as the Kattis language list (problemtools' `languages.yaml`) compiles it: GNU C++23 at
/// `-O2`, appended to the host profile's command (written as `[compile] cpp` of the package, so
/// that its judging, the generators' and `ojd verify`'s all agree). problemtools also links
/// statically and with `-g`, which change no verdict and slow every compile.
pub(crate) const KATTIS_CPP: &[&str] = &["-O2", "-std=gnu++23"];

/// C as the same list compiles it: GNU C17 (`gcc -std=gnu17`, problemtools' `languages.yaml`
/// today; the host profile's strict `-std=c11` hides POSIX and GNU names such as `M_PI` or
/// `strdup` that Kattis submissions use).
pub(crate) const KATTIS_C: &[&str] = &["-O2", "-std=gnu17"];

/// The options of [`KATTIS_CPP`] and [`KATTIS_C`] for the language `id`, if it is one of them.
pub(crate) fn kattis_options(id: &str) -> Option<&'static [&'static str]> {
    match id {
        "cpp" => Some(KATTIS_CPP),
        "c" => Some(KATTIS_C),
        _ => None,
    }
}

/// `ojd gen` on a Kattis package folder: the data of its `generators/generators.yaml` made again
/// in the sandbox (as an import makes it) and written into the package's `data/`. Returns how
/// many tests were written and the messages (as an import's warnings).
pub fn regenerate(
    dir: &Path,
    judge: &ojd_judge::Judge,
) -> Result<(usize, Vec<String>), ImportError> {
    // Everything read from here on must be a file of the package (see `files`).
    let _confined = Confined::to(dir)?;
    let mut messages = Vec::new();
    let tests = generators::regenerate(dir, judge, &mut messages)?;
    Ok((tests, messages))
}

/// Options of an import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the ojd package goes; default `problems/<folder name>`.
    pub to: Option<PathBuf>,
}

/// Imports the Kattis package in `dir` (see the module documentation). `judge` is used only
/// when the time limit must come from the multiplier rule and to convert checktestdata scripts.
pub fn import(
    dir: &Path,
    config: &Config,
    judge: Option<&ojd_judge::Judge>,
    opts: &Options,
) -> Result<Imported, ImportError> {
    // Everything read from here on must be a file of the package (see `files`).
    let _confined = Confined::to(dir)?;
    // BAPCtools' generators make the data first; the copy they wrote it into is imported.
    let mut made = Vec::new();
    if let Some((_scratch, copy)) = generators::generate(dir, judge, &mut made)? {
        let id = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "problem".into());
        let to = opts
            .to
            .clone()
            .unwrap_or_else(|| config.server.problems.join(safe_name(&id)));
        let mut imported = import(&copy, config, judge, &Options { to: Some(to) })?;
        made.append(&mut imported.warnings);
        imported.warnings = made;
        return Ok(imported);
    }
    let src = Src::open(dir)?;
    let id = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "problem".into());
    let dest = opts
        .to
        .clone()
        .unwrap_or_else(|| config.server.problems.join(safe_name(&id)));
    let stage = Staging::new(&dest)?;
    let out = stage.dir.clone();
    let mut warnings = Vec::new();
    let (custom, interactive, scoring) = yaml::kind(&src)?;
    let cms_comparator = custom && validators::wrapped_cms_comparator(dir)?;
    let data = data::data(&src, (scoring, interactive, cms_comparator), &mut warnings)?;
    data::copy_tests(&data, &out)?;
    let (checker, interactor) = validators::output_validator(
        &src,
        config,
        &out,
        &data,
        custom,
        interactive,
        &mut warnings,
    )?;
    let validator = validators::input_validator(dir, config, judge, &out, &data, &mut warnings)?;
    statement::statement(dir, &out, &yaml::title(&src), &mut warnings)?;
    let (submissions, reference) = submissions::submissions(config, dir, &out, &mut warnings)?;
    let reference = reference.ok_or_else(|| ImportError::Invalid {
        file: dir.join("submissions/accepted").display().to_string(),
        message: "no accepted submission of one file in a language ojd knows: ojd needs one as the reference (a submission of several files cannot be)"
            .into(),
    })?;
    let (given, multiplier) = yaml::given_time_limit(&src)?;
    let mut manifest = Manifest {
        title: match yaml::title(&src) {
            t if t.is_empty() => match statement_title(&out) {
                Some(t) => {
                    warnings.push(format!(
                        "{}: no name: the title {t:?} is the statement's",
                        src.yaml_file
                    ));
                    t
                }
                None => id.clone(),
            },
            t => t,
        },
        source: yaml::source_line(&src),
        time_limit_ms: given.unwrap_or(10_000),
        memory_limit_bytes: yaml::mib(&src, "memory", 2048)?,
        output_limit_bytes: Some(yaml::mib(&src, "output", 8)?),
        checker,
        solution: reference,
        validator,
        interactor,
        groups: data.groups,
        answers_given: true,
        generate: Vec::new(),
        io: None,
        kattis_verdicts: true,
        uuid: yaml::uuid(&src, &mut warnings),
        passes: yaml::passes(&src)?,
        margins: yaml::margins(&src),
        compile: vec![("c", KATTIS_C), ("cpp", KATTIS_CPP)],
        origin: format!(
            "Imported from a Kattis package ({}) by `ojd import kattis`.",
            match src.version {
                Version::Legacy => "legacy format",
                Version::V2023 => "2023-07 format",
                Version::V2025 => "2025-09 format",
            }
        ),
    };
    let write = |m: &Manifest| write_file(&out.join("problem.toml"), m.to_toml().as_bytes());
    write(&manifest)?;
    if given.is_none() {
        let judge = judge.ok_or_else(|| {
            ImportError::Run(format!(
                "{}: no time limit (limits.time_limit or .timelimit): the multiplier rule needs the sandbox",
                src.yaml_file
            ))
        })?;
        let limit = |cpu| {
            ojd_verify::calibrate::kattis_limit(cpu, multiplier, std::time::Duration::from_secs(1))
        };
        let (slowest, skipped) = submissions::slowest_accepted(judge, &out, &limit)?;
        for f in skipped {
            warnings.push(format!(
                "{f}: does not compile here (or its toolchain is missing), so it does not count for the time limit"
            ));
        }
        manifest.time_limit_ms = limit(slowest.cpu).as_millis() as u64;
        warnings.push(format!(
            "time limit {} ms set by {}: {} ms CPU on {} ({}) times {multiplier}, rounded up to a second; to choose it yourself, give limits.time_limit in {} or edit time_limit in the new problem.toml",
            manifest.time_limit_ms,
            slowest.submission,
            slowest.cpu.as_millis(),
            slowest.test,
            match slowest.runs {
                1 => "one run: a run twice as fast would set the same limit".to_string(),
                n => format!("the fastest of {n} runs"),
            },
            src.yaml_file,
        ));
        write(&manifest)?;
    }
    let dir_out = stage.commit()?;
    Ok(Imported {
        dir: dir_out,
        tests: data.tests.len(),
        samples: data.samples,
        submissions,
        warnings,
    })
}

/// The first `# ` heading of the statement written into `out` (a LaTeX statement's
/// `\problemname`, rendered), for a package whose problem.yaml has no `name`.
fn statement_title(out: &Path) -> Option<String> {
    let text = std::fs::read_to_string(out.join("statement.md")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// A small Kattis package written file by file into a temporary folder, for the unit tests.
#[cfg(test)]
pub(super) struct TestPackage {
    tmp: tempfile::TempDir,
    dir: PathBuf,
}

#[cfg(test)]
impl TestPackage {
    /// An empty package folder named `name`.
    pub(super) fn new(name: &str) -> TestPackage {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(name);
        TestPackage { tmp, dir }
    }

    /// Writes `text` to `rel` inside the package, making its folders.
    pub(super) fn write(&self, rel: &str, text: &str) {
        let p = self.dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Imports the package with the built-in configuration into `out(to)`.
    pub(super) fn import(&self, to: &str) -> Result<Imported, ImportError> {
        import(
            &self.dir,
            &Config::defaults(),
            None,
            &Options {
                to: Some(self.out(to)),
            },
        )
    }

    /// A path beside the package, where [`TestPackage::import`] writes.
    pub(super) fn out(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
}

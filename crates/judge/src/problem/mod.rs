//! Problem packages: the validated model of a package ([`Problem`]) and what it holds.
//!
//! [`Problem::load`] reads a package folder, checks every key and collects *all* errors before
//! failing, each naming the file and the key ("problems/x/problem.toml: time_limit: expected a
//! duration like \"1s\" or \"500ms\""). Loading never runs anything. The jobs, one file each:
//! `manifest.rs` reads `problem.toml` as written (a TOML table, walked key by key rather than
//! derived so that one bad key does not hide the next), `validate.rs` turns it into the model
//! below, and `discover.rs` finds the tests and reads the scoring groups.

mod discover;
mod manifest;
mod validate;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

pub use self::discover::natural_key;
pub use self::validate::parse_uuid;

/// A validated problem package.
#[derive(Clone, Debug, Serialize)]
pub struct Problem {
    /// The folder name.
    pub id: String,
    /// The package's folder on disk.
    pub dir: PathBuf,
    /// The problem's title, as statements and listings show it.
    pub title: String,
    /// Where the problem comes from (a contest, an author); may be empty.
    pub source: String,
    /// CPU time limit per test, before a language's time factor.
    pub time_limit: Duration,
    /// Wall-time limit per test; none: derived from the CPU limit by `[judge] wall_factor` and
    /// `wall_extra`.
    pub wall_time_limit: Option<Duration>,
    /// Memory limit per test, in bytes.
    pub memory_limit: u64,
    /// Output limit per test, in bytes; none: `[judge] output_limit`.
    pub output_limit: Option<u64>,
    /// How a test's output is checked.
    pub checker: CheckerSpec,
    /// Reference solver, relative to `dir`.
    pub solution: PathBuf,
    /// True when the `.ans` files come with the package (`answers = "given"`, as imported
    /// packages have them): `ojd gen` then validates inputs only and never rewrites an answer.
    pub answers_given: bool,
    /// Input validator, relative to `dir`; none: inputs are not validated.
    pub validator: Option<PathBuf>,
    /// The exit code by which the validator accepts an input: 0, or 42 for a Kattis validator.
    pub validator_accept: i32,
    /// Arguments given to the validator (Kattis `input_validator_flags`).
    pub validator_args: Vec<String>,
    /// An interactor: the program talks to it through pipes instead of reading a test file.
    pub interactor: Option<Interactor>,
    /// Whether the program reads and writes named files instead of standard streams.
    pub io: IoMode,
    /// The tests: samples first, then the rest, each in natural order of their names.
    pub tests: Vec<TestCase>,
    /// Tests whose inputs a generator writes (`ojd gen`).
    pub generate: Vec<Generated>,
    /// Stress testing against a brute-force solver (`ojd stress`), if the package sets it up.
    pub stress: Option<Stress>,
    /// Scoring groups; empty: the score is the share of passed tests.
    pub groups: Vec<Group>,
    /// Whose verdict rules the package's `submissions/` folders follow (`verdicts = "kattis"`
    /// in an imported Kattis package).
    pub verdicts: VerdictRules,
    /// The problem's identity across judges and renames (Kattis `uuid`, kept by an import and
    /// written by an export), lowercase `8-4-4-4-12` hex.
    pub uuid: Option<String>,
    /// A multi-pass problem (`passes = N`): the Kattis output validator (or interactor) may ask
    /// for another run of the submission by writing `nextpass.in` in its feedback folder, up to
    /// this many runs per test in all.
    pub passes: Option<u32>,
    /// The timing margins the package promises (`[limits]` in problem.toml).
    pub margins: Margins,
    /// Options appended to a language's compile command for this problem's submissions and
    /// programs (`[compile]` in problem.toml, by language id): an imported Kattis package
    /// compiles C++ as the Kattis language list does (`-std=gnu++23`), not as the host's
    /// profile does.
    pub compile: BTreeMap<String, Vec<String>>,
}

/// The timing margins of the Kattis package format (`time_multipliers` there), as a package's
/// promise: every accepted submission finishes every test within `limit / ac_to_time_limit`,
/// and every `time_limit_exceeded/` submission does not finish at `limit × time_limit_to_tle`
/// on at least one test. `ojd verify` checks them (see its manual).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Margins {
    /// The limit over the slowest accepted run (Kattis' `ac_to_time_limit`, default 2).
    pub ac_to_time_limit: f64,
    /// How far past the limit a TLE must run (Kattis' `time_limit_to_tle`, default 1.5).
    pub time_limit_to_tle: f64,
}

impl Default for Margins {
    fn default() -> Margins {
        Margins {
            ac_to_time_limit: 2.0,
            time_limit_to_tle: 1.5,
        }
    }
}

/// How outputs are compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckerSpec {
    /// Whitespace-insensitive token comparison (the default).
    Tokens,
    /// Byte-exact comparison after normalising CRLF and a final newline.
    Exact,
    /// Line by line, ignoring trailing spaces and trailing empty lines.
    Lines,
    /// Tokens, numbers equal within an absolute or relative tolerance.
    Float {
        /// Absolute tolerance.
        abs: f64,
        /// Relative tolerance.
        rel: f64,
    },
    /// An external checker program speaking testlib's protocol.
    Program {
        /// The checker's source or executable, relative to the package's folder.
        path: PathBuf,
    },
    /// The Kattis default output validator with its flags (see [`DefaultFlags`]).
    KattisDefault(DefaultFlags),
    /// A Kattis output validator: `validator input answer feedback_dir [flags] < output`,
    /// exit 42 accepted, 43 wrong answer, anything else a judge error.
    Kattis {
        /// The validator's source or executable, relative to the package's folder.
        path: PathBuf,
        /// Its `output_validator_flags`, passed after the feedback folder.
        flags: Vec<String>,
    },
    /// A CMS checker (a "comparator"): `checker input answer output`, printing the test's
    /// score from 0 to 1 on standard output and a message on standard error. 1 accepts, 0 is a
    /// wrong answer, anything between is a wrong answer with that share of the test's credit
    /// (`JudgeReport::partial`).
    Cms {
        /// The checker's source or executable, relative to the package's folder.
        path: PathBuf,
    },
}

impl CheckerSpec {
    /// The package file of a checker program, if the checker is one.
    pub fn program_path(&self) -> Option<&std::path::Path> {
        match self {
            CheckerSpec::Program { path }
            | CheckerSpec::Kattis { path, .. }
            | CheckerSpec::Cms { path } => Some(path),
            _ => None,
        }
    }
}

/// Whose verdict rules a package's `submissions/` folders were written for. ojd reports a
/// memory overrun as MLE; Kattis (problemtools) has no such verdict and reports it as a
/// run-time error, so a Kattis package's `run_time_error/` may hold a submission that gets MLE
/// here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictRules {
    /// ojd's own rules: a memory overrun is MLE only.
    #[default]
    Ojd,
    /// A memory overrun meets a `runtime_error` expectation (and counts as one).
    Kattis,
}

/// The Kattis default output validator's flags, as the package format defines them: tokens
/// separated by whitespace, compared case-insensitively unless `case_sensitive`; the amount of
/// whitespace matters only with `space_change_sensitive`; with a tolerance, a token of the
/// answer that is a number matches an output number within the absolute or the relative
/// tolerance (either suffices).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DefaultFlags {
    /// Compare letters case-sensitively.
    pub case_sensitive: bool,
    /// The amount of whitespace between tokens matters.
    pub space_change_sensitive: bool,
    /// Absolute tolerance for numbers, if any.
    pub float_absolute_tolerance: Option<f64>,
    /// Relative tolerance for numbers, if any.
    pub float_relative_tolerance: Option<f64>,
}

impl DefaultFlags {
    /// Parses `validator_flags` of a Kattis package; an unknown flag is an error naming it.
    pub fn parse(flags: &[String]) -> Result<DefaultFlags, FlagError> {
        let mut f = DefaultFlags::default();
        let mut it = flags.iter();
        while let Some(flag) = it.next() {
            let mut number = |name: &'static str| -> Result<f64, FlagError> {
                let v = it.next().ok_or(FlagError::NoNumber { flag: name })?;
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| FlagError::BadNumber {
                        flag: name,
                        found: v.clone(),
                    })
            };
            match flag.as_str() {
                "case_sensitive" => f.case_sensitive = true,
                "space_change_sensitive" => f.space_change_sensitive = true,
                "float_absolute_tolerance" => {
                    f.float_absolute_tolerance = Some(number("float_absolute_tolerance")?)
                }
                "float_relative_tolerance" => {
                    f.float_relative_tolerance = Some(number("float_relative_tolerance")?)
                }
                "float_tolerance" => {
                    let e = number("float_tolerance")?;
                    f.float_absolute_tolerance = Some(e);
                    f.float_relative_tolerance = Some(e);
                }
                other => {
                    return Err(FlagError::Unknown {
                        flag: other.to_string(),
                    })
                }
            }
        }
        Ok(f)
    }

    /// The flags that select this comparison in a Kattis package.
    pub fn to_flags(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.case_sensitive {
            v.push("case_sensitive".to_string());
        }
        if self.space_change_sensitive {
            v.push("space_change_sensitive".to_string());
        }
        if let Some(a) = self.float_absolute_tolerance {
            v.extend(["float_absolute_tolerance".to_string(), format!("{a:e}")]);
        }
        if let Some(r) = self.float_relative_tolerance {
            v.extend(["float_relative_tolerance".to_string(), format!("{r:e}")]);
        }
        v
    }

    /// The ojd built-in checker that compares exactly as these flags do, or `KattisDefault`
    /// itself when none does: `case_sensitive` alone is `tokens`; with tolerances it is `float`.
    pub fn into_checker(self) -> CheckerSpec {
        let floats =
            self.float_absolute_tolerance.is_some() || self.float_relative_tolerance.is_some();
        match (self.case_sensitive, self.space_change_sensitive, floats) {
            (true, false, false) => CheckerSpec::Tokens,
            (true, false, true) => CheckerSpec::Float {
                abs: self.float_absolute_tolerance.unwrap_or(0.0),
                rel: self.float_relative_tolerance.unwrap_or(0.0),
            },
            _ => CheckerSpec::KattisDefault(self),
        }
    }
}

impl CheckerSpec {
    /// The Kattis default-validator flags that compare as this built-in checker does, if any.
    pub fn default_flags(&self) -> Option<DefaultFlags> {
        match self {
            CheckerSpec::Tokens => Some(DefaultFlags {
                case_sensitive: true,
                ..Default::default()
            }),
            CheckerSpec::Float { abs, rel } => Some(DefaultFlags {
                case_sensitive: true,
                float_absolute_tolerance: Some(*abs),
                float_relative_tolerance: Some(*rel),
                ..Default::default()
            }),
            CheckerSpec::KattisDefault(f) => Some(f.clone()),
            _ => None,
        }
    }
}

/// How an interactor speaks: its arguments and exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractorProtocol {
    /// Kattis: `interactor input answer feedback_dir`, 42 accepted, 43 wrong answer.
    Kattis,
    /// testlib: `interactor input tout answer`, 0 accepted, 1 (2) wrong answer, 3 failure.
    Testlib,
}

/// The program that talks to a submission of an interactive problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interactor {
    /// The interactor program, relative to the package's folder.
    pub path: PathBuf,
    /// How it is called and what its exit codes mean.
    pub protocol: InteractorProtocol,
    /// Extra arguments passed to it.
    pub flags: Vec<String>,
}

/// File I/O as NOIP used it: the input is also put in the working folder, and the output is
/// read from a file if the program wrote it (standard output otherwise).
#[derive(Clone, Debug, Default, Serialize)]
pub struct IoMode {
    pub input_file: Option<String>,
    pub output_file: Option<String>,
}

/// One test: an input and the answer a correct program's output must match.
#[derive(Clone, Debug, Serialize)]
pub struct TestCase {
    /// File stem, e.g. "sample-1" or "07-max".
    pub name: String,
    /// The input file.
    pub input: PathBuf,
    /// The expected answer file.
    pub answer: PathBuf,
    /// Whether it is a sample (shown to students, judged first).
    pub sample: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Generated {
    pub test: String,
    pub program: PathBuf,
    pub(crate) args: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stress {
    pub generator: PathBuf,
    pub args: Vec<String>,
    pub brute: PathBuf,
    pub count: u32,
}

/// A scoring group: tests whose names start with one of `tests` prefixes.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    /// The group's name, as the score breakdown shows it.
    pub name: String,
    /// Whole points, as the daemon stores and shows them: the groups' exact points apportioned
    /// so that they add up to the exact total rounded down (`points::apportion`).
    pub points: u32,
    /// The exact points in thousandths (`points = 12.5` → 12500; see [`crate::points`]).
    pub points_milli: u32,
    /// Test-name prefixes: a test belongs to the first group one of whose prefixes its name starts
    /// with.
    pub tests: Vec<String>,
    /// How the shares of its tests make the group's: the smallest (the default) or their
    /// product (CMS's `GroupMul`).
    pub aggregation: Aggregation,
    /// CMS's `GroupThreshold`: a test of the group is accepted when its `cms` checker's outcome
    /// is above 0 and at most this (the checker then prints any number, not a score from 0 to
    /// 1), and the group earns its points when all are.
    pub threshold: Option<f64>,
}

/// How a group's tests' shares (each from 0 to 1) make the group's share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Aggregation {
    /// The smallest share: all or nothing unless a `cms` checker gives part (CMS's `GroupMin`).
    #[default]
    Min,
    /// The product of the shares (CMS's `GroupMul`).
    Product,
}

impl Group {
    /// A group worth `milli` thousandths; its whole `points` are set by
    /// [`Group::apportion`] over all the groups of the problem.
    pub fn exact(name: impl Into<String>, milli: u32, tests: Vec<String>) -> Group {
        Group {
            name: name.into(),
            points: crate::points::whole(milli as u64),
            points_milli: milli,
            tests,
            aggregation: Aggregation::Min,
            threshold: None,
        }
    }

    /// Whether the test named `name` is one of this group's.
    pub(crate) fn holds(&self, name: &str) -> bool {
        self.tests.iter().any(|p| name.starts_with(p.as_str()))
    }

    /// Sets every group's whole `points` from the exact ones (`points::apportion`).
    pub fn apportion(groups: &mut [Group]) {
        let milli: Vec<u32> = groups.iter().map(|g| g.points_milli).collect();
        for (g, p) in groups.iter_mut().zip(crate::points::apportion(&milli)) {
            g.points = p;
        }
    }
}

/// A bad `validator_flags` list of a Kattis package ([`DefaultFlags::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    /// A tolerance flag is the list's last word: its number is missing.
    #[error("{flag} needs a number after it")]
    NoNumber {
        /// The flag.
        flag: &'static str,
    },
    /// A tolerance flag is followed by something that is no non-negative number.
    #[error("{flag}: expected a non-negative number, found {found:?}")]
    BadNumber {
        /// The flag.
        flag: &'static str,
        /// What followed it.
        found: String,
    },
    /// A flag the default output validator does not know.
    #[error(
        "unknown flag {flag:?} (known: case_sensitive, space_change_sensitive, \
         float_tolerance, float_absolute_tolerance, float_relative_tolerance)"
    )]
    Unknown {
        /// The flag as written.
        flag: String,
    },
}

/// Every problem found while loading a package.
#[derive(Debug, thiserror::Error)]
#[error("{}", .errors.join("\n"))]
pub struct LoadError {
    pub errors: Vec<String>,
}

impl Problem {
    /// The `threshold` of the group holding the test named `name` (CMS's `GroupThreshold`), if
    /// any: loading refuses a test in two groups with different thresholds.
    pub(crate) fn threshold(&self, name: &str) -> Option<f64> {
        self.groups
            .iter()
            .filter(|g| g.holds(name))
            .find_map(|g| g.threshold)
    }

    /// Tests whose answer file is missing (run `ojd gen`).
    pub fn missing_answers(&self) -> Vec<&TestCase> {
        self.tests.iter().filter(|t| !t.answer.is_file()).collect()
    }

    /// The `[compile]` options of `language` (none when the problem names none).
    pub fn compile_options(&self, language: &str) -> &[String] {
        self.compile.get(language).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The statement in Markdown, if the package has one.
    pub fn statement(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.join("statement.md")).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_flags_map_onto_builtins() {
        let parse = |flags: &[&str]| {
            let v: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
            DefaultFlags::parse(&v).unwrap().into_checker()
        };
        assert_eq!(parse(&["case_sensitive"]), CheckerSpec::Tokens);
        assert_eq!(
            parse(&["case_sensitive", "float_absolute_tolerance", "1e-6"]),
            CheckerSpec::Float {
                abs: 1e-6,
                rel: 0.0
            }
        );
        assert!(matches!(parse(&[]), CheckerSpec::KattisDefault(_)));
        // Round trip through the flags an export writes.
        for spec in [
            CheckerSpec::Tokens,
            CheckerSpec::Float {
                abs: 1e-6,
                rel: 1e-9,
            },
        ] {
            let flags = spec.default_flags().unwrap().to_flags();
            assert_eq!(DefaultFlags::parse(&flags).unwrap().into_checker(), spec);
        }
    }
}

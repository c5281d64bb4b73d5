//! `ojd export kattis PROBLEM --to DIR`: an ojd package as a Kattis problem package (2023-07
//! format, with the grading keys of `testdata.yaml` that problemtools reads), so that problems
//! written here can go to other judges. The main entry is [`export_kattis`].
//!
//! What maps onto what (the inverse of [`crate::kattis`], so that an import → export →
//! import round trip keeps tests, answers, limits and verdicts):
//! - title, source, limits → `problem.yaml` (`limits.time_limit` in seconds, `memory` and
//!   `output` in MiB) and a `.timelimit` file for judges that read that;
//! - `tests/sample-X` → `data/sample/X`; a test of a `[[group]]` whose one prefix is
//!   `<name>-` → `data/secret/<name>/<rest>` with the group's points in its `testdata.yaml`
//!   (`accept_score`, `grader_flags: min`); other tests → `data/secret/`;
//! - `tokens`, `float`, `kattis-default` → the default validator's flags, which compare exactly
//!   as they do; `exact` and `lines` → `case_sensitive space_change_sensitive` (close: Kattis
//!   also rejects a missing final newline, and `lines` forgives trailing spaces, Kattis not);
//!   a `kattis` checker → `output_validator/` (2023-07's one folder; the legacy
//!   `output_validators/` is not read by 2023-07 tools), its flags as one string
//!   (`output_validator_flags: a b`); a testlib `program` checker, a testlib interactor (with
//!   Polygon's checker of its `tout`) and a CMS comparator → `output_validator/` as a
//!   `build`/`run` program that translates Kattis's convention into theirs (`export/wrap.rs`;
//!   a CMS `GroupThreshold` as the group's flags `threshold T`, another group's points as its
//!   flags `points P`, of which the comparator's outcome gives a part of a test's credit);
//! - a validator accepting on exit 42 → `input_validators/`; an ojd validator (exit 0) →
//!   `input_validators/<name>/` with a `build` script that compiles it (Rust, C, C++, Python)
//!   and writes a `run` turning its 0 into Kattis's 42; an interactor → `type: interactive` and `output_validator/`;
//! - `passes` → `type: multi-pass` with `limits.validation_passes`;
//! - `uuid` → `uuid` (without one, a stable UUID derived from the folder name and title);
//!   file I/O (`[io]`) cannot be expressed and is an error naming the key;
//! - `statement.md` → `statement/problem.en.md`; `submissions/<verdict>/` and the reference
//!   solution → `submissions/<kattis verdict>/`.

use std::path::{Path, PathBuf};

use crate::files::{copy_raw, write_file, write_script, Staging, WRAPPED_VALIDATOR};
use crate::ImportError;
use ojd_judge::{CheckerSpec, InteractorProtocol, Problem};

mod statement;
mod submissions;
mod wrap;

use wrap::Wrapped;
/// What an export made.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Exported {
    /// The exported package's folder.
    pub dir: PathBuf,
    /// Tests exported.
    pub tests: usize,
    /// Submissions exported under `submissions/`.
    pub submissions: usize,
    /// What the other format cannot hold or holds differently, each naming the file.
    pub warnings: Vec<String>,
}

pub(crate) fn yaml_str(s: &str) -> String {
    // JSON strings are valid YAML scalars, escapes included.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The input validator an export writes for a package without one.
const ACCEPT_ALL: &str = "accept_all.py";

/// The folder of the output validator (or interactor) in the 2023-07 format.
const OUTPUT_VALIDATOR: &str = "output_validator";

/// Flags as the one string Kattis tools read (`output_validator_flags: a b`; problemtools
/// splits it on whitespace and cannot load a YAML list); a flag that is empty or holds
/// whitespace cannot be written so and is an error naming `key`.
fn flags_text(problem: &Problem, key: &str, flags: &[String]) -> Result<String, ImportError> {
    if let Some(f) = flags
        .iter()
        .find(|f| f.is_empty() || f.chars().any(char::is_whitespace))
    {
        return Err(unsupported(
            problem,
            key,
            &format!(
                "the flag {f:?} cannot be written as Kattis flags, which are split at whitespace"
            ),
        ));
    }
    Ok(yaml_str(&flags.join(" ")))
}

/// A stable UUID for a problem without one of its own: a hash of its folder name and title (the
/// same package exports with the same UUID), with the version bits of a UUID version 8.
fn derived_uuid(problem: &Problem) -> String {
    use sha2::{Digest, Sha256};
    let h = Sha256::digest(format!("ojd problem\0{}\0{}", problem.id, problem.title));
    let mut b: [u8; 16] = h[..16].try_into().expect("16 of 32 bytes");
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = ojd_judge::hex_encode(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Polygon's standard checkers that compare as the Kattis default validator does: the name
/// (`std::<name>.cpp` in Polygon, `std_<name>.cpp` once imported), the validator's flags, and
/// what the default validator does differently, if anything.
pub(crate) const STANDARD_CHECKERS: [(&str, &str, Option<&str>); 11] = [
    // Integers as tokens (case is moot); Kattis compares them as text, so `007` is not `7`.
    ("ncmp", "", None),
    ("icmp", "", None),
    ("hcmp", "", None),
    ("wcmp", "case_sensitive", None),
    (
        "lcmp",
        "case_sensitive",
        Some("does not compare line breaks (lcmp compares the words of each line)"),
    ),
    ("fcmp", "case_sensitive space_change_sensitive", None),
    ("yesno", "", None),
    ("nyesno", "", None),
    ("rcmp4", "float_tolerance 1e-4", None),
    ("rcmp6", "float_tolerance 1e-6", None),
    ("rcmp9", "float_tolerance 1e-9", None),
];

/// The standard checker a checker program is, by its imported name `std_<name>.cpp`.
fn standard_checker(path: &Path) -> Option<(&'static str, &'static str, Option<&'static str>)> {
    let name = path.file_name()?.to_str()?;
    let std = name.strip_prefix("std_")?.strip_suffix(".cpp")?;
    STANDARD_CHECKERS.into_iter().find(|(n, _, _)| *n == std)
}

fn unsupported(problem: &Problem, key: &str, what: &str) -> ImportError {
    ImportError::Unsupported {
        file: problem.dir.join("problem.toml").display().to_string(),
        key: key.into(),
        what: what.into(),
    }
}

/// Where each test goes under `data/` (paths without extension, each with the index of its
/// test: a test in two groups, or a sample that a group also counts, is written to each), and
/// the groups' folders with their points.
type Layout = (Vec<(PathBuf, usize)>, Vec<Folder>);

/// A group's folder under `data/secret/`: its name, its points (as text) and its CMS
/// `GroupThreshold`, which the wrapped comparator reads as the flags `threshold T`.
struct Folder {
    name: String,
    points: String,
    threshold: Option<f64>,
}

/// A group's folder name: its name in lowercase letters, digits and hyphens (Kattis test
/// group names), `group<N>` when nothing is left, numbered again when taken.
fn group_folder(name: &str, index: usize, taken: &[Folder]) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() {
        format!("group{}", index + 1)
    } else {
        slug.to_string()
    };
    let mut folder = slug.clone();
    let mut n = 2;
    while taken.iter().any(|f| f.name == folder) {
        folder = format!("{slug}-{n}");
        n += 1;
    }
    folder
}

/// The test's name in a group folder: the group's own prefix taken off when it is the whole
/// `<folder>-` (so that an import of the export names it as before), else whole.
fn name_in_group(test: &str, folder: &str) -> String {
    match test.strip_prefix(&format!("{folder}-")) {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => test.to_string(),
    }
}

fn layout(problem: &Problem) -> Result<Layout, ImportError> {
    let mut folders: Vec<Folder> = Vec::new();
    for (i, g) in problem.groups.iter().enumerate() {
        if g.aggregation != ojd_judge::Aggregation::Min {
            return Err(unsupported(
                problem,
                &format!("group[{i}].aggregation"),
                "Kattis groups earn their points when every test is accepted (grader_flags: min): a product of partial scores has no Kattis form",
            ));
        }
        // The wrapped CMS comparator reads the threshold as its flags (see `wrap`).
        if g.threshold.is_some() && !matches!(problem.checker, CheckerSpec::Cms { .. }) {
            return Err(unsupported(
                problem,
                &format!("group[{i}].threshold"),
                "a CMS GroupThreshold reads a CMS checker's outcome as a number: the problem has no CMS checker",
            ));
        }
        // A group of one prefix `<folder>-` (as a Kattis import writes them) keeps its folder.
        let folder = match g.tests.as_slice() {
            [p] if p.len() > 1
                && p.ends_with('-')
                && p[..p.len() - 1]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                && !folders.iter().any(|f| f.name == p[..p.len() - 1]) =>
            {
                p[..p.len() - 1].to_string()
            }
            _ => group_folder(&g.name, i, &folders),
        };
        folders.push(Folder {
            name: folder,
            points: ojd_judge::points::to_text(g.points_milli),
            threshold: g.threshold,
        });
    }
    let holds =
        |g: &ojd_judge::Group, name: &str| g.tests.iter().any(|p| name.starts_with(p.as_str()));
    // A group of samples only, worth nothing (Polygon's group of the examples), is the
    // samples themselves: no folder.
    let exported: Vec<bool> = problem
        .groups
        .iter()
        .map(|g| g.points_milli > 0 || problem.tests.iter().any(|t| !t.sample && holds(g, &t.name)))
        .collect();
    let mut places = Vec::new();
    // Kattis tools require secret data: a package of samples only (as DOMjudge writes them,
    // judging the samples) has them judged as secret tests too.
    let samples_only = problem.tests.iter().all(|t| t.sample);
    for (i, t) in problem.tests.iter().enumerate() {
        if samples_only {
            places.push((PathBuf::from("secret").join(&t.name), i));
        }
        let owners: Vec<&Folder> = problem
            .groups
            .iter()
            .zip(&folders)
            .zip(&exported)
            .filter(|((g, _), e)| **e && holds(g, &t.name))
            .map(|((_, f), _)| f)
            .collect();
        if t.sample {
            let rest = t.name.strip_prefix("sample-").unwrap_or(&t.name);
            places.push((PathBuf::from("sample").join(rest), i));
        } else if owners.is_empty() {
            places.push((PathBuf::from("secret").join(&t.name), i));
        }
        // A group's tests, samples included (a CMS subtask counts its public tests), are in
        // its folder: Kattis scores a group by the tests under it.
        for f in owners {
            places.push((
                PathBuf::from("secret")
                    .join(&f.name)
                    .join(name_in_group(&t.name, &f.name)),
                i,
            ));
        }
    }
    let folders = folders
        .into_iter()
        .zip(exported)
        .filter_map(|(f, e)| e.then_some(f))
        .collect();
    Ok((places, folders))
}

/// The edition of the Kattis (ICPC) problem package format an export writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KattisFormat {
    /// 2023-07 (`2023-07-draft`), as problemtools' `verifyproblem` reads it: `testdata.yaml`
    /// with flags as one string.
    #[default]
    V2023,
    /// 2025-09, as BAPCtools reads it: `test_group.yaml` with argument lists, `time_multipliers`
    /// and `time_resolution` in `limits`, no `.timelimit`.
    V2025,
}

impl KattisFormat {
    /// The format from its name on the command line (`2023-07`, `2025-09`).
    pub fn parse(name: &str) -> Option<KattisFormat> {
        match name {
            "2023-07" | "2023-07-draft" => Some(KattisFormat::V2023),
            "2025-09" => Some(KattisFormat::V2025),
            _ => None,
        }
    }

    /// The file of a test group's settings.
    fn group_file(self) -> &'static str {
        match self {
            KattisFormat::V2023 => "testdata.yaml",
            KattisFormat::V2025 => "test_group.yaml",
        }
    }

    /// A validator's flags as the format writes them: `kind` is `output` or `input`.
    fn flags_line(self, kind: &str, words: &[String]) -> String {
        match self {
            KattisFormat::V2023 => {
                format!("{kind}_validator_flags: {}\n", yaml_str(&words.join(" ")))
            }
            KattisFormat::V2025 => format!(
                "{kind}_validator_args: [{}]\n",
                words
                    .iter()
                    .map(|w| yaml_str(w))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Exports `problem` to `dest` (a new folder) in the 2023-07 format.
pub fn export_kattis(problem: &Problem, dest: &Path) -> Result<Exported, ImportError> {
    export_kattis_as(problem, dest, KattisFormat::V2023)
}

/// Exports `problem` to `dest` (a new folder) in `format`.
pub fn export_kattis_as(
    problem: &Problem,
    dest: &Path,
    format: KattisFormat,
) -> Result<Exported, ImportError> {
    let missing = problem.missing_answers();
    if !missing.is_empty() {
        return Err(ImportError::Invalid {
            file: missing[0].answer.display().to_string(),
            message: format!("missing: run `ojd gen {}` first", problem.dir.display()),
        });
    }
    let stage = Staging::new(dest)?;
    let out = stage.dir.clone();
    let mut warnings = Vec::new();
    let (places, folders) = layout(problem)?;
    if problem.tests.iter().all(|t| t.sample) {
        warnings.push(format!(
            "{}: samples only: written to data/secret/ too, as Kattis tools require secret tests",
            problem.dir.join("tests").display()
        ));
    }
    let cms_comparator =
        problem.interactor.is_none() && matches!(problem.checker, CheckerSpec::Cms { .. });
    for (path, i) in &places {
        let t = &problem.tests[*i];
        let base = out.join("data").join(path);
        copy_raw(&t.input, &base.with_extension("in"))?;
        copy_raw(&t.answer, &base.with_extension("ans"))?;
    }
    for Folder {
        name: folder,
        points,
        threshold,
    } in &folders
    {
        let mut text = match format {
            KattisFormat::V2023 => format!(
                "# The group's points, all or nothing.\non_reject: continue\naccept_score: {points}\nrange: 0 {points}\ngrader_flags: min\n"
            ),
            KattisFormat::V2025 => format!(
                "# The group's points, all or nothing.\nscoring:\n  score: {points}\n  aggregation: min\n"
            ),
        };
        // The wrapped CMS comparator reads its group's flags (see `wrap`): the threshold of a
        // CMS `GroupThreshold`, else the group's points, of which it gives a part of a test's
        // credit.
        if let Some(t) = threshold {
            text += &format.flags_line("output", &["threshold".into(), t.to_string()]);
        } else if cms_comparator {
            text += &format.flags_line("output", &["points".into(), points.clone()]);
        }
        write_file(
            &out.join("data/secret")
                .join(folder)
                .join(format.group_file()),
            text.as_bytes(),
        )?;
    }
    if !folders.is_empty() && format == KattisFormat::V2023 {
        // The samples of a scoring problem are worth nothing, as in ojd (Kattis would give
        // them a point each by default).
        write_file(
            &out.join("data/sample/testdata.yaml"),
            b"# The samples are worth nothing.\naccept_score: 0\nrange: 0 0\n",
        )?;
    }
    let mut kinds = vec![if problem.groups.is_empty() {
        "pass-fail"
    } else {
        "scoring"
    }];
    let mut data_yaml = String::new();
    let validator_flags = |key: &str, flags: &[String]| -> Result<String, ImportError> {
        flags_text(problem, key, flags)?;
        Ok(format.flags_line("output", flags))
    };
    let copy_program = |rel: &Path, folder: &str| -> Result<(), ImportError> {
        let name = rel.file_name().unwrap_or_default();
        let stem = rel
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // 2023-07's one `output_validator/` is the program itself; each input validator is a
        // folder (or file) of `input_validators/`.
        let to = if folder == OUTPUT_VALIDATOR {
            out.join(folder).join(name)
        } else {
            out.join(folder).join(&stem).join(name)
        };
        copy_raw(&problem.dir.join(rel), &to)
    };
    // A wrapped program (see `wrap`) is one folder: problemtools reads 2023-07's
    // `output_validator/` as a folder of programs, BAPCtools 2025-09's as the program itself.
    let wrapped_folder = match format {
        KattisFormat::V2023 => out.join(OUTPUT_VALIDATOR).join("wrapped"),
        KattisFormat::V2025 => out.join(OUTPUT_VALIDATOR),
    };
    if problem.io.input_file.is_some() || problem.io.output_file.is_some() {
        // Truly impossible: the format gives a submission its standard input and judges its
        // standard output, and has no key for a file to read or write instead.
        let files: Vec<String> = [
            problem.io.input_file.as_ref().map(|f| format!("read {f}")),
            problem
                .io
                .output_file
                .as_ref()
                .map(|f| format!("write {f}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        return Err(unsupported(
            problem,
            "io",
            &format!(
                "file input/output cannot be expressed in a Kattis package: its programs read standard input and write standard output, and the format has no key for this problem's programs, which {}",
                files.join(" and ")
            ),
        ));
    }
    if let Some(i) = &problem.interactor {
        kinds.push("interactive");
        if i.protocol == InteractorProtocol::Testlib {
            // With Polygon's checker of what the interactor wrote to tout, if any.
            let checker = match &problem.checker {
                CheckerSpec::Program { path } => Some(path.as_path()),
                _ => None,
            };
            let what = Wrapped::TestlibInteractor {
                interactor: &i.path,
                checker,
            };
            wrap::write(&problem.dir, &wrapped_folder, what, &|k, w| {
                unsupported(problem, k, w)
            })?;
        } else {
            copy_program(&i.path, OUTPUT_VALIDATOR)?;
        }
        if !i.flags.is_empty() {
            data_yaml += &validator_flags("interactor.flags", &i.flags)?;
        }
    } else {
        match &problem.checker {
            CheckerSpec::Kattis { path, flags } => {
                copy_program(path, OUTPUT_VALIDATOR)?;
                if !flags.is_empty() {
                    data_yaml += &validator_flags("checker.flags", flags)?;
                }
            }
            CheckerSpec::Program { path } => match standard_checker(path) {
                Some((_, flags, note)) => {
                    if let Some(note) = note {
                        warnings.push(format!(
                            "checker {}: exported as the default validator, which {note}",
                            path.display()
                        ));
                    }
                    let flags: Vec<String> = flags.split_whitespace().map(String::from).collect();
                    if !flags.is_empty() {
                        data_yaml += &validator_flags("checker", &flags)?;
                    }
                }
                // Another testlib checker: wrapped, Kattis's convention translated.
                None => wrap::write(
                    &problem.dir,
                    &wrapped_folder,
                    Wrapped::TestlibChecker { checker: path },
                    &|k, w| unsupported(problem, k, w),
                )?,
            },
            CheckerSpec::Cms { path } => {
                // A part of a test's credit is the test's score in a group's folder (the
                // group's flags, above); a pass-fail problem has no score to give it.
                if folders.is_empty() {
                    warnings.push(format!(
                        "checker {}: a CMS comparator, exported wrapped in a pass-fail problem (no groups): a test is accepted only with the outcome 1, so a part of a test's credit is lost",
                        path.display()
                    ));
                }
                let score = match format {
                    KattisFormat::V2023 => wrap::Score::Points,
                    KattisFormat::V2025 => wrap::Score::Multiplier,
                };
                wrap::write(
                    &problem.dir,
                    &wrapped_folder,
                    Wrapped::CmsComparator {
                        checker: path,
                        score,
                    },
                    &|k, w| unsupported(problem, k, w),
                )?;
            }
            CheckerSpec::Exact | CheckerSpec::Lines => {
                warnings.push(format!(
                    "checker {:?} exported as case_sensitive space_change_sensitive, which also rejects a missing final newline{}",
                    problem.checker,
                    if problem.checker == CheckerSpec::Lines { " and trailing spaces" } else { "" }
                ));
                data_yaml += &validator_flags(
                    "checker",
                    &["case_sensitive".into(), "space_change_sensitive".into()],
                )?;
            }
            other => {
                let flags = other
                    .default_flags()
                    .expect("built-in token checkers have flags");
                let flags = flags.to_flags();
                if !flags.is_empty() {
                    data_yaml += &validator_flags("checker", &flags)?;
                }
            }
        }
    }
    let data_file = out.join("data").join(format.group_file());
    if !data_yaml.is_empty() {
        write_file(&data_file, data_yaml.as_bytes())?;
    }
    if let Some(v) = &problem.validator {
        if problem.validator_accept == 42 {
            copy_program(v, "input_validators")?;
            if !problem.validator_args.is_empty() {
                flags_text(problem, "validator.args", &problem.validator_args)?;
                let mut text = std::fs::read_to_string(&data_file).unwrap_or_default();
                text += &format.flags_line("input", &problem.validator_args);
                write_file(&data_file, text.as_bytes())?;
            }
        } else {
            // Kattis input validators accept with 42: a build script compiles ojd's validator
            // and writes a `run` that turns its exit 0 into 42 (anything else into 43).
            let name = v
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let stem = v
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let ext = v.extension().and_then(|e| e.to_str()).unwrap_or("");
            let Some(compile) = wrap::compile_line(&name, "validator.bin") else {
                return Err(unsupported(
                    problem,
                    "validator",
                    &format!("an exit-0 validator in .{ext} cannot be wrapped as a Kattis input validator (.rs, .c, .cpp and .py can)"),
                ));
            };
            let folder = out.join("input_validators").join(&stem);
            copy_raw(&problem.dir.join(v), &folder.join(&name))?;
            let build = format!(
                "#!/bin/sh\n{WRAPPED_VALIDATOR}\n# Kattis input validator with 42; `run` says 42 for 0 and 43 otherwise.\nset -e\n{compile}\ncat > run <<'EOF'\n#!/bin/sh\n\"$(dirname \"$0\")/validator.bin\" \"$@\" && exit 42\nexit 43\nEOF\nchmod +x run\n"
            );
            write_script(&folder.join("build"), &build)?;
            if !problem.validator_args.is_empty() {
                flags_text(problem, "validator.args", &problem.validator_args)?;
                let mut text = std::fs::read_to_string(&data_file).unwrap_or_default();
                text += &format.flags_line("input", &problem.validator_args);
                write_file(&data_file, text.as_bytes())?;
            }
        }
    }
    if problem.passes.is_some() {
        kinds.push("multi-pass");
    }
    if problem.validator.is_none() {
        // Kattis tools require an input validator; the package checks no input, and says so
        // with one that accepts every input (as a CMS task, whose validators read a file
        // named on their command line and are not imported, always exports).
        warnings.push(format!(
            "{}: no input validator: exported input_validators/{ACCEPT_ALL} accepts every input; write one that checks the constraints",
            problem.dir.join("problem.toml").display()
        ));
        write_file(
            &out.join("input_validators").join(ACCEPT_ALL),
            b"# The ojd package had no input validator: every input is accepted (exit 42).\nimport sys\n\nsys.stdin.buffer.read()\nsys.exit(42)\n",
        )?;
    }
    let short = dest.file_name().unwrap_or_default().to_string_lossy();
    if short.is_empty()
        || !short
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        warnings.push(format!(
            "{}: Kattis tools take the folder's name as the problem's short name, which must be [a-z0-9]+",
            dest.display()
        ));
    }
    let secs = problem.time_limit.as_secs_f64();
    let mut yaml = format!(
        "# Exported by `ojd export kattis`.\nproblem_format_version: {}\n",
        match format {
            KattisFormat::V2023 => "2023-07-draft",
            KattisFormat::V2025 => "2025-09",
        }
    );
    let names = statement::statement(problem, &out, &mut warnings)?;
    match names.iter().next() {
        Some((lang, name)) if names.len() == 1 && lang == "en" => {
            yaml += &format!("name: {}\n", yaml_str(name));
        }
        _ => {
            yaml += "name:\n";
            for (lang, name) in &names {
                yaml += &format!("  {lang}: {}\n", yaml_str(name));
            }
        }
    }
    yaml += &format!(
        "uuid: {}\n",
        problem
            .uuid
            .clone()
            .unwrap_or_else(|| derived_uuid(problem))
    );
    if !problem.source.is_empty() {
        yaml += &format!("source: {}\n", yaml_str(&problem.source));
    }
    yaml += &format!("type: [{}]\n", kinds.join(", "));
    yaml += &format!(
        "limits:\n  time_limit: {secs}\n  memory: {}\n",
        problem.memory_limit.div_ceil(1 << 20)
    );
    if let Some(o) = problem.output_limit {
        yaml += &format!("  output: {}\n", o.div_ceil(1 << 20));
    }
    if format == KattisFormat::V2025 {
        // 2025-09 limits are whole multiples of `time_resolution` (1 s by default).
        let ms = problem.time_limit.as_millis();
        if !ms.is_multiple_of(1000) {
            let step = if ms.is_multiple_of(100) {
                "0.1"
            } else if ms.is_multiple_of(10) {
                "0.01"
            } else {
                "0.001"
            };
            yaml += &format!("  time_resolution: {step}\n");
        }
        yaml += &format!(
            "  time_multipliers:\n    ac_to_time_limit: {}\n    time_limit_to_tle: {}\n",
            problem.margins.ac_to_time_limit, problem.margins.time_limit_to_tle
        );
    }
    if let Some(n) = problem.passes {
        yaml += &format!("  validation_passes: {n}\n");
    }
    write_file(&out.join("problem.yaml"), yaml.as_bytes())?;
    if format == KattisFormat::V2023 {
        write_file(&out.join(".timelimit"), format!("{secs}\n").as_bytes())?;
    }
    let submissions = submissions::submissions(problem, &out, format, &mut warnings)?;
    let dir = stage.commit()?;
    Ok(Exported {
        dir,
        tests: places.len(),
        submissions,
        warnings,
    })
}

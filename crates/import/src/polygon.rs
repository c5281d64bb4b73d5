//! `ojd import polygon PACKAGE`: a full Polygon package (a `.zip` or its unpacked folder) into
//! an ojd package. The main entry is [`import`].
//!
//! What maps onto what:
//! - `problem.xml`: the name (English first), the `tests` testset's time limit (ms) and memory
//!   limit (bytes), `input-file`/`output-file` → `[io]`;
//! - each `<test>`: `method="manual"` → the package's file copied (CRLF normalised);
//!   `method="generated"` with `cmd="gen a b"` → a `[[generate]]` entry running the package's
//!   generator `gen` **in the sandbox** (the import runs `ojd gen`, which also makes every
//!   answer with the main solution); `sample="true"` tests are named `sample-NN`, the others
//!   `NN` (zero-padded to one width, so a name is never the prefix of another);
//! - points: a group with `points-policy="complete-group"` → one `[[group]]` worth the sum of
//!   its tests' points (or the group's own `points`); `each-test` and tests without a group →
//!   one `[[group]]` per test that has points; a group's `<dependencies>` (Polygon scores a
//!   group 0 unless every test of the groups it depends on passes) → those groups' tests are
//!   the `[[group]]`'s too;
//! - assets: the testlib checker → a `program` checker, the validator → `validator` (exit 0),
//!   the interactor → a testlib interactor, generators → `gen/`; every C++ source gets the
//!   package's `testlib.h` (and other local headers) inlined, so it compiles in the sandbox
//!   against the package's own testlib;
//! - solutions by tag: `main` → the reference `solution`; `accepted`, `wrong-answer`,
//!   `presentation-error`, `time-limit-exceeded`, `memory-limit-exceeded`, `failed` →
//!   `submissions/<verdict>/`; `rejected` (not accepted on some test) → `submissions/rejected/`;
//!   `time-limit-exceeded-or-accepted` (AC or TLE on every test, nothing required) →
//!   `submissions/time_limit_exceeded_or_accepted/`; `time-limit-exceeded-or-memory-limit-exceeded`
//!   (TLE or MLE on some test, nothing else but AC) →
//!   `submissions/time_limit_exceeded_or_memory_limit_exceeded/`; `do-not-run` and unknown tags
//!   are skipped with a warning naming the tag;
//! - statements: `statement-sections/<language>/` (or `problem-properties.json`) legend,
//!   input, output, notes (LaTeX) → `statement.md`.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};

use crate::files::{
    copy_text, create_dirs, entries, inline_includes, read_text, safe_name, write_file, Confined,
    Staging,
};
use crate::latex::latex_to_markdown;
use crate::manifest::Manifest;
use crate::{io_err, ImportError, Imported};
use ojd_config::Config;
use ojd_judge::archive::{entry_path as zip_entry_path, Entries};
use ojd_judge::{CheckerSpec, Group, Interactor, InteractorProtocol};

/// Options of a Polygon import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the ojd package goes; default `problems/<short-name>`.
    pub to: Option<PathBuf>,
}

struct Xml<'a> {
    file: String,
    root: Node<'a, 'a>,
}

impl Xml<'_> {
    fn unsupported(&self, key: &str, what: impl Into<String>) -> ImportError {
        ImportError::Unsupported {
            file: self.file.clone(),
            key: key.into(),
            what: what.into(),
        }
    }

    fn invalid(&self, what: impl Into<String>) -> ImportError {
        ImportError::Invalid {
            file: self.file.clone(),
            message: what.into(),
        }
    }
}

fn child<'a>(n: Node<'a, 'a>, name: &str) -> Option<Node<'a, 'a>> {
    n.children().find(|c| c.has_tag_name(name))
}

fn children<'a>(n: Node<'a, 'a>, name: &'a str) -> impl Iterator<Item = Node<'a, 'a>> + 'a {
    n.children().filter(move |c| c.has_tag_name(name))
}

fn text(n: Option<Node<'_, '_>>) -> Option<String> {
    n.and_then(|n| n.text()).map(|t| t.trim().to_string())
}

/// The caps on a `.zip` package: the web upload's (`[web] max_package_size`,
/// `max_package_files`) and a compression ratio no real package reaches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZipCaps {
    pub(crate) max_bytes: u64,
    pub(crate) max_files: usize,
    /// The unpacked size over the archive's size, above [`ZipCaps::RATIO_FLOOR`] bytes.
    pub(crate) max_ratio: u64,
}

impl ZipCaps {
    /// Below this many unpacked bytes, any ratio is fine.
    const RATIO_FLOOR: u64 = 1 << 20;

    pub(crate) fn of(config: &Config) -> ZipCaps {
        ZipCaps {
            max_bytes: config.web.max_package_size.bytes(),
            max_files: config.web.max_package_files,
            max_ratio: 200,
        }
    }
}

/// Unpacks a `.zip` into a scratch folder, within `caps`: the central directory's sizes are
/// checked before anything is written, and the bytes written are counted too, in case those
/// sizes lie. Links, absolute names and `..` are refused.
fn unzip(zip_path: &Path, caps: ZipCaps) -> Result<tempfile::TempDir, ImportError> {
    let dir = tempfile::Builder::new()
        .prefix("ojd-polygon-")
        .tempdir()
        .map_err(io_err("create a scratch folder"))?;
    unzip_into(zip_path, dir.path(), caps)?;
    Ok(dir)
}

fn unzip_into(zip_path: &Path, dir: &Path, caps: ZipCaps) -> Result<(), ImportError> {
    let bad = |message: String| ImportError::Invalid {
        file: zip_path.display().to_string(),
        message,
    };
    let file =
        std::fs::File::open(zip_path).map_err(io_err(format!("open {}", zip_path.display())))?;
    let archive_len = file
        .metadata()
        .map_err(io_err(format!("open {}", zip_path.display())))?
        .len();
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| bad(format!("not a zip archive: {e}")))?;
    // What the central directory claims, before writing anything.
    let mut claimed: u64 = 0;
    let mut entries = Entries::new(caps.max_files);
    for i in 0..archive.len() {
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| bad(format!("entry {i}: {e}")))?;
        let name = entry.name().to_string();
        let rel =
            zip_entry_path(&name).map_err(|why| bad(format!("entry {name:?} {why}: refused")))?;
        if entry.is_symlink() {
            return Err(bad(format!("entry {name:?} is a symbolic link: refused")));
        }
        // Folders count too: 200,000 folder entries once made 151,324 folders.
        entries.add(&rel, entry.is_dir()).map_err(bad)?;
        if entry.is_dir() {
            continue;
        }
        claimed = claimed.saturating_add(entry.size());
        if claimed > caps.max_bytes {
            return Err(bad(format!(
                "unpacks to more than {} bytes (at {name:?}): refused",
                caps.max_bytes
            )));
        }
    }
    if claimed > ZipCaps::RATIO_FLOOR && claimed / archive_len.max(1) > caps.max_ratio {
        return Err(bad(format!(
            "unpacks to {claimed} bytes from {archive_len}, more than {} times its size: refused",
            caps.max_ratio
        )));
    }
    let mut written: u64 = 0;
    for i in 0..archive.len() {
        let entry = archive
            .by_index(i)
            .map_err(|e| bad(format!("entry {i}: {e}")))?;
        let name = entry.name().to_string();
        let rel = zip_entry_path(&name).map_err(|why| bad(format!("entry {name:?} {why}")))?;
        let to = dir.join(rel);
        if entry.is_dir() {
            create_dirs(&to)?;
            continue;
        }
        if let Some(p) = to.parent() {
            create_dirs(p)?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&to)
            .map_err(io_err(format!("unpack {name}")))?;
        // Never more than the entry claimed, nor more than the cap left.
        let left = caps.max_bytes.saturating_sub(written);
        let limit = entry.size().min(left);
        let mut body = entry.take(limit + 1);
        let n = std::io::copy(&mut body, &mut out).map_err(io_err(format!("unpack {name}")))?;
        written += n;
        if n > limit {
            return Err(bad(format!(
                "entry {name:?} unpacks to more than it claims or than the cap of {} bytes: refused",
                caps.max_bytes
            )));
        }
    }
    Ok(())
}

/// A program of the package as one file in the new package: C++ gets its local includes
/// (the package's testlib.h) inlined.
fn program(pkg: &Path, rel: &str, out: &Path, dest: &str) -> Result<String, ImportError> {
    let from = pkg.join(rel);
    if !from.is_file() {
        return Err(ImportError::Invalid {
            file: pkg.join("problem.xml").display().to_string(),
            message: format!("{rel}: no such file in the package"),
        });
    }
    let ext = from.extension().and_then(|e| e.to_str()).unwrap_or("");
    let ext = if ext == "cc" || ext == "cxx" {
        "cpp"
    } else {
        ext
    };
    let name = format!("{dest}.{ext}");
    if matches!(ext, "cpp" | "c" | "h") {
        let files = pkg.join("files");
        let text = inline_includes(&from, &[&files, pkg])?;
        write_file(&out.join(&name), text.as_bytes())?;
    } else {
        copy_text(&from, &out.join(&name))?;
    }
    Ok(name)
}

/// The standard checker a Polygon checker's `name` says it is (`std::wcmp.cpp` → `wcmp`), one
/// of those [`crate::export`] knows.
fn standard_checker(name: &str) -> Option<&str> {
    let std = name.strip_prefix("std::")?.strip_suffix(".cpp")?;
    crate::export::STANDARD_CHECKERS
        .iter()
        .any(|(n, _, _)| *n == std)
        .then_some(std)
}

fn source_path(n: Node<'_, '_>) -> Option<String> {
    child(n, "source")
        .and_then(|s| s.attribute("path"))
        .map(String::from)
}

/// Expands Polygon's `tests/%02d` patterns.
fn pattern(p: &str, i: usize) -> String {
    let Some(at) = p.find('%') else {
        return p.to_string();
    };
    let spec: String = p[at + 1..].chars().take_while(|c| *c != 'd').collect();
    let width: usize = spec.trim_start_matches('0').parse().unwrap_or(0);
    let zero = spec.starts_with('0');
    let n = if zero {
        format!("{i:0width$}")
    } else {
        format!("{i:width$}")
    };
    format!("{}{}{}", &p[..at], n, &p[at + spec.len() + 2..])
}

/// Solution tags and the ojd folder each maps to.
fn tag_folder(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "accepted" => "accepted",
        "wrong-answer" | "presentation-error" => "wrong_answer",
        "time-limit-exceeded" => "time_limit_exceeded",
        "memory-limit-exceeded" => "memory_limit_exceeded",
        "failed" => "runtime_error",
        // Not accepted on some test, whatever the verdict: `ojd verify`'s `rejected/`.
        "rejected" => "rejected",
        // Its answers are right where it finishes; its speed is not promised.
        "time-limit-exceeded-or-accepted" => "time_limit_exceeded_or_accepted",
        // Too slow or too big on some test, never wrong.
        "time-limit-exceeded-or-memory-limit-exceeded" => {
            "time_limit_exceeded_or_memory_limit_exceeded"
        }
        _ => return None,
    })
}

/// Imports the Polygon package at `package` (a folder or a `.zip`) and builds its generated
/// tests and answers with `judge` (in the sandbox).
pub fn import(
    package: &Path,
    config: &Config,
    judge: &ojd_judge::Judge,
    opts: &Options,
) -> Result<Imported, ImportError> {
    let unpacked;
    let pkg: &Path = if package.is_file() {
        unpacked = unzip(package, ZipCaps::of(config))?;
        unpacked.path()
    } else {
        package
    };
    // Everything read from here on must be a file of the package (see `files`).
    let _confined = Confined::to(pkg)?;
    let xml_path = pkg.join("problem.xml");
    if !xml_path.exists() {
        return Err(ImportError::Invalid {
            file: xml_path.display().to_string(),
            message: format!(
                "missing (is this a full Polygon package?); {}",
                crate::looks_like(pkg)
            ),
        });
    }
    let xml_text = read_text(&xml_path)?;
    let doc = Document::parse(&xml_text).map_err(|e| ImportError::Invalid {
        file: xml_path.display().to_string(),
        message: format!("not valid XML: {e}"),
    })?;
    let x = Xml {
        file: if package.is_file() {
            format!("{}: problem.xml", package.display())
        } else {
            xml_path.display().to_string()
        },
        root: doc.root_element(),
    };
    if !x.root.has_tag_name("problem") {
        return Err(x.invalid("the root element is not <problem>"));
    }
    let short = x
        .root
        .attribute("short-name")
        .map(safe_name)
        .unwrap_or_else(|| "problem".into());
    let title = child(x.root, "names")
        .map(|n| {
            let names: Vec<Node> = children(n, "name").collect();
            names
                .iter()
                .find(|n| n.attribute("language") == Some("english"))
                .or(names.first())
                .and_then(|n| n.attribute("value"))
                .unwrap_or("")
                .to_string()
        })
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| short.clone());
    let judging = child(x.root, "judging").ok_or_else(|| x.invalid("no <judging> element"))?;
    let testsets: Vec<Node> = children(judging, "testset").collect();
    let testset = testsets
        .iter()
        .find(|t| t.attribute("name") == Some("tests"))
        .or(testsets.first())
        .copied()
        .ok_or_else(|| x.invalid("no <testset> in <judging>"))?;
    let tl_ms: u64 = text(child(testset, "time-limit"))
        .and_then(|t| t.parse().ok())
        .filter(|t| *t > 0)
        .ok_or_else(|| x.unsupported("judging/testset/time-limit", "expected milliseconds"))?;
    let mem: u64 = text(child(testset, "memory-limit"))
        .and_then(|t| t.parse().ok())
        .filter(|m| *m >= 1024)
        .ok_or_else(|| x.unsupported("judging/testset/memory-limit", "expected bytes"))?;
    let io_name = |attr: &str| {
        judging
            .attribute(attr)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let io = match (io_name("input-file"), io_name("output-file")) {
        (None, None) => None,
        pair => Some(pair),
    };
    let input_pattern =
        text(child(testset, "input-path-pattern")).unwrap_or_else(|| "tests/%02d".into());
    let answer_pattern =
        text(child(testset, "answer-path-pattern")).unwrap_or_else(|| "tests/%02d.a".into());
    let tests_node =
        child(testset, "tests").ok_or_else(|| x.invalid("no <tests> in the testset"))?;
    let tests: Vec<Node> = children(tests_node, "test").collect();
    if tests.is_empty() {
        return Err(x.invalid("the testset has no tests"));
    }
    let width = tests.len().to_string().len().max(2);
    let dest = opts
        .to
        .clone()
        .unwrap_or_else(|| config.server.problems.join(&short));
    let stage = Staging::new(&dest)?;
    let out = stage.dir.clone();
    create_dirs(&out.join("tests"))?;
    let mut warnings = Vec::new();

    // Assets.
    let assets = child(x.root, "assets").ok_or_else(|| x.invalid("no <assets> element"))?;
    let mut generators: Vec<(String, String)> = Vec::new();
    if let Some(files) = child(x.root, "files") {
        if let Some(exes) = child(files, "executables") {
            for e in children(exes, "executable") {
                let Some(src) = source_path(e) else { continue };
                let stem = Path::new(&src)
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                generators.push((stem, src));
            }
        }
    }
    let checker = match child(assets, "checker") {
        None => CheckerSpec::Tokens,
        Some(c) => {
            if c.attribute("type").is_some_and(|t| t != "testlib") {
                return Err(x.unsupported(
                    "assets/checker/@type",
                    "only testlib checkers are supported",
                ));
            }
            let src = source_path(c)
                .ok_or_else(|| x.unsupported("assets/checker", "no <source path=...>"))?;
            // One of Polygon's standard checkers (`name="std::ncmp.cpp"`) is kept as the
            // program it is, named `std_ncmp.cpp`, so that an export knows which comparison
            // it makes (`export`: the Kattis default validator with the matching flags).
            let dest = match c.attribute("name").and_then(standard_checker) {
                Some(std) => format!("std_{std}"),
                None => "checker".to_string(),
            };
            CheckerSpec::Program {
                path: program(pkg, &src, &out, &dest)?.into(),
            }
        }
    };
    let interactor = match child(assets, "interactor") {
        None => None,
        Some(i) => {
            let src = source_path(i)
                .ok_or_else(|| x.unsupported("assets/interactor", "no <source path=...>"))?;
            Some(Interactor {
                path: program(pkg, &src, &out, "interactor")?.into(),
                protocol: InteractorProtocol::Testlib,
                flags: Vec::new(),
            })
        }
    };
    let validator = match child(assets, "validators").and_then(|v| child(v, "validator")) {
        None => None,
        Some(v) => source_path(v)
            .map(|src| program(pkg, &src, &out, "validator"))
            .transpose()?
            .map(|name| (name, 0, Vec::new())),
    };

    // Tests.
    let mut generate = Vec::new();
    let mut names = Vec::new();
    let mut used_generators: Vec<String> = Vec::new();
    let mut samples = 0;
    for (i, t) in tests.iter().enumerate() {
        let n = i + 1;
        let sample = t.attribute("sample") == Some("true");
        let name = if sample {
            samples += 1;
            format!("sample-{n:0width$}")
        } else {
            format!("{n:0width$}")
        };
        match t.attribute("method").unwrap_or("manual") {
            "manual" => {
                let from = pkg.join(pattern(&input_pattern, n));
                if !from.is_file() {
                    return Err(ImportError::Invalid {
                        file: from.display().to_string(),
                        message: format!("test {n} is manual but its file is missing"),
                    });
                }
                copy_text(&from, &out.join("tests").join(format!("{name}.in")))?;
                // An interactive problem's answers come with the package (if at all): no
                // solution can make them without the interactor.
                let answer = pkg.join(pattern(&answer_pattern, n));
                if interactor.is_some() && answer.is_file() {
                    copy_text(&answer, &out.join("tests").join(format!("{name}.ans")))?;
                }
            }
            "generated" => {
                let cmd = t.attribute("cmd").unwrap_or("").trim();
                let mut words = cmd.split_whitespace();
                let gen = words
                    .next()
                    .ok_or_else(|| x.unsupported(&format!("test {n}/@cmd"), "empty command"))?;
                let args: Vec<String> = words.map(String::from).collect();
                if args.iter().any(|a| a.contains(['>', '<', '|', '$'])) {
                    return Err(x.unsupported(
                        &format!("test {n}/@cmd"),
                        format!("{cmd:?}: only \"generator args...\" writing the test to standard output is supported"),
                    ));
                }
                let Some((_, src)) = generators.iter().find(|(stem, _)| stem == gen) else {
                    return Err(x.unsupported(
                        &format!("test {n}/@cmd"),
                        format!("generator {gen:?} is not an executable of the package (files/executables)"),
                    ));
                };
                let rel = format!("gen/{}", safe_name(gen));
                if !used_generators.contains(&rel) {
                    program(pkg, src, &out, &rel)?;
                    used_generators.push(rel.clone());
                }
                let ext = Path::new(src)
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("");
                let ext = if ext == "cc" || ext == "cxx" {
                    "cpp"
                } else {
                    ext
                };
                generate.push((name.clone(), format!("{rel}.{ext}"), args));
            }
            other => {
                return Err(x.unsupported(
                    &format!("test {n}/@method"),
                    format!("unknown method {other:?}"),
                ))
            }
        }
        let points: f64 = t
            .attribute("points")
            .and_then(|p| p.parse().ok())
            .unwrap_or(0.0);
        names.push((name, t.attribute("group").map(String::from), points));
    }

    // Scoring.
    let groups = scoring(&x, testset, &names)?;

    // Solutions.
    let mut reference = None;
    let mut submissions = 0;
    if let Some(sols) = child(assets, "solutions") {
        for s in children(sols, "solution") {
            let tag = s.attribute("tag").unwrap_or("");
            let Some(src) = source_path(s) else { continue };
            let file = Path::new(&src)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if config.language_for(Path::new(&src)).is_none() {
                warnings.push(format!("{src}: no language profile; skipped"));
                continue;
            }
            let (folder, is_main) = match tag {
                "main" => ("accepted", true),
                t => match tag_folder(t) {
                    Some(f) => (f, false),
                    None if t == "do-not-run" => {
                        warnings.push(format!(
                            "{src}: tagged \"do-not-run\": not run, as on Polygon; skipped"
                        ));
                        continue;
                    }
                    None => {
                        warnings.push(format!(
                            "{src}: tag {t:?} is not one of Polygon's solution tags (main, accepted, rejected, wrong-answer, presentation-error, time-limit-exceeded, time-limit-exceeded-or-accepted, time-limit-exceeded-or-memory-limit-exceeded, memory-limit-exceeded, failed, do-not-run); skipped"
                        ));
                        continue;
                    }
                },
            };
            let rel = if is_main {
                format!(
                    "solution.{}",
                    Path::new(&src)
                        .extension()
                        .and_then(|e| e.to_str())
                        .unwrap_or("cpp")
                )
            } else {
                format!("submissions/{folder}/{}", safe_name(&file))
            };
            let stem = rel
                .rsplit_once('.')
                .map(|(s, _)| s.to_string())
                .unwrap_or(rel.clone());
            program(pkg, &src, &out, &stem)?;
            if is_main {
                reference = Some(rel);
            } else {
                submissions += 1;
            }
        }
    }
    let reference =
        reference.ok_or_else(|| x.invalid("no solution tagged \"main\" (the reference)"))?;
    statement(pkg, &out, &title, &mut warnings)?;
    let interactive = interactor.is_some();
    let manifest = Manifest {
        title,
        source: String::new(),
        time_limit_ms: tl_ms,
        memory_limit_bytes: mem,
        output_limit_bytes: None,
        checker,
        solution: reference,
        validator,
        interactor,
        groups,
        answers_given: interactive,
        generate,
        io,
        kattis_verdicts: false,
        uuid: None,
        passes: None,
        margins: (None, None),
        compile: Vec::new(),
        origin: "Imported from a Polygon package by `ojd import polygon`; `ojd gen` made the generated tests and every answer.".into(),
    };
    write_file(&out.join("problem.toml"), manifest.to_toml().as_bytes())?;
    let problem = ojd_judge::Problem::load(&out).map_err(|e| ImportError::Run(e.to_string()))?;
    ojd_judge::answers::generate(judge, &problem, &ojd_judge::answers::GenOptions::default())
        .map_err(|e| gen_failure(package, e))?;
    if interactive {
        let problem =
            ojd_judge::Problem::load(&out).map_err(|e| ImportError::Run(e.to_string()))?;
        for t in problem.missing_answers() {
            write_file(&t.answer, b"")?;
        }
    }
    let dir = stage.commit()?;
    Ok(Imported {
        dir,
        tests: names.len(),
        samples,
        submissions,
        warnings,
    })
}

/// Polygon points → ojd groups (see the module documentation).
fn scoring(
    x: &Xml<'_>,
    testset: Node<'_, '_>,
    names: &[(String, Option<String>, f64)],
) -> Result<Vec<Group>, ImportError> {
    let total: f64 = names.iter().map(|(_, _, p)| p).sum();
    let policies: Vec<(String, String, Option<f64>)> = child(testset, "groups")
        .map(|g| {
            children(g, "group")
                .map(|g| {
                    (
                        g.attribute("name").unwrap_or("").to_string(),
                        g.attribute("points-policy")
                            .unwrap_or("complete-group")
                            .to_string(),
                        g.attribute("points").and_then(|p| p.parse().ok()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if total == 0.0 && policies.iter().all(|(_, _, p)| p.unwrap_or(0.0) == 0.0) {
        return Ok(Vec::new());
    }
    // `<dependencies>`: a group earns its points only when every group it depends on (and
    // theirs) has every test accepted, Polygon's rule; in ojd, the tests of those groups are
    // also the group's own (and each test's own group, under `each-test`).
    let mut direct: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(g) = child(testset, "groups") {
        for g in children(g, "group") {
            let name = g.attribute("name").unwrap_or("").to_string();
            let deps: Vec<String> = child(g, "dependencies")
                .map(|d| {
                    children(d, "dependency")
                        .filter_map(|d| d.attribute("group").map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            for d in &deps {
                if !policies.iter().any(|(n, _, _)| n == d) {
                    return Err(x.unsupported(
                        &format!("groups/group[@name={name:?}]/dependencies"),
                        format!("a dependency on group {d:?}, which the testset does not have"),
                    ));
                }
            }
            direct.push((name, deps));
        }
    }
    let depends_on = |name: &str| -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        let mut todo = vec![name.to_string()];
        while let Some(n) = todo.pop() {
            for (_, deps) in direct.iter().filter(|(g, _)| *g == n) {
                for d in deps {
                    if d != name && !seen.contains(d) {
                        seen.push(d.clone());
                        todo.push(d.clone());
                    }
                }
            }
        }
        seen
    };
    let tests_of = |groups: &[String]| -> Vec<String> {
        names
            .iter()
            .filter(|(_, g, _)| g.as_ref().is_some_and(|g| groups.contains(g)))
            .map(|(t, _, _)| t.clone())
            .collect()
    };
    let milli = |p: f64, key: &str| -> Result<u32, ImportError> {
        ojd_judge::points::from_f64(p).ok_or_else(|| {
            x.unsupported(
                key,
                format!("{p} points: ojd scores non-negative points with at most three decimals"),
            )
        })
    };
    let mut groups = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for (name, policy, points) in &policies {
        let members: Vec<&(String, Option<String>, f64)> = names
            .iter()
            .filter(|(_, g, _)| g.as_deref() == Some(name.as_str()))
            .collect();
        match policy.as_str() {
            "complete-group" => {
                let sum: f64 = points.unwrap_or_else(|| members.iter().map(|(_, _, p)| p).sum());
                if sum > 0.0 && !members.is_empty() {
                    let mut tests: Vec<String> =
                        members.iter().map(|(t, _, _)| t.clone()).collect();
                    tests.extend(tests_of(&depends_on(name)));
                    groups.push(Group::exact(
                        format!("group {name}"),
                        milli(sum, &format!("groups/group[@name={name:?}]/@points"))?,
                        tests,
                    ));
                }
                done.extend(members.iter().map(|(t, _, _)| t.as_str()));
            }
            "each-test" => {
                let deps = tests_of(&depends_on(name));
                if !deps.is_empty() {
                    for (t, _, p) in members.iter().filter(|(_, _, p)| *p > 0.0) {
                        let mut tests = vec![t.clone()];
                        tests.extend(deps.iter().cloned());
                        groups.push(Group::exact(
                            format!("test {t}"),
                            milli(*p, &format!("tests/test {t}/@points"))?,
                            tests,
                        ));
                    }
                    done.extend(members.iter().map(|(t, _, _)| t.as_str()));
                }
            }
            other => {
                return Err(x.unsupported(
                    &format!("groups/group[@name={name:?}]/@points-policy"),
                    format!("unknown policy {other:?}"),
                ))
            }
        }
    }
    for (t, _, p) in names {
        if done.contains(&t.as_str()) || *p == 0.0 {
            continue;
        }
        groups.push(Group::exact(
            format!("test {t}"),
            milli(*p, &format!("tests/test {t}/@points"))?,
            vec![t.clone()],
        ));
    }
    Group::apportion(&mut groups);
    Ok(groups)
}

/// statement.md from the LaTeX sections of the English (else the first) statement.
fn statement(
    pkg: &Path,
    out: &Path,
    title: &str,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let base = pkg.join("statement-sections");
    let lang_dir = ["english", "russian"]
        .iter()
        .map(|l| base.join(l))
        .find(|p| p.is_dir())
        .or_else(|| entries(&base).into_iter().find(|p| p.is_dir()));
    let mut md = format!("# {title}\n\n");
    // A missing section is skipped; one that is there but not the package's own is an error.
    let read = |name: &str| -> Result<Option<String>, ImportError> {
        let Some(dir) = lang_dir.as_ref() else {
            return Ok(None);
        };
        let p = dir.join(name);
        if std::fs::symlink_metadata(&p).is_err() {
            return Ok(None);
        }
        read_text(&p).map(Some)
    };
    let props_file = pkg.join("statements/english/problem-properties.json");
    let props = if std::fs::symlink_metadata(&props_file).is_ok() {
        serde_json::from_str::<serde_json::Value>(&read_text(&props_file)?).ok()
    } else {
        None
    };
    let section = |file: &str, key: &str| -> Result<Option<String>, ImportError> {
        Ok(read(file)?.or_else(|| props.as_ref()?.get(key)?.as_str().map(String::from)))
    };
    let mut any = false;
    for (file, key, heading) in [
        ("legend.tex", "legend", ""),
        ("input.tex", "input", "## Input"),
        ("output.tex", "output", "## Output"),
        ("interaction.tex", "interaction", "## Interaction"),
        ("scoring.tex", "scoring", "## Scoring"),
        ("notes.tex", "notes", "## Notes"),
    ] {
        if let Some(text) = section(file, key)?.filter(|t| !t.trim().is_empty()) {
            any = true;
            if !heading.is_empty() {
                md += heading;
                md += "\n\n";
            }
            md += latex_to_markdown(&text).trim();
            md += "\n\n";
        }
    }
    if !any {
        warnings.push(format!("{}: no statement sections", pkg.display()));
    }
    write_file(
        &out.join("statement.md"),
        format!("{}\n", md.trim_end()).as_bytes(),
    )
}

/// Why building the tests and answers failed, as the package's problem (its generator, validator
/// or main solution failed, or is too slow to build an answer: exit 2, naming the package) or,
/// only when the sandbox or the host failed, as a run failure (exit 3).
pub(crate) fn gen_failure(package: &Path, e: ojd_judge::answers::GenError) -> ImportError {
    use ojd_judge::answers::GenError;
    let host = match &e {
        GenError::Io { .. } => true,
        GenError::Judge(j) => j.is_host_fault(),
        _ => false,
    };
    if host {
        return ImportError::Run(format!("building the tests and answers: {e}"));
    }
    ImportError::Invalid {
        file: package.display().to_string(),
        message: format!(
            "the package's own programs cannot build its tests and answers here (a package problem, not the sandbox's): {e}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_patterns() {
        assert_eq!(pattern("tests/%02d", 3), "tests/03");
        assert_eq!(pattern("tests/%02d.a", 12), "tests/12.a");
        assert_eq!(pattern("tests/%d", 7), "tests/7");
        assert_eq!(pattern("tests/%03d", 7), "tests/007");
    }

    const CAPS: ZipCaps = ZipCaps {
        max_bytes: 1 << 20,
        max_files: 10,
        max_ratio: 200,
    };

    fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
        use std::io::Write;
        let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            z.start_file(*name, opts).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
    }

    /// Bytes under `dir`.
    fn size_of(dir: &Path) -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| {
                let m = e.metadata().unwrap();
                if m.is_dir() {
                    size_of(&e.path())
                } else {
                    m.len()
                }
            })
            .sum()
    }

    /// Rewrites every uncompressed size of the archive (local and central headers) to `size`,
    /// as a hostile archive would.
    fn lie_about_sizes(path: &Path, size: u32) {
        let mut b = std::fs::read(path).unwrap();
        let mut i = 0;
        while i + 4 <= b.len() {
            let sig = &b[i..i + 4];
            if sig == [0x50, 0x4b, 0x03, 0x04] && i + 26 <= b.len() {
                b[i + 22..i + 26].copy_from_slice(&size.to_le_bytes());
            } else if sig == [0x50, 0x4b, 0x01, 0x02] && i + 28 <= b.len() {
                b[i + 24..i + 28].copy_from_slice(&size.to_le_bytes());
            }
            i += 1;
        }
        std::fs::write(path, b).unwrap();
    }

    #[test]
    fn zip_bombs_stop_at_the_caps() {
        let d = tempfile::tempdir().unwrap();
        let big = vec![b'0'; 8 << 20];
        // Honest sizes: refused from the central directory, nothing written.
        let honest = d.path().join("honest.zip");
        zip_of(&honest, &[("tests/01", &big)]);
        let out = d.path().join("honest");
        std::fs::create_dir(&out).unwrap();
        let e = unzip_into(&honest, &out, CAPS).unwrap_err().to_string();
        assert!(e.contains("more than"), "{e}");
        assert_eq!(size_of(&out), 0);
        // Lying sizes: stopped while writing, below the cap.
        let liar = d.path().join("liar.zip");
        zip_of(&liar, &[("a", &big), ("b", &big)]);
        lie_about_sizes(&liar, 1000);
        let out = d.path().join("liar");
        std::fs::create_dir(&out).unwrap();
        let e = unzip_into(&liar, &out, CAPS).unwrap_err().to_string();
        assert!(e.contains("liar.zip"), "{e}");
        assert!(size_of(&out) <= CAPS.max_bytes, "{}", size_of(&out));
        // Many small files.
        let many = d.path().join("many.zip");
        let names: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        zip_of(&many, &entries);
        let out = d.path().join("many");
        std::fs::create_dir(&out).unwrap();
        let e = unzip_into(&many, &out, CAPS).unwrap_err().to_string();
        assert!(e.contains("more than 10 files"), "{e}");
        assert_eq!(size_of(&out), 0);
        // Many folders and nothing else: refused before any is made.
        let folders = d.path().join("folders.zip");
        {
            let mut z = zip::ZipWriter::new(std::fs::File::create(&folders).unwrap());
            for i in 0..50 {
                z.add_directory(format!("d{i}/"), zip::write::SimpleFileOptions::default())
                    .unwrap();
            }
            z.finish().unwrap();
        }
        let out = d.path().join("folders");
        std::fs::create_dir(&out).unwrap();
        let e = unzip_into(&folders, &out, CAPS).unwrap_err().to_string();
        assert!(e.contains("more than 10 files and folders"), "{e}");
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
        // The ratio: 1 MiB of zeros from a few KiB, under a larger byte cap.
        let dense = d.path().join("dense.zip");
        zip_of(&dense, &[("a", &big)]);
        let out = d.path().join("dense");
        std::fs::create_dir(&out).unwrap();
        let caps = ZipCaps {
            max_bytes: 64 << 20,
            ..CAPS
        };
        let e = unzip_into(&dense, &out, caps).unwrap_err().to_string();
        assert!(e.contains("times its size"), "{e}");
    }

    #[test]
    fn zip_paths_stay_inside() {
        assert!(zip_entry_path("a/../../b").is_err());
        assert!(zip_entry_path("/etc/passwd").is_err());
        assert!(zip_entry_path("a\\b").is_err());
        assert_eq!(zip_entry_path("./tests/01").unwrap(), Path::new("tests/01"));
        let d = tempfile::tempdir().unwrap();
        let z = d.path().join("link.zip");
        {
            let mut w = zip::ZipWriter::new(std::fs::File::create(&z).unwrap());
            w.add_symlink(
                "tests/01",
                "/etc/passwd",
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            w.finish().unwrap();
        }
        let out = d.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let e = unzip_into(&z, &out, CAPS).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
    }

    /// Polygon's `<dependencies>`: a group scores only when the groups it depends on pass, so
    /// their tests are the group's too (as attack-plan's group 4 on group 1); a dependency on a
    /// group that does not exist is refused, naming the key.
    #[test]
    fn group_dependencies_become_the_groups_tests() {
        let xml = r#"<testset><groups>
            <group name="1" points-policy="complete-group"/>
            <group name="2" points-policy="complete-group"><dependencies><dependency group="1"/></dependencies></group>
            <group name="3" points-policy="each-test"><dependencies><dependency group="2"/></dependencies></group>
        </groups></testset>"#;
        let doc = roxmltree::Document::parse(xml).unwrap();
        let x = Xml {
            file: "problem.xml".into(),
            root: doc.root_element(),
        };
        let t = |n: &str, g: &str, p: f64| (n.to_string(), Some(g.to_string()), p);
        let names = [
            t("01", "1", 10.0),
            t("02", "2", 20.0),
            t("03", "3", 30.0),
            t("04", "3", 40.0),
        ];
        let groups = scoring(&x, doc.root_element(), &names).unwrap();
        let tests: Vec<(&str, Vec<&str>)> = groups
            .iter()
            .map(|g| {
                (
                    g.name.as_str(),
                    g.tests.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            tests,
            [
                ("group 1", vec!["01"]),
                ("group 2", vec!["02", "01"]),
                ("test 03", vec!["03", "01", "02"]),
                ("test 04", vec!["04", "01", "02"]),
            ]
        );
        let bad = xml.replace(r#"<dependency group="1"/>"#, r#"<dependency group="9"/>"#);
        let doc = roxmltree::Document::parse(&bad).unwrap();
        let x = Xml {
            file: "problem.xml".into(),
            root: doc.root_element(),
        };
        let e = scoring(&x, doc.root_element(), &names)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("groups/group[@name=\"2\"]/dependencies: a dependency on group \"9\""),
            "{e}"
        );
    }

    #[test]
    fn solution_tags() {
        assert_eq!(tag_folder("wrong-answer"), Some("wrong_answer"));
        assert_eq!(tag_folder("presentation-error"), Some("wrong_answer"));
        assert_eq!(tag_folder("failed"), Some("runtime_error"));
        assert_eq!(
            tag_folder("time-limit-exceeded-or-accepted"),
            Some("time_limit_exceeded_or_accepted")
        );
        assert_eq!(
            tag_folder("time-limit-exceeded-or-memory-limit-exceeded"),
            Some("time_limit_exceeded_or_memory_limit_exceeded")
        );
        assert_eq!(tag_folder("do-not-run"), None);
        assert_eq!(tag_folder("rejected"), Some("rejected"));
    }
}

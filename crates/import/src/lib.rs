//! Packages from elsewhere: `ojd import kattis` ([`kattis`]) and `ojd import polygon`
//! ([`polygon`]) turn a foreign problem package into an ojd package, and `ojd export kattis`
//! ([`crate::export`]) goes the other way.
//!
//! # Theory of operation
//!
//! One format inside: an import writes an ordinary ojd package (problem.toml, `tests/`,
//! `statement.md`, `submissions/<verdict>/`) that `ojd verify` then judges like any other, so the
//! package's own known submissions prove the import right. The package's answers are kept as
//! they are (`answers = "given"`): a foreign package's answers may be hints for a custom
//! validator rather than the one true output, so no reference solver ever rewrites them.
//!
//! The new package is built in a scratch folder beside the destination and renamed into place
//! only when everything went well: a failed import leaves nothing behind, and an existing
//! destination is never overwritten. Every part of the source package that would change how
//! submissions are judged and that ojd cannot represent is an error naming the file and the key
//! ([`ImportError::Unsupported`]); parts that do not change judging (images of a statement,
//! submissions in languages ojd has no profile for) are skipped with a warning.
//!
//! Programs of a package written as several files (a validator with its own header, a testlib
//! checker with the package's `testlib.h`) become one file: quoted `#include`s of files in the
//! same folder are inlined at import time ([`inline_includes`]), so they compile in the sandbox
//! like any single-file program.

#![forbid(unsafe_code)]

pub mod export;
pub mod kattis;
pub mod polygon;

use std::path::{Path, PathBuf};

use ojd_judge::problem::{CheckerSpec, Group, Interactor, InteractorProtocol};

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The package uses something ojd cannot judge the same way.
    #[error("{file}: {key}: {what}")]
    Unsupported {
        file: String,
        key: String,
        what: String,
    },
    /// The package is malformed.
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("{0} already exists: import into a new folder (--to)")]
    Exists(PathBuf),
    #[error("failed to {what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// Running the package's programs (generators, timing runs) failed.
    #[error("{0}")]
    Run(String),
}

pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ImportError {
    let what = what.into();
    move |source| ImportError::Io { what, source }
}

/// What an import made.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Imported {
    pub dir: PathBuf,
    pub tests: usize,
    pub samples: usize,
    pub submissions: usize,
    /// Parts skipped because they do not change judging, each naming the file.
    pub warnings: Vec<String>,
}

/// The problem.toml of the package being written.
#[derive(Clone, Debug)]
pub struct Manifest {
    pub title: String,
    pub source: String,
    pub time_limit_ms: u64,
    pub memory_limit_bytes: u64,
    pub output_limit_bytes: Option<u64>,
    pub checker: CheckerSpec,
    pub solution: String,
    pub validator: Option<(String, i32, Vec<String>)>,
    pub interactor: Option<Interactor>,
    pub groups: Vec<Group>,
    /// True when the answers come with the package; false when `ojd gen` makes them with the
    /// reference solution.
    pub answers_given: bool,
    /// Generated tests: (test, generator path, arguments).
    pub generate: Vec<(String, String, Vec<String>)>,
    /// File I/O: (input file name, output file name).
    pub io: Option<(Option<String>, Option<String>)>,
    /// Where the package came from, written as a comment.
    pub origin: String,
    /// The package's submissions follow Kattis's verdicts (`verdicts = "kattis"`: a memory
    /// overrun counts as a run-time error).
    pub kattis_verdicts: bool,
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn q_list(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| q(s)).collect();
    format!("[{}]", items.join(", "))
}

fn bytes_text(b: u64) -> String {
    if b.is_multiple_of(1 << 20) {
        format!("{}MiB", b >> 20)
    } else {
        format!("{}KiB", b.div_ceil(1024))
    }
}

impl Manifest {
    /// The problem.toml text: every key ojd reads, in the order README documents them.
    pub fn to_toml(&self) -> String {
        let mut t = format!("# {}\n", self.origin);
        t += &format!("title = {}\n", q(&self.title));
        if !self.source.is_empty() {
            t += &format!("source = {}\n", q(&self.source));
        }
        t += &format!("time_limit = \"{}ms\"\n", self.time_limit_ms);
        t += &format!(
            "memory_limit = {}\n",
            q(&bytes_text(self.memory_limit_bytes))
        );
        if let Some(o) = self.output_limit_bytes {
            t += &format!("output_limit = {}\n", q(&bytes_text(o)));
        }
        t += &format!("checker = {}\n", checker_toml(&self.checker));
        t += &format!("solution = {}\n", q(&self.solution));
        if self.answers_given {
            t += "answers = \"given\"\n";
        }
        if self.kattis_verdicts {
            t += "verdicts = \"kattis\"\n";
        }
        if let Some((path, accept, args)) = &self.validator {
            t += &format!(
                "validator = {{ path = {}, accept_exit = {accept}, args = {} }}\n",
                q(path),
                q_list(args)
            );
        }
        if let Some(i) = &self.interactor {
            let protocol = match i.protocol {
                InteractorProtocol::Kattis => "kattis",
                InteractorProtocol::Testlib => "testlib",
            };
            t += &format!(
                "interactor = {{ path = {}, protocol = \"{protocol}\", flags = {} }}\n",
                q(&i.path.display().to_string()),
                q_list(&i.flags)
            );
        }
        if let Some((input, output)) = &self.io {
            t += "\n[io]\n";
            if let Some(i) = input {
                t += &format!("input_file = {}\n", q(i));
            }
            if let Some(o) = output {
                t += &format!("output_file = {}\n", q(o));
            }
        }
        for (test, program, args) in &self.generate {
            t += &format!(
                "\n[[generate]]\ntest = {}\nprogram = {}\nargs = {}\n",
                q(test),
                q(program),
                q_list(args)
            );
        }
        for g in &self.groups {
            t += &format!(
                "\n[[group]]\nname = {}\npoints = {}\ntests = {}\n",
                q(&g.name),
                g.points,
                q_list(&g.tests)
            );
        }
        t
    }
}

/// A checker as a problem.toml value.
pub fn checker_toml(c: &CheckerSpec) -> String {
    let num = |x: f64| format!("{x:e}");
    match c {
        CheckerSpec::Tokens => "\"tokens\"".into(),
        CheckerSpec::Exact => "\"exact\"".into(),
        CheckerSpec::Lines => "\"lines\"".into(),
        CheckerSpec::Float { abs, rel } => format!(
            "{{ kind = \"float\", abs = {}, rel = {} }}",
            num(*abs),
            num(*rel)
        ),
        CheckerSpec::Program { path } => format!(
            "{{ kind = \"program\", path = {} }}",
            q(&path.display().to_string())
        ),
        CheckerSpec::Kattis { path, flags } => format!(
            "{{ kind = \"kattis\", path = {}, flags = {} }}",
            q(&path.display().to_string()),
            q_list(flags)
        ),
        CheckerSpec::KattisDefault(f) => {
            let mut s = format!(
                "{{ kind = \"kattis-default\", case_sensitive = {}, space_change_sensitive = {}",
                f.case_sensitive, f.space_change_sensitive
            );
            if let Some(a) = f.float_absolute_tolerance {
                s += &format!(", float_absolute_tolerance = {}", num(a));
            }
            if let Some(r) = f.float_relative_tolerance {
                s += &format!(", float_relative_tolerance = {}", num(r));
            }
            s + " }"
        }
    }
}

/// Turns CRLF (and a lone CR) into LF; other bytes are kept.
pub fn normalize_newlines(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\r' {
            out.push(b'\n');
            if data.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else {
            out.push(data[i]);
        }
        i += 1;
    }
    out
}

/// Copies a text file (test data, sources), normalising CRLF line ends.
pub fn copy_text(from: &Path, to: &Path) -> Result<(), ImportError> {
    let data = std::fs::read(from).map_err(io_err(format!("read {}", from.display())))?;
    write_file(to, &normalize_newlines(&data))
}

/// Copies a file byte for byte (images, archives).
pub fn copy_raw(from: &Path, to: &Path) -> Result<(), ImportError> {
    let data = std::fs::read(from).map_err(io_err(format!("read {}", from.display())))?;
    write_file(to, &data)
}

pub fn write_file(to: &Path, data: &[u8]) -> Result<(), ImportError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(format!("create {}", parent.display())))?;
    }
    std::fs::write(to, data).map_err(io_err(format!("write {}", to.display())))
}

/// The source of `file` with every `#include "x"` of a file found in `dir` (or beside `file`)
/// replaced by that file's text, recursively, each file at most once (as `#pragma once` and
/// include guards would). System includes (`<...>`) are left alone.
pub fn inline_includes(file: &Path, dirs: &[&Path]) -> Result<String, ImportError> {
    let mut seen = Vec::new();
    inline_into(file, dirs, &mut seen, 0)
}

fn inline_into(
    file: &Path,
    dirs: &[&Path],
    seen: &mut Vec<PathBuf>,
    depth: usize,
) -> Result<String, ImportError> {
    let data = std::fs::read(file).map_err(io_err(format!("read {}", file.display())))?;
    let text = String::from_utf8_lossy(&normalize_newlines(&data)).into_owned();
    if depth > 16 {
        return Err(ImportError::Invalid {
            file: file.display().to_string(),
            message: "includes nest more than 16 deep".into(),
        });
    }
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        let included = trimmed
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("include"))
            .map(str::trim)
            .and_then(|r| r.strip_prefix('"'))
            .and_then(|r| r.split('"').next());
        let found = included.and_then(|name| {
            let beside = file.parent().map(|p| p.join(name));
            beside
                .into_iter()
                .chain(dirs.iter().map(|d| d.join(name)))
                .find(|p| p.is_file())
        });
        match found {
            Some(path) => {
                let key = path.canonicalize().unwrap_or(path.clone());
                if !seen.contains(&key) {
                    seen.push(key);
                    out += &format!(
                        "// ---- inlined by ojd import: {} ----\n",
                        included.unwrap_or("")
                    );
                    out += &inline_into(&path, dirs, seen, depth + 1)?;
                    out += "// ---- end of the inlined file ----\n";
                }
            }
            None => {
                out += line;
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// Files of `dir` (not folders), sorted by name; hidden files left out.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    entries(dir).into_iter().filter(|p| p.is_file()).collect()
}

/// Entries of `dir`, sorted by name; hidden ones left out; empty when it is not a folder.
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| {
        !p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    v.sort_by_key(|p| {
        ojd_judge::problem::natural_key(&p.file_name().unwrap_or_default().to_string_lossy())
    });
    v
}

/// A scratch folder beside `dest`, renamed to `dest` by [`Staging::commit`]; removed if dropped.
pub struct Staging {
    pub dir: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl Staging {
    pub fn new(dest: &Path) -> Result<Staging, ImportError> {
        if dest.exists() && std::fs::read_dir(dest).map_or(true, |mut rd| rd.next().is_some()) {
            return Err(ImportError::Exists(dest.to_path_buf()));
        }
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(io_err(format!("create {}", parent.display())))?;
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "problem".into());
        let dir = parent.join(format!(".{name}.import-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(io_err(format!("create {}", dir.display())))?;
        Ok(Staging {
            dir,
            dest: dest.to_path_buf(),
            done: false,
        })
    }

    pub fn commit(mut self) -> Result<PathBuf, ImportError> {
        if self.dest.is_dir() {
            // An empty folder made by the admin beforehand.
            let _ = std::fs::remove_dir(&self.dest);
        }
        std::fs::rename(&self.dir, &self.dest).map_err(io_err(format!(
            "move the package to {}",
            self.dest.display()
        )))?;
        self.done = true;
        Ok(self.dest.clone())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A safe test or file name: letters, digits, `-`, `_`, `.`; anything else becomes `_`.
pub fn safe_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_inlined_once() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.h"), "#pragma once\nint a;\r\n").unwrap();
        std::fs::write(
            d.path().join("v.cc"),
            "#include <cstdio>\n#include \"a.h\"\n  # include \"a.h\"\n#include \"missing.h\"\nint main(){}\n",
        )
        .unwrap();
        let s = inline_includes(&d.path().join("v.cc"), &[]).unwrap();
        assert_eq!(s.matches("int a;").count(), 1, "{s}");
        assert!(s.contains("#include <cstdio>") && s.contains("#include \"missing.h\""));
        assert!(!s.contains('\r'));
    }

    #[test]
    fn staging_never_overwrites() {
        let d = tempfile::tempdir().unwrap();
        let dest = d.path().join("p");
        std::fs::create_dir(&dest).unwrap();
        std::fs::write(dest.join("keep"), "x").unwrap();
        assert!(matches!(Staging::new(&dest), Err(ImportError::Exists(_))));
        let fresh = d.path().join("q");
        {
            let s = Staging::new(&fresh).unwrap();
            std::fs::write(s.dir.join("f"), "y").unwrap();
        }
        assert!(!fresh.exists(), "a dropped staging leaves nothing");
        let s = Staging::new(&fresh).unwrap();
        std::fs::write(s.dir.join("f"), "y").unwrap();
        s.commit().unwrap();
        assert_eq!(std::fs::read_to_string(fresh.join("f")).unwrap(), "y");
    }

    #[test]
    fn manifest_loads_back() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("tests")).unwrap();
        std::fs::write(d.path().join("tests/1.in"), "").unwrap();
        std::fs::write(d.path().join("tests/1.ans"), "").unwrap();
        std::fs::write(d.path().join("sol.c"), "").unwrap();
        std::fs::write(d.path().join("v.py"), "").unwrap();
        let m = Manifest {
            title: "Title \"quoted\"".into(),
            source: "Somewhere".into(),
            time_limit_ms: 1500,
            memory_limit_bytes: 256 << 20,
            output_limit_bytes: Some(8 << 20),
            checker: CheckerSpec::KattisDefault(ojd_judge::problem::DefaultFlags {
                float_relative_tolerance: Some(1e-6),
                ..Default::default()
            }),
            solution: "sol.c".into(),
            validator: Some(("v.py".into(), 42, vec!["--x".into()])),
            interactor: None,
            groups: vec![Group {
                name: "g1".into(),
                points: 30,
                tests: vec!["g1-".into()],
            }],
            answers_given: true,
            generate: vec![],
            io: None,
            kattis_verdicts: true,
            origin: "imported".into(),
        };
        std::fs::write(d.path().join("problem.toml"), m.to_toml()).unwrap();
        let p = ojd_judge::problem::Problem::load(d.path()).unwrap();
        assert_eq!(p.title, m.title);
        assert_eq!(p.time_limit.as_millis(), 1500);
        assert_eq!(p.checker, m.checker);
        assert!(p.answers_given);
        assert_eq!(p.validator_accept, 42);
        assert_eq!(p.validator_args, ["--x"]);
        assert_eq!(p.groups[0].points, 30);
        assert_eq!(p.verdicts, ojd_judge::problem::VerdictRules::Kattis);
    }
}

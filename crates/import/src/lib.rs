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
//! same folder are inlined at import time (`files::inline_includes`), so they compile in the
//! sandbox like any single-file program.
//!
//! A package is untrusted data and the import may run as root: every file read from it must be
//! a regular file inside its folder, owned by its owner (`files::Confined`, `files::read_source`),
//! includes included; files written are 0644 at most; a `.zip` is unpacked within the web
//! upload's caps (`polygon`).
//!
//! # Layout
//! The four commands are [`kattis::import`], [`polygon::import`], [`cms::import`] and
//! [`export::export_kattis`];
//! this file holds what they return. What they share is private: `manifest` writes
//! problem.toml, `files` copies files and stages the new package, `latex` renders LaTeX
//! statements as Markdown.

#![forbid(unsafe_code)]

mod checktestdata;
pub mod clics;
pub mod cms;
pub mod export;
mod files;
pub mod kattis;
mod latex;
mod manifest;
pub mod polygon;

use std::path::PathBuf;

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The package uses something ojd cannot judge the same way.
    #[error("{file}: {key}: {what}")]
    Unsupported {
        /// The package file.
        file: String,
        /// The key or line of the file that is not supported.
        key: String,
        /// What ojd cannot do with it.
        what: String,
    },
    /// The package is malformed.
    #[error("{file}: {message}")]
    Invalid {
        /// The package file.
        file: String,
        /// What is wrong, naming the key or line.
        message: String,
    },
    /// The destination folder exists already; an import never writes into an existing folder.
    #[error("{0} already exists: import into a new folder (--to)")]
    Exists(PathBuf),
    /// A file operation failed.
    #[error("failed to {what}")]
    Io {
        /// What was being done, naming the file.
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Running the package's programs (generators, timing runs) failed.
    #[error("{0}")]
    Run(String),
}

/// What the folder `dir` looks like when it is not the package an import expected: the
/// format its files suggest, and which formats ojd imports.
pub(crate) fn looks_like(dir: &std::path::Path) -> String {
    let has = |f: &str| dir.join(f).exists();
    let what = if has("problem.yaml") {
        "a Kattis package (`ojd import kattis`)"
    } else if has("problem.xml") {
        "a Polygon package (`ojd import polygon`)"
    } else if has("task.yaml") || has("gen/GEN") {
        "a CMS task (italy_yaml: `ojd import cms`)"
    } else if has("domjudge-problem.ini") {
        "a DOMjudge package without problem.yaml, which ojd does not import"
    } else if has("problem.toml") {
        "an ojd package already (nothing to import)"
    } else {
        "no format ojd knows"
    };
    format!(
        "it looks like {what}; ojd imports Kattis packages (problem.yaml: legacy, 2023-07, 2025-09, DOMjudge's too), Polygon packages (problem.xml, or the .zip) and CMS tasks (task.yaml)"
    )
}

/// For `map_err`: an I/O failure as an [`ImportError::Io`] that says what was being done, since
/// the bare OS error names no file.
pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ImportError {
    let what = what.into();
    move |source| ImportError::Io { what, source }
}

/// What an import made.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Imported {
    /// The new ojd package's folder.
    pub dir: PathBuf,
    /// Tests imported.
    pub tests: usize,
    /// Of those, samples.
    pub samples: usize,
    /// Reference and other submissions imported under `submissions/`.
    pub submissions: usize,
    /// Parts skipped because they do not change judging, each naming the file.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    /// A folder in another format is named as what it looks like, with the formats ojd imports.
    #[test]
    fn a_foreign_folder_is_named() {
        let d = tempfile::tempdir().unwrap();
        assert!(super::looks_like(d.path()).contains("no format ojd knows"));
        std::fs::create_dir_all(d.path().join("gen")).unwrap();
        std::fs::write(d.path().join("task.yaml"), "name: t\n").unwrap();
        let m = super::looks_like(d.path());
        assert!(
            m.contains("a CMS task (italy_yaml: `ojd import cms`)"),
            "{m}"
        );
        assert!(m.contains("ojd imports Kattis packages"), "{m}");
        let e = crate::kattis::import(
            d.path(),
            &ojd_config::Config::defaults(),
            None,
            &Default::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("not a Kattis problem package; it looks like a CMS task"),
            "{e}"
        );
    }
}

//! How a language profile compiles and runs a submission of several files (a bundle, see
//! [`crate::sources`]), as DOMjudge and problemtools do: the profile's `several_files` says
//! which way, and [`entry_file`] is the rule for the file a program starts from.
//!
//! - `together` (C, C++, Kotlin, Java): every source of the language (by the profile's
//!   extensions) is compiled in one command: each argument of the compile command that names
//!   the profile's `source` (`main.cpp`) becomes all of them, in name order; Java's command
//!   compiles `*.java` already and its `{class}` is the entry class: the main class of the entry
//!   file ([`entry_file`], where the file declaring `main` counts as the one named `main`).
//! - `entry` (Python): every file is kept in the program's folder, every source is
//!   byte-compiled (the argument naming `source` becomes all of them), and the run command runs
//!   the entry file ([`entry_file`]) in place of the profile's `executable`.
//! - otherwise (`""`, the default: Rust, an ELF executable) a submission of several files is
//!   refused, naming the language.
//!
//! Other files of the folder (headers, data) are in the compiler's folder too, and so in the
//! program's folder under `entry`, but are never compiled as sources.

use serde::{Deserialize, Serialize};

use super::Language;
use crate::sources::{Bundle, SourceFile};

/// A profile's way with a submission of several files (`several_files` in its table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum SeveralFiles {
    /// Refused.
    #[default]
    #[serde(rename = "")]
    No,
    /// Every source compiled together into one executable.
    #[serde(rename = "together")]
    Together,
    /// Every file kept; the run command runs the entry file.
    #[serde(rename = "entry")]
    Entry,
}

/// The file a submission of several files starts from, as problemtools and DOMjudge decide:
/// the only source; else a source named `main.<ext>` (any case: problemtools' rule, which also
/// counts, for Java, the only file declaring `main`); else the one named like the folder
/// (DOMjudge's submission folders); else, for Python, the only one holding `__main__`; else the
/// first by name (problemtools' last resort).
pub fn entry_file<'a>(folder: &str, sources: &[&'a SourceFile], java: bool) -> &'a SourceFile {
    let stem = |f: &SourceFile| {
        f.name
            .rsplit_once('.')
            .map_or(f.name.clone(), |(s, _)| s.to_string())
    };
    let text = |f: &SourceFile| String::from_utf8_lossy(&f.text).into_owned();
    let only = |found: Vec<&'a SourceFile>| (found.len() == 1).then(|| found[0]);
    if let [one] = sources {
        return one;
    }
    let named_main = only(
        sources
            .iter()
            .copied()
            .filter(|f| stem(f).eq_ignore_ascii_case("main"))
            .collect(),
    );
    let declares_main = || {
        java.then(|| {
            only(
                sources
                    .iter()
                    .copied()
                    .filter(|f| super::java::declares_main(&text(f)))
                    .collect(),
            )
        })
        .flatten()
    };
    let like_folder = || sources.iter().copied().find(|f| stem(f) == folder);
    let dunder_main = || {
        (!java)
            .then(|| {
                only(
                    sources
                        .iter()
                        .copied()
                        .filter(|f| text(f).contains("__main__"))
                        .collect(),
                )
            })
            .flatten()
    };
    named_main
        .or_else(declares_main)
        .or_else(like_folder)
        .or_else(dunder_main)
        .unwrap_or(sources[0])
}

impl Language {
    /// The profile for the submission `bundle` (compile and run commands, `{class}`, executable)
    /// and the names of the files the program keeps (`entry`: every file; else none besides the
    /// executable); an error names what cannot be judged.
    pub(crate) fn for_bundle(&self, bundle: &Bundle) -> Result<(Language, Vec<String>), String> {
        let several = self.several_files;
        if several == SeveralFiles::No {
            return Err(format!(
                "a submission of several files ({}) cannot be judged in {}: its profile compiles one file (several_files is not set)",
                names(&bundle.files).join(", "),
                self.name
            ));
        }
        let sources: Vec<&SourceFile> = bundle
            .files
            .iter()
            .filter(|f| {
                f.name
                    .rsplit_once('.')
                    .is_some_and(|(_, e)| self.extensions.iter().any(|x| x == e))
            })
            .collect();
        if sources.is_empty() {
            return Err(format!(
                "no {} source among the submission's files ({}): expected a file ending in {}",
                self.name,
                names(&bundle.files).join(", "),
                self.extensions
                    .iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let java = self.entry_point == super::EntryPoint::Java;
        let entry = entry_file(&bundle.folder, &sources, java);
        let mut l = if java {
            self.for_source(&entry.text)
        } else {
            self.clone()
        };
        let all: Vec<String> = sources.iter().map(|f| f.name.clone()).collect();
        l.compile = l
            .compile
            .iter()
            .flat_map(|a| {
                if *a == self.source {
                    all.clone()
                } else {
                    vec![a.clone()]
                }
            })
            .collect();
        let mut keep = Vec::new();
        if several == SeveralFiles::Entry {
            let from = format!("/prog/{}", self.executable);
            for a in &mut l.run {
                if *a == from {
                    *a = format!("/prog/{}", entry.name);
                }
            }
            l.executable = entry.name.clone();
            keep = bundle.files.iter().map(|f| f.name.clone()).collect();
        }
        Ok((l, keep))
    }
}

fn names(files: &[SourceFile]) -> Vec<String> {
    files.iter().map(|f| f.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, text: &str) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.as_bytes().to_vec(),
        }
    }

    fn entry(folder: &str, files: &[SourceFile], java: bool) -> String {
        let refs: Vec<&SourceFile> = files.iter().collect();
        entry_file(folder, &refs, java).name.clone()
    }

    /// A profile of the repository's config.toml (the defaults) whose compiler is a stand-in
    /// file (no toolchain needed).
    fn profile(id: &str) -> Language {
        let dir = tempfile::tempdir().unwrap();
        let all: toml::Table = toml::from_str(include_str!("../../../../config.toml")).unwrap();
        let mut config: crate::lang::LanguageConfig =
            all["languages"][id].clone().try_into().unwrap();
        if !config.compile.is_empty() {
            let fake = dir.path().join("compiler");
            std::fs::write(&fake, "").unwrap();
            config.compile[0] = fake.display().to_string();
        }
        config.run[0] = "/prog/main".into();
        config.requires.clear();
        config.sysroot_query.clear();
        crate::lang::resolve_language(id, &config, crate::lang::PROBE_TIMEOUT)
            .expect("resolves")
            .0
    }

    fn bundle(folder: &str, files: &[SourceFile]) -> Bundle {
        crate::sources::decode(&crate::sources::encode(folder, files)).unwrap()
    }

    #[test]
    fn commands_for_several_files() {
        let cpp = profile("cpp");
        let b = bundle(
            "parts",
            &[
                f("sum.h", ""),
                f("sum.cpp", ""),
                f("main.cpp", ""),
                f("notes.txt", ""),
            ],
        );
        let (l, keep) = cpp.for_bundle(&b).unwrap();
        assert_eq!(
            &l.compile[l.compile.len() - 2..],
            ["main.cpp", "sum.cpp"],
            "every source in the place of main.cpp, headers and other files not: {:?}",
            l.compile
        );
        assert_eq!((l.executable.as_str(), keep.len()), ("main", 0));

        let py = profile("python");
        let b = bundle(
            "mods",
            &[
                f("reading.py", ""),
                f("solve.py", "if __name__ == '__main__': pass"),
            ],
        );
        let (l, keep) = py.for_bundle(&b).unwrap();
        assert_eq!(
            &l.compile[l.compile.len() - 2..],
            ["reading.py", "solve.py"]
        );
        assert_eq!(l.executable, "solve.py");
        assert_eq!(keep, ["reading.py", "solve.py"], "every file kept");

        let java = profile("java");
        let b = bundle(
            "classes",
            &[
                f("Adder.java", "class Adder { long t; }"),
                f(
                    "Solve.java",
                    "public class Solve { public static void main(String[] a) {} }",
                ),
            ],
        );
        let (l, _) = java.for_bundle(&b).unwrap();
        assert!(
            l.compile.iter().any(|a| a == "Solve")
                && !l.compile.iter().any(|a| a.contains("{class}")),
            "the main class fills {{class}}: {:?}",
            l.compile
        );

        let e = profile("rust")
            .for_bundle(&bundle("r", &[f("main.rs", ""), f("util.rs", "")]))
            .unwrap_err();
        assert!(e.contains("cannot be judged in Rust"), "{e}");
        let e = cpp
            .for_bundle(&bundle("h", &[f("a.h", ""), f("b.hpp", "")]))
            .unwrap_err();
        assert!(
            e.contains("no C++ (g++, C++17) source among the submission's files (a.h, b.hpp)"),
            "{e}"
        );
    }

    #[test]
    fn the_entry_point_rule() {
        let lib = f("lib.py", "def f(): return 1\n");
        let guarded = "import lib\nif __name__ == '__main__':\n    print(lib.f())\n";
        // the only source
        assert_eq!(entry("sol", &[f("solve.py", "")], false), "solve.py");
        // main.* (any case) first, whatever the folder is named
        assert_eq!(
            entry(
                "sol",
                &[lib.clone(), f("Main.py", ""), f("sol.py", "")],
                false
            ),
            "Main.py"
        );
        // then the file named like the folder
        assert_eq!(
            entry(
                "sol",
                &[lib.clone(), f("sol.py", "import lib\n"), f("x.py", guarded)],
                false
            ),
            "sol.py"
        );
        // then the only file with __main__
        assert_eq!(
            entry(
                "two",
                &[f("a.py", "X = 1\n"), lib.clone(), f("z.py", guarded)],
                false
            ),
            "z.py"
        );
        // else the first by name (problemtools), also when several hold __main__
        assert_eq!(
            entry("two", &[f("b.py", guarded), f("c.py", guarded)], false),
            "b.py"
        );
        assert_eq!(entry("two", &[f("b.py", ""), f("c.py", "")], false), "b.py");
        // Java: the file declaring main counts as main.*
        let helper = f("A.java", "class A { static int f() { return 1; } }\n");
        let app = f(
            "Solve.java",
            "public class Solve { public static void main(String[] a) { System.out.println(A.f()); } }\n",
        );
        assert_eq!(
            entry("x", &[helper.clone(), app.clone()], true),
            "Solve.java"
        );
        // ... unless a Main.java is there (problemtools' main file)
        assert_eq!(
            entry("x", &[helper, app, f("Main.java", "class Main {}")], true),
            "Main.java"
        );
    }
}

//! The Contest API's language objects: a language profile of `config.toml` as the 2023-06
//! standard's `compiler` and `runner` COMMAND objects (both optional: `command`, `args`,
//! `version_command`).
//!
//! - A compiled language (its compile step makes the program it runs, another file than the
//!   source: C, C++, Rust, Java, Kotlin) has a `compiler`: the compile command, with the
//!   profile's `version` as its `version_command`.
//! - An interpreted language (the program it runs is the source itself: Python, PyPy) has no
//!   `compiler` (a syntax check such as `py_compile` makes nothing to run) and a `runner`: the
//!   interpreter, with the profile's `version` as its `version_command`.
//! - A `runner` is there whenever the run command starts another program than the one made
//!   (Java and Kotlin: the JVM, whose version the profile does not name); a program that runs
//!   itself (a compiled binary, an uploaded executable) has none.

use serde_json::{json, Map, Value};

use ojd_judge::LanguageConfig;

/// Where a program sits when it runs (the run commands name it there).
const PROGRAM_DIR: &str = "/prog";

/// The language object of profile `id`.
pub(crate) fn language_object(id: &str, l: &LanguageConfig) -> Value {
    let compiled = !l.compile.is_empty() && l.executable != l.source;
    let itself = format!("{PROGRAM_DIR}/{}", l.executable);
    let runs_another = l.run.first().is_some_and(|p| *p != itself);
    let mut v = json!({
        "id": id,
        "name": l.name,
        "entry_point_required": false,
        "extensions": l.extensions,
    });
    if compiled {
        v["compiler"] = command(&l.compile, &l.version);
    }
    if runs_another {
        // The interpreter's version is the profile's; the JVM's beside a compiler is not named.
        let version: &[String] = if compiled { &[] } else { &l.version };
        v["runner"] = command(&l.run, version);
    }
    v
}

/// A COMMAND object: the program, its arguments as one shell-quoted line (absent when none),
/// and the command printing its version (absent when the profile names none).
fn command(argv: &[String], version: &[String]) -> Value {
    let mut o = Map::new();
    o.insert("command".into(), json!(argv[0]));
    if argv.len() > 1 {
        o.insert("args".into(), json!(shell_line(&argv[1..])));
    }
    if !version.is_empty() {
        o.insert("version_command".into(), json!(shell_line(version)));
    }
    Value::Object(o)
}

/// Words joined by spaces, each quoted for a POSIX shell when it needs it.
fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars().all(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(c, '-' | '_' | '.' | '/' | '=' | ':' | ',' | '+' | '{' | '}')
                });
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(id: &str) -> Value {
        let config = ojd_judge::Config::defaults();
        let l = config.languages.get(id).expect("a default profile");
        language_object(id, l)
    }

    #[test]
    fn an_interpreted_language_has_a_runner_and_no_compiler() {
        for (id, interpreter) in [("python", "/usr/bin/python3"), ("pypy3", "pypy3")] {
            let v = object(id);
            assert!(v.get("compiler").is_none(), "{id}: {v}");
            assert_eq!(v["runner"]["command"], interpreter, "{id}: {v}");
            assert_eq!(v["runner"]["args"], "/prog/main.py", "{id}: {v}");
            assert_eq!(
                v["runner"]["version_command"],
                format!("{interpreter} --version"),
                "{id}: {v}"
            );
        }
    }

    #[test]
    fn a_compiled_language_has_a_compiler_and_a_runner_only_for_a_vm() {
        let c = object("c");
        assert_eq!(
            c["compiler"],
            json!({
                "command": "/usr/bin/gcc",
                "args": "-std=c11 -O2 -pipe -o main main.c -lm",
                "version_command": "/usr/bin/gcc --version",
            })
        );
        assert!(c.get("runner").is_none(), "a binary runs itself: {c}");
        for id in ["java", "kotlin"] {
            let v = object(id);
            assert!(
                v["compiler"]["command"]
                    .as_str()
                    .is_some_and(|s| !s.is_empty()),
                "{id}: {v}"
            );
            assert_eq!(v["runner"]["command"], "java", "{id}: the JVM: {v}");
            assert!(
                v["runner"]["args"]
                    .as_str()
                    .is_some_and(|a| a.ends_with("-jar /prog/main.jar")),
                "{id}: {v}"
            );
            assert!(v["runner"].get("version_command").is_none(), "{id}: {v}");
        }
        // Java's compile script is one argument of `sh -c`: quoted as one word.
        let java = object("java");
        let args = java["compiler"]["args"].as_str().expect("args");
        assert!(
            args.starts_with("-c 'J=\"-J-XX:+UseSerialGC") && args.ends_with("' sh {class}"),
            "{args}"
        );
        let binary = object("binary");
        assert!(
            binary.get("compiler").is_none() && binary.get("runner").is_none(),
            "{binary}"
        );
    }

    #[test]
    fn every_command_is_named_and_never_empty() {
        let config = ojd_judge::Config::defaults();
        for (id, l) in &config.languages {
            let v = language_object(id, l);
            for key in ["compiler", "runner"] {
                if let Some(c) = v.get(key) {
                    assert!(
                        c["command"].as_str().is_some_and(|s| !s.is_empty()),
                        "{id}.{key}: {v}"
                    );
                }
            }
        }
    }

    #[test]
    fn words_are_quoted_only_when_they_need_it() {
        let words: Vec<String> = ["-o", "a b", "it's", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(shell_line(&words), "-o 'a b' 'it'\\''s' ''");
    }
}

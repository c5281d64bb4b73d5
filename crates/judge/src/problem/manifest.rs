//! `problem.toml` as read: the file parsed into a TOML table, and [`Ctx`], the reader of its keys
//! that records an error for each bad key (naming the file and the key) and goes on, so that
//! loading reports every mistake at once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::LoadError;
use crate::units::{parse_bytes, parse_duration};

const KNOWN_KEYS: &[&str] = &[
    "title",
    "verdicts",
    "source",
    "time_limit",
    "wall_time_limit",
    "memory_limit",
    "output_limit",
    "checker",
    "solution",
    "validator",
    "answers",
    "interactor",
    "io",
    "generate",
    "stress",
    "group",
    "uuid",
    "passes",
    "limits",
    "compile",
];

/// Reads `dir`'s `problem.toml` as a TOML table, with the reader that records each bad key of
/// it. A missing folder, an unreadable file or a syntax error (naming its line) stops here: there
/// are no keys to go on with.
pub(super) fn read(dir: &Path) -> Result<(Ctx, toml::Table), LoadError> {
    let file = dir.join("problem.toml");
    let mut cx = Ctx {
        file: file.display().to_string(),
        errors: Vec::new(),
    };
    if !dir.is_dir() {
        return Err(LoadError {
            errors: vec![format!("{}: no such problem folder", dir.display())],
        });
    }
    let text = std::fs::read_to_string(&file).map_err(|e| LoadError {
        errors: vec![format!("{}: failed to read: {e}", file.display())],
    })?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start].matches('\n').count() + 1;
                format!("line {line}: ")
            })
            .unwrap_or_default();
        LoadError {
            errors: vec![format!("{}: {at}{}", file.display(), e.message())],
        }
    })?;
    cx.unknown(&table, KNOWN_KEYS, "");
    Ok((cx, table))
}

/// The reader of a manifest's keys: the file it names in errors, and the errors so far.
pub(super) struct Ctx {
    file: String,
    pub(super) errors: Vec<String>,
}

impl Ctx {
    pub(super) fn err(&mut self, key: &str, msg: impl std::fmt::Display) {
        self.errors.push(format!("{}: {key}: {msg}", self.file));
    }

    pub(super) fn string(&mut self, t: &toml::Table, key: &str) -> Option<String> {
        match t.get(key) {
            None => None,
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.err(key, "expected a string");
                None
            }
        }
    }

    pub(super) fn required_string(&mut self, t: &toml::Table, key: &str) -> Option<String> {
        let v = self.string(t, key);
        if v.is_none() && !t.contains_key(key) {
            self.err(key, "missing");
        }
        v
    }

    pub(super) fn duration(&mut self, t: &toml::Table, key: &str) -> Option<Duration> {
        let s = self.string(t, key)?;
        match parse_duration(&s) {
            Ok(d) if d > Duration::ZERO => Some(d),
            Ok(_) => {
                self.err(key, "must be greater than zero");
                None
            }
            Err(e) => {
                self.err(key, format!("expected {e}"));
                None
            }
        }
    }

    pub(super) fn bytes(&mut self, t: &toml::Table, key: &str) -> Option<u64> {
        let s = self.string(t, key)?;
        match parse_bytes(&s) {
            Ok(b) if b.bytes() >= 1024 => Some(b.bytes()),
            Ok(_) => {
                self.err(key, "must be at least 1KiB");
                None
            }
            Err(e) => {
                self.err(key, format!("expected {e}"));
                None
            }
        }
    }

    pub(super) fn strings(&mut self, t: &toml::Table, key: &str) -> Vec<String> {
        match t.get(key) {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => a
                .iter()
                .filter_map(|v| match v {
                    toml::Value::String(s) => Some(s.clone()),
                    _ => {
                        self.err(key, "expected an array of strings");
                        None
                    }
                })
                .collect(),
            Some(_) => {
                self.err(key, "expected an array of strings");
                Vec::new()
            }
        }
    }

    pub(super) fn unknown(&mut self, t: &toml::Table, known: &[&str], prefix: &str) {
        for k in t.keys() {
            if !known.contains(&k.as_str()) {
                self.err(
                    &format!("{prefix}{k}"),
                    format!("unknown key (known: {})", known.join(", ")),
                );
            }
        }
    }

    /// A path inside the package that must exist.
    pub(super) fn file(&mut self, dir: &Path, key: &str, rel: &str) -> Option<PathBuf> {
        let p = Path::new(rel);
        if p.is_absolute()
            || p.components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            self.err(
                key,
                format!("{rel:?} must be a path inside the problem folder"),
            );
            return None;
        }
        if !dir.join(p).is_file() {
            self.err(key, format!("{} does not exist", dir.join(p).display()));
            return None;
        }
        Some(p.to_path_buf())
    }
}

pub(super) fn tables<'a>(
    cx: &mut Ctx,
    key: &str,
    v: Option<&'a toml::Value>,
) -> Vec<&'a toml::Table> {
    match v {
        None => Vec::new(),
        Some(toml::Value::Array(a)) => a
            .iter()
            .filter_map(|e| {
                let t = e.as_table();
                if t.is_none() {
                    cx.err(key, format!("expected [[{key}]] tables"));
                }
                t
            })
            .collect(),
        Some(_) => {
            cx.err(key, format!("expected [[{key}]] tables"));
            Vec::new()
        }
    }
}

pub(super) fn plain_name(cx: &mut Ctx, key: &str, s: String) -> Option<String> {
    if s.is_empty() || s.contains('/') || s.starts_with('.') {
        cx.err(key, format!("{s:?} must be a plain file name"));
        return None;
    }
    Some(s)
}

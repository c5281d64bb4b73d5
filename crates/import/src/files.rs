//! Files in and out of an import: the source package's folders in a stable order, text copied
//! with its line ends normalised, a program of several files made one ([`inline_includes`]), and
//! the scratch folder the new package is built in ([`Staging`]), so a failed import leaves
//! nothing behind.

use std::path::{Path, PathBuf};

use crate::{io_err, ImportError};

/// Turns CRLF (and a lone CR) into LF; other bytes are kept.
pub(crate) fn normalize_newlines(data: &[u8]) -> Vec<u8> {
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
pub(crate) fn copy_text(from: &Path, to: &Path) -> Result<(), ImportError> {
    let data = std::fs::read(from).map_err(io_err(format!("read {}", from.display())))?;
    write_file(to, &normalize_newlines(&data))
}

/// Copies a file byte for byte (images, archives).
pub(crate) fn copy_raw(from: &Path, to: &Path) -> Result<(), ImportError> {
    let data = std::fs::read(from).map_err(io_err(format!("read {}", from.display())))?;
    write_file(to, &data)
}

pub(crate) fn write_file(to: &Path, data: &[u8]) -> Result<(), ImportError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(format!("create {}", parent.display())))?;
    }
    std::fs::write(to, data).map_err(io_err(format!("write {}", to.display())))
}

/// The source of `file` with every `#include "x"` of a file found in `dir` (or beside `file`)
/// replaced by that file's text, recursively, each file at most once (as `#pragma once` and
/// include guards would). System includes (`<...>`) are left alone.
pub(crate) fn inline_includes(file: &Path, dirs: &[&Path]) -> Result<String, ImportError> {
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
pub(crate) fn files_in(dir: &Path) -> Vec<PathBuf> {
    entries(dir).into_iter().filter(|p| p.is_file()).collect()
}

/// Entries of `dir`, sorted by name; hidden ones left out; empty when it is not a folder.
pub(crate) fn entries(dir: &Path) -> Vec<PathBuf> {
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
pub(crate) struct Staging {
    pub(crate) dir: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl Staging {
    pub(crate) fn new(dest: &Path) -> Result<Staging, ImportError> {
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

    pub(crate) fn commit(mut self) -> Result<PathBuf, ImportError> {
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
pub(crate) fn safe_name(s: &str) -> String {
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
}

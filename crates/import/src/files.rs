//! Files in and out of an import: the source package's folders in a stable order, text copied
//! with its line ends normalised, a program of several files made one ([`inline_includes`]), and
//! the scratch folder the new package is built in ([`Staging`]), so a failed import leaves
//! nothing behind.
//!
//! A package is untrusted data, and the import may run as root: while an import runs, the
//! package's folder is its [`Confined`] root, and every file the import reads from the package
//! goes through [`read_source`], which resolves it (symlinks included) and refuses anything
//! that is not a regular file inside that folder, owned by the folder's owner (a hard link to a
//! host file is owned by someone else). Files written get at most 0644, never more than the
//! package's own file had.

use std::cell::RefCell;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

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

/// The package folder an import reads from (canonical) and its owner.
#[derive(Clone)]
struct Root {
    dir: PathBuf,
    uid: u32,
}

thread_local! {
    static ROOT: RefCell<Option<Root>> = const { RefCell::new(None) };
}

/// While alive, every [`read_source`] on this thread must stay inside one package folder.
pub(crate) struct Confined {
    prev: Option<Root>,
}

impl Confined {
    pub(crate) fn to(dir: &Path) -> Result<Confined, ImportError> {
        let canon = dir.canonicalize().map_err(|e| ImportError::Invalid {
            file: dir.display().to_string(),
            message: format!("no such folder ({e})"),
        })?;
        let meta = std::fs::metadata(&canon)
            .map_err(io_err(format!("open the package {}", dir.display())))?;
        let root = Root {
            dir: canon,
            uid: meta.uid(),
        };
        let prev = ROOT.with(|r| r.borrow_mut().replace(root));
        Ok(Confined { prev })
    }
}

impl Drop for Confined {
    fn drop(&mut self) {
        let prev = self.prev.take();
        ROOT.with(|r| *r.borrow_mut() = prev);
    }
}

fn refused(path: &Path, message: String) -> ImportError {
    ImportError::Invalid {
        file: path.display().to_string(),
        message,
    }
}

/// Where `path` leads, if it stays inside the package being imported (any path when no import
/// is confined); an error naming the path and where it leads otherwise.
pub(crate) fn confined(path: &Path) -> Result<PathBuf, ImportError> {
    let canon = path
        .canonicalize()
        .map_err(io_err(format!("read {}", path.display())))?;
    let Some(root) = ROOT.with(|r| r.borrow().clone()) else {
        return Ok(canon);
    };
    if !canon.starts_with(&root.dir) {
        let target = std::fs::read_link(path).unwrap_or_else(|_| canon.clone());
        return Err(refused(
            path,
            format!(
                "leads outside the package (to {}): refused, a package may only use its own files",
                target.display()
            ),
        ));
    }
    Ok(canon)
}

/// The regular file `path` of the package, resolved, with its permission bits; refused when it
/// leads outside the package, is not a regular file, or belongs to someone else.
fn checked(path: &Path) -> Result<(PathBuf, u32), ImportError> {
    let canon = confined(path)?;
    let meta = std::fs::metadata(&canon).map_err(io_err(format!("read {}", path.display())))?;
    if !meta.is_file() {
        return Err(refused(
            path,
            "not a regular file: refused (a package holds only files and folders)".into(),
        ));
    }
    if let Some(root) = ROOT.with(|r| r.borrow().clone()) {
        if meta.uid() != root.uid {
            return Err(refused(
                path,
                format!(
                    "owned by user {}, not by the package's owner ({}): refused",
                    meta.uid(),
                    root.uid
                ),
            ));
        }
    }
    Ok((canon, meta.mode() & 0o777))
}

/// Reads a file of the package (see the module documentation): its bytes and permission bits.
pub(crate) fn read_source(path: &Path) -> Result<(Vec<u8>, u32), ImportError> {
    let (canon, mode) = checked(path)?;
    let data = std::fs::read(canon).map_err(io_err(format!("read {}", path.display())))?;
    Ok((data, mode))
}

/// [`read_source`] as text with its line ends normalised (invalid UTF-8 replaced).
pub(crate) fn read_text(path: &Path) -> Result<String, ImportError> {
    let (data, _) = read_source(path)?;
    Ok(String::from_utf8_lossy(&normalize_newlines(&data)).into_owned())
}

/// Copies a text file (test data, sources), normalising CRLF line ends.
pub(crate) fn copy_text(from: &Path, to: &Path) -> Result<(), ImportError> {
    let (data, mode) = read_source(from)?;
    write_mode(to, &normalize_newlines(&data), mode & 0o644)
}

/// Copies a file byte for byte (images, archives).
pub(crate) fn copy_raw(from: &Path, to: &Path) -> Result<(), ImportError> {
    let (data, mode) = read_source(from)?;
    write_mode(to, &data, mode & 0o644)
}

/// Writes a new file of the package being built, readable by all (0644).
pub(crate) fn write_file(to: &Path, data: &[u8]) -> Result<(), ImportError> {
    write_mode(to, data, 0o644)
}

/// The first comment line of the `build` script of an ojd validator that `ojd export kattis`
/// wrapped for Kattis; the Kattis import recognises it and takes the validator back as it was
/// (exit 0 accepts).
pub(crate) const WRAPPED_VALIDATOR: &str =
    "# Made by `ojd export kattis`: ojd's validator accepts an input with exit 0, a";

/// The first comment line of the `build` script of a checker or interactor that `ojd export
/// kattis` wrapped as a Kattis output validator; the Kattis import recognises it and takes the
/// program back with its own protocol.
pub(crate) const WRAPPED_PROGRAM: &str =
    "# Made by `ojd export kattis`: a program of another protocol wrapped as a Kattis output validator.";

/// Writes a script of ojd's own making (never a package's file), executable (0755).
pub(crate) fn write_script(to: &Path, text: &str) -> Result<(), ImportError> {
    write_mode(to, text.as_bytes(), 0o755)
}

/// Creates `dir` and its parents (0755 at most).
pub(crate) fn create_dirs(dir: &Path) -> Result<(), ImportError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(dir)
        .map_err(io_err(format!("create {}", dir.display())))
}

fn write_mode(to: &Path, data: &[u8], mode: u32) -> Result<(), ImportError> {
    use std::io::Write;
    if let Some(parent) = to.parent() {
        create_dirs(parent)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(to)
        .map_err(io_err(format!("write {}", to.display())))?;
    // An existing file keeps its mode on open: set it.
    f.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(io_err(format!("write {}", to.display())))?;
    f.write_all(data)
        .map_err(io_err(format!("write {}", to.display())))
}

/// The source of `file` with every `#include "x"` of a file found in `dir` (or beside `file`)
/// replaced by that file's text, recursively, each file at most once (as `#pragma once` and
/// include guards would). System includes (`<...>`) are left alone, and so are quoted ones of
/// files that do not exist. Only files of the package are read ([`read_source`]): an absolute
/// path, or one that leads outside the package, is an error naming the file and the line.
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
    let text = read_text(file)?;
    if depth > 16 {
        return Err(ImportError::Invalid {
            file: file.display().to_string(),
            message: "includes nest more than 16 deep".into(),
        });
    }
    let mut out = String::with_capacity(text.len());
    for (n, line) in text.lines().enumerate() {
        let at = |message: String| ImportError::Invalid {
            file: format!("{}:{}", file.display(), n + 1),
            message,
        };
        let trimmed = line.trim_start();
        let included = trimmed
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("include"))
            .map(str::trim)
            .and_then(|r| r.strip_prefix('"'))
            .and_then(|r| r.split('"').next());
        if let Some(name) = included {
            let climbs = Path::new(name)
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
            if Path::new(name).is_absolute() {
                return Err(at(format!(
                    "#include \"{name}\": an absolute path: refused, a package may only include its own files"
                )));
            }
            let beside = file.parent().map(|p| p.join(name));
            let candidate = beside
                .into_iter()
                .chain(dirs.iter().map(|d| d.join(name)))
                .find(|p| std::fs::symlink_metadata(p).is_ok());
            let found = match candidate {
                Some(p) => Some((
                    checked(&p)
                        .map_err(|e| at(format!("#include \"{name}\": {e}")))?
                        .0,
                    p,
                )),
                None if climbs => {
                    return Err(at(format!(
                        "#include \"{name}\": no such file in the package"
                    )))
                }
                None => None,
            };
            if let Some((key, path)) = found {
                if !seen.contains(&key) {
                    seen.push(key);
                    out += &format!("// ---- inlined by ojd import: {name} ----\n");
                    out += &inline_into(&path, dirs, seen, depth + 1)?;
                    out += "// ---- end of the inlined file ----\n";
                }
                continue;
            }
        }
        out += line;
        out.push('\n');
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
    v.sort_by_key(|p| ojd_judge::natural_key(&p.file_name().unwrap_or_default().to_string_lossy()));
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
        create_dirs(&parent)?;
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "problem".into());
        let dir = parent.join(format!(".{name}.import-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        create_dirs(&dir)?;
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
        let _c = Confined::to(d.path()).unwrap();
        let s = inline_includes(&d.path().join("v.cc"), &[]).unwrap();
        assert_eq!(s.matches("int a;").count(), 1, "{s}");
        assert!(s.contains("#include <cstdio>") && s.contains("#include \"missing.h\""));
        assert!(!s.contains('\r'));
    }

    /// A package folder `pkg` inside a temp folder, beside a host file `outside.h` with a
    /// secret in it.
    fn package_beside_a_secret() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let pkg = d.path().join("pkg");
        std::fs::create_dir_all(pkg.join("files")).unwrap();
        let secret = d.path().join("outside.h");
        std::fs::write(&secret, "SECRET-MARKER\n").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        (d, pkg)
    }

    #[test]
    fn includes_never_leave_the_package() {
        let (d, pkg) = package_beside_a_secret();
        let _c = Confined::to(&pkg).unwrap();
        let secret = d.path().join("outside.h");
        for (include, line) in [
            (format!("{}", secret.display()), 2),
            ("../outside.h".to_string(), 2),
            ("../../outside.h".to_string(), 2),
            ("/etc/passwd".to_string(), 2),
        ] {
            let check = pkg.join("files/check.cpp");
            std::fs::write(
                &check,
                format!("#include <cstdio>\n#include \"{include}\"\nint main(){{}}\n"),
            )
            .unwrap();
            let e = inline_includes(&check, &[&pkg.join("files"), &pkg])
                .expect_err(&include)
                .to_string();
            assert!(
                e.contains(&format!("check.cpp:{line}")) && e.contains(&include),
                "{include}: {e}"
            );
            assert!(!e.contains("SECRET"), "{e}");
        }
        // A header linked to a host file is refused too, naming the link's target.
        std::os::unix::fs::symlink(&secret, pkg.join("files/linked.h")).unwrap();
        std::fs::write(pkg.join("files/v.cpp"), "#include \"linked.h\"\n").unwrap();
        let e = inline_includes(&pkg.join("files/v.cpp"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("v.cpp:1") && e.contains("outside.h"), "{e}");
        // A link that stays inside is fine.
        std::fs::write(pkg.join("real.h"), "int inside;\n").unwrap();
        std::os::unix::fs::symlink("../real.h", pkg.join("files/inner.h")).unwrap();
        std::fs::write(pkg.join("files/w.cpp"), "#include \"inner.h\"\n").unwrap();
        let s = inline_includes(&pkg.join("files/w.cpp"), &[]).unwrap();
        assert!(s.contains("int inside;"), "{s}");
    }

    #[test]
    fn copies_stay_inside_and_never_widen_modes() {
        let (d, pkg) = package_beside_a_secret();
        let _c = Confined::to(&pkg).unwrap();
        let out = d.path().join("out");
        std::os::unix::fs::symlink(d.path().join("outside.h"), pkg.join("05.in")).unwrap();
        let e = copy_text(&pkg.join("05.in"), &out.join("05.in"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("05.in") && e.contains("outside.h"), "{e}");
        assert!(!out.join("05.in").exists());
        std::os::unix::fs::symlink(d.path(), pkg.join("up")).unwrap();
        assert!(copy_text(&pkg.join("up/outside.h"), &out.join("x")).is_err());
        assert!(confined(&pkg.join("up")).is_err());
        std::fs::write(pkg.join("private.in"), "1\n").unwrap();
        std::fs::set_permissions(
            pkg.join("private.in"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        std::fs::write(pkg.join("open.in"), "1\n").unwrap();
        std::fs::set_permissions(pkg.join("open.in"), std::fs::Permissions::from_mode(0o777))
            .unwrap();
        copy_text(&pkg.join("private.in"), &out.join("private.in")).unwrap();
        copy_raw(&pkg.join("open.in"), &out.join("open.in")).unwrap();
        let mode = |p: &str| std::fs::metadata(out.join(p)).unwrap().mode() & 0o777;
        assert_eq!(mode("private.in"), 0o600);
        assert_eq!(mode("open.in"), 0o644);
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

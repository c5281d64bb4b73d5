//! Problem packages uploaded on the admin page: a `.zip` or `.tar.gz` of one problem folder,
//! unpacked safely, checked, and only then put live.
//!
//! # Theory of operation
//!
//! 1. **Unpack** into a fresh staging folder inside the problems folder (hidden: its name starts
//!    with a dot, so the catalog skips it). Every entry's path must be relative and stay inside
//!    (no `..`, no absolute path, no drive or device names); symlinks, hard links and device
//!    files are refused; the total unpacked size is capped by `[web] max_package_size` and the
//!    number of files and folders (those a path implies too) by `[web] max_package_files`
//!    (the rule of `ojd_judge::archive`, which Polygon imports follow too), and an archive may unpack to at most
//!    [`MAX_RATIO`] times its own size (past [`RATIO_FLOOR`] bytes): a zip's directory is
//!    checked against all three before anything is written, and the bytes written are counted
//!    too (a zip entry never past what it claims), so a zip bomb is refused naming its entry
//!    instead of filling the disk or memory.
//! 2. **Find the problem**: the archive holds `problem.toml` at its top, or one folder that does.
//!    The problem's id is that folder's name (or the archive's name without its extension).
//! 3. **Check**: the problem loads (every error names its file and key), its answers are built
//!    from the reference solver in the sandbox, every test has an answer and its statement
//!    renders.
//! 4. **Go live**: the old folder (if any) is renamed aside, the new one renamed into place, the
//!    catalog reloaded, the old one deleted. A failure at any step before this one deletes the
//!    staging folder and changes nothing.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::auth::new_token;
use crate::user::valid_name;
use crate::App;

/// Why an upload was refused (nothing changed either way); the message names the file (and
/// key) at fault.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UploadError {
    /// The package's own fault: the message names the file or the rule it breaks.
    #[error("{0}")]
    Refused(String),
    /// The server's: its disk or its randomness failed, saying what it was doing.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

fn refused(m: impl Into<String>) -> UploadError {
    UploadError::Refused(m.into())
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> UploadError {
    let what = what.into();
    move |source| UploadError::Io { what, source }
}

/// The caps on one archive.
#[derive(Clone, Copy, Debug)]
pub(super) struct Caps {
    pub(crate) max_bytes: u64,
    pub(crate) max_files: usize,
}

/// An archive may unpack to at most this many times its own size (deflate reaches about
/// 1000:1 on zeros; real packages of tests and programs stay far below 50:1)...
const MAX_RATIO: u64 = 200;
/// ...once it unpacks to more than this many bytes (a small package of a few repetitive tests
/// may compress well; that is harmless).
const RATIO_FLOOR: u64 = 1 << 20;

impl Caps {
    /// The most that an archive of `archive_len` bytes may unpack to: the size cap, or less by
    /// the ratio.
    fn bytes_for(self, archive_len: u64) -> u64 {
        self.max_bytes
            .min(RATIO_FLOOR.max(archive_len.saturating_mul(MAX_RATIO)))
    }
}

/// Why `bytes` unpacked from an archive of `archive_len` bytes is too much, at entry `name`.
fn too_much(caps: Caps, archive_len: u64, name: &str) -> UploadError {
    if caps.bytes_for(archive_len) < caps.max_bytes {
        refused(format!(
            "entry {name:?}: the archive ({archive_len} bytes) unpacks to more than {} times its \
             size, a zip bomb: refused",
            MAX_RATIO
        ))
    } else {
        refused(format!(
            "the archive unpacks to more than {} bytes (at {name:?}): refused",
            caps.max_bytes
        ))
    }
}

/// An entry's path as a safe relative path, or why not: the rule Polygon imports follow too.
fn safe_path(name: &str) -> Result<PathBuf, UploadError> {
    ojd_judge::archive::entry_path(name)
        .map_err(|why| refused(format!("{name:?} in the archive {why}: refused")))
}

/// Counts what is written and refuses past the caps.
struct Budget {
    caps: Caps,
    /// The archive's own size (for the ratio).
    archive_len: u64,
    bytes: u64,
    /// Files and folders made, folders included (the same count as Polygon imports').
    entries: ojd_judge::archive::Entries,
}

impl Budget {
    fn new(caps: Caps, archive_len: u64) -> Budget {
        Budget {
            caps,
            archive_len,
            bytes: 0,
            entries: ojd_judge::archive::Entries::new(caps.max_files),
        }
    }

    /// Counts the entry at `rel` (a folder when `folder`) and the folders above it.
    fn entry(&mut self, rel: &Path, folder: bool) -> Result<(), UploadError> {
        self.entries.add(rel, folder).map_err(refused)
    }

    /// Copies `from` into a new file at `to`, stopping at the byte cap (the size cap or the
    /// ratio's, whichever is lower) and, when the entry says how big it is (`claimed`, a zip's
    /// directory), at that.
    fn copy(
        &mut self,
        name: &str,
        from: &mut dyn Read,
        to: &Path,
        claimed: Option<u64>,
    ) -> Result<(), UploadError> {
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(io(format!("create {}", dir.display())))?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(to)
            .map_err(io(format!("write {name}")))?;
        let cap = self.caps.bytes_for(self.archive_len);
        let left = cap.saturating_sub(self.bytes);
        let limit = claimed.map_or(left, |c| c.min(left));
        let n = std::io::copy(&mut from.take(limit + 1), &mut out)
            .map_err(io(format!("unpack {name}")))?;
        self.bytes += n;
        if self.bytes > cap {
            return Err(too_much(self.caps, self.archive_len, name));
        }
        if n > limit {
            return Err(refused(format!(
                "entry {name:?} unpacks to more than the {} bytes the archive says it holds: \
                 refused",
                limit
            )));
        }
        Ok(())
    }
}

/// Unpacks a `.zip` into `dest`.
fn unzip(data: &[u8], dest: &Path, caps: Caps) -> Result<(), UploadError> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(data))
        .map_err(|e| refused(format!("not a readable .zip: {e}")))?;
    let archive_len = data.len() as u64;
    // What the directory claims, before anything is written.
    let mut claimed = 0u64;
    let mut entries = ojd_judge::archive::Entries::new(caps.max_files);
    for i in 0..archive.len() {
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| refused(format!("entry {i} of the .zip cannot be read: {e}")))?;
        let name = entry.name().to_string();
        // Folders count too: 200,000 folder entries once made 151,324 folders.
        entries
            .add(&safe_path(&name)?, entry.is_dir())
            .map_err(refused)?;
        if entry.is_dir() {
            continue;
        }
        claimed = claimed.saturating_add(entry.size());
        if claimed > caps.bytes_for(archive_len) {
            return Err(too_much(caps, archive_len, &name));
        }
    }
    let mut budget = Budget::new(caps, archive_len);
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| refused(format!("entry {i} of the .zip cannot be read: {e}")))?;
        let name = entry.name().to_string();
        let rel = safe_path(&name)?;
        if entry.is_symlink() {
            return Err(refused(format!("{name:?} is a symbolic link: refused")));
        }
        if entry.is_dir() {
            std::fs::create_dir_all(dest.join(&rel)).map_err(io(format!("create {name}")))?;
            continue;
        }
        let size = entry.size();
        budget.copy(&name, &mut entry, &dest.join(&rel), Some(size))?;
    }
    Ok(())
}

/// Unpacks a `.tar.gz` into `dest`.
fn untar_gz(data: &[u8], dest: &Path, caps: Caps) -> Result<(), UploadError> {
    let gz = flate2::read::GzDecoder::new(data);
    let mut archive = tar::Archive::new(gz);
    let mut budget = Budget::new(caps, data.len() as u64);
    let entries = archive
        .entries()
        .map_err(|e| refused(format!("not a readable .tar.gz: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| refused(format!("the .tar.gz is damaged: {e}")))?;
        let name = entry
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| refused(format!("an entry of the .tar.gz has a bad name: {e}")))?;
        let rel = safe_path(&name)?;
        match entry.header().entry_type() {
            tar::EntryType::Directory => {
                budget.entry(&rel, true)?;
                std::fs::create_dir_all(dest.join(&rel)).map_err(io(format!("create {name}")))?;
            }
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                budget.entry(&rel, false)?;
                budget.copy(&name, &mut entry, &dest.join(&rel), None)?;
            }
            // PAX and GNU extension headers carry metadata of the next entry.
            tar::EntryType::XHeader
            | tar::EntryType::XGlobalHeader
            | tar::EntryType::GNULongName => {}
            other => {
                return Err(refused(format!(
                    "{name:?} is a {other:?} entry (only files and folders are allowed): refused"
                )))
            }
        }
    }
    Ok(())
}

impl Caps {
    /// The site's caps on an uploaded package (`[web] max_package_size`, `max_package_files`).
    pub(super) fn of(app: &App) -> Caps {
        Caps {
            max_bytes: app.node.config().web.max_package_size.bytes(),
            max_files: app.node.config().web.max_package_files,
        }
    }
}

/// Unpacks `data` (named `filename`, a `.zip` or a `.tar.gz`) into `dest` within `caps`;
/// returns the name without its extension. `what` says what the archive should hold.
pub(super) fn unpack_archive<'a>(
    filename: &'a str,
    data: &[u8],
    dest: &Path,
    caps: Caps,
    what: &str,
) -> Result<&'a str, UploadError> {
    if data.len() as u64 > caps.max_bytes {
        return Err(refused(format!(
            "{filename} is {} bytes, over the limit of {}",
            data.len(),
            caps.max_bytes
        )));
    }
    let lower = filename.to_ascii_lowercase();
    let stem = if let Some(s) = lower.strip_suffix(".zip") {
        unzip(data, dest, caps)?;
        s
    } else if let Some(s) = lower
        .strip_suffix(".tar.gz")
        .or_else(|| lower.strip_suffix(".tgz"))
    {
        untar_gz(data, dest, caps)?;
        s
    } else {
        return Err(refused(format!(
            "{filename}: upload a .zip or a .tar.gz of {what}"
        )));
    };
    Ok(&filename[..stem.len()])
}

/// Unpacks `data` (named `filename`) into `dest`; returns the folder that holds `problem.toml`
/// and the problem id it will be served under.
fn unpack(
    filename: &str,
    data: &[u8],
    dest: &Path,
    caps: Caps,
) -> Result<(PathBuf, String), UploadError> {
    let stem = unpack_archive(filename, data, dest, caps, "the problem folder")?;
    if dest.join("problem.toml").is_file() {
        return Ok((dest.to_path_buf(), stem.to_string()));
    }
    let dirs: Vec<PathBuf> = std::fs::read_dir(dest)
        .map_err(io("read the unpacked archive"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    match dirs.as_slice() {
        [one] if one.join("problem.toml").is_file() => {
            let id = one
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((one.clone(), id))
        }
        _ => Err(refused(format!(
            "{filename}: no problem.toml at the top of the archive or in its one folder"
        ))),
    }
}

/// Whether `id` may name a problem folder.
fn valid_id(id: &str) -> bool {
    valid_name(id) && !id.starts_with('.')
}

impl UploadError {
    /// The same error naming files as they are in the package, not where it was unpacked.
    pub(super) fn relative_to(self, staging: &Path) -> UploadError {
        let prefix = format!("{}/", staging.display());
        match self {
            UploadError::Refused(m) => UploadError::Refused(m.replace(&prefix, "")),
            UploadError::Io { what, source } => UploadError::Io {
                what: what.replace(&prefix, ""),
                source,
            },
        }
    }
}

/// Unpacks, checks and installs a package (blocking); returns the problem id.
pub(crate) fn install(app: &App, filename: &str, data: &[u8]) -> Result<String, UploadError> {
    let root = &app.node.config().server.problems;
    let key = new_token().map_err(io("a fresh staging folder's name"))?;
    let staging = root.join(format!(".upload-{key}"));
    let result = (|| {
        let unpacked = staging.join("unpacked");
        std::fs::create_dir_all(&unpacked).map_err(io(format!("create {}", unpacked.display())))?;
        let (folder, id) = unpack(filename, data, &unpacked, Caps::of(app))?;
        if !valid_id(&id) {
            return Err(UploadError::Refused(format!("{id:?} cannot be a problem id (letters, digits, '.', '_', '-'; not starting with '.')")));
        }
        let checked = staging.join(&id);
        std::fs::rename(&folder, &checked).map_err(io("move the unpacked folder"))?;
        let problem = ojd_service::load_problem(&checked, true, app.node.judge())
            .map_err(|e| UploadError::Refused(e.to_string()))?;
        // A statement the page cannot show would fail the catalog's load after going live:
        // refused here, before anything is installed.
        ojd_service::render_statement(&problem, crate::statement::render)
            .map_err(|e| UploadError::Refused(e.to_string()))?;
        let live = root.join(&id);
        let old = staging.join("previous");
        if live.exists() {
            std::fs::rename(&live, &old).map_err(io(format!("move the old {id} aside")))?;
        }
        if let Err(e) = std::fs::rename(&checked, &live) {
            if old.exists() {
                let _ = std::fs::rename(&old, &live);
            }
            return Err(io(format!("put {id} in place"))(e));
        }
        Ok(id)
    })();
    if result.is_ok() {
        app.reload();
    }
    let _ = std::fs::remove_dir_all(&staging);
    result.map_err(|e| e.relative_to(&staging))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            for (name, data) in entries {
                z.start_file(*name, zip::write::SimpleFileOptions::default())
                    .expect("start");
                z.write_all(data).expect("write");
            }
            z.finish().expect("finish");
        }
        buf.into_inner()
    }

    const CAPS: Caps = Caps {
        max_bytes: 10_000,
        max_files: 5,
    };

    #[test]
    fn paths_must_stay_inside() {
        for bad in ["../x", "a/../../x", "/etc/passwd", "a\\..\\x", ""] {
            assert!(safe_path(bad).is_err(), "{bad}");
        }
        assert_eq!(
            safe_path("./a/b.txt").expect("ok"),
            PathBuf::from("a/b.txt")
        );
    }

    #[test]
    fn zips_are_unpacked_within_caps() {
        let dir = tempfile::tempdir().expect("dir");
        let good = zip_of(&[("p/problem.toml", b"x"), ("p/tests/1.in", b"1")]);
        let (folder, id) = unpack("p.zip", &good, dir.path(), CAPS).expect("unpacks");
        assert_eq!((folder, id.as_str()), (dir.path().join("p"), "p"));

        let escape = zip_of(&[("../evil", b"x")]);
        let d2 = tempfile::tempdir().expect("dir");
        let e = unpack("e.zip", &escape, d2.path(), CAPS).expect_err("refused");
        assert!(e.to_string().contains("../evil"), "{e}");

        let bomb = zip_of(&[("big", &vec![0u8; 20_000])]);
        let d3 = tempfile::tempdir().expect("dir");
        let e = unpack("b.zip", &bomb, d3.path(), CAPS).expect_err("refused");
        assert!(e.to_string().contains("more than 10000 bytes"), "{e}");
        assert!(
            std::fs::metadata(d3.path().join("big")).map_or(0, |m| m.len()) <= 10_001,
            "stopped at the cap"
        );

        let many: Vec<(String, &[u8])> = (0..6).map(|i| (format!("f{i}"), &b"x"[..])).collect();
        let many: Vec<(&str, &[u8])> = many.iter().map(|(n, d)| (n.as_str(), *d)).collect();
        let d4 = tempfile::tempdir().expect("dir");
        let e = unpack("m.zip", &zip_of(&many), d4.path(), CAPS).expect_err("refused");
        assert!(e.to_string().contains("more than 5 files"), "{e}");

        let d5 = tempfile::tempdir().expect("dir");
        let e = unpack("x.rar", b"x", d5.path(), CAPS).expect_err("refused");
        assert!(e.to_string().contains(".zip or a .tar.gz"), "{e}");
    }

    fn deflated(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, data) in entries {
                z.start_file(*name, opts).expect("start");
                z.write_all(data).expect("write");
            }
            z.finish().expect("finish");
        }
        buf.into_inner()
    }

    /// Every file under `dir` with its size.
    fn files_in(dir: &Path) -> Vec<(PathBuf, u64)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).expect("dir").filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_in(&p));
            } else {
                out.push((p.clone(), std::fs::metadata(&p).map_or(0, |m| m.len())));
            }
        }
        out
    }

    const BIG: Caps = Caps {
        max_bytes: 64 << 20,
        max_files: 100,
    };

    #[test]
    fn a_zip_bomb_is_refused_naming_its_entry_before_anything_is_written() {
        let zeros = vec![0u8; 16 << 20];
        let bomb = deflated(&[("p/problem.toml", b"x"), ("p/tests/big.in", &zeros)]);
        assert!(bomb.len() < 100_000, "{}", bomb.len());
        let dir = tempfile::tempdir().expect("dir");
        let e = unpack("p.zip", &bomb, dir.path(), BIG).expect_err("refused");
        let e = e.to_string();
        assert!(
            e.contains("\"p/tests/big.in\"") && e.contains("zip bomb"),
            "{e}"
        );
        assert_eq!(files_in(dir.path()), vec![], "nothing was written");

        // Under the floor any ratio is fine (a small package of repetitive tests).
        let small = deflated(&[
            ("p/problem.toml", b"x"),
            ("p/tests/z.in", &zeros[..900_000]),
        ]);
        let d2 = tempfile::tempdir().expect("dir");
        unpack("p.zip", &small, d2.path(), BIG).expect("a small repetitive package unpacks");
    }

    /// Patches every size field of a one-entry zip (local header and directory) to `size`.
    fn lie_about_size(zip: &mut [u8], size: u32) {
        for i in 0..zip.len().saturating_sub(30) {
            let at = match &zip[i..i + 4] {
                [0x50, 0x4b, 0x03, 0x04] => i + 22,
                [0x50, 0x4b, 0x01, 0x02] => i + 24,
                _ => continue,
            };
            zip[at..at + 4].copy_from_slice(&size.to_le_bytes());
        }
    }

    #[test]
    fn a_zip_entry_that_lies_about_its_size_stops_at_what_it_claims() {
        let zeros = vec![0u8; 8 << 20];
        let mut liar = deflated(&[("big.in", &zeros)]);
        lie_about_size(&mut liar, 100);
        let dir = tempfile::tempdir().expect("dir");
        let e = unpack("p.zip", &liar, dir.path(), BIG).expect_err("refused");
        let e = e.to_string();
        assert!(
            e.contains("\"big.in\"") && e.contains("more than the 100 bytes"),
            "{e}"
        );
        let written: u64 = files_in(dir.path()).iter().map(|(_, n)| n).sum();
        assert!(written <= 101, "{written} bytes written");
    }

    #[test]
    fn a_tar_gz_bomb_stops_at_the_ratio_while_it_is_written() {
        let zeros = vec![0u8; 32 << 20];
        let mut raw = Vec::new();
        {
            let gz = flate2::write::GzEncoder::new(&mut raw, flate2::Compression::best());
            let mut t = tar::Builder::new(gz);
            let mut h = tar::Header::new_gnu();
            h.set_size(zeros.len() as u64);
            h.set_mode(0o644);
            t.append_data(&mut h, "p/tests/big.in", &zeros[..])
                .expect("append");
            t.into_inner().expect("tar").finish().expect("gz");
        }
        assert!(raw.len() < 100_000, "{}", raw.len());
        let dir = tempfile::tempdir().expect("dir");
        let e = unpack("p.tar.gz", &raw, dir.path(), BIG).expect_err("refused");
        let e = e.to_string();
        assert!(
            e.contains("\"p/tests/big.in\"") && e.contains("zip bomb"),
            "{e}"
        );
        let written: u64 = files_in(dir.path()).iter().map(|(_, n)| n).sum();
        assert!(
            written <= BIG.bytes_for(raw.len() as u64) + 1,
            "{written} bytes written from {}",
            raw.len()
        );
    }

    #[test]
    fn tarballs_refuse_links_and_escapes() {
        let mut raw = Vec::new();
        {
            let gz = flate2::write::GzEncoder::new(&mut raw, flate2::Compression::fast());
            let mut t = tar::Builder::new(gz);
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_size(0);
            t.append_link(&mut h, "p/link", "/etc/shadow")
                .expect("link");
            t.into_inner().expect("tar").finish().expect("gz");
        }
        let dir = tempfile::tempdir().expect("dir");
        let e = unpack("p.tar.gz", &raw, dir.path(), CAPS).expect_err("refused");
        assert!(e.to_string().contains("p/link"), "{e}");
        assert!(!dir.path().join("p/link").exists());
    }
}

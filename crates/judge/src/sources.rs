//! A submission of several files: a folder of sources in one language (with headers or other
//! files they read), as DOMjudge and the Kattis formats have them, compiled together
//! (`judge/compile.rs`, by the profile's `several_files` rule of `lang/several.rs`).
//!
//! Such a submission travels as one source, a **bundle**, so that everything that keeps, hashes,
//! sizes or queues a submission's source (the compile cache's key, `ojd verify`'s source hash,
//! the store) covers every file without knowing of files: the bytes
//!
//! ```text
//! \0ojd-files\0<folder name>\n
//! \0<file name>\0<length in bytes>\n<the file's bytes>     (once per file, by name)
//! ```
//!
//! A bundle starts with a NUL byte, which no text source holds, so it is never mistaken for a
//! single file. Its files are plain names (no folders, none hidden), UTF-8 text without NUL
//! bytes, at most [`MAX_FILES`]; [`decode`] checks all of it, naming the file at fault.

use std::path::{Path, PathBuf};

/// The first bytes of a bundle.
const MAGIC: &[u8] = b"\0ojd-files\0";

/// The most files a submission may have.
pub(crate) const MAX_FILES: usize = 100;

/// One file of a submission of several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The file's name as submitted, a plain name without folders.
    pub name: String,
    /// The file's contents.
    pub text: Vec<u8>,
}

/// A submission of several files, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bundle {
    /// The submission's folder name (an entry point may be named after it).
    pub(crate) folder: String,
    /// Its files, sorted by name.
    pub(crate) files: Vec<SourceFile>,
}

/// Whether a source is a bundle (then `decode` it) rather than one file.
pub fn is_bundle(source: &[u8]) -> bool {
    source.starts_with(MAGIC)
}

/// Whether `name` may name a file of a bundle: a plain file name, not hidden, printable.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0', '\n', '\r', '"', '\''])
        && !name.chars().any(char::is_control)
}

/// The bundle of `folder`'s files (sorted by name; see the module documentation).
pub fn encode(folder: &str, files: &[SourceFile]) -> Vec<u8> {
    let mut sorted: Vec<&SourceFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(folder.as_bytes());
    out.push(b'\n');
    for f in sorted {
        out.push(0);
        out.extend_from_slice(f.name.as_bytes());
        out.push(0);
        out.extend_from_slice(f.text.len().to_string().as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&f.text);
    }
    out
}

/// The folder and files of a bundle, or what is wrong with it.
pub(crate) fn decode(source: &[u8]) -> Result<Bundle, String> {
    let mut rest = source
        .strip_prefix(MAGIC)
        .ok_or("not a submission of several files")?;
    let line = |rest: &mut &[u8], what: &str| -> Result<String, String> {
        let at = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or(format!("{what}: no end of line"))?;
        let text = std::str::from_utf8(&rest[..at])
            .map_err(|_| format!("{what}: not UTF-8"))?
            .to_string();
        *rest = &rest[at + 1..];
        Ok(text)
    };
    let folder = line(&mut rest, "the folder name")?;
    let mut files: Vec<SourceFile> = Vec::new();
    while !rest.is_empty() {
        if files.len() == MAX_FILES {
            return Err(format!("more than {MAX_FILES} files"));
        }
        rest = rest
            .strip_prefix(b"\0")
            .ok_or(format!("file {}: expected a file header", files.len() + 1))?;
        let head = line(&mut rest, &format!("file {}", files.len() + 1))?;
        let (name, len) = head.split_once('\0').ok_or(format!(
            "file {}: expected a name and a length",
            files.len() + 1
        ))?;
        if !plain_name(name) {
            return Err(format!(
                "{name:?}: not a plain file name (no folders, not hidden)"
            ));
        }
        let len: usize = len
            .parse()
            .map_err(|_| format!("{name}: {len:?} is not a length"))?;
        if len > rest.len() {
            return Err(format!("{name}: cut short"));
        }
        let (text, after) = rest.split_at(len);
        if let Some(at) = text
            .iter()
            .position(|&b| b == 0)
            .or_else(|| std::str::from_utf8(text).err().map(|e| e.valid_up_to()))
        {
            return Err(format!("{name}: not UTF-8 text (binary data at byte {at})"));
        }
        if files.last().is_some_and(|f| f.name.as_str() >= name) {
            return Err(format!("{name}: files out of order or repeated"));
        }
        files.push(SourceFile {
            name: name.to_string(),
            text: text.to_vec(),
        });
        rest = after;
    }
    if files.is_empty() {
        return Err("no files".into());
    }
    Ok(Bundle { folder, files })
}

/// Why a submission could not be read from disk (`Judge::read_submission`): each names the
/// path at fault.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file or folder could not be read.
    #[error("{}: cannot read it", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// No language was given and no profile claims the file's extension.
    #[error("{}: unknown language (by file extension)", path.display())]
    UnknownLanguage {
        /// The file.
        path: PathBuf,
    },
    /// No language was given and no file of the folder has an extension a profile claims.
    #[error("{}: no file in a language ojd knows (by file extension)", path.display())]
    NoLanguage {
        /// The folder.
        path: PathBuf,
    },
    /// No language was given and the folder's files are in several.
    #[error("{}: files in several languages ({found}): a submission is in one", path.display())]
    SeveralLanguages {
        /// The folder.
        path: PathBuf,
        /// Each language with its files ("c: a.c; python: b.py").
        found: String,
    },
    /// A folder's entry is hidden or not a plain file name.
    #[error("{}: not a plain file name: a submission's files are plain names, none hidden", path.display())]
    NotPlain {
        /// The entry.
        path: PathBuf,
    },
    /// A folder's entry is not a file.
    #[error("{}: a submission of several files is one folder of files, without sub-folders", path.display())]
    SubFolder {
        /// The entry.
        path: PathBuf,
    },
    /// The folder has no files.
    #[error("{}: an empty folder", path.display())]
    Empty {
        /// The folder.
        path: PathBuf,
    },
    /// The folder has more files than a submission may.
    #[error("{}: {count} files, more than a submission may have ({MAX_FILES})", path.display())]
    TooMany {
        /// The folder.
        path: PathBuf,
        /// How many it has.
        count: usize,
    },
}

impl ReadError {
    /// Whether the language could not be told from the file names (give it, then).
    pub fn language_unknown(&self) -> bool {
        matches!(
            self,
            ReadError::UnknownLanguage { .. } | ReadError::NoLanguage { .. }
        )
    }
}

/// The files of the submission folder `dir` (every file in it; a sub-folder or a hidden file is
/// an error naming it), as a bundle's.
pub(crate) fn read_folder(dir: &Path) -> Result<Bundle, ReadError> {
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReadError::Io { path, source }
    };
    let entries = std::fs::read_dir(dir).map_err(io(dir))?;
    let mut files = Vec::new();
    for e in entries {
        let e = e.map_err(io(dir))?;
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if !plain_name(&name) {
            return Err(ReadError::NotPlain { path });
        }
        if !path.is_file() {
            return Err(ReadError::SubFolder { path });
        }
        let text = std::fs::read(&path).map_err(io(&path))?;
        files.push(SourceFile { name, text });
    }
    if files.is_empty() {
        return Err(ReadError::Empty { path: dir.into() });
    }
    if files.len() > MAX_FILES {
        return Err(ReadError::TooMany {
            path: dir.into(),
            count: files.len(),
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Bundle { folder, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn bundles_round_trip_and_bad_ones_are_named() {
        let files = vec![
            file("b.cpp", "int f();\n"),
            file("a.cpp", "int main() {}\n"),
        ];
        let bytes = encode("sol", &files);
        assert!(is_bundle(&bytes));
        let b = decode(&bytes).unwrap();
        assert_eq!(b.folder, "sol");
        assert_eq!(
            b.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["a.cpp", "b.cpp"],
            "sorted by name"
        );
        assert_eq!(b.files[1].text, b"int f();\n");
        assert!(!is_bundle(b"int main() {}"));
        for (bad, why) in [
            (encode("s", &[]), "no files"),
            (
                encode("s", &[file("../x.cpp", "")]),
                "not a plain file name",
            ),
            (
                encode("s", &[file(".hidden.py", "")]),
                "not a plain file name",
            ),
            (encode("s", &[file("a.py", "\0")]), "a.py: not UTF-8 text"),
            (
                encode("s", &[file("a.py", ""), file("a.py", "")]),
                "repeated",
            ),
            (bytes[..bytes.len() - 2].to_vec(), "b.cpp: cut short"),
        ] {
            let e = decode(&bad).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        let many: Vec<SourceFile> = (0..=MAX_FILES)
            .map(|i| file(&format!("f{i:03}.py"), ""))
            .collect();
        assert!(decode(&encode("s", &many))
            .unwrap_err()
            .contains("more than"));
    }

    #[test]
    fn folders_are_read_whole() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("two");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("main.py"), "import helper\n").unwrap();
        std::fs::write(dir.join("helper.py"), "X = 1\n").unwrap();
        let b = read_folder(&dir).unwrap();
        assert_eq!(b.folder, "two");
        assert_eq!(b.files.len(), 2);
        assert_eq!(b.files[0].name, "helper.py");
        std::fs::create_dir(dir.join("sub")).unwrap();
        assert!(read_folder(&dir)
            .unwrap_err()
            .to_string()
            .contains("without sub-folders"));
    }
}

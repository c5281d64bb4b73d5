//! The rule every archive from outside is unpacked by (the admin page's package upload and
//! Polygon packages): each entry's path stays inside, and files and folders together (the
//! folders an entry's path implies included) are counted against one cap, so an archive of
//! 200,000 folder entries, or of files at 200,000 distinct depths, is refused before it fills
//! the disk with inodes.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

/// An entry's name as a relative path that stays inside, or why not (the reason completes
/// "entry NAME ...").
pub fn entry_path(name: &str) -> Result<PathBuf, String> {
    if name.contains('\0') || name.contains('\\') {
        return Err("has a backslash or NUL in its name".into());
    }
    let mut out = PathBuf::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err("climbs out with `..`".into()),
            Component::RootDir | Component::Prefix(_) => return Err("is an absolute path".into()),
        }
    }
    if out.as_os_str().is_empty() {
        return Err("has an empty path".into());
    }
    Ok(out)
}

/// Files and folders an archive makes, counted against a cap.
#[derive(Debug)]
pub struct Entries {
    max: usize,
    count: usize,
    folders: HashSet<PathBuf>,
}

impl Entries {
    /// At most `max` files and folders in all.
    pub fn new(max: usize) -> Entries {
        Entries {
            max,
            count: 0,
            folders: HashSet::new(),
        }
    }

    /// Counts the entry at `rel` (a folder when `folder`) and each folder above it not counted
    /// yet; `Err` names the cap when the total passes it.
    pub fn add(&mut self, rel: &Path, folder: bool) -> Result<(), String> {
        let mut new = usize::from(!folder);
        let mut at = if folder { Some(rel) } else { rel.parent() };
        while let Some(dir) = at.filter(|d| !d.as_os_str().is_empty()) {
            if !self.folders.insert(dir.to_path_buf()) {
                break;
            }
            new += 1;
            at = dir.parent();
        }
        self.count += new;
        if self.count > self.max {
            return Err(format!(
                "the archive makes more than {} files and folders (at {}): refused",
                self.max,
                rel.display()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        assert_eq!(entry_path("a/./b").unwrap(), PathBuf::from("a/b"));
        for bad in ["../x", "/etc/passwd", "a/../../x", "a\\b", "", "."] {
            assert!(entry_path(bad).is_err(), "{bad:?}");
        }
    }

    /// Folders count like files, those a file's path implies too, each once.
    #[test]
    fn folders_count_against_the_cap() {
        let mut e = Entries::new(5);
        e.add(Path::new("a/b/c.txt"), false).unwrap(); // a, a/b, the file
        e.add(Path::new("a/b"), true).unwrap(); // counted already
        e.add(Path::new("a/d.txt"), false).unwrap(); // 4
        e.add(Path::new("e"), true).unwrap(); // 5
        let why = e.add(Path::new("f"), true).unwrap_err();
        assert!(
            why.contains("more than 5 files and folders (at f)"),
            "{why}"
        );
        let mut folders = Entries::new(1000);
        let refused = (0..200_000)
            .map(|i| folders.add(Path::new(&format!("d{i}")), true))
            .position(|r| r.is_err());
        assert_eq!(
            refused,
            Some(1000),
            "200,000 folder entries stop at the cap"
        );
        let mut deep = Entries::new(100);
        let chain = "d/".repeat(500) + "f";
        assert!(deep.add(Path::new(&chain), false).is_err());
    }
}

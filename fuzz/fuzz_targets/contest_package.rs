//! A contest package as `ojd contest import` takes it, through the very code it runs
//! (`ojd_service::package`): the input is split into the package's files, written to a fresh
//! folder, read by `Package::read`, checked by `plan`, and, when the plan holds, written by
//! `write` into a contests folder and loaded back as the daemon loads it. Never a panic; a
//! contest that is written loads with the title the package gave it (a value of the package
//! never changes `contest.toml` beyond its own key).
//!
//! Input: files, each opened by a line `==> NAME <==` (as `head` prints several files), NAME
//! one of the package's files (`contest.yaml`, `problems.json`, `teams.yaml`, `ojd.json`…);
//! text before the first such line is `contest.yaml`. A package without a problems file gets a
//! one-problem `problems.yaml`, so that a lone `contest.yaml` reaches `plan`.
#![no_main]

use std::path::Path;

use ojd_service::package::{plan, write, Package};

/// The files `Package::read` looks at; any other name in the input is ignored (the package's
/// folder is read by name, nothing else in it is opened).
const NAMES: &[&str] = &[
    "contest.yaml",
    "contest.json",
    "problems.yaml",
    "problems.json",
    "teams.yaml",
    "teams.json",
    "organizations.yaml",
    "organizations.json",
    "groups.yaml",
    "groups.json",
    "accounts.yaml",
    "accounts.json",
    "ojd.json",
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let tmp = tempfile::tempdir_in(scratch()).expect("a temporary folder");
    let pkg = tmp.path().join("pkg");
    let contests = tmp.path().join("contests");
    let problems = tmp.path().join("problems");
    for dir in [&pkg, &contests, &problems] {
        std::fs::create_dir(dir).expect("a folder in the temporary folder");
    }
    let files = split(text);
    if !files.iter().any(|(name, _)| name.starts_with("problems.")) {
        write_file(&pkg, "problems.yaml", "- id: a\n  label: A\n");
    }
    for (name, body) in &files {
        write_file(&pkg, name, body);
    }
    let Ok(package) = Package::read(&pkg) else {
        return;
    };
    let Ok(planned) = plan(&package, None, &contests) else {
        return;
    };
    // The import brings each problem's own package in between plan and write: a folder of
    // that id is what the contest's check asks of it.
    for p in &planned.draft.problems {
        if !p.problem.is_empty() && !p.problem.contains(['/', '\0']) && p.problem != ".." {
            let _ = std::fs::create_dir(problems.join(&p.problem));
        }
    }
    if let Ok(contest) = write(&planned, &contests, &problems) {
        assert_eq!(
            contest.title,
            planned.draft.title.trim(),
            "the title written is not the title read back"
        );
    }
});

/// Where each input's package is written: `TMPDIR` when set, else `/dev/shm` when there is one
/// (a tmpfs: on a disk, making and removing the folders was three quarters of this target's
/// time), else the system's temporary folder.
fn scratch() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        match std::env::var_os("TMPDIR") {
            Some(dir) if !dir.is_empty() => dir.into(),
            _ if shm.is_dir() => shm.to_path_buf(),
            _ => std::env::temp_dir(),
        }
    })
}

/// The input's files, in order (a name given twice: the last one wins, as written last).
fn split(text: &str) -> Vec<(&'static str, String)> {
    let mut files: Vec<(&'static str, String)> = vec![("contest.yaml", String::new())];
    for line in text.split_inclusive('\n') {
        let header = line
            .trim_end()
            .strip_prefix("==> ")
            .and_then(|l| l.strip_suffix(" <=="))
            .and_then(|n| NAMES.iter().find(|&&k| k == n));
        match header {
            Some(name) => files.push((name, String::new())),
            None => files
                .last_mut()
                .expect("one file at least")
                .1
                .push_str(line),
        }
    }
    if files[0].1.trim().is_empty() && files.len() > 1 {
        files.remove(0);
    }
    files
}

fn write_file(dir: &Path, name: &str, body: &str) {
    std::fs::write(dir.join(name), body).expect("a file in the temporary folder");
}

//! A contest as a CLICS contest package (ICPC ccs-specs, `contest_package.md`): what
//! `ojd contest export` writes ([`documents`], and the daemon's documents listed in [`LIVE`])
//! and what `ojd contest import` makes of one ([`Package::read`], [`plan`], [`write()`]); the
//! admin web imports one through the running node ([`crate::Node::import_package`]).
//!
//! The roster travels whole: teams with their names, organizations, groups and hidden flags,
//! and accounts, all from the one [`crate::ccs::directory`], so that a package written by
//! export and imported on a fresh server gives the Contest API the same objects with the same
//! ids. Accounts carry no passwords: ojd keeps only their hashes, so there is no secret to
//! hand out; a director gives each imported team a token or a hall sheet.

mod door;
mod export;
mod history;
mod import;

pub use door::{Imported, PackageProblem, Preview};
pub use export::{documents, Documents, LIVE};
pub use history::{history, load, Past};
pub use import::{plan, write, Package, Plan};

use std::path::PathBuf;

/// Why a package could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// The package (or the contest) says something ojd cannot take: the message names the
    /// file and the key.
    #[error("{0}")]
    Bad(String),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder ojd was reading or writing.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The database could not take the package's history.
    #[error("failed to store the package's history")]
    Store(#[source] ojd_store::StoreError),
}

impl PackageError {
    fn io(path: &std::path::Path, source: std::io::Error) -> PackageError {
        PackageError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Seconds as a CLICS RELTIME (`5:01:01`).
pub(crate) fn reltime(secs: u64) -> String {
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contest::Contest;
    use serde_json::{json, Value};
    use std::path::Path;

    fn list(v: &Value) -> Vec<Value> {
        v.as_array().cloned().unwrap_or_default()
    }

    /// The package of a contest's documents, as `Package::read` would read it.
    fn package(dir: &Path, d: &Documents) -> Package {
        let at = |name: &str| dir.join(name);
        Package {
            dir: dir.to_path_buf(),
            contest: (at("contest.json"), d.contest.clone()),
            problems: (at("problems.json"), d.problems.clone()),
            teams: (at("teams.json"), list(&d.teams)),
            organizations: (at("organizations.json"), list(&d.organizations)),
            groups: (at("groups.json"), list(&d.groups)),
            accounts: (at("accounts.json"), list(&d.accounts)),
            settings: (at("ojd.json"), d.settings.clone()),
        }
    }

    /// A contest with a roster (names, affiliations, a group, an observer), a colour, medals
    /// and settings of its own: its documents, imported into another contests folder, make a
    /// contest with the same documents.
    #[test]
    fn a_contests_documents_import_as_the_same_contest() {
        let problems = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("a").join("wf");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("contest.toml"),
            "title = \"Rehearsal\"\nstart = \"2030-06-25T10:00:00+01:00\"\nduration = \"5h\"\n\
             freeze = \"1h\"\npenalty = 10\ncompile_errors_count = true\nfeedback = \"verdict\"\n\
             participants = [\"alice\", \"bob\", \"carol\"]\n\
             [[problem]]\nid = \"aplusb\"\nlabel = \"X\"\ncolor = \"#ff0000\"\n\
             [[team]]\nuser = \"alice\"\nname = \"Team Alice\"\naffiliation = \"A University\"\n\
             groups = [\"Students\", \"Women\"]\ncountry = \"NLD\"\n\
             location = { x = 1.5, y = 2.0, rotation = 90.0 }\n\
             [[team]]\nuser = \"bob\"\nname = \"Bob's\"\naffiliation = \"A University\"\ncategory = \"observer\"\n\
             [awards]\ngold = 1\nsilver = 2\nbronze = 3\n",
        )
        .expect("write");
        let c = Contest::load(&dir, &problems).expect("loads");
        let docs = documents(&c, &problems).expect("documents");
        assert_eq!(docs.teams[1]["hidden"], true, "{}", docs.teams);
        // Both groups, the seat, and the country as the organization's.
        assert_eq!(
            (
                docs.teams[0]["group_ids"].as_array().map(Vec::len),
                &docs.teams[0]["location"]
            ),
            (Some(2), &json!({"x": 1.5, "y": 2.0, "rotation": 90.0})),
            "{}",
            docs.teams
        );
        assert_eq!(
            docs.organizations[0]["country"], "NLD",
            "{}",
            docs.organizations
        );
        assert_eq!(docs.problems[0]["rgb"], "#ff0000");
        let b = tmp.path().join("b");
        let planned = plan(&package(&dir, &docs), None, &b).expect("plan");
        assert_eq!(planned.id, "wf");
        let again = write(&planned, &b, &problems).expect("written");
        assert_eq!(documents(&again, &problems).expect("documents"), docs);
        // `[[team]]` keeps them too (not only ccs.json).
        assert_eq!(
            (&again.teams[0].group, &again.teams[0].place),
            (&c.teams[0].group, &c.teams[0].place)
        );
        assert_eq!(
            (
                again.start_ms,
                again.utc_offset_s,
                again.freeze,
                again.awards
            ),
            (c.start_ms, c.utc_offset_s, c.freeze, c.awards)
        );
        // The same package again: the folder is kept as it is (only the database's missing
        // history is loaded); another package under that id is refused, naming the folder.
        let same = plan(&package(&dir, &docs), None, &b).expect("the same package again");
        assert!(same.again);
        let mut other = docs.clone();
        other.contest["name"] = json!("Another");
        let e = plan(&package(&dir, &other), None, &b).expect_err("exists");
        assert!(e.to_string().contains("exists already"), "{e}");
    }

    /// Every mistake names its file and key, before anything is written.
    #[test]
    fn a_packages_mistakes_name_the_file_and_key() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        let docs = Documents {
            contest: json!({"id": "c", "name": "C", "start_time": "2030-06-25T10:00:00+01",
                            "duration": "5:00:00"}),
            problems: vec![json!({"id": "aplusb", "label": "A"})],
            teams: json!([{"id": "t1", "name": "One", "organization_id": "o1"}]),
            organizations: json!([{"id": "o1", "name": "Org", "country": "NLD"}]),
            groups: json!([]),
            accounts: json!([{"id": "t1", "username": "one", "type": "team", "team_id": "t1",
                              "password": "secret"}]),
            settings: Value::Null,
        };
        let p = plan(&package(dir, &docs), None, dir).expect("a good package");
        assert_eq!(p.draft.start, "2030-06-25T10:00:00+01:00");
        assert_eq!(p.draft.duration, "5h0m0s");
        assert_eq!(p.teams[0].affiliation.as_deref(), Some("Org"));
        assert!(p.warnings[0].contains("accounts.json: [0].password is not kept"));
        assert!(!p.ccs.to_string().contains("secret"));
        let cases: [(&str, Value, &str); 4] = [
            (
                "contest",
                json!({"id": "c", "name": "C", "start_time": "2030-06-25T10:00:00Z", "duration": "five"}),
                "contest.json: duration: \"five\" is not a RELTIME",
            ),
            (
                "teams",
                json!([{"id": "t1", "name": "One", "organization_id": "nowhere"}]),
                "teams.json: [0].organization_id: \"nowhere\" is not in",
            ),
            (
                "organizations",
                json!([{"id": "o1", "name": "Org", "country": "Netherlands"}]),
                "organizations.json: [0].country: \"Netherlands\" is not a country code",
            ),
            (
                "problems",
                json!([{"id": "aplusb", "label": "A", "rgb": "red"}]),
                "problems.json: [0].rgb: \"red\" is not a colour",
            ),
        ];
        for (file, v, want) in cases {
            let mut bad = docs.clone();
            match file {
                "contest" => bad.contest = v,
                "teams" => bad.teams = v,
                "organizations" => bad.organizations = v,
                _ => bad.problems = list(&v),
            }
            let e = plan(&package(dir, &bad), None, dir).expect_err(want);
            assert!(e.to_string().contains(want), "{e}");
        }
    }
}

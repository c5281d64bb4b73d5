//! `ojd token` finds the daemon's database and never creates one: a missing SQLite file is an
//! error naming it, an existing one is used, a PostgreSQL URL is used as it is.

use crate::common;

fn token(dir: &std::path::Path, database: &str, args: &[&str]) -> std::process::Output {
    let config = dir.join("config.toml");
    std::fs::write(&config, format!("[server]\ndatabase = {database:?}\n")).expect("config");
    common::ojd()
        .arg("--config")
        .arg(&config)
        .arg("token")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("ojd token runs")
}

#[test]
fn token_needs_an_existing_database_unless_it_is_a_url() {
    let site = tempfile::tempdir().expect("dir");
    let db = site.path().join("ojd-token-test.sqlite3");
    let out = token(site.path(), "ojd-token-test.sqlite3", &["list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no database") && err.contains(&db.display().to_string()),
        "the error names the missing file: {err}"
    );
    assert!(!db.exists(), "nothing was created");

    // An existing (here empty) SQLite file is the daemon's database: the token lands in it.
    std::fs::write(&db, b"").expect("db");
    let out = token(site.path(), "ojd-token-test.sqlite3", &["issue", "carol"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = token(site.path(), "ojd-token-test.sqlite3", &["list"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.lines().any(|l| l.starts_with("carol ")), "{list}");

    // A URL is not a file: it is used as it is (nothing listens on port 1, so connecting fails).
    let out = token(site.path(), "postgres://u:p@127.0.0.1:1/db", &["list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "nothing listens there: {err}");
    assert!(
        !err.contains("no database"),
        "a URL is not looked for as a file: {err}"
    );
    let made: Vec<_> = std::fs::read_dir(site.path())
        .expect("read")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "config.toml" && !n.starts_with("ojd-token-test.sqlite3"))
        .collect();
    assert!(made.is_empty(), "ojd token created {made:?}");
}

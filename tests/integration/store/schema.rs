//! The schema's history (issue 20): ONE migration list serves both engines, and it builds, at
//! every version, what the two lists it replaced (one per engine, up to 8a736cc) built.
//!
//! Both engines record only a version number (SQLite's `PRAGMA user_version`, PostgreSQL's
//! `ojd_schema.version`), never the statements or a checksum, so a list is compatible with
//! the databases in the field exactly when its entry N runs, on each engine, what entry N ran
//! before. The fixtures under `testdata/store/` were made from the two old lists:
//! `migrations.sha256` holds, per entry, the SHA-256 of the statements each engine ran (`-`:
//! nothing, the old list's `SELECT 1;`), and `schema-sqlite.txt` and `schema-postgres.txt` the
//! catalogs of a database they built.
//!
//! A new entry at the end of the history changes the schema: run these tests with
//! `OJD_WRITE_SCHEMA_FIXTURES=1` to write the catalogs again and to add the new entry's line
//! to `migrations.sha256` (such a run fails, so that it never passes by writing). Lines of
//! entries that landed are never written again: an entry whose statements changed fails
//! with or without the variable.

use std::fmt::Write;
use std::path::PathBuf;

use ojd_store as store;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/store")
        .join(name)
}

/// Compares `got` with the fixture `name`, or writes it (see the module docs).
fn matches_fixture(name: &str, got: &str) {
    let path = fixture(name);
    if std::env::var_os("OJD_WRITE_SCHEMA_FIXTURES").is_some() {
        std::fs::write(&path, got).expect("write the fixture");
        panic!(
            "wrote {}: run again without OJD_WRITE_SCHEMA_FIXTURES",
            path.display()
        );
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{} differs from what the code builds, first at line {}:\n  fixture: {:?}\n  built:   {:?}",
            path.display(),
            first + 1,
            want.lines().nth(first),
            got.lines().nth(first)
        );
    }
}

/// The statements each engine runs for each entry of the history, in order.
fn lists() -> (Vec<String>, Vec<String>) {
    let own = |d| store::migrations(d).into_iter().map(String::from).collect();
    (own(store::Dialect::Sqlite), own(store::Dialect::Postgres))
}

/// What SQLite's catalog says: the version, then every table, index and trigger with the
/// statement that made it (as SQLite keeps it, byte for byte).
fn sqlite_schema(c: &rusqlite::Connection) -> String {
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    let mut out = format!("user_version {version}\n");
    let mut st = c
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        .expect("prepare");
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })
        .expect("catalog");
    for row in rows {
        let (kind, name, table, sql) = row.expect("row");
        writeln!(
            out,
            "\n{kind} {name} ON {table}\n{}",
            sql.unwrap_or_default()
        )
        .expect("write");
    }
    out
}

/// What PostgreSQL's catalog says of the `public` schema: the version, columns (types,
/// defaults, nullability, in order), constraints, indexes, triggers, functions, sequences and
/// table options, as PostgreSQL prints them back.
fn postgres_schema(c: &mut postgres::Client) -> String {
    const PARTS: &[(&str, &str)] = &[
        ("version", "SELECT version::TEXT FROM ojd_schema"),
        (
            "columns",
            "SELECT table_name::TEXT, column_name::TEXT, data_type::TEXT,
                 COALESCE(column_default::TEXT, ''), is_nullable::TEXT
             FROM information_schema.columns WHERE table_schema = 'public'
             ORDER BY table_name, ordinal_position",
        ),
        (
            "constraints",
            "SELECT conrelid::regclass::TEXT, conname::TEXT, pg_get_constraintdef(oid)
             FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2",
        ),
        (
            "indexes",
            "SELECT tablename::TEXT, indexname::TEXT, indexdef FROM pg_indexes
             WHERE schemaname = 'public' ORDER BY 1, 2",
        ),
        (
            "triggers",
            "SELECT tgrelid::regclass::TEXT, tgname::TEXT, pg_get_triggerdef(oid)
             FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2",
        ),
        (
            "functions",
            "SELECT proname::TEXT, pg_get_functiondef(oid) FROM pg_proc
             WHERE pronamespace = 'public'::regnamespace ORDER BY 1",
        ),
        (
            "sequences",
            "SELECT sequence_name::TEXT, data_type::TEXT FROM information_schema.sequences
             WHERE sequence_schema = 'public' ORDER BY 1",
        ),
        (
            "options",
            "SELECT relname::TEXT, array_to_string(reloptions, ',') FROM pg_class
             WHERE relnamespace = 'public'::regnamespace AND reloptions IS NOT NULL ORDER BY 1",
        ),
    ];
    let mut out = String::new();
    for (part, query) in PARTS {
        writeln!(out, "-- {part}").expect("write");
        for row in c.query(*query, &[]).expect(part) {
            let cells: Vec<String> = (0..row.len()).map(|i| row.get(i)).collect();
            writeln!(out, "{}", cells.join(" | ")).expect("write");
        }
    }
    out
}

/// `-` for an entry that runs nothing, else the SHA-256 of its statements.
fn digest(sql: &str) -> String {
    match sql.trim() {
        "" | "SELECT 1;" => "-".into(),
        _ => store::sha256_hex(sql.as_bytes()),
    }
}

/// Entry N of the history runs, on each engine, the very statements the old lists' entry N
/// ran (and every later entry what it ran when it landed): so a database any older ojd
/// migrated to any version is taken forward exactly as that ojd would have.
#[test]
fn every_entry_runs_what_it_ran_before_on_each_engine() {
    let (sqlite, postgres) = lists();
    assert_eq!(
        sqlite.len(),
        postgres.len(),
        "one version count for both engines"
    );
    let mut got = String::from("# entry, SHA-256 of SQLite's statements, of PostgreSQL's\n");
    for (n, (l, p)) in sqlite.iter().zip(&postgres).enumerate() {
        writeln!(got, "{} {} {}", n + 1, digest(l), digest(p)).expect("write");
    }
    let landed = std::fs::read_to_string(fixture("migrations.sha256")).expect("the fixture");
    for (now, want) in got.lines().zip(landed.lines()) {
        assert_eq!(
            now, want,
            "an entry that landed was changed: add a new one instead"
        );
    }
    assert!(
        got.lines().count() >= landed.lines().count(),
        "entries that landed are gone"
    );
    matches_fixture("migrations.sha256", &got);
}

/// Migrates a SQLite file to `version` as every ojd has: each entry in a transaction of its
/// own that records its number.
fn sqlite_at(path: &std::path::Path, version: usize) {
    let (list, _) = lists();
    let mut c = rusqlite::Connection::open(path).expect("open");
    for (i, m) in list.iter().take(version).enumerate() {
        let tx = c.transaction().expect("tx");
        tx.execute_batch(m).expect("migrate");
        tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
            .expect("version");
        tx.commit().expect("commit");
    }
}

/// A new SQLite database has the schema the old SQLite list built, byte for byte; so has one
/// left at any older version by an older ojd once this one opens it.
#[test]
fn sqlite_builds_the_schema_it_built_before_from_every_version() {
    let dir = tempfile::tempdir().expect("dir");
    let (list, _) = lists();
    for version in 0..=list.len() {
        let path = dir.path().join(format!("at-{version}.sqlite3"));
        sqlite_at(&path, version);
        drop(store::open(path.to_str().expect("utf-8")).expect("open"));
        let c = rusqlite::Connection::open(&path).expect("open");
        matches_fixture("schema-sqlite.txt", &sqlite_schema(&c));
    }
}

/// The same on PostgreSQL: a new database, and one at every older version, end with the schema
/// the old PostgreSQL list built.
#[test]
fn postgres_builds_the_schema_it_built_before_from_every_version() {
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let (_, list) = lists();
    for version in 0..=list.len() {
        let url = cluster.database();
        let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
        if version > 0 {
            let mut tx = c.transaction().expect("tx");
            tx.batch_execute("CREATE TABLE ojd_schema (version BIGINT NOT NULL)")
                .expect("version table");
            for m in &list[..version] {
                tx.batch_execute(m).expect("migrate");
            }
            tx.execute("INSERT INTO ojd_schema VALUES ($1)", &[&(version as i64)])
                .expect("version");
            tx.commit().expect("commit");
        }
        drop(store::open(&url).expect("open"));
        matches_fixture("schema-postgres.txt", &postgres_schema(&mut c));
    }
}

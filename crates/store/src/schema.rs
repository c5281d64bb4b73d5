//! The schema's history: ONE append-only list of migrations for both engines. Entry N is
//! schema version N, and a database records only how many entries it ran (SQLite's
//! `PRAGMA user_version`, PostgreSQL's `ojd_schema.version`), never their text: so an entry that
//! landed is never edited (databases in the field have run it), and a change of the schema is
//! one new entry at the end.
//!
//! An entry is written once, in PostgreSQL's spelling ([`Step::Both`]); SQLite runs it as
//! [`sqlite_ddl`] spells it (the serial key, `BIGINT`, `BOOLEAN`, `BYTEA`, `"user"`). Only
//! where the engines truly differ does an entry say what each runs ([`Step::Each`]): the
//! first two (SQLite's history before judgings), the queue's wake-up trigger (PostgreSQL's
//! other hosts), SQLite dropping its blobs, the counters' triggers (one writer against many),
//! and one id column that landed without AUTOINCREMENT on SQLite. The integration tests prove
//! that each entry runs, on each engine, the very statements the two lists this one replaced
//! ran, and that a database at every version ends with the same schema.

use std::borrow::Cow;

/// The engines, whose spelling [`migrations`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (a single host's file).
    Sqlite,
    /// PostgreSQL (a cluster's shared database).
    Postgres,
}

/// One entry of the history.
enum Step {
    /// The same statements on both engines, in PostgreSQL's spelling.
    Both(&'static str),
    /// What each engine runs (`""`: nothing).
    Each {
        sqlite: &'static str,
        postgres: &'static str,
    },
}

use Step::{Both, Each};

/// The statements each entry of the history runs on `dialect`, entry 1 first (`""` where it
/// has nothing to do there).
pub fn migrations(dialect: Dialect) -> Vec<Cow<'static, str>> {
    let spell = |step: &Step| match (step, dialect) {
        (Both(sql), Dialect::Postgres) | (Each { postgres: sql, .. }, Dialect::Postgres) => {
            Cow::Borrowed(*sql)
        }
        (Both(sql), Dialect::Sqlite) => Cow::Owned(sqlite_ddl(sql)),
        (Each { sqlite, .. }, Dialect::Sqlite) => Cow::Borrowed(*sqlite),
    };
    STEPS.iter().map(spell).collect()
}

/// How many entries there are: the schema version this ojd migrates to.
pub(crate) const VERSION: i64 = STEPS.len() as i64;

/// The entry after which a SQLite file is vacuumed, to give the dropped blobs' space back.
pub(crate) const VACUUM_AFTER: usize = 8;

/// PostgreSQL's DDL in SQLite's spelling: a `BIGSERIAL PRIMARY KEY` is SQLite's
/// `INTEGER PRIMARY KEY AUTOINCREMENT` (ids never reused), `BIGINT` and `BOOLEAN` are
/// `INTEGER` (`FALSE` and `TRUE` 0 and 1), `BYTEA` is `BLOB`, and the quoted `"user"` column is
/// plain `user`. Whole words only: lowercase names (`bigint_column`) are left alone.
fn sqlite_ddl(sql: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("BIGSERIAL PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT"),
        ("BIGINT", "INTEGER"),
        ("BOOLEAN", "INTEGER"),
        ("FALSE", "0"),
        ("TRUE", "1"),
        ("BYTEA", "BLOB"),
        ("\"user\"", "user"),
    ];
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        let found = WORDS.iter().find(|(pg, _)| {
            rest.starts_with(pg)
                && !word(out.chars().next_back())
                && !word(rest[pg.len()..].chars().next())
        });
        let taken = match found {
            Some((pg, lite)) => {
                out.push_str(lite);
                pg.len()
            }
            None => {
                out.push(c);
                c.len_utf8()
            }
        };
        rest = &rest[taken..];
    }
    out
}

const STEPS: &[Step] = &[
    // 1: submissions, fairness, tokens; on SQLite each submission with its one verdict and
    // results keyed by submission. PostgreSQL came with the judgings history: its first entry
    // already has the shape SQLite reaches after the second (judgings with their results).
    Each {
        sqlite: "CREATE TABLE submissions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL,
        problem TEXT NOT NULL,
        language TEXT NOT NULL,
        source BLOB NOT NULL,
        state TEXT NOT NULL DEFAULT 'queued',
        verdict TEXT,
        score INTEGER,
        max_cpu_ms INTEGER,
        max_memory_kib INTEGER,
        compile_output TEXT NOT NULL DEFAULT '',
        message TEXT NOT NULL DEFAULT '',
        warnings TEXT NOT NULL DEFAULT '[]',
        judge_version TEXT,
        queued_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        attempts INTEGER NOT NULL DEFAULT 0,
        judged INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX submissions_state ON submissions(state, id);
    CREATE INDEX submissions_user ON submissions(user, id);
    CREATE INDEX submissions_problem ON submissions(problem, id);
    CREATE TABLE results (
        submission INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        name TEXT NOT NULL,
        sample INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        cpu_ms INTEGER NOT NULL,
        wall_ms INTEGER NOT NULL,
        memory_kib INTEGER NOT NULL,
        exit TEXT,
        message TEXT NOT NULL,
        diff TEXT,
        PRIMARY KEY (submission, idx)
    );
    CREATE TABLE fairness (user TEXT PRIMARY KEY, last_claim INTEGER NOT NULL);
    CREATE TABLE tokens (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin INTEGER NOT NULL,
        created_at INTEGER NOT NULL
    );",
        postgres: r#"CREATE TABLE submissions (
        id BIGSERIAL PRIMARY KEY,
        "user" TEXT NOT NULL,
        problem TEXT NOT NULL,
        language TEXT NOT NULL,
        source BYTEA NOT NULL,
        state TEXT NOT NULL DEFAULT 'queued',
        queued_at BIGINT NOT NULL,
        claimed_at BIGINT,
        attempts BIGINT NOT NULL DEFAULT 0,
        current_judging BIGINT,
        pending_rejudging BIGINT,
        claimed_by TEXT,
        lease_until BIGINT
    );
    CREATE INDEX submissions_state ON submissions(state, id);
    CREATE INDEX submissions_user ON submissions("user", id);
    CREATE INDEX submissions_problem ON submissions(problem, id);
    CREATE TABLE judgings (
        id BIGSERIAL PRIMARY KEY,
        submission BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        attempt BIGINT NOT NULL,
        rejudging BIGINT,
        judged_by TEXT NOT NULL DEFAULT '',
        package_version TEXT,
        judge_version TEXT,
        started_at BIGINT NOT NULL,
        finished_at BIGINT,
        verdict TEXT,
        score BIGINT,
        max_cpu_ms BIGINT,
        max_wall_ms BIGINT,
        max_memory_kib BIGINT,
        compile_output TEXT NOT NULL DEFAULT '',
        message TEXT NOT NULL DEFAULT '',
        warnings TEXT NOT NULL DEFAULT '[]',
        UNIQUE (submission, attempt)
    );
    CREATE INDEX judgings_rejudging ON judgings(rejudging) WHERE rejudging IS NOT NULL;
    ALTER TABLE submissions ADD FOREIGN KEY (current_judging) REFERENCES judgings(id);
    CREATE TABLE judging_results (
        judging BIGINT NOT NULL REFERENCES judgings(id) ON DELETE CASCADE,
        idx BIGINT NOT NULL,
        name TEXT NOT NULL,
        sample BOOLEAN NOT NULL,
        verdict TEXT NOT NULL,
        cpu_ms BIGINT NOT NULL,
        wall_ms BIGINT NOT NULL,
        memory_kib BIGINT NOT NULL,
        exit TEXT,
        message TEXT NOT NULL,
        diff TEXT,
        PRIMARY KEY (judging, idx)
    );
    CREATE SEQUENCE claim_seq;
    CREATE TABLE fairness ("user" TEXT PRIMARY KEY, last_claim BIGINT NOT NULL);
    CREATE TABLE tokens (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL
    );"#,
    },
    // 2: judgings are history (SQLite; PostgreSQL has them since 1). Each stored verdict
    // becomes a judging (with its results) that is the submission's current one; the
    // submission keeps only its queue state and its claim.
    Each {
        sqlite: "CREATE TABLE judgings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        submission INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        rejudging INTEGER,
        judged_by TEXT NOT NULL DEFAULT '',
        package_version TEXT,
        judge_version TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        verdict TEXT,
        score INTEGER,
        max_cpu_ms INTEGER,
        max_wall_ms INTEGER,
        max_memory_kib INTEGER,
        compile_output TEXT NOT NULL DEFAULT '',
        message TEXT NOT NULL DEFAULT '',
        warnings TEXT NOT NULL DEFAULT '[]',
        UNIQUE (submission, attempt)
    );
    CREATE INDEX judgings_rejudging ON judgings(rejudging) WHERE rejudging IS NOT NULL;
    CREATE TABLE judging_results (
        judging INTEGER NOT NULL REFERENCES judgings(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        name TEXT NOT NULL,
        sample INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        cpu_ms INTEGER NOT NULL,
        wall_ms INTEGER NOT NULL,
        memory_kib INTEGER NOT NULL,
        exit TEXT,
        message TEXT NOT NULL,
        diff TEXT,
        PRIMARY KEY (judging, idx)
    );
    -- A verdict stored before this migration came from the last finished claim; a row judging
    -- or queued again has been claimed since, so its old attempt number is unknown (0).
    INSERT INTO judgings (submission, attempt, judged_by, judge_version, started_at, finished_at,
        verdict, score, max_cpu_ms, max_wall_ms, max_memory_kib, compile_output, message, warnings)
    SELECT id, CASE WHEN state = 'done' THEN attempts ELSE 0 END, '', judge_version,
        COALESCE(started_at, finished_at, queued_at), COALESCE(finished_at, queued_at),
        verdict, score, max_cpu_ms,
        (SELECT MAX(r.wall_ms) FROM results r WHERE r.submission = s.id),
        max_memory_kib, compile_output, message, warnings
    FROM submissions s WHERE verdict IS NOT NULL ORDER BY id;
    INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms, wall_ms,
        memory_kib, exit, message, diff)
    SELECT j.id, r.idx, r.name, r.sample, r.verdict, r.cpu_ms, r.wall_ms, r.memory_kib, r.exit,
        r.message, r.diff
    FROM results r JOIN judgings j ON j.submission = r.submission;
    DROP TABLE results;
    ALTER TABLE submissions ADD COLUMN current_judging INTEGER REFERENCES judgings(id);
    ALTER TABLE submissions ADD COLUMN pending_rejudging INTEGER;
    ALTER TABLE submissions ADD COLUMN claimed_by TEXT;
    ALTER TABLE submissions ADD COLUMN lease_until INTEGER;
    ALTER TABLE submissions RENAME COLUMN started_at TO claimed_at;
    UPDATE submissions SET current_judging =
        (SELECT j.id FROM judgings j WHERE j.submission = submissions.id);
    UPDATE submissions SET claimed_at = NULL WHERE state <> 'judging';
    ALTER TABLE submissions DROP COLUMN verdict;
    ALTER TABLE submissions DROP COLUMN score;
    ALTER TABLE submissions DROP COLUMN max_cpu_ms;
    ALTER TABLE submissions DROP COLUMN max_memory_kib;
    ALTER TABLE submissions DROP COLUMN compile_output;
    ALTER TABLE submissions DROP COLUMN message;
    ALTER TABLE submissions DROP COLUMN warnings;
    ALTER TABLE submissions DROP COLUMN judge_version;
    ALTER TABLE submissions DROP COLUMN finished_at;
    ALTER TABLE submissions DROP COLUMN judged;",
        postgres: "",
    },
    // 3: contests: contest submissions, freeze state, clarifications, rejudgings.
    Both(
        r#"CREATE TABLE contest_submissions (
        submission BIGINT PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
        contest TEXT NOT NULL
    );
    CREATE INDEX contest_submissions_contest ON contest_submissions(contest, submission);
    CREATE TABLE contest_state (
        contest TEXT PRIMARY KEY,
        unfrozen BOOLEAN NOT NULL,
        changed_at BIGINT NOT NULL
    );
    CREATE TABLE clarifications (
        id BIGSERIAL PRIMARY KEY,
        contest TEXT NOT NULL,
        "user" TEXT,
        problem TEXT,
        text TEXT NOT NULL,
        answer TEXT,
        public BOOLEAN NOT NULL,
        at BIGINT NOT NULL,
        answered_at BIGINT,
        answered_by TEXT
    );
    CREATE INDEX clarifications_contest ON clarifications(contest, id);
    CREATE TABLE rejudgings (
        id BIGSERIAL PRIMARY KEY,
        created_at BIGINT NOT NULL,
        created_by TEXT NOT NULL,
        scope TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open',
        closed_at BIGINT,
        closed_by TEXT
    );
    CREATE TABLE rejudging_items (
        rejudging BIGINT NOT NULL REFERENCES rejudgings(id) ON DELETE CASCADE,
        submission BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        before_judging BIGINT,
        PRIMARY KEY (rejudging, submission)
    );"#,
    ),
    // 4: the web: browser sessions and one-time login codes (kept as hashes), tokens' last use.
    Both(
        "CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX sessions_name ON sessions(name);
    CREATE TABLE login_codes (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin BOOLEAN NOT NULL,
        expires_at BIGINT NOT NULL
    );
    ALTER TABLE tokens ADD COLUMN last_used BIGINT;",
    ),
    // 5: many hosts: judge-host heartbeats, problem packages as content-addressed blobs, and
    // the package version each judging used (judgings.package_version, since 2).
    Both(
        "CREATE TABLE hosts (
        name TEXT PRIMARY KEY,
        role TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        last_seen BIGINT NOT NULL
    );
    CREATE INDEX submissions_claimed_by ON submissions(claimed_by) WHERE claimed_by IS NOT NULL;
    CREATE TABLE blobs (hash TEXT PRIMARY KEY, size BIGINT NOT NULL, data BYTEA NOT NULL);
    CREATE TABLE packages (
        version TEXT PRIMARY KEY,
        problem TEXT NOT NULL,
        manifest TEXT NOT NULL,
        published_at BIGINT NOT NULL
    );
    CREATE TABLE problem_current (
        problem TEXT PRIMARY KEY,
        version TEXT NOT NULL REFERENCES packages(version),
        published_at BIGINT NOT NULL
    );",
    ),
    // 6: PostgreSQL: a trigger that wakes idle judge hosts when a submission enters the queue.
    // Nothing on SQLite: its one host wakes its workers in-process.
    Each {
        sqlite: "",
        postgres: "CREATE FUNCTION ojd_queued() RETURNS trigger AS $$
     BEGIN
         PERFORM pg_notify('ojd_queued', NEW.id::TEXT);
         RETURN NULL;
     END $$ LANGUAGE plpgsql;
     CREATE TRIGGER submissions_queued AFTER INSERT OR UPDATE OF state ON submissions
         FOR EACH ROW WHEN (NEW.state = 'queued') EXECUTE FUNCTION ojd_queued();",
    },
    // 7: rejudgings that apply themselves (the admin's "rejudge" buttons).
    Both(
        "ALTER TABLE rejudgings ADD COLUMN auto_apply BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX rejudging_items_submission ON rejudging_items(submission, rejudging);",
    ),
    // 8: SQLite: one host reads its problems from its own folder, so the blobs a SQLite
    // database kept of every package file (each problem's data a second time, in the database
    // file) go; the manifests and versions stay. The file is vacuumed after this step
    // (VACUUM_AFTER). PostgreSQL's judge hosts read the blobs: nothing there.
    Each {
        sqlite: "DELETE FROM blobs;",
        postgres: "",
    },
    // 9: each host's own counters (judged, lease take-overs, blobs fetched…), sent with its
    // heartbeat, so any node's /metrics shows every judge host's.
    Both("ALTER TABLE hosts ADD COLUMN stats TEXT NOT NULL DEFAULT '{}';"),
    // ---- branch contestweb ----
    // 10: jury submissions (an admin's, made through a contest: never ranked), who changed a
    // contest's freeze, the audit log of what directors did, and every answer a clarification
    // had (a re-answer keeps the earlier ones), and the jury's verdict overrides with their reason.
    Both(
        "ALTER TABLE contest_submissions ADD COLUMN jury BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE contest_state ADD COLUMN changed_by TEXT;
    CREATE TABLE audit (
        id BIGSERIAL PRIMARY KEY,
        at BIGINT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        contest TEXT,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_contest ON audit(contest, id);
    CREATE TABLE clarification_answers (
        id BIGSERIAL PRIMARY KEY,
        clarification BIGINT NOT NULL REFERENCES clarifications(id) ON DELETE CASCADE,
        answer TEXT NOT NULL,
        public BOOLEAN NOT NULL,
        answered_by TEXT NOT NULL,
        answered_at BIGINT NOT NULL
    );
    CREATE INDEX clarification_answers_of ON clarification_answers(clarification, id);
    CREATE TABLE verdict_overrides (
        submission BIGINT PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
        verdict TEXT NOT NULL,
        reason TEXT NOT NULL,
        by_user TEXT NOT NULL,
        at BIGINT NOT NULL
    );",
    ),
    // ---- branch hosts ----
    // 11: a host row per process identity: its label (the name it was given), its ojd
    // version, when it stopped cleanly, and an admin's request to drain it (the reason).
    Both(
        "ALTER TABLE hosts ADD COLUMN label TEXT NOT NULL DEFAULT '';
    ALTER TABLE hosts ADD COLUMN version TEXT NOT NULL DEFAULT '';
    ALTER TABLE hosts ADD COLUMN stopped_at BIGINT;
    ALTER TABLE hosts ADD COLUMN drain TEXT;",
    ),
    // 12: collecting unused package versions looks their judgings up by version.
    Both(
        "CREATE INDEX judgings_package_version ON judgings(package_version)
        WHERE package_version IS NOT NULL;",
    ),
    // ---- branch contest2 ----
    // 13: the balloon queue: which first solves (contest, user, problem) were delivered, by
    // whom and when.
    Both(
        "CREATE TABLE balloons (
        contest TEXT NOT NULL,
        user_name TEXT NOT NULL,
        problem TEXT NOT NULL,
        done_by TEXT NOT NULL,
        done_at BIGINT NOT NULL,
        PRIMARY KEY (contest, user_name, problem)
    );",
    ),
    // 14: clarification categories (general, technical, problem), an announcement to one
    // team, and the jury member who claimed a question.
    Both(
        "ALTER TABLE clarifications ADD COLUMN category TEXT NOT NULL DEFAULT 'general';
    UPDATE clarifications SET category = 'problem' WHERE problem IS NOT NULL;
    ALTER TABLE clarifications ADD COLUMN to_user TEXT;
    ALTER TABLE clarifications ADD COLUMN claimed_by TEXT;
    ALTER TABLE clarifications ADD COLUMN claimed_at BIGINT;",
    ),
    // 15: teams' passwords, as Argon2id hashes (PHC strings).
    Both(
        "CREATE TABLE passwords (
        user_name TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        set_at BIGINT NOT NULL
    );",
    ),
    // ---- branch r3s3-store ----
    // 16: counters of submissions by state and current verdict, kept by triggers in the same
    // transaction as each change, so that /healthz, /metrics, the queue page and a list's total
    // never count the table. The backfill counts the rows there are. SQLite has one writer at
    // a time: one row per (state, verdict), added to in place. On PostgreSQL, many writers at
    // once would queue up (and
    // deadlock, taking the rows in different orders) on one row per key, so each statement
    // inserts its changes, summed per key, as rows of their own (a statement-level trigger: a
    // claim adds two rows, a rejudging of 100,000 submissions a few), and every 256th such row
    // folds the rows committed so far into one per key (skipped while another transaction
    // folds): a reader sums a few hundred rows at most, and the table is vacuumed after every
    // 1,000 dead rows. Deleted submissions are counted row by row, before the deletion's
    // cascade takes their judgings. The trigger functions run as the tables' owner, so a judge
    // host's role needs no right on the counters.
    Each {
        sqlite: "CREATE TABLE submission_counts (
        state TEXT NOT NULL,
        verdict TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (state, verdict)
    );
    INSERT INTO submission_counts (state, verdict, n)
    SELECT s.state, COALESCE(j.verdict, ''), COUNT(*) FROM submissions s
    LEFT JOIN judgings j ON j.id = s.current_judging GROUP BY 1, 2;
    CREATE TRIGGER submissions_count_insert AFTER INSERT ON submissions BEGIN
        INSERT INTO submission_counts (state, verdict, n) VALUES (NEW.state,
            COALESCE((SELECT verdict FROM judgings WHERE id = NEW.current_judging), ''), 1)
        ON CONFLICT (state, verdict) DO UPDATE SET n = n + excluded.n;
    END;
    CREATE TRIGGER submissions_count_update AFTER UPDATE OF state, current_judging ON submissions
    WHEN OLD.state IS NOT NEW.state OR OLD.current_judging IS NOT NEW.current_judging BEGIN
        INSERT INTO submission_counts (state, verdict, n) VALUES (OLD.state,
            COALESCE((SELECT verdict FROM judgings WHERE id = OLD.current_judging), ''), -1)
        ON CONFLICT (state, verdict) DO UPDATE SET n = n + excluded.n;
        INSERT INTO submission_counts (state, verdict, n) VALUES (NEW.state,
            COALESCE((SELECT verdict FROM judgings WHERE id = NEW.current_judging), ''), 1)
        ON CONFLICT (state, verdict) DO UPDATE SET n = n + excluded.n;
    END;
    CREATE TRIGGER submissions_count_delete BEFORE DELETE ON submissions BEGIN
        INSERT INTO submission_counts (state, verdict, n) VALUES (OLD.state,
            COALESCE((SELECT verdict FROM judgings WHERE id = OLD.current_judging), ''), -1)
        ON CONFLICT (state, verdict) DO UPDATE SET n = n + excluded.n;
    END;
    CREATE TRIGGER judgings_count_verdict AFTER UPDATE OF verdict ON judgings
    WHEN OLD.verdict IS NOT NEW.verdict BEGIN
        INSERT INTO submission_counts (state, verdict, n)
        SELECT s.state, COALESCE(OLD.verdict, ''), -1 FROM submissions s
        WHERE s.id = NEW.submission AND s.current_judging = NEW.id
        ON CONFLICT (state, verdict) DO UPDATE SET n = n + excluded.n;
        INSERT INTO submission_counts (state, verdict, n)
        SELECT s.state, COALESCE(NEW.verdict, ''), 1 FROM submissions s
        WHERE s.id = NEW.submission AND s.current_judging = NEW.id
        ON CONFLICT (state, verdict) DO UPDATE SET n = n + excluded.n;
    END;",
        postgres: "CREATE TABLE submission_counts (
        id BIGSERIAL PRIMARY KEY,
        state TEXT NOT NULL,
        verdict TEXT NOT NULL,
        n BIGINT NOT NULL
    ) WITH (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);
    INSERT INTO submission_counts (state, verdict, n)
    SELECT s.state, COALESCE(j.verdict, ''), COUNT(*) FROM submissions s
    LEFT JOIN judgings j ON j.id = s.current_judging GROUP BY 1, 2;
    CREATE FUNCTION ojd_count_add(st TEXT, v TEXT, d BIGINT) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
        added BIGINT;
    BEGIN
        INSERT INTO submission_counts (state, verdict, n) VALUES (st, COALESCE(v, ''), d)
            RETURNING id INTO added;
        IF added % 256 = 0 AND pg_try_advisory_xact_lock(7270402) THEN
            WITH gone AS (DELETE FROM submission_counts RETURNING state, verdict, n)
            INSERT INTO submission_counts (state, verdict, n)
            SELECT g.state, g.verdict, SUM(g.n) FROM gone g
            GROUP BY g.state, g.verdict HAVING SUM(g.n) <> 0;
        END IF;
    END $$;
    CREATE FUNCTION ojd_count_inserted() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        PERFORM ojd_count_add(d.state, d.verdict, d.n) FROM (
            SELECT w.state, COALESCE(j.verdict, '') AS verdict, COUNT(*) AS n
            FROM new_rows w LEFT JOIN judgings j ON j.id = w.current_judging
            GROUP BY 1, 2) d;
        RETURN NULL;
    END $$;
    CREATE FUNCTION ojd_count_updated() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        PERFORM ojd_count_add(d.state, d.verdict, d.n) FROM (
            SELECT x.state, x.verdict, SUM(x.n) AS n FROM (
                SELECT o.state, COALESCE(jo.verdict, '') AS verdict, -1 AS n,
                    w.state AS state2, COALESCE(jw.verdict, '') AS verdict2
                FROM old_rows o JOIN new_rows w ON w.id = o.id
                LEFT JOIN judgings jo ON jo.id = o.current_judging
                LEFT JOIN judgings jw ON jw.id = w.current_judging
                WHERE o.state IS DISTINCT FROM w.state
                   OR o.current_judging IS DISTINCT FROM w.current_judging
            ) c, LATERAL (VALUES (c.state, c.verdict, -1), (c.state2, c.verdict2, 1))
                AS x(state, verdict, n)
            GROUP BY 1, 2 HAVING SUM(x.n) <> 0) d;
        RETURN NULL;
    END $$;
    CREATE FUNCTION ojd_count_deleted() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        PERFORM ojd_count_add(OLD.state,
            (SELECT verdict FROM judgings WHERE id = OLD.current_judging), -1);
        RETURN OLD;
    END $$;
    CREATE FUNCTION ojd_count_verdict() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
        st TEXT;
    BEGIN
        SELECT state INTO st FROM submissions
            WHERE id = NEW.submission AND current_judging = NEW.id;
        IF FOUND THEN
            PERFORM ojd_count_add(st, OLD.verdict, -1);
            PERFORM ojd_count_add(st, NEW.verdict, 1);
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER submissions_count_insert AFTER INSERT ON submissions
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ojd_count_inserted();
    CREATE TRIGGER submissions_count_update AFTER UPDATE ON submissions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ojd_count_updated();
    CREATE TRIGGER submissions_count_delete BEFORE DELETE ON submissions
        FOR EACH ROW EXECUTE FUNCTION ojd_count_deleted();
    CREATE TRIGGER judgings_count_verdict AFTER UPDATE OF verdict ON judgings
        FOR EACH ROW WHEN (OLD.verdict IS DISTINCT FROM NEW.verdict)
        EXECUTE FUNCTION ojd_count_verdict();",
    },
    // ---- branch store ----
    // 17: exact points: a judging's score in thousandths of a point (a CMS group worth 12.5),
    // the whole score times 1000 for the judgings stored before, and a test's partial credit in
    // thousandths (a `cms` checker's share; NULL: all or nothing by its verdict); and the
    // standings' input read from one index (contest, submission, jury), which replaces the
    // (contest, submission) one.
    Both(
        "ALTER TABLE judgings ADD COLUMN score_milli BIGINT;
    UPDATE judgings SET score_milli = score * 1000 WHERE score IS NOT NULL;
    ALTER TABLE judging_results ADD COLUMN credit_milli BIGINT;
    CREATE INDEX contest_submissions_standings ON contest_submissions(contest, submission, jury);
    DROP INDEX contest_submissions_contest;",
    ),
    // ---- branch director ----
    // The history of the jury's verdict overrides, one row per change (set, replaced,
    // removed) written in the transaction of the change, read whole by a submission's history
    // (before, it was parsed from the newest lines of the audit log). Backfilled from the
    // current overrides, whose earlier verdict is not known ("?"); overrides replaced or
    // removed before this table stay in the audit log only. (SQLite's id has no AUTOINCREMENT
    // here, as the entry landed.)
    Each {
        sqlite: "CREATE TABLE verdict_override_history (
        id INTEGER PRIMARY KEY,
        submission INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        from_verdict TEXT NOT NULL,
        to_verdict TEXT NOT NULL,
        reason TEXT NOT NULL,
        by_user TEXT NOT NULL,
        at INTEGER NOT NULL,
        removed INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX verdict_override_history_submission
        ON verdict_override_history(submission, at);
    INSERT INTO verdict_override_history
        (submission, from_verdict, to_verdict, reason, by_user, at, removed)
        SELECT submission, '?', verdict, reason, by_user, at, 0 FROM verdict_overrides
        ORDER BY at, submission;",
        postgres: "CREATE TABLE verdict_override_history (
        id BIGSERIAL PRIMARY KEY,
        submission BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        from_verdict TEXT NOT NULL,
        to_verdict TEXT NOT NULL,
        reason TEXT NOT NULL,
        by_user TEXT NOT NULL,
        at BIGINT NOT NULL,
        removed BOOLEAN NOT NULL DEFAULT FALSE
    );
    CREATE INDEX verdict_override_history_submission
        ON verdict_override_history(submission, at);
    INSERT INTO verdict_override_history
        (submission, from_verdict, to_verdict, reason, by_user, at, removed)
        SELECT submission, '?', verdict, reason, by_user, at, FALSE FROM verdict_overrides
        ORDER BY at, submission;",
    },
    // ---- branch load ----
    // 19: the current judging's verdict on the submission's row, kept by triggers (a new
    // current judging; a change of the current judging's verdict), with an index (verdict, id):
    // a list filtered by verdict reads the newest matching rows from the index instead of
    // joining every submission to its judging (1.5-2.5 s at a million rows). The PostgreSQL
    // functions run as the tables' owner, as the counters' do (a judge host's role has no right
    // on the column). And `crashes`: how many times a judging of the submission ended with its
    // judge process (its lease ran out, or a restart found it half-judged); at two it is set
    // aside as a judge error (a poison pill) instead of being claimed again.
    Each {
        sqlite: "ALTER TABLE submissions ADD COLUMN verdict TEXT;
    ALTER TABLE submissions ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0;
    UPDATE submissions SET verdict = (SELECT verdict FROM judgings j
        WHERE j.id = submissions.current_judging) WHERE current_judging IS NOT NULL;
    CREATE INDEX submissions_verdict ON submissions(verdict, id);
    CREATE TRIGGER submissions_current_verdict_insert AFTER INSERT ON submissions
    WHEN NEW.current_judging IS NOT NULL BEGIN
        UPDATE submissions SET verdict = (SELECT verdict FROM judgings
            WHERE id = NEW.current_judging) WHERE id = NEW.id;
    END;
    CREATE TRIGGER submissions_current_verdict AFTER UPDATE OF current_judging ON submissions
    WHEN OLD.current_judging IS NOT NEW.current_judging BEGIN
        UPDATE submissions SET verdict = (SELECT verdict FROM judgings
            WHERE id = NEW.current_judging) WHERE id = NEW.id;
    END;
    CREATE TRIGGER judgings_current_verdict AFTER UPDATE OF verdict ON judgings
    WHEN OLD.verdict IS NOT NEW.verdict BEGIN
        UPDATE submissions SET verdict = NEW.verdict
        WHERE id = NEW.submission AND current_judging = NEW.id;
    END;",
        postgres: "ALTER TABLE submissions ADD COLUMN verdict TEXT;
    ALTER TABLE submissions ADD COLUMN crashes BIGINT NOT NULL DEFAULT 0;
    UPDATE submissions s SET verdict = j.verdict FROM judgings j WHERE j.id = s.current_judging;
    CREATE INDEX submissions_verdict ON submissions(verdict, id);
    CREATE FUNCTION ojd_current_verdict() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        NEW.verdict := (SELECT verdict FROM judgings WHERE id = NEW.current_judging);
        RETURN NEW;
    END $$;
    CREATE FUNCTION ojd_judging_verdict() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        UPDATE submissions SET verdict = NEW.verdict
            WHERE id = NEW.submission AND current_judging = NEW.id;
        RETURN NULL;
    END $$;
    CREATE TRIGGER submissions_current_verdict
        BEFORE INSERT OR UPDATE OF current_judging ON submissions
        FOR EACH ROW EXECUTE FUNCTION ojd_current_verdict();
    CREATE TRIGGER judgings_current_verdict AFTER UPDATE OF verdict ON judgings
        FOR EACH ROW WHEN (OLD.verdict IS DISTINCT FROM NEW.verdict)
        EXECUTE FUNCTION ojd_judging_verdict();",
    },
    // 20: revocation: a login code and a session may be bound to the contest whose hall sheet
    // made them (the code then logs in only while that contest still has the user and has not
    // ended; the session only while the contest still has the user), and a code revoked by a
    // reprint or a team's removal is kept, marked, until it expires, so that its link says
    // "revoked" rather than "used".
    Both(
        "ALTER TABLE login_codes ADD COLUMN contest TEXT;
    ALTER TABLE login_codes ADD COLUMN revoked_at BIGINT;
    CREATE INDEX login_codes_contest ON login_codes(contest, name);
    CREATE INDEX login_codes_name ON login_codes(name);
    ALTER TABLE sessions ADD COLUMN contest TEXT;",
    ),
    // 21: a client's idempotency key on the submission it made (`Idempotency-Key`), unique per
    // user: a POST retried after an answer that never came returns the first submission
    // instead of queueing a second. Partial: the rows without a key (nearly all) cost nothing.
    // And why a host has stopped claiming (its own checks or faults), while it has, for the
    // hosts page and `/api/v1/admin/hosts`.
    Both(
        "ALTER TABLE submissions ADD COLUMN idempotency_key TEXT;
    CREATE UNIQUE INDEX submissions_idempotency ON submissions(\"user\", idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    ALTER TABLE hosts ADD COLUMN paused TEXT;",
    ),
    // 22: the poison-pill rule tells a host's death from a judge that crashes under a live
    // host. `crashes` now counts only judgings that ended while their host went on beating
    // (its heartbeat outlived the lease it stopped renewing); `host_deaths` counts those that
    // ended with their host (its heartbeat stopped too, or it came back as a new process).
    // A host's death is most often the host's own (kill, stop, power), so it takes more of
    // them to set a submission aside (see `POISON_HOST_DEATHS`). The judge hosts' group, when
    // it exists, may update the new column as it may `crashes` (a claim counts it).
    Each {
        sqlite: "ALTER TABLE submissions ADD COLUMN host_deaths INTEGER NOT NULL DEFAULT 0;",
        postgres: "ALTER TABLE submissions ADD COLUMN host_deaths BIGINT NOT NULL DEFAULT 0;
    DO $$ BEGIN
        IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ojd_judge_hosts') THEN
            GRANT UPDATE (host_deaths) ON submissions TO ojd_judge_hosts;
        END IF;
    END $$;",
    },
    // 23: lists and totals by language read an index, as those by user, problem and verdict
    // do: a language's total counted every row of the table (49 ms on SQLite, 119 ms on
    // PostgreSQL at a million).
    Both("CREATE INDEX submissions_language ON submissions(language, id);"),
    // ---- branch load ----
    // Counters of submissions by language and state (language_counts.rs has the entry and
    // why): a list's total by language reads a few rows, not the language's index.
    Each {
        sqlite: crate::language_counts::SQLITE,
        postgres: crate::language_counts::POSTGRES,
    },
    // ---- branch data ----
    // 25: the Contest API's roster log (roster_log.rs): what the roster held and when each
    // object left or came back, so that the event feed deletes what a director removed.
    Both(
        "CREATE TABLE ccs_roster_log (
        id BIGSERIAL PRIMARY KEY,
        contest TEXT NOT NULL,
        kind TEXT NOT NULL,
        obj_id TEXT NOT NULL,
        at BIGINT NOT NULL,
        data TEXT
    );
    CREATE INDEX ccs_roster_log_contest ON ccs_roster_log(contest, id);",
    ),
    // 26: an announcement to several teams or to groups (CLICS 2026-01's `to_team_ids` and
    // `to_group_ids`): the further teams after `to_user`, those of its groups included, and
    // the groups' names, each one a line.
    Both(
        "ALTER TABLE clarifications ADD COLUMN to_teams TEXT;
    ALTER TABLE clarifications ADD COLUMN to_groups TEXT;",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_ddl_reads_as_sqlite() {
        assert_eq!(
            sqlite_ddl(
                "CREATE TABLE t (id BIGSERIAL PRIMARY KEY, \"user\" TEXT, n BIGINT NOT NULL,
                 ok BOOLEAN DEFAULT FALSE, yes BOOLEAN DEFAULT TRUE, data BYTEA);"
            ),
            "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT, n INTEGER NOT NULL,
                 ok INTEGER DEFAULT 0, yes INTEGER DEFAULT 1, data BLOB);"
        );
        // Parts of names, lowercase words and other types stay.
        let kept =
            "ALTER TABLE t ADD COLUMN BIGINT_X TEXT, bigint INTEGER, x_FALSE BLOB, user_name";
        assert_eq!(sqlite_ddl(kept), kept);
    }

    #[test]
    fn both_engines_have_every_entry() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let list = migrations(dialect);
            assert_eq!(list.len() as i64, VERSION);
            // Entry 1 makes the submissions on both.
            assert!(
                list[0].starts_with("CREATE TABLE submissions ("),
                "{dialect:?}"
            );
        }
        assert!(migrations(Dialect::Sqlite)[2].contains("contest TEXT NOT NULL"));
        assert!(!migrations(Dialect::Sqlite)
            .iter()
            .any(|s| s.contains("BIGINT")));
    }
}

//! The SQLite schema as an append-only list of migrations; `PRAGMA user_version` counts those a
//! database has run. Never edit an entry that has landed; add one at the end (and the same step
//! to the PostgreSQL list, so both keep the same count).

pub const MIGRATIONS: &[&str] = &[
    // 1: submissions (with their one verdict), results, fairness, tokens.
    "CREATE TABLE submissions (
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
    // 2: judgings are history. Each stored verdict becomes a judging (with its results) that is
    // the submission's current one; the submission keeps only its queue state and its claim.
    "CREATE TABLE judgings (
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
    // 3: contests: contest submissions, freeze state, clarifications, rejudgings.
    "CREATE TABLE contest_submissions (
        submission INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
        contest TEXT NOT NULL
    );
    CREATE INDEX contest_submissions_contest ON contest_submissions(contest, submission);
    CREATE TABLE contest_state (
        contest TEXT PRIMARY KEY,
        unfrozen INTEGER NOT NULL,
        changed_at INTEGER NOT NULL
    );
    CREATE TABLE clarifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        contest TEXT NOT NULL,
        user TEXT,
        problem TEXT,
        text TEXT NOT NULL,
        answer TEXT,
        public INTEGER NOT NULL,
        at INTEGER NOT NULL,
        answered_at INTEGER,
        answered_by TEXT
    );
    CREATE INDEX clarifications_contest ON clarifications(contest, id);
    CREATE TABLE rejudgings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        scope TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open',
        closed_at INTEGER,
        closed_by TEXT
    );
    CREATE TABLE rejudging_items (
        rejudging INTEGER NOT NULL REFERENCES rejudgings(id) ON DELETE CASCADE,
        submission INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        before_judging INTEGER,
        PRIMARY KEY (rejudging, submission)
    );",
    // 4: the web: browser sessions and one-time login codes (kept as hashes), tokens' last use.
    "CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    );
    CREATE INDEX sessions_name ON sessions(name);
    CREATE TABLE login_codes (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    );
    ALTER TABLE tokens ADD COLUMN last_used INTEGER;",
    // 5: many hosts: judge-host heartbeats, problem packages as content-addressed blobs, and
    // the package version each judging used (judgings.package_version, since 2).
    "CREATE TABLE hosts (
        name TEXT PRIMARY KEY,
        role TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        last_seen INTEGER NOT NULL
    );
    CREATE INDEX submissions_claimed_by ON submissions(claimed_by) WHERE claimed_by IS NOT NULL;
    CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);
    CREATE TABLE packages (
        version TEXT PRIMARY KEY,
        problem TEXT NOT NULL,
        manifest TEXT NOT NULL,
        published_at INTEGER NOT NULL
    );
    CREATE TABLE problem_current (
        problem TEXT PRIMARY KEY,
        version TEXT NOT NULL REFERENCES packages(version),
        published_at INTEGER NOT NULL
    );",
    // 6: (PostgreSQL: a trigger that wakes idle judge hosts when work is queued.) Nothing here:
    // one host wakes its workers in-process.
    "SELECT 1;",
    // 7: rejudgings that apply themselves (the admin's "rejudge" buttons).
    "ALTER TABLE rejudgings ADD COLUMN auto_apply INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX rejudging_items_submission ON rejudging_items(submission, rejudging);",
    // 8: one host reads its problems from its own folder, so the blobs a SQLite database kept
    // of every package file (each problem's data a second time, in the database file) go; the
    // manifests and versions stay. The database is vacuumed after this step (see mod.rs).
    "DELETE FROM blobs;",
    // 9: each host's own counters (judged, lease take-overs, blobs fetched…), sent with its
    // heartbeat, so any node's /metrics shows every judge host's.
    "ALTER TABLE hosts ADD COLUMN stats TEXT NOT NULL DEFAULT '{}';",
    // ---- branch contestweb ----
    // 10: jury submissions (an admin's, made through a contest: never ranked), who changed a
    // contest's freeze, the audit log of what directors did, and every answer a clarification
    // had (a re-answer keeps the earlier ones), and the jury's verdict overrides with their reason.
    "ALTER TABLE contest_submissions ADD COLUMN jury INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE contest_state ADD COLUMN changed_by TEXT;
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        contest TEXT,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_contest ON audit(contest, id);
    CREATE TABLE clarification_answers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        clarification INTEGER NOT NULL REFERENCES clarifications(id) ON DELETE CASCADE,
        answer TEXT NOT NULL,
        public INTEGER NOT NULL,
        answered_by TEXT NOT NULL,
        answered_at INTEGER NOT NULL
    );
    CREATE INDEX clarification_answers_of ON clarification_answers(clarification, id);
    CREATE TABLE verdict_overrides (
        submission INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
        verdict TEXT NOT NULL,
        reason TEXT NOT NULL,
        by_user TEXT NOT NULL,
        at INTEGER NOT NULL
    );",
    // ---- branch hosts ----
    // 11: a host row per process identity: its label (the name it was given), its ojd
    // version, when it stopped cleanly, and an admin's request to drain it (the reason).
    "ALTER TABLE hosts ADD COLUMN label TEXT NOT NULL DEFAULT '';
    ALTER TABLE hosts ADD COLUMN version TEXT NOT NULL DEFAULT '';
    ALTER TABLE hosts ADD COLUMN stopped_at INTEGER;
    ALTER TABLE hosts ADD COLUMN drain TEXT;",
    // 12: collecting unused package versions looks their judgings up by version.
    "CREATE INDEX judgings_package_version ON judgings(package_version)
        WHERE package_version IS NOT NULL;",
    // ---- branch contest2 ----
    // 13: the balloon queue: which first solves (contest, user, problem) were delivered, by
    // whom and when.
    "CREATE TABLE balloons (
        contest TEXT NOT NULL,
        user_name TEXT NOT NULL,
        problem TEXT NOT NULL,
        done_by TEXT NOT NULL,
        done_at INTEGER NOT NULL,
        PRIMARY KEY (contest, user_name, problem)
    );",
    // 14: clarification categories (general, technical, problem), an announcement to one
    // team, and the jury member who claimed a question.
    "ALTER TABLE clarifications ADD COLUMN category TEXT NOT NULL DEFAULT 'general';
    UPDATE clarifications SET category = 'problem' WHERE problem IS NOT NULL;
    ALTER TABLE clarifications ADD COLUMN to_user TEXT;
    ALTER TABLE clarifications ADD COLUMN claimed_by TEXT;
    ALTER TABLE clarifications ADD COLUMN claimed_at INTEGER;",
    // 15: teams' passwords, as Argon2id hashes (PHC strings).
    "CREATE TABLE passwords (
        user_name TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        set_at INTEGER NOT NULL
    );",
    // ---- branch r3s3-store ----
    // 16: counters of submissions by state and current verdict, kept by triggers in the same
    // transaction as each change, so that /healthz, /metrics, the queue page and a list's total
    // never count the table. The backfill counts the rows there are. SQLite has one writer at
    // a time: one row per (state, verdict), added to in place.
    "CREATE TABLE submission_counts (
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
    // ---- branch store ----
    // 17: exact points: a judging's score in thousandths of a point (a CMS group worth 12.5),
    // the whole score times 1000 for the judgings stored before, and a test's partial credit in
    // thousandths (a `cms` checker's share; NULL: all or nothing by its verdict); and the
    // standings' input read from one index (contest, submission, jury), which replaces the
    // (contest, submission) one.
    "ALTER TABLE judgings ADD COLUMN score_milli INTEGER;
    UPDATE judgings SET score_milli = score * 1000 WHERE score IS NOT NULL;
    ALTER TABLE judging_results ADD COLUMN credit_milli INTEGER;
    CREATE INDEX contest_submissions_standings ON contest_submissions(contest, submission, jury);
    DROP INDEX contest_submissions_contest;",
    // ---- branch director ----
    // The history of the jury's verdict overrides, one row per change (set, replaced,
    // removed) written in the transaction of the change, read whole by a submission's history
    // (before, it was parsed from the newest lines of the audit log). Backfilled from the
    // current overrides, whose earlier verdict is not known ("?"); overrides replaced or
    // removed before this table stay in the audit log only.
    "CREATE TABLE verdict_override_history (
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
];

/// The entry after which the file is vacuumed, to give the dropped blobs' space back.
pub(crate) const VACUUM_AFTER: usize = 8;

//! The PostgreSQL schema as an append-only list, in step with the SQLite list (entry N does what
//! SQLite's entry N does); `ojd_schema.version` counts those a database has run. PostgreSQL
//! support came with the judgings history, so its first entry already has the shape SQLite
//! reaches after its second.

pub const MIGRATIONS: &[&str] = &[
    // 1: submissions, judgings with their results, fairness, tokens.
    r#"CREATE TABLE submissions (
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
    // 2: (SQLite: the judgings history) already in entry 1 here.
    "SELECT 1;",
    // 3: contests: contest submissions, freeze state, clarifications, rejudgings.
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
    // 4: the web: browser sessions and one-time login codes (kept as hashes), tokens' last use.
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
    // 5: many hosts: judge-host heartbeats, problem packages as content-addressed blobs.
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
    // 6: a trigger that wakes idle judge hosts when a submission enters the queue.
    "CREATE FUNCTION ojd_queued() RETURNS trigger AS $$
     BEGIN
         PERFORM pg_notify('ojd_queued', NEW.id::TEXT);
         RETURN NULL;
     END $$ LANGUAGE plpgsql;
     CREATE TRIGGER submissions_queued AFTER INSERT OR UPDATE OF state ON submissions
         FOR EACH ROW WHEN (NEW.state = 'queued') EXECUTE FUNCTION ojd_queued();",
    // 7: rejudgings that apply themselves (the admin's "rejudge" buttons).
    "ALTER TABLE rejudgings ADD COLUMN auto_apply BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX rejudging_items_submission ON rejudging_items(submission, rejudging);",
    // 8: (SQLite: drops the blobs one host does not need.) Judge hosts read them here.
    "SELECT 1;",
    // 9: each host's own counters, sent with its heartbeat.
    "ALTER TABLE hosts ADD COLUMN stats TEXT NOT NULL DEFAULT '{}';",
    // ---- branch contestweb ----
    // 10: jury submissions, who changed a freeze, the audit log, clarification answer history,
    // verdict overrides.
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
    // ---- branch hosts ----
    // 11: a host row per process identity: its label (the name it was given), its ojd
    // version, when it stopped cleanly, and an admin's request to drain it (the reason).
    "ALTER TABLE hosts ADD COLUMN label TEXT NOT NULL DEFAULT '';
    ALTER TABLE hosts ADD COLUMN version TEXT NOT NULL DEFAULT '';
    ALTER TABLE hosts ADD COLUMN stopped_at BIGINT;
    ALTER TABLE hosts ADD COLUMN drain TEXT;",
    // 12: collecting unused package versions looks their judgings up by version.
    "CREATE INDEX judgings_package_version ON judgings(package_version)
        WHERE package_version IS NOT NULL;",
    // ---- branch contest2 ----
    // 13: the balloon queue: which first solves (contest, user, problem) were delivered.
    "CREATE TABLE balloons (
        contest TEXT NOT NULL,
        user_name TEXT NOT NULL,
        problem TEXT NOT NULL,
        done_by TEXT NOT NULL,
        done_at BIGINT NOT NULL,
        PRIMARY KEY (contest, user_name, problem)
    );",
    // 14: clarification categories (general, technical, problem), an announcement to one
    // team, and the jury member who claimed a question.
    "ALTER TABLE clarifications ADD COLUMN category TEXT NOT NULL DEFAULT 'general';
    UPDATE clarifications SET category = 'problem' WHERE problem IS NOT NULL;
    ALTER TABLE clarifications ADD COLUMN to_user TEXT;
    ALTER TABLE clarifications ADD COLUMN claimed_by TEXT;
    ALTER TABLE clarifications ADD COLUMN claimed_at BIGINT;",
    // 15: teams' passwords, as Argon2id hashes (PHC strings).
    "CREATE TABLE passwords (
        user_name TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        set_at BIGINT NOT NULL
    );",
    // ---- branch r3s3-store ----
    // 16: counters of submissions by state and current verdict, kept by triggers in the same
    // transaction as each change (see SQLite's 16). Many writers at once would queue up (and
    // deadlock, taking the rows in different orders) on one row per key, so each statement
    // inserts its changes, summed per key, as rows of their own (a statement-level trigger: a
    // claim adds two rows, a rejudging of 100,000 submissions a few), and every 256th such row
    // folds the rows committed so far into one per key (skipped while another transaction
    // folds): a reader sums a few hundred rows at most, and the table is vacuumed after every
    // 1,000 dead rows. Deleted submissions are counted row by row, before the deletion's
    // cascade takes their judgings. The trigger functions run as the tables' owner, so a judge
    // host's role needs no right on the counters.
    "CREATE TABLE submission_counts (
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
    // ---- branch store ----
    // 17: exact points in thousandths, a test's partial credit, and the standings' index (as in
    // the SQLite list).
    "ALTER TABLE judgings ADD COLUMN score_milli BIGINT;
    UPDATE judgings SET score_milli = score * 1000 WHERE score IS NOT NULL;
    ALTER TABLE judging_results ADD COLUMN credit_milli BIGINT;
    CREATE INDEX contest_submissions_standings ON contest_submissions(contest, submission, jury);
    DROP INDEX contest_submissions_contest;",
    // ---- branch director ----
    // The history of the jury's verdict overrides, one row per change (set, replaced,
    // removed) written in the transaction of the change, read whole by a submission's history
    // (before, it was parsed from the newest lines of the audit log). Backfilled from the
    // current overrides, whose earlier verdict is not known ("?"); overrides replaced or
    // removed before this table stay in the audit log only.
    "CREATE TABLE verdict_override_history (
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
];

//! Schema entry 25, the counters of submissions by language and state, in a file of its own
//! (schema.rs holds the rest of the history). A list's total filtered by language alone read
//! the (language, id) index of entry 23, yet when most rows have that language it still
//! counted most of the table (59 ms on SQLite, 152 ms on PostgreSQL at a million): the total
//! now reads these counters (`count_matching`), a few rows per language.
//!
//! They are kept as entry 16 keeps the counters by state and verdict, by triggers in the
//! transaction of every change: on SQLite one row per (language, state), added to in place;
//! on PostgreSQL each statement appends its changes, summed per key, as rows of their own, so
//! that hosts claiming and finishing at once never wait on a shared row, and every 256th row
//! folds the committed rows into one per key (skipped while another transaction folds). The
//! trigger functions run as the tables' owner: a judge host's role needs no right here.

/// SQLite's spelling of the entry.
pub(crate) const SQLITE: &str = "CREATE TABLE language_counts (
        language TEXT NOT NULL,
        state TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (language, state)
    );
    INSERT INTO language_counts (language, state, n)
    SELECT language, state, COUNT(*) FROM submissions GROUP BY 1, 2;
    CREATE TRIGGER submissions_language_count_insert AFTER INSERT ON submissions BEGIN
        INSERT INTO language_counts (language, state, n) VALUES (NEW.language, NEW.state, 1)
        ON CONFLICT (language, state) DO UPDATE SET n = n + excluded.n;
    END;
    CREATE TRIGGER submissions_language_count_update AFTER UPDATE OF state, language
    ON submissions WHEN OLD.state IS NOT NEW.state OR OLD.language IS NOT NEW.language BEGIN
        INSERT INTO language_counts (language, state, n) VALUES (OLD.language, OLD.state, -1)
        ON CONFLICT (language, state) DO UPDATE SET n = n + excluded.n;
        INSERT INTO language_counts (language, state, n) VALUES (NEW.language, NEW.state, 1)
        ON CONFLICT (language, state) DO UPDATE SET n = n + excluded.n;
    END;
    CREATE TRIGGER submissions_language_count_delete AFTER DELETE ON submissions BEGIN
        INSERT INTO language_counts (language, state, n) VALUES (OLD.language, OLD.state, -1)
        ON CONFLICT (language, state) DO UPDATE SET n = n + excluded.n;
    END;";

/// PostgreSQL's spelling of the entry.
pub(crate) const POSTGRES: &str = "CREATE TABLE language_counts (
        id BIGSERIAL PRIMARY KEY,
        language TEXT NOT NULL,
        state TEXT NOT NULL,
        n BIGINT NOT NULL
    ) WITH (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);
    INSERT INTO language_counts (language, state, n)
    SELECT language, state, COUNT(*) FROM submissions GROUP BY 1, 2;
    CREATE FUNCTION ojd_language_count_add(l TEXT, st TEXT, d BIGINT) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
        added BIGINT;
    BEGIN
        INSERT INTO language_counts (language, state, n) VALUES (l, st, d)
            RETURNING id INTO added;
        IF added % 256 = 0 AND pg_try_advisory_xact_lock(7270403) THEN
            WITH gone AS (DELETE FROM language_counts RETURNING language, state, n)
            INSERT INTO language_counts (language, state, n)
            SELECT g.language, g.state, SUM(g.n) FROM gone g
            GROUP BY g.language, g.state HAVING SUM(g.n) <> 0;
        END IF;
    END $$;
    CREATE FUNCTION ojd_language_count_inserted() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        PERFORM ojd_language_count_add(d.language, d.state, d.n) FROM (
            SELECT w.language, w.state, COUNT(*) AS n FROM new_rows w GROUP BY 1, 2) d;
        RETURN NULL;
    END $$;
    CREATE FUNCTION ojd_language_count_updated() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        PERFORM ojd_language_count_add(d.language, d.state, d.n) FROM (
            SELECT x.language, x.state, SUM(x.n) AS n FROM (
                SELECT o.language, o.state, w.language AS language2, w.state AS state2
                FROM old_rows o JOIN new_rows w ON w.id = o.id
                WHERE o.state IS DISTINCT FROM w.state
                   OR o.language IS DISTINCT FROM w.language
            ) c, LATERAL (VALUES (c.language, c.state, -1), (c.language2, c.state2, 1))
                AS x(language, state, n)
            GROUP BY 1, 2 HAVING SUM(x.n) <> 0) d;
        RETURN NULL;
    END $$;
    CREATE FUNCTION ojd_language_count_deleted() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        PERFORM ojd_language_count_add(d.language, d.state, -d.n) FROM (
            SELECT o.language, o.state, COUNT(*) AS n FROM old_rows o GROUP BY 1, 2) d;
        RETURN NULL;
    END $$;
    CREATE TRIGGER submissions_language_count_insert AFTER INSERT ON submissions
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ojd_language_count_inserted();
    CREATE TRIGGER submissions_language_count_update AFTER UPDATE ON submissions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ojd_language_count_updated();
    CREATE TRIGGER submissions_language_count_delete AFTER DELETE ON submissions
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ojd_language_count_deleted();";

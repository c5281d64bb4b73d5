//! The least-privilege role for judge hosts (`ojd worker --print-role-sql NAME`): what an
//! `ojd worker` needs and nothing more, so that a sandbox escape on a judge host cannot read
//! tokens, sessions, login codes or contest data, cannot queue or delete submissions, cannot
//! publish problems, cannot rewrite a finished verdict of any host, and cannot touch another
//! host's in-flight judging or host row (its drain flag).
//!
//! Each judge host gets a role of its own; all are members of `ojd_judge_hosts`, which holds
//! the grants: reading the queue and the problems (submissions, packages, blobs, the current
//! versions), claiming (the claim's columns of `submissions`, `fairness`, `claim_seq`), opening
//! and finishing judgings (`judgings`, `judging_results`), its heartbeat (`hosts`), and applying
//! an auto-applying rejudging its last verdict completes (`rejudgings`' state).
//!
//! Row security holds the rest, and binds a host to its role: a host name (a worker's identity
//! `NAME~<random>`, its claims' `claimed_by`, its judgings' `judged_by`, its `hosts` row) is the
//! role's own when it is the role's name or starts with it and `~`, so the worker runs with
//! `--name NAME` (the role's name; the role cannot change `current_user`). A host changes a
//! submission only while nobody else judges it (queued, done, or a lease that ran out by the
//! database's clock) or under its own claim, and never leaves it claimed by another; it opens
//! and finishes only judgings in its own name, once; it writes only its own host row; a
//! submission's current judging can only be set to a finished judging of that submission.
//! The tables' owner (the role `ojd serve` runs as) is not bound by these policies, nor is any
//! role outside `ojd_judge_hosts`.
//!
//! The SQL is idempotent: run it again after an upgrade that adds tables, and once per host.

/// The SQL that creates (or updates) the judge-host role `role`, to run as the tables' owner
/// (or a superuser) on the ojd database. The role logs in; give it a password (`ALTER ROLE …
/// PASSWORD …`) or a client certificate as your `pg_hba.conf` requires.
pub fn judge_host_role_sql(role: &str) -> Result<String, RoleNameError> {
    let ok = role
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && role
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && role.len() <= 63;
    if !ok {
        return Err(RoleNameError(role.to_string()));
    }
    Ok(role_sql(role))
}

/// A judge-host role name PostgreSQL would need quoted, or too long
/// ([`judge_host_role_sql`]); it holds the name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("role name {0:?}: use 1 to 63 lowercase letters, digits and _, not starting with a digit")]
pub struct RoleNameError(pub String);

const ROLE_SQL: &str = r#"-- The ojd judge-host role JUDGE_ROLE: run as the owner of ojd's tables.
-- Every judge-host role is a member of ojd_judge_hosts, which holds the grants; the policies
-- bind each member to the hosts, claims and judgings of its own name (see OWN below).
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ojd_judge_hosts') THEN
        CREATE ROLE ojd_judge_hosts NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'JUDGE_ROLE') THEN
        CREATE ROLE JUDGE_ROLE LOGIN;
    END IF;
END $$;
GRANT ojd_judge_hosts TO JUDGE_ROLE;
-- No judge host may create anything in the schema ojd's tables live in. An operator or a
-- function it made there (`public.*(numeric, integer)`, say) is a closer match than the
-- built-in one for an expression of ojd's own queries, which then run the host's code with the
-- rights of whoever runs them: the tables' owner, or the guards below. PostgreSQL 14 and older
-- let every role create in `public`: the schema's owner takes that back here (it keeps its own
-- right); anyone else, a superuser included, is refused and told what to run.
DO $$ DECLARE
    owner_name NAME := (SELECT tableowner FROM pg_tables
        WHERE schemaname = 'public' AND tablename = 'submissions');
BEGIN
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        BEGIN
            REVOKE CREATE ON SCHEMA public FROM PUBLIC;
        EXCEPTION WHEN insufficient_privilege THEN NULL;
        END;
    END IF;
    IF has_schema_privilege('JUDGE_ROLE', 'public', 'CREATE')
        OR has_database_privilege('JUDGE_ROLE', current_database(), 'CREATE') THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
            MESSAGE = 'the judge-host role JUDGE_ROLE may create objects in this database (in schema public or a schema of its own), which ojd''s own queries could then run with the owner''s rights',
            HINT = format('As a superuser: ALTER SCHEMA public OWNER TO %I; REVOKE CREATE ON SCHEMA public FROM PUBLIC (PostgreSQL 14 and older let every role create in public); and give JUDGE_ROLE no CREATE on the database. Then run this SQL again as %I.', coalesce(owner_name, current_user), coalesce(owner_name, current_user));
    END IF;
END $$;
-- The functions that run as the owner (SECURITY DEFINER: the verdict column's and the
-- counters' triggers, which fire on a host's own writes) were made with the migrating
-- session's search_path, which searches a session's temporary tables first: a host's
-- `pg_temp.judgings`, readable by all, would stand in for the real one. Pinned here to the
-- schema's tables, temporary ones last (as PostgreSQL's "Writing SECURITY DEFINER Functions
-- Safely" says).
DO $$ DECLARE f REGPROCEDURE; BEGIN
    FOR f IN SELECT p.oid::REGPROCEDURE FROM pg_proc p
        WHERE p.pronamespace = 'public'::REGNAMESPACE AND p.prosecdef
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = public, pg_temp', f);
    END LOOP;
END $$;
-- What earlier versions of this SQL granted the role itself now comes from the group.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM JUDGE_ROLE;
GRANT USAGE ON SCHEMA public TO ojd_judge_hosts;
GRANT SELECT ON ojd_schema, packages, blobs, problem_current, rejudging_items
    TO ojd_judge_hosts;
GRANT SELECT, UPDATE (state, claimed_at, claimed_by, lease_until, attempts, current_judging,
    pending_rejudging, crashes, host_deaths) ON submissions TO ojd_judge_hosts;
GRANT SELECT, INSERT, UPDATE ON judgings, fairness, hosts TO ojd_judge_hosts;
GRANT INSERT ON judging_results TO ojd_judge_hosts;
-- Sequences: the claim order, and the ids of the rows it adds; never another sequence (an
-- earlier version granted them all: a host could burn submission ids).
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ojd_judge_hosts, JUDGE_ROLE;
GRANT USAGE ON SEQUENCE claim_seq TO ojd_judge_hosts;
DO $$ DECLARE seq TEXT; BEGIN
    FOR seq IN SELECT pg_get_serial_sequence(c.table_name, c.column_name)
        FROM information_schema.columns c
        WHERE c.table_schema = 'public' AND c.table_name IN ('judgings', 'judging_results', 'hosts')
          AND pg_get_serial_sequence(c.table_name, c.column_name) IS NOT NULL
    LOOP
        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO ojd_judge_hosts', seq);
    END LOOP;
END $$;
GRANT SELECT, UPDATE (state, closed_at, closed_by) ON rejudgings TO ojd_judge_hosts;
REVOKE ALL ON tokens, sessions, login_codes, contest_submissions, contest_state,
    clarifications FROM ojd_judge_hosts;

ALTER TABLE submissions ENABLE ROW LEVEL SECURITY;
ALTER TABLE judgings ENABLE ROW LEVEL SECURITY;
ALTER TABLE judging_results ENABLE ROW LEVEL SECURITY;
ALTER TABLE hosts ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ojd_read ON submissions;
DROP POLICY IF EXISTS ojd_host_update ON submissions;
DROP POLICY IF EXISTS ojd_read ON judgings;
DROP POLICY IF EXISTS ojd_host_open ON judgings;
DROP POLICY IF EXISTS ojd_host_update ON judgings;
DROP POLICY IF EXISTS ojd_host_results ON judging_results;
DROP POLICY IF EXISTS ojd_read ON hosts;
DROP POLICY IF EXISTS ojd_host_insert ON hosts;
DROP POLICY IF EXISTS ojd_host_update ON hosts;
-- Every role that is not a judge host keeps what its grants give.
DROP POLICY IF EXISTS ojd_others ON submissions;
DROP POLICY IF EXISTS ojd_others ON judgings;
DROP POLICY IF EXISTS ojd_others ON judging_results;
DROP POLICY IF EXISTS ojd_others ON hosts;
CREATE POLICY ojd_others ON submissions USING (NOT_A_HOST) WITH CHECK (NOT_A_HOST);
CREATE POLICY ojd_others ON judgings USING (NOT_A_HOST) WITH CHECK (NOT_A_HOST);
CREATE POLICY ojd_others ON judging_results USING (NOT_A_HOST) WITH CHECK (NOT_A_HOST);
CREATE POLICY ojd_others ON hosts USING (NOT_A_HOST) WITH CHECK (NOT_A_HOST);
-- A judge host reads the queue; it changes a submission only while nobody else judges it
-- (queued, done, or a claim whose lease ran out by the database's clock) or its own claim,
-- and leaves it judged by nobody but itself.
CREATE POLICY ojd_read ON submissions FOR SELECT TO ojd_judge_hosts USING (true);
CREATE POLICY ojd_host_update ON submissions FOR UPDATE TO ojd_judge_hosts
    USING (state <> 'judging' OR OWN(claimed_by)
        OR lease_until < floor(extract(epoch FROM now()) * 1000)::BIGINT)
    WITH CHECK ((state <> 'judging' OR OWN(claimed_by))
        AND (current_judging IS NULL OR EXISTS (SELECT 1 FROM judgings j
            WHERE j.id = current_judging AND j.submission = submissions.id
              AND j.finished_at IS NOT NULL)));
-- It opens judgings in its own name and finishes only its own, once.
CREATE POLICY ojd_read ON judgings FOR SELECT TO ojd_judge_hosts USING (true);
CREATE POLICY ojd_host_open ON judgings FOR INSERT TO ojd_judge_hosts
    WITH CHECK (finished_at IS NULL AND OWN(judged_by));
CREATE POLICY ojd_host_update ON judgings FOR UPDATE TO ojd_judge_hosts
    USING (finished_at IS NULL AND OWN(judged_by)) WITH CHECK (OWN(judged_by));
CREATE POLICY ojd_host_results ON judging_results FOR INSERT TO ojd_judge_hosts
    WITH CHECK (EXISTS (SELECT 1 FROM judgings j WHERE j.id = judging AND OWN(j.judged_by)));
-- Its own host row only: its heartbeat, never another host's (nor its drain flag).
CREATE POLICY ojd_read ON hosts FOR SELECT TO ojd_judge_hosts USING (true);
CREATE POLICY ojd_host_insert ON hosts FOR INSERT TO ojd_judge_hosts WITH CHECK (OWN(name));
CREATE POLICY ojd_host_update ON hosts FOR UPDATE TO ojd_judge_hosts
    USING (OWN(name)) WITH CHECK (OWN(name));
-- Row security sees one row at a time, without its old values, and the claim opens its
-- judging in the same statement that claims (whose effect a policy's check does not see).
-- These triggers see both, and hold a judge host to exactly its claims: each returns at
-- once for any other role. They run as the role that writes (they grant nothing), with the
-- tables of `public` ahead of the session's temporary tables (a host could make its own
-- `judgings` there for the checks to read).
CREATE OR REPLACE FUNCTION ojd_is_judge_host() RETURNS BOOLEAN LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp AS $f$ SELECT NOT (NOT_A_HOST) $f$;
-- Submissions: claim one that is queued or whose lease ran out; renew, give back or finish
-- its own claim (finishing makes current only its own finished judging of this claim); apply
-- a rejudging that applies itself once all of its items are judged. Nothing else.
CREATE OR REPLACE FUNCTION ojd_host_submissions() RETURNS trigger LANGUAGE plpgsql
    SET search_path = public, pg_temp AS $f$
DECLARE
    now_ms BIGINT := NOW_MS;
    same_rest BOOLEAN := NEW.pending_rejudging IS NOT DISTINCT FROM OLD.pending_rejudging
        AND NEW.current_judging IS NOT DISTINCT FROM OLD.current_judging;
BEGIN
    IF NOT ojd_is_judge_host() THEN
        RETURN NEW;
    END IF;
    IF (OLD.state = 'queued' OR (OLD.state = 'judging' AND OLD.lease_until < now_ms))
        AND NEW.state = 'judging' AND OWN(NEW.claimed_by)
        AND NEW.attempts = OLD.attempts + 1 AND same_rest THEN
        RETURN NEW;
    END IF;
    IF OLD.state = 'judging' AND OWN(OLD.claimed_by) AND NEW.attempts = OLD.attempts THEN
        IF NEW.state = 'judging' AND NEW.claimed_by = OLD.claimed_by AND same_rest THEN
            RETURN NEW;
        END IF;
        IF NEW.state = 'queued' AND NEW.claimed_by IS NULL AND same_rest THEN
            RETURN NEW;
        END IF;
        IF NEW.state = 'done' AND NEW.claimed_by IS NULL AND NEW.pending_rejudging IS NULL
            AND (NEW.current_judging IS NOT DISTINCT FROM OLD.current_judging
                OR EXISTS (SELECT 1 FROM judgings j WHERE j.id = NEW.current_judging
                    AND j.submission = OLD.id AND j.attempt = OLD.attempts
                    AND OWN(j.judged_by) AND j.finished_at IS NOT NULL)) THEN
            RETURN NEW;
        END IF;
    END IF;
    IF NEW.state = OLD.state AND NEW.claimed_by IS NOT DISTINCT FROM OLD.claimed_by
        AND NEW.lease_until IS NOT DISTINCT FROM OLD.lease_until
        AND NEW.attempts = OLD.attempts
        AND NEW.pending_rejudging IS NOT DISTINCT FROM OLD.pending_rejudging
        AND EXISTS (SELECT 1 FROM judgings j JOIN rejudgings r ON r.id = j.rejudging
            WHERE j.id = NEW.current_judging AND j.submission = OLD.id
              AND j.finished_at IS NOT NULL AND r.state = 'open' AND r.auto_apply
              AND NOT EXISTS (SELECT 1 FROM rejudging_items i WHERE i.rejudging = r.id
                  AND NOT EXISTS (SELECT 1 FROM judgings k WHERE k.submission = i.submission
                      AND k.rejudging = r.id AND k.finished_at IS NOT NULL))) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = format('a judge host may change submission %s only under its own claim', OLD.id);
END $f$;
-- Judgings and their results: opened, finished and filled only under a live lease of its own
-- on the judging's submission and attempt; a finished judging never changes.
CREATE OR REPLACE FUNCTION ojd_host_judgings() RETURNS trigger LANGUAGE plpgsql
    SET search_path = public, pg_temp AS $f$
DECLARE
    now_ms BIGINT := NOW_MS;
BEGIN
    -- Another host's judging is row security's to refuse (its policies name the role).
    IF NOT ojd_is_judge_host() OR NOT OWN(NEW.judged_by) THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND (OLD.finished_at IS NOT NULL OR NEW.submission <> OLD.submission
        OR NEW.attempt <> OLD.attempt OR NEW.judged_by <> OLD.judged_by
        OR NEW.rejudging IS DISTINCT FROM OLD.rejudging) THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
            MESSAGE = format('a judge host may not change judging %s', OLD.id);
    END IF;
    IF OWN(NEW.judged_by) AND EXISTS (SELECT 1 FROM submissions s
        WHERE s.id = NEW.submission AND s.state = 'judging' AND OWN(s.claimed_by)
          AND s.attempts = NEW.attempt AND s.lease_until >= now_ms
          AND (TG_OP = 'UPDATE' OR (NEW.finished_at IS NULL
              AND NEW.rejudging IS NOT DISTINCT FROM s.pending_rejudging))) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = format('a judge host may open or finish a judging of submission %s only under its own live claim', NEW.submission);
END $f$;
CREATE OR REPLACE FUNCTION ojd_host_results() RETURNS trigger LANGUAGE plpgsql
    SET search_path = public, pg_temp AS $f$
DECLARE
    now_ms BIGINT := NOW_MS;
BEGIN
    -- Results of another host's judging are row security's to refuse.
    IF NOT ojd_is_judge_host() OR NOT EXISTS (SELECT 1 FROM judgings j
        WHERE j.id = NEW.judging AND OWN(j.judged_by)) OR EXISTS (SELECT 1 FROM judgings j
        JOIN submissions s ON s.id = j.submission
        WHERE j.id = NEW.judging AND OWN(j.judged_by) AND s.state = 'judging'
          AND OWN(s.claimed_by) AND s.attempts = j.attempt AND s.lease_until >= now_ms) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = format('a judge host may add results to judging %s only under its own live claim', NEW.judging);
END $f$;
-- Rejudgings: only applying one that applies itself, once every item is judged, in its
-- creator's name (never cancelling or reopening the director's).
CREATE OR REPLACE FUNCTION ojd_host_rejudgings() RETURNS trigger LANGUAGE plpgsql
    SET search_path = public, pg_temp AS $f$
BEGIN
    IF NOT ojd_is_judge_host() OR (OLD.state = 'open' AND OLD.auto_apply
        AND NEW.state = 'applied' AND NEW.closed_by = OLD.created_by
        AND NEW.auto_apply = OLD.auto_apply AND NEW.scope = OLD.scope
        AND NEW.created_by = OLD.created_by AND NEW.created_at = OLD.created_at
        AND NOT EXISTS (SELECT 1 FROM rejudging_items i WHERE i.rejudging = OLD.id
            AND NOT EXISTS (SELECT 1 FROM judgings k WHERE k.submission = i.submission
                AND k.rejudging = OLD.id AND k.finished_at IS NOT NULL))) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = format('a judge host may only apply rejudging %s once all of it is judged', OLD.id);
END $f$;
-- Fairness: a user's place moves back only by a claim of theirs this host holds, to the
-- claim order's newest number.
CREATE OR REPLACE FUNCTION ojd_host_fairness() RETURNS trigger LANGUAGE plpgsql
    SET search_path = public, pg_temp AS $f$
DECLARE
    now_ms BIGINT := NOW_MS;
BEGIN
    IF NOT ojd_is_judge_host() THEN
        RETURN NEW;
    END IF;
    -- The claim first: `currval` fails in a session that never drew from the sequence.
    IF EXISTS (SELECT 1 FROM submissions s WHERE s."user" = NEW."user"
        AND s.state = 'judging' AND OWN(s.claimed_by) AND s.lease_until >= now_ms) THEN
        IF NEW.last_claim = currval('claim_seq') THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = format('a judge host may move %L in the claim order only by claiming', NEW."user");
END $f$;
DROP TRIGGER IF EXISTS ojd_host_guard ON submissions;
DROP TRIGGER IF EXISTS ojd_host_guard ON judgings;
DROP TRIGGER IF EXISTS ojd_host_guard ON judging_results;
DROP TRIGGER IF EXISTS ojd_host_guard ON rejudgings;
DROP TRIGGER IF EXISTS ojd_host_guard ON fairness;
CREATE TRIGGER ojd_host_guard BEFORE UPDATE ON submissions
    FOR EACH ROW EXECUTE FUNCTION ojd_host_submissions();
CREATE TRIGGER ojd_host_guard BEFORE INSERT OR UPDATE ON judgings
    FOR EACH ROW EXECUTE FUNCTION ojd_host_judgings();
CREATE TRIGGER ojd_host_guard BEFORE INSERT ON judging_results
    FOR EACH ROW EXECUTE FUNCTION ojd_host_results();
CREATE TRIGGER ojd_host_guard BEFORE UPDATE ON rejudgings
    FOR EACH ROW EXECUTE FUNCTION ojd_host_rejudgings();
CREATE TRIGGER ojd_host_guard BEFORE INSERT OR UPDATE ON fairness
    FOR EACH ROW EXECUTE FUNCTION ojd_host_fairness();
"#;

/// A host name (an identity, a `claimed_by`, a `judged_by`) that belongs to the judge-host role
/// in use: the role's name itself, or the role's name, `~` and anything (a worker's identity
/// is its name, `~` and 64 random bits). The role cannot change who it is.
const OWN: &str = "(X = current_user OR starts_with(X, current_user || '~'))";

/// The current role is not a (direct) member of ojd_judge_hosts: no judge-host policy binds it.
/// (`pg_has_role` would say a superuser is a member of every role.)
const NOT_A_HOST: &str = "NOT EXISTS (SELECT 1 FROM pg_auth_members m \
    JOIN pg_roles g ON g.oid = m.roleid \
    WHERE g.rolname = 'ojd_judge_hosts' AND m.member = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user))";

/// The database's clock in milliseconds, as leases are set and expire by it.
const NOW_MS: &str = "(floor(extract(epoch FROM now()) * 1000)::BIGINT)";

/// [`ROLE_SQL`] with its shorthands spelt out and the role named.
fn role_sql(role: &str) -> String {
    let mut out = ROLE_SQL
        .replace("NOT_A_HOST", NOT_A_HOST)
        .replace("NOW_MS", NOW_MS)
        .replace("JUDGE_ROLE", role);
    while let Some(at) = out.find("OWN(") {
        let close = at + out[at..].find(')').unwrap_or(out.len() - at);
        let column = out[at + 4..close].to_string();
        out.replace_range(at..=close, &OWN.replace('X', &column));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_are_checked() {
        assert!(judge_host_role_sql("ojd_judge")
            .expect("sql")
            .contains("CREATE ROLE ojd_judge LOGIN"));
        for bad in ["", "Judge", "1x", "a;DROP TABLE tokens", "a b"] {
            assert_eq!(
                judge_host_role_sql(bad),
                Err(RoleNameError(bad.to_string())),
                "{bad:?}"
            );
        }
        let sql = judge_host_role_sql("judge1").expect("sql");
        for shorthand in ["OWN(", "NOW_MS", "NOT_A_HOST", "JUDGE_ROLE"] {
            assert!(!sql.contains(shorthand), "{shorthand} left in the SQL");
        }
    }
}

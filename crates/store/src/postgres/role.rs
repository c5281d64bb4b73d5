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
pub fn judge_host_role_sql(role: &str) -> Result<String, String> {
    let ok = role
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && role
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && role.len() <= 63;
    if !ok {
        return Err(format!(
            "role name {role:?}: use 1 to 63 lowercase letters, digits and _, not starting with a digit"
        ));
    }
    Ok(role_sql(role))
}

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
-- What earlier versions of this SQL granted the role itself now comes from the group.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM JUDGE_ROLE;
GRANT USAGE ON SCHEMA public TO ojd_judge_hosts;
GRANT SELECT ON ojd_schema, packages, blobs, problem_current, rejudging_items
    TO ojd_judge_hosts;
GRANT SELECT, UPDATE (state, claimed_at, claimed_by, lease_until, attempts, current_judging,
    pending_rejudging, crashes) ON submissions TO ojd_judge_hosts;
GRANT SELECT, INSERT, UPDATE ON judgings, fairness, hosts TO ojd_judge_hosts;
GRANT INSERT ON judging_results TO ojd_judge_hosts;
GRANT USAGE ON SEQUENCE claim_seq TO ojd_judge_hosts;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ojd_judge_hosts;
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

/// [`ROLE_SQL`] with its shorthands spelt out and the role named.
fn role_sql(role: &str) -> String {
    let mut out = ROLE_SQL
        .replace("NOT_A_HOST", NOT_A_HOST)
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
            assert!(judge_host_role_sql(bad).is_err(), "{bad:?}");
        }
    }
}

//! The least-privilege role for judge hosts (`ojd worker --print-role-sql NAME`): what an
//! `ojd worker` needs and nothing more, so that a sandbox escape on a judge host cannot read
//! tokens, sessions, login codes or contest data, cannot queue or delete submissions, cannot
//! publish problems, and cannot rewrite a finished verdict of any host.
//!
//! Grants: reading the queue and the problems (submissions, packages, blobs, the current
//! versions), claiming (the claim's columns of `submissions`, `fairness`, `claim_seq`), opening
//! and finishing judgings (`judgings`, `judging_results`), its heartbeat (`hosts`), and applying
//! an auto-applying rejudging its last verdict completes (`rejudgings`' state). Row security
//! holds the rest: a judgings row can be updated only while it is unfinished, and a
//! submission's current judging can only be set to a finished judging of that submission.
//! The tables' owner (the role `ojd serve` runs as) is not bound by these policies.
//!
//! The SQL is idempotent: run it again after an upgrade that adds tables.

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
    Ok(ROLE_SQL.replace("JUDGE_ROLE", role))
}

const ROLE_SQL: &str = r#"-- The ojd judge-host role JUDGE_ROLE: run as the owner of ojd's tables.
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'JUDGE_ROLE') THEN
        CREATE ROLE JUDGE_ROLE LOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA public TO JUDGE_ROLE;
GRANT SELECT ON ojd_schema, packages, blobs, problem_current, rejudging_items TO JUDGE_ROLE;
GRANT SELECT, UPDATE (state, claimed_at, claimed_by, lease_until, attempts, current_judging,
    pending_rejudging) ON submissions TO JUDGE_ROLE;
GRANT SELECT, INSERT, UPDATE ON judgings, fairness, hosts TO JUDGE_ROLE;
GRANT INSERT ON judging_results TO JUDGE_ROLE;
GRANT USAGE ON SEQUENCE claim_seq TO JUDGE_ROLE;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO JUDGE_ROLE;
GRANT SELECT, UPDATE (state, closed_at, closed_by) ON rejudgings TO JUDGE_ROLE;
REVOKE ALL ON tokens, sessions, login_codes, contest_submissions, contest_state,
    clarifications FROM JUDGE_ROLE;

ALTER TABLE submissions ENABLE ROW LEVEL SECURITY;
ALTER TABLE judgings ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ojd_read ON submissions;
DROP POLICY IF EXISTS ojd_host_update ON submissions;
DROP POLICY IF EXISTS ojd_read ON judgings;
DROP POLICY IF EXISTS ojd_host_open ON judgings;
DROP POLICY IF EXISTS ojd_host_update ON judgings;
-- Every other role keeps what its grants give (the policies bind JUDGE_ROLE only).
DROP POLICY IF EXISTS ojd_others ON submissions;
DROP POLICY IF EXISTS ojd_others ON judgings;
CREATE POLICY ojd_others ON submissions USING (current_user <> 'JUDGE_ROLE')
    WITH CHECK (current_user <> 'JUDGE_ROLE');
CREATE POLICY ojd_others ON judgings USING (current_user <> 'JUDGE_ROLE')
    WITH CHECK (current_user <> 'JUDGE_ROLE');
CREATE POLICY ojd_read ON submissions FOR SELECT TO JUDGE_ROLE USING (true);
CREATE POLICY ojd_host_update ON submissions FOR UPDATE TO JUDGE_ROLE USING (true)
    WITH CHECK (current_judging IS NULL OR EXISTS (SELECT 1 FROM judgings j
        WHERE j.id = current_judging AND j.submission = submissions.id
          AND j.finished_at IS NOT NULL));
CREATE POLICY ojd_read ON judgings FOR SELECT TO JUDGE_ROLE USING (true);
CREATE POLICY ojd_host_open ON judgings FOR INSERT TO JUDGE_ROLE WITH CHECK (finished_at IS NULL);
CREATE POLICY ojd_host_update ON judgings FOR UPDATE TO JUDGE_ROLE USING (finished_at IS NULL)
    WITH CHECK (true);
"#;

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

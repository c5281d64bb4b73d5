//! Who may send a live event: the listener's check of each event's sender, so that a judge
//! host cannot forge progress of a judging it does not hold.
//!
//! Any role may call `pg_notify` on the events channel (revoking it needs a superuser), so a
//! judge host's role, or a sandbox escape on its machine, could send any envelope. An event is
//! delivered only when the judging it names is of the submission it names and in the name it
//! was sent from (`judged_by`), and the session that sent it (the notification's backend pid,
//! read from `pg_stat_activity`) is that name's: a role outside `ojd_judge_hosts` (the tables'
//! owner, as `ojd serve` runs), or the judge-host role whose own name it is (`NAME` or
//! `NAME~…`, as the role's row security reads names). A judge host opens a judging only under a
//! live lease of its own, so its events can only be of its own claims. An event that cannot be
//! checked (the database is unreachable, the sender has gone) is dropped: live events are lossy
//! by design, and a stream that misses one re-reads the store.

use std::collections::HashMap;

use postgres_openssl::MakeTlsConnector;

/// The judging, submission and name an envelope claims (`{"from", "judging", "live": {"id"}}`).
fn claimed(payload: &str) -> Option<(i64, i64, String)> {
    let v: serde_json::Value = serde_json::from_str(payload).ok()?;
    let judging = v.get("judging")?.as_i64()?;
    let submission = v.get("live")?.get("id")?.as_i64()?;
    let from = v.get("from")?.as_str()?.to_string();
    Some((judging, submission, from))
}

const MAY_SEND: &str = "SELECT EXISTS (
    SELECT 1 FROM judgings j, pg_stat_activity a
    WHERE a.pid = $1 AND j.id = $2 AND j.submission = $3 AND j.judged_by = $4
      AND (NOT EXISTS (SELECT 1 FROM pg_roles g WHERE g.rolname = 'ojd_judge_hosts'
                AND pg_has_role(a.usesysid, g.oid, 'MEMBER'))
           OR j.judged_by = a.usename::TEXT
           OR left(j.judged_by, length(a.usename) + 1) = a.usename || '~'))";

/// The most answers remembered: past it they are forgotten and asked again.
const REMEMBERED: usize = 4096;

/// The listener's checks, on a connection of their own (the listening one is busy waiting).
pub(super) struct Senders {
    config: postgres::Config,
    tls: MakeTlsConnector,
    client: Option<postgres::Client>,
    /// (pid, judging, submission, name) found allowed: one question per judging and sender.
    known: HashMap<(i32, i64, i64, String), bool>,
}

impl Senders {
    pub(super) fn new(config: postgres::Config, tls: MakeTlsConnector) -> Senders {
        Senders {
            config,
            tls,
            client: None,
            known: HashMap::new(),
        }
    }

    /// Whether the event `payload`, sent by the backend `pid`, may be delivered.
    pub(super) fn allows(&mut self, pid: i32, payload: &str) -> bool {
        let Some((judging, submission, from)) = claimed(payload) else {
            return false;
        };
        let key = (pid, judging, submission, from);
        if let Some(ok) = self.known.get(&key) {
            return *ok;
        }
        let client = match self.client.take() {
            Some(c) => c,
            None => match self.config.connect(self.tls.clone()) {
                Ok(c) => c,
                Err(_) => return false,
            },
        };
        let mut client = client;
        let answer = client.query_one(MAY_SEND, &[&pid, &key.1, &key.2, &key.3]);
        let Ok(row) = answer else {
            // The connection may be broken: a fresh one next time.
            return false;
        };
        self.client = Some(client);
        let ok: bool = row.get(0);
        // Only a yes is remembered: a judging's first event may come before its row is seen.
        if ok {
            if self.known.len() >= REMEMBERED {
                self.known.clear();
            }
            self.known.insert(key, ok);
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelope_names_its_judging_submission_and_sender() {
        let p = r#"{"from":"h~1","judging":7,"live":{"kind":"done","id":3}}"#;
        assert_eq!(claimed(p), Some((7, 3, "h~1".to_string())));
        assert_eq!(
            claimed(r#"{"from":"h","live":{"kind":"done","id":3}}"#),
            None
        );
        assert_eq!(claimed("not json"), None);
    }
}

//! PostgreSQL: host heartbeats, problem packages, and live events between nodes over
//! LISTEN/NOTIFY on the channel `ojd_events` (see [`ClusterStore`]).

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use postgres::types::Type;

use super::{typed, PgStore};
use crate::cluster::{manifest, ClusterStore, EventSink, HostInfo, HostStats, Package};
use crate::{sql, StoreError};

/// NOTIFY payloads must stay under PostgreSQL's 8000-byte limit.
pub const MAX_PAYLOAD: usize = 7900;

impl ClusterStore for PgStore {
    fn heartbeat(
        &self,
        host: &str,
        role: &str,
        started_at: i64,
        now: i64,
        lease_until: i64,
        judging: &[i64],
        stats: &HostStats,
    ) -> Result<u64, StoreError> {
        let stats = serde_json::to_string(stats).unwrap_or_else(|_| "{}".into());
        // One statement, one round trip: the host's row and its leases together.
        let n = self
            .conn()?
            .execute_typed(
                "WITH beat AS (
                     INSERT INTO hosts (name, role, started_at, last_seen, stats)
                     VALUES ($1, $2, $3, $4, $6)
                     ON CONFLICT (name) DO UPDATE SET role = excluded.role,
                       started_at = excluded.started_at, last_seen = excluded.last_seen,
                       stats = excluded.stats
                 )
                 UPDATE submissions SET lease_until = $5
                 WHERE claimed_by = $1 AND state = 'judging' AND id = ANY($7)",
                &[
                    typed(&host, Type::TEXT),
                    typed(&role, Type::TEXT),
                    typed(&started_at, Type::INT8),
                    typed(&now, Type::INT8),
                    typed(&lease_until, Type::INT8),
                    typed(&stats, Type::TEXT),
                    typed(&judging, Type::INT8_ARRAY),
                ],
            )
            .map_err(sql("record a heartbeat"))?;
        Ok(n)
    }

    fn hosts(&self) -> Result<Vec<HostInfo>, StoreError> {
        let found = self
            .conn()?
            .query(
                "SELECT h.name, h.role, h.started_at, h.last_seen,
                   ARRAY(SELECT s.id FROM submissions s
                         WHERE s.claimed_by = h.name AND s.state = 'judging' ORDER BY s.id),
                   h.stats
                 FROM hosts h ORDER BY h.last_seen DESC, h.name",
                &[],
            )
            .map_err(sql("list hosts"))?;
        found
            .iter()
            .map(|r| {
                Ok(HostInfo {
                    name: r.try_get(0)?,
                    role: r.try_get(1)?,
                    started_at: r.try_get(2)?,
                    last_seen: r.try_get(3)?,
                    judging: r.try_get(4)?,
                    stats: serde_json::from_str(r.try_get(5)?).unwrap_or_default(),
                })
            })
            .collect::<Result<Vec<_>, postgres::Error>>()
            .map_err(sql("list hosts"))
    }

    fn expired_leases(&self, now: i64) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn()?
            .query_one(
                "SELECT COUNT(*) FROM submissions WHERE state = 'judging' AND lease_until < $1",
                &[&now],
            )
            .map_err(sql("count expired leases"))?
            .get(0);
        Ok(n as u64)
    }

    fn publish(
        &self,
        problem: &str,
        files: &[(String, Vec<u8>)],
        now: i64,
    ) -> Result<String, StoreError> {
        let (list, version) = manifest(problem, files);
        let text = serde_json::to_string(&list).unwrap_or_else(|_| "[]".into());
        let data: std::collections::HashMap<&str, &[u8]> = files
            .iter()
            .map(|(p, d)| (p.as_str(), d.as_slice()))
            .collect();
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start publishing a package"))?;
        let known: Vec<String> = tx
            .query(
                "SELECT hash FROM blobs WHERE hash = ANY($1)",
                &[&list.iter().map(|f| f.hash.clone()).collect::<Vec<_>>()],
            )
            .map_err(sql("look up blobs"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let insert = tx
            .prepare(
                "INSERT INTO blobs (hash, size, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            )
            .map_err(sql("store a blob"))?;
        for f in list.iter().filter(|f| !known.contains(&f.hash)) {
            let bytes = data.get(f.path.as_str()).copied().unwrap_or_default();
            tx.execute(&insert, &[&f.hash, &(f.size as i64), &bytes])
                .map_err(sql("store a blob"))?;
        }
        tx.execute(
            "INSERT INTO packages (version, problem, manifest, published_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING",
            &[&version, &problem, &text, &now],
        )
        .map_err(sql("store a package"))?;
        tx.execute(
            "INSERT INTO problem_current (problem, version, published_at) VALUES ($1, $2, $3)
             ON CONFLICT (problem) DO UPDATE SET version = excluded.version,
               published_at = excluded.published_at
             WHERE problem_current.version <> excluded.version",
            &[&problem, &version, &now],
        )
        .map_err(sql("make a package current"))?;
        tx.commit().map_err(sql("commit a package"))?;
        Ok(version)
    }

    fn package(&self, version: &str) -> Result<Option<Package>, StoreError> {
        let row = self
            .conn()?
            .query_opt(
                "SELECT problem, manifest FROM packages WHERE version = $1",
                &[&version],
            )
            .map_err(sql("read a package"))?;
        Ok(row.map(|r| {
            let text: String = r.get(1);
            Package {
                problem: r.get(0),
                version: version.to_string(),
                files: serde_json::from_str(&text).unwrap_or_default(),
            }
        }))
    }

    fn stores_blobs(&self) -> bool {
        true
    }

    fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self
            .conn()?
            .query_opt("SELECT data FROM blobs WHERE hash = $1", &[&hash])
            .map_err(sql("read a blob"))?;
        Ok(row.map(|r| r.get(0)))
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.conn()?
            .execute("SELECT 1", &[])
            .map_err(sql("reach the database"))?;
        Ok(())
    }

    fn notify(&self, payloads: &[String]) -> Result<(), StoreError> {
        if let Some(big) = payloads.iter().find(|p| p.len() > MAX_PAYLOAD) {
            return Err(StoreError::Conflict(format!(
                "an event of {} bytes is over the {MAX_PAYLOAD}-byte NOTIFY limit",
                big.len()
            )));
        }
        if payloads.is_empty() {
            return Ok(());
        }
        // unnest yields its elements in order, and the notifications of one transaction are
        // delivered in the order they were sent.
        self.conn()?
            .execute_typed(
                "SELECT pg_notify('ojd_events', p) FROM unnest($1::TEXT[]) AS p",
                &[typed(&payloads, Type::TEXT_ARRAY)],
            )
            .map_err(sql("send live events"))?;
        Ok(())
    }

    fn listen(&self, sink: EventSink) -> Result<bool, StoreError> {
        // Connections are made on the listener's own thread: the synchronous client must not
        // run inside the async runtime that calls this.
        let store = self.reconnector();
        std::thread::Builder::new()
            .name("ojd-listen".into())
            .spawn(move || {
                let mut client: Option<postgres::Client> = None;
                let mut backoff = Duration::from_millis(100);
                loop {
                    let mut c = match client.take() {
                        Some(c) => c,
                        None => match store.connect(postgres::NoTls) {
                            Ok(c) => c,
                            Err(_) => {
                                std::thread::sleep(backoff);
                                backoff = (backoff * 2).min(Duration::from_secs(5));
                                continue;
                            }
                        },
                    };
                    if c.batch_execute("LISTEN ojd_events; LISTEN ojd_queued")
                        .is_err()
                    {
                        continue;
                    }
                    backoff = Duration::from_millis(100);
                    let mut notifications = c.notifications();
                    let mut it = notifications.blocking_iter();
                    // Ends with an error when the connection breaks; then reconnect.
                    while let Ok(Some(n)) = it.next() {
                        sink(n.channel(), n.payload().to_string());
                    }
                }
            })
            .map_err(|e| StoreError::Conflict(format!("cannot start the event listener: {e}")))?;
        Ok(true)
    }
}

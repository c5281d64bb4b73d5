//! SQLite: host heartbeats and problem packages (see [`ClusterStore`]). One host, so live
//! events stay in-process and `notify`/`listen` do nothing, and a package is recorded by its
//! manifest and version only: its files are read from the problems folder, never from blobs
//! (storing them would keep every problem's data twice, once in the database file).

use rusqlite::{params, OptionalExtension};

use super::SqliteStore;
use crate::cluster::{manifest, ClusterStore, EventSink, HostInfo, HostStats, Package};
use crate::{sql, StoreError};

impl ClusterStore for SqliteStore {
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
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start a heartbeat"))?;
        tx.execute(
            "INSERT INTO hosts (name, role, started_at, last_seen, stats) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (name) DO UPDATE SET role = excluded.role,
               started_at = excluded.started_at, last_seen = excluded.last_seen,
               stats = excluded.stats",
            params![host, role, started_at, now, stats],
        )
        .map_err(sql("record a heartbeat"))?;
        let mut n = 0;
        {
            let mut renew = tx
                .prepare_cached(
                    "UPDATE submissions SET lease_until = ?2
                     WHERE claimed_by = ?1 AND state = 'judging' AND id = ?3",
                )
                .map_err(sql("renew leases"))?;
            for id in judging {
                n += renew
                    .execute(params![host, lease_until, id])
                    .map_err(sql("renew leases"))?;
            }
        }
        tx.commit().map_err(sql("commit a heartbeat"))?;
        Ok(n as u64)
    }

    fn hosts(&self) -> Result<Vec<HostInfo>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(
                "SELECT h.name, h.role, h.started_at, h.last_seen,
                   (SELECT group_concat(s.id) FROM submissions s
                    WHERE s.claimed_by = h.name AND s.state = 'judging'),
                   h.stats
                 FROM hosts h ORDER BY h.last_seen DESC, h.name",
            )
            .map_err(sql("list hosts"))?;
        let rows = st
            .query_map([], |r| {
                let ids: Option<String> = r.get(4)?;
                let stats: String = r.get(5)?;
                Ok(HostInfo {
                    name: r.get(0)?,
                    role: r.get(1)?,
                    started_at: r.get(2)?,
                    last_seen: r.get(3)?,
                    judging: ids
                        .unwrap_or_default()
                        .split(',')
                        .filter_map(|i| i.parse().ok())
                        .collect(),
                    stats: serde_json::from_str(&stats).unwrap_or_default(),
                })
            })
            .map_err(sql("list hosts"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list hosts"))
    }

    fn expired_leases(&self, now: i64) -> Result<u64, StoreError> {
        self.conn()
            .query_row(
                "SELECT COUNT(*) FROM submissions WHERE state = 'judging' AND lease_until < ?1",
                [now],
                |r| r.get(0),
            )
            .map_err(sql("count expired leases"))
    }

    fn publish(
        &self,
        problem: &str,
        files: &[(String, Vec<u8>)],
        now: i64,
    ) -> Result<String, StoreError> {
        let (list, version) = manifest(problem, files);
        let text = serde_json::to_string(&list).unwrap_or_else(|_| "[]".into());
        let mut conn = self.conn();
        let tx = conn
            .transaction()
            .map_err(sql("start publishing a package"))?;
        tx.execute(
            "INSERT INTO packages (version, problem, manifest, published_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT DO NOTHING",
            params![version, problem, text, now],
        )
        .map_err(sql("store a package"))?;
        tx.execute(
            "INSERT INTO problem_current (problem, version, published_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (problem) DO UPDATE SET version = excluded.version,
               published_at = excluded.published_at
             WHERE problem_current.version <> excluded.version",
            params![problem, version, now],
        )
        .map_err(sql("make a package current"))?;
        tx.commit().map_err(sql("commit a package"))?;
        Ok(version)
    }

    fn package(&self, version: &str) -> Result<Option<Package>, StoreError> {
        let row = self
            .conn()
            .query_row(
                "SELECT problem, manifest FROM packages WHERE version = ?1",
                [version],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
            )
            .optional()
            .map_err(sql("read a package"))?;
        Ok(row.map(|(problem, text)| Package {
            problem,
            version: version.to_string(),
            files: serde_json::from_str(&text).unwrap_or_default(),
        }))
    }

    fn stores_blobs(&self) -> bool {
        false
    }

    fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn()
            .query_row("SELECT data FROM blobs WHERE hash = ?1", [hash], |r| {
                r.get(0)
            })
            .optional()
            .map_err(sql("read a blob"))
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.conn()
            .query_row("SELECT 1", [], |_| Ok(()))
            .map_err(sql("reach the database"))
    }

    fn notify(&self, _payloads: &[String]) -> Result<(), StoreError> {
        Ok(())
    }

    fn listen(&self, _sink: EventSink) -> Result<bool, StoreError> {
        Ok(false)
    }
}

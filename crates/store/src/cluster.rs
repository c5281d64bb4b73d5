//! The store's area for many hosts: judge-host heartbeats (which renew their claims' leases),
//! content-addressed problem packages (blobs by SHA-256), and live events between nodes.
//! Written once for both engines; on SQLite (one host) events stay in-process and `notify` /
//! `listen` do nothing, and a package is recorded by its manifest and version only: its files
//! are read from the problems folder, never from blobs (storing them would keep every
//! problem's data twice, once in the database file). PostgreSQL keeps the blobs for judge
//! hosts on other machines and carries live events over LISTEN/NOTIFY.

use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::db::{args, Engine};

/// A node that has sent a heartbeat.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostInfo {
    pub name: String,
    /// `serve` or `worker`.
    pub role: String,
    pub started_at: i64,
    pub last_seen: i64,
    /// The submissions it holds a live claim on now.
    pub judging: Vec<i64>,
    /// Its own counters as of its last heartbeat (name → value; see [`HostStats`]).
    pub stats: HostStats,
}

/// A host's counters of its own run, sent with each heartbeat: what `/metrics` on any node
/// shows per host (`ojd_host_…{host="…"}`).
pub type HostStats = std::collections::BTreeMap<String, u64>;

/// One file of a published problem package.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PackageFile {
    /// Relative to the problem's folder, `/`-separated.
    pub path: String,
    /// SHA-256 of the contents, lowercase hex.
    pub hash: String,
    pub size: u64,
}

/// A published package version of a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    pub problem: String,
    pub version: String,
    pub files: Vec<PackageFile>,
}

pub trait ClusterStore: Send + Sync {
    /// Records that `host` is alive (with its counters) and extends to `lease_until` the lease
    /// of each of its claims that is in `judging` (the submissions its workers judge right now);
    /// returns how many leases it renewed. A claim the host holds but no longer judges (its
    /// worker died mid-judging) is not renewed: its lease runs out and another worker takes it.
    #[allow(clippy::too_many_arguments)]
    fn heartbeat(
        &self,
        host: &str,
        role: &str,
        started_at: i64,
        now: i64,
        lease_until: i64,
        judging: &[i64],
        stats: &HostStats,
    ) -> Result<u64, StoreError>;
    /// Every host that has sent a heartbeat, most recent first, with what it judges now (every
    /// claim it holds, even one whose lease ran out and that waits for another host).
    fn hosts(&self) -> Result<Vec<HostInfo>, StoreError>;
    /// How many submissions are `judging` under a lease that ran out before `now` (their host
    /// died or lost the database; the next idle worker takes them over).
    fn expired_leases(&self, now: i64) -> Result<u64, StoreError>;
    /// Publishes a package in one transaction: its files' blobs (those not stored yet, and only
    /// where [`ClusterStore::stores_blobs`]), its manifest, and then it becomes the problem's
    /// current version. Returns the version. A claim made after this returns judges against
    /// this version; a claim made while it runs sees the previous one (never a version whose
    /// blobs are not all there).
    fn publish(
        &self,
        problem: &str,
        files: &[(String, Vec<u8>)],
        now: i64,
    ) -> Result<String, StoreError>;
    /// The manifest of a published version.
    fn package(&self, version: &str) -> Result<Option<Package>, StoreError>;
    /// Whether [`ClusterStore::publish`] stores the files' bytes: judge hosts on other machines
    /// need them (PostgreSQL); one host reads its problems folder (SQLite keeps manifests and
    /// versions only).
    fn stores_blobs(&self) -> bool;
    /// A blob's bytes (the caller verifies the hash).
    fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// One round trip to the database (health checks).
    fn ping(&self) -> Result<(), StoreError>;
    /// Sends live events, in order, to every node listening (PostgreSQL NOTIFY, all of them in
    /// one statement: a burst of test events costs one round trip); a no-op on SQLite.
    fn notify(&self, payloads: &[String]) -> Result<(), StoreError>;
    /// Calls `sink` with every event any node sends (channel [`EVENTS`]) and every submission
    /// that enters the queue (channel [`QUEUED`], payload its id), from a thread of its own
    /// that reconnects by itself; `false` (and nothing started) when the backend has no
    /// cross-host events.
    fn listen(&self, sink: EventSink) -> Result<bool, StoreError>;
}

pub use crate::db::EventSink;

/// The channel of live judging events.
pub const EVENTS: &str = "ojd_events";
/// The channel a trigger notifies when a submission enters the queue.
pub const QUEUED: &str = "ojd_queued";

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The manifest of a package (sorted by path) and its version: the SHA-256 of the problem id
/// and the manifest, so the same files under another problem are another version.
pub fn manifest(problem: &str, files: &[(String, Vec<u8>)]) -> (Vec<PackageFile>, String) {
    let mut list: Vec<PackageFile> = files
        .iter()
        .map(|(path, data)| PackageFile {
            path: path.clone(),
            hash: sha256_hex(data),
            size: data.len() as u64,
        })
        .collect();
    list.sort_by(|a, b| a.path.cmp(&b.path));
    let mut text = format!("{problem}\n");
    for f in &list {
        text.push_str(&format!("{}\0{}\n", f.path, f.hash));
    }
    let version = sha256_hex(text.as_bytes());
    (list, version)
}

impl<E: Engine> ClusterStore for E {
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
        let beat = "INSERT INTO hosts (name, role, started_at, last_seen, stats)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (name) DO UPDATE SET role = excluded.role,
               started_at = excluded.started_at, last_seen = excluded.last_seen,
               stats = excluded.stats";
        let renew = "UPDATE submissions SET lease_until = $2
             WHERE claimed_by = $1 AND state = 'judging' AND id = ANY($3)";
        let stats = serde_json::to_string(stats).unwrap_or_else(|_| "{}".into());
        self.tx("start a heartbeat", "commit a heartbeat", |c| {
            c.exec(
                "record a heartbeat",
                beat,
                args![host, role, started_at, now, &stats],
            )?;
            c.exec("renew leases", renew, args![host, lease_until, judging])
        })
    }

    fn hosts(&self) -> Result<Vec<HostInfo>, StoreError> {
        // One row per host and claim it holds, in order: folded into one HostInfo per host.
        let sql = "SELECT h.name, h.role, h.started_at, h.last_seen, h.stats, s.id FROM hosts h
             LEFT JOIN submissions s ON s.claimed_by = h.name AND s.state = 'judging'
             ORDER BY h.last_seen DESC, h.name, s.id";
        let rows = self.rows("list hosts", sql, args![], |r| {
            let host = HostInfo {
                name: r.get(0)?,
                role: r.get(1)?,
                started_at: r.get(2)?,
                last_seen: r.get(3)?,
                judging: Vec::new(),
                stats: serde_json::from_str(&r.get::<String>(4)?).unwrap_or_default(),
            };
            Ok((host, r.get::<Option<i64>>(5)?))
        })?;
        let mut hosts: Vec<HostInfo> = Vec::new();
        for (host, claim) in rows {
            if hosts.last().is_none_or(|h| h.name != host.name) {
                hosts.push(host);
            }
            if let (Some(h), Some(id)) = (hosts.last_mut(), claim) {
                h.judging.push(id);
            }
        }
        Ok(hosts)
    }

    fn expired_leases(&self, now: i64) -> Result<u64, StoreError> {
        let sql = "SELECT COUNT(*) FROM submissions WHERE state = 'judging' AND lease_until < $1";
        self.one("count expired leases", sql, args![now], |r| r.get(0))
    }

    fn publish(
        &self,
        problem: &str,
        files: &[(String, Vec<u8>)],
        now: i64,
    ) -> Result<String, StoreError> {
        let known = "SELECT hash FROM blobs WHERE hash = ANY($1)";
        let blob =
            "INSERT INTO blobs (hash, size, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
        let package = "INSERT INTO packages (version, problem, manifest, published_at)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";
        let current = "INSERT INTO problem_current (problem, version, published_at)
             VALUES ($1, $2, $3)
             ON CONFLICT (problem) DO UPDATE SET version = excluded.version,
               published_at = excluded.published_at
             WHERE problem_current.version <> excluded.version";
        let (list, version) = manifest(problem, files);
        let text = serde_json::to_string(&list).unwrap_or_else(|_| "[]".into());
        let hashes: Vec<String> = list.iter().map(|f| f.hash.clone()).collect();
        let data: std::collections::HashMap<&str, &[u8]> = files
            .iter()
            .map(|(p, d)| (p.as_str(), d.as_slice()))
            .collect();
        self.tx("start publishing a package", "commit a package", |c| {
            if E::KEEPS_BLOBS {
                let known: Vec<String> =
                    c.rows("look up blobs", known, args![&hashes[..]], |r| r.get(0))?;
                for f in list.iter().filter(|f| !known.contains(&f.hash)) {
                    let bytes = data.get(f.path.as_str()).copied().unwrap_or_default();
                    c.exec("store a blob", blob, args![&f.hash, f.size, bytes])?;
                }
            }
            c.exec(
                "store a package",
                package,
                args![&version, problem, &text, now],
            )?;
            c.exec(
                "make a package current",
                current,
                args![problem, &version, now],
            )
        })?;
        Ok(version)
    }

    fn package(&self, version: &str) -> Result<Option<Package>, StoreError> {
        let sql = "SELECT problem, manifest FROM packages WHERE version = $1";
        let found = self.row("read a package", sql, args![version], |r| {
            Ok((r.get(0)?, r.get::<String>(1)?))
        })?;
        Ok(found.map(|(problem, text)| Package {
            problem,
            version: version.to_string(),
            files: serde_json::from_str(&text).unwrap_or_default(),
        }))
    }

    fn stores_blobs(&self) -> bool {
        E::KEEPS_BLOBS
    }

    fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let sql = "SELECT data FROM blobs WHERE hash = $1";
        self.row("read a blob", sql, args![hash], |r| r.get(0))
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.one("reach the database", "SELECT 1", args![], |_| Ok(()))
    }

    fn notify(&self, payloads: &[String]) -> Result<(), StoreError> {
        self.send_events(payloads)
    }

    fn listen(&self, sink: EventSink) -> Result<bool, StoreError> {
        self.listen_events(sink)
    }
}

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
use crate::submissions::REQUEUE;

/// A node that has sent a heartbeat: one per process (its identity).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostInfo {
    /// Its identity, unique per process (see [`ClusterStore::register_host`]).
    pub name: String,
    /// The name it was given (`ojd worker --name`): a label, several processes may share it.
    pub label: String,
    /// Its ojd version.
    pub version: String,
    /// When it stopped cleanly (by the database's clock), if it did.
    pub stopped_at: Option<i64>,
    /// Why an admin asked it to drain (claim nothing new), while they do.
    pub drain: Option<String>,
    /// `serve` or `worker`.
    pub role: String,
    /// When it started, by its own clock (Unix ms; shown, never decided by).
    pub started_at: i64,
    /// Its last heartbeat, by the database's clock.
    pub last_seen: i64,
    /// How long ago that was, by the database's clock (so no node's own clock decides whether
    /// a host is alive).
    pub seen_ago_ms: i64,
    /// The submissions it holds a live claim on now.
    pub judging: Vec<i64>,
    /// Its own counters as of its last heartbeat (name → value; see [`HostStats`]).
    pub stats: HostStats,
    /// Why it has stopped claiming (a failed check of its disks, a host fault), while it has
    /// ([`ClusterStore::set_pause`]).
    pub paused: Option<String>,
    /// The languages it does not claim (their toolchain is missing or failed there), from its
    /// counters' `not_claiming_<language>`.
    pub not_claiming: Vec<String>,
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
    /// Its length in bytes.
    pub size: u64,
}

/// A published package version of a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// The problem's id.
    pub problem: String,
    /// The version: SHA-256 (lowercase hex) over the problem id and every file's path and hash, so
    /// equal contents give the same version.
    pub version: String,
    /// Every file, sorted by path.
    pub files: Vec<PackageFile>,
}

/// What a host process says about itself as it starts ([`ClusterStore::register_host`]).
#[derive(Clone, Debug)]
pub struct HostStart<'a> {
    /// Unique per process, not guessable from the label.
    pub identity: &'a str,
    /// The name it was given.
    pub label: &'a str,
    /// `serve` or `worker`.
    pub role: &'a str,
    /// Its ojd version.
    pub version: &'a str,
    /// Its own clock (shown on the hosts page; nothing decides by it).
    pub started_at: i64,
}

/// What a heartbeat learnt ([`ClusterStore::heartbeat`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    /// How many leases it renewed.
    pub renewed: u64,
    /// Why an admin asked this host to drain, while they do.
    pub drain: Option<String>,
}

/// What [`ClusterStore::collect`] removed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Collected {
    /// Package versions removed.
    pub packages: u64,
    /// Blobs removed (file contents no remaining package holds).
    pub blobs: u64,
    /// Host rows removed.
    pub hosts: u64,
}

/// What hosts of a cluster share through the database: host registration, heartbeats (which
/// renew the leases on claimed submissions), drain and pause, published problem packages and
/// their blobs, notifications between nodes, and garbage collection. Every backend implements it.
pub trait ClusterStore: Send + Sync {
    /// Removes what nothing uses and is older than `keep_ms` (by the database's clock): package
    /// versions published before that which are not current, not used by an unfinished
    /// judging nor by a submission's current judging; then the blobs no remaining package
    /// holds (PostgreSQL; under the publishing lock, so a publish in flight never loses one
    /// it counted on); and the rows of hosts not seen for that long that hold no claim.
    /// Rejudging an old submission uses the current version, which is never removed.
    fn collect(&self, keep_ms: i64) -> Result<Collected, StoreError>;
    /// A host process starts: refused ([`StoreError::Conflict`], naming the identity and its
    /// last heartbeat) when a process with the same identity is alive (a heartbeat within
    /// `lease_ms` by the database's clock and no clean stop since); else it is recorded as
    /// alive now, and the claims left `judging` by an earlier process of this identity, or of
    /// a dead one (no heartbeat within `lease_ms`, or stopped) with the same label, go back to
    /// the queue at once instead of waiting for their leases. A live host with the same label
    /// is left alone. Returns how many submissions were requeued.
    fn register_host(&self, start: &HostStart<'_>, lease_ms: i64) -> Result<u64, StoreError>;
    /// A host process stopped cleanly (its identity may start again at once).
    fn host_stopped(&self, identity: &str) -> Result<(), StoreError>;
    /// An admin asks the host `identity` to drain (`Some(reason)`: it finishes what it judges
    /// and claims nothing new) or to resume (`None`); `false` when there is no such host. The
    /// host learns it at its next heartbeat.
    fn set_drain(&self, identity: &str, reason: Option<&str>) -> Result<bool, StoreError>;
    /// Records that `host` is alive (with its counters; `last_seen` by the database's clock)
    /// and extends by `lease_ms` from the database's now the lease of each of its claims that
    /// is in `judging` (the submissions its workers judge right now); returns how many leases
    /// it renewed, and whether an admin asks it to drain. A claim the host holds but no longer
    /// judges (its worker died mid-judging) is not renewed: its lease runs out and another
    /// worker takes it.
    fn heartbeat(
        &self,
        host: &str,
        role: &str,
        started_at: i64,
        lease_ms: i64,
        judging: &[i64],
        stats: &HostStats,
    ) -> Result<Beat, StoreError>;
    /// Records why `identity` has stopped claiming (`None`: it claims).
    fn set_pause(&self, identity: &str, cause: Option<&str>) -> Result<(), StoreError>;
    /// Every host that has sent a heartbeat, most recent first, with what it judges now (every
    /// claim it holds, even one whose lease ran out and that waits for another host).
    fn hosts(&self) -> Result<Vec<HostInfo>, StoreError>;
    /// How many submissions are `judging` under a lease that ran out by the database's clock
    /// (their host died or lost the database; the next idle worker takes them over).
    fn expired_leases(&self) -> Result<u64, StoreError>;
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
    /// How many submissions are queued and how many are being judged: read from the counters
    /// the store keeps with every change, so it costs the same at a million submissions
    /// (health checks; never a count of the table).
    fn pending_counts(&self) -> Result<(u64, u64), StoreError>;
    /// Sends live events, in order, to every node listening (PostgreSQL NOTIFY, all of them in
    /// one statement: a burst of test events costs one round trip); a no-op on SQLite.
    fn notify(&self, payloads: &[String]) -> Result<(), StoreError>;
    /// Calls `sink` with every event any node sends (channel `EVENTS`) and every submission
    /// that enters the queue (channel [`QUEUED`], payload its id), from a thread of its own
    /// that reconnects by itself; `false` (and nothing started) when the backend has no
    /// cross-host events.
    fn listen(&self, sink: EventSink) -> Result<bool, StoreError>;
}

pub use crate::db::EventSink;

/// Publishing and collecting exclude each other (PostgreSQL): a publish counts on the blobs it
/// found stored, which a collection running meanwhile must not remove.
const PUBLISHING_LOCK: &str = "SELECT pg_advisory_xact_lock(7270401)";

/// The channel of live judging events.
pub(crate) const EVENTS: &str = "ojd_events";
/// The channel a trigger notifies when a submission enters the queue.
pub const QUEUED: &str = "ojd_queued";

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    ojd_judge::hex_encode(&sha2::Sha256::digest(bytes))
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
    fn register_host(&self, start: &HostStart<'_>, lease_ms: i64) -> Result<u64, StoreError> {
        let now = E::NOW_MS;
        let alive = format!(
            "SELECT {now} - last_seen FROM hosts
             WHERE name = $1 AND stopped_at IS NULL AND last_seen >= {now} - $2 FOR UPDATE"
        );
        let record = format!(
            "INSERT INTO hosts (name, role, started_at, last_seen, stats, label, version)
             VALUES ($1, $2, $3, {now}, '{{}}', $4, $5)
             ON CONFLICT (name) DO UPDATE SET role = excluded.role,
               started_at = excluded.started_at, last_seen = excluded.last_seen,
               stats = excluded.stats, label = excluded.label, version = excluded.version,
               stopped_at = NULL, paused = NULL"
        );
        // A claim its holder left behind: the previous process of this identity (or a dead
        // one of this label) ended while judging it, unless it stopped cleanly. That is a
        // host's death, counted as such towards the poison pill (see `Claim::host_deaths`).
        let requeue = format!(
            "{REQUEUE}, host_deaths = host_deaths + (SELECT CASE WHEN h.stopped_at IS NULL
               THEN 1 ELSE 0 END FROM hosts h WHERE h.name = submissions.claimed_by)
             WHERE state = 'judging' AND claimed_by IN (SELECT name FROM hosts
               WHERE name = $1 OR (label = $2 AND (stopped_at IS NOT NULL
                 OR last_seen < {now} - $3)))"
        );
        let s = start;
        self.tx("start registering a host", "commit a host", |c| {
            let what = "look for a live host of this identity";
            if let Some(ago) = c.row(what, &alive, args![s.identity, lease_ms], |r| {
                r.get::<i64>(0)
            })? {
                return Err(StoreError::Conflict(format!(
                    "another ojd process with the identity {:?} is alive (its last heartbeat was {:.1} s ago); stop it first, or give this one another identity",
                    s.identity,
                    ago.max(0) as f64 / 1000.0
                )));
            }
            let args = args![s.identity, s.role, s.started_at, s.label, s.version];
            c.exec("record a host", &record, args).map_err(|e| {
                if !e.is_row_security() {
                    return e;
                }
                StoreError::Conflict(format!(
                    "the database refuses a host named {:?} to this database role: a judge-host role (ojd worker --print-role-sql NAME) registers only hosts named after it; start this worker with --name NAME, NAME being the user in its database URL",
                    s.identity
                ))
            })?;
            let args = args![s.identity, s.label, lease_ms];
            c.exec("requeue a dead host's claims", &requeue, args)
        })
    }

    fn host_stopped(&self, identity: &str) -> Result<(), StoreError> {
        let sql = format!(
            "UPDATE hosts SET stopped_at = {} WHERE name = $1",
            E::NOW_MS
        );
        self.exec("record a host's stop", &sql, args![identity])
            .map(drop)
    }

    fn set_pause(&self, identity: &str, cause: Option<&str>) -> Result<(), StoreError> {
        let sql = "UPDATE hosts SET paused = $2 WHERE name = $1";
        self.exec("record why a host paused", sql, args![identity, cause])
            .map(drop)
    }

    fn set_drain(&self, identity: &str, reason: Option<&str>) -> Result<bool, StoreError> {
        let sql = "UPDATE hosts SET drain = $2 WHERE name = $1";
        Ok(self.exec("drain a host", sql, args![identity, reason])? > 0)
    }

    fn heartbeat(
        &self,
        host: &str,
        role: &str,
        started_at: i64,
        lease_ms: i64,
        judging: &[i64],
        stats: &HostStats,
    ) -> Result<Beat, StoreError> {
        let beat = format!(
            "INSERT INTO hosts (name, role, started_at, last_seen, stats)
             VALUES ($1, $2, $3, {}, $4)
             ON CONFLICT (name) DO UPDATE SET role = excluded.role,
               started_at = excluded.started_at, last_seen = excluded.last_seen,
               stats = excluded.stats, stopped_at = NULL
             RETURNING drain",
            E::NOW_MS
        );
        let renew = format!(
            "UPDATE submissions SET lease_until = {} + $2
             WHERE claimed_by = $1 AND state = 'judging' AND id = ANY($3)",
            E::NOW_MS
        );
        let stats = serde_json::to_string(stats).unwrap_or_else(|_| "{}".into());
        self.tx("start a heartbeat", "commit a heartbeat", |c| {
            let drain = c.one(
                "record a heartbeat",
                &beat,
                args![host, role, started_at, &stats],
                |r| r.get(0),
            )?;
            let renewed = c.exec("renew leases", &renew, args![host, lease_ms, judging])?;
            Ok(Beat { renewed, drain })
        })
    }

    fn hosts(&self) -> Result<Vec<HostInfo>, StoreError> {
        // One row per host and claim it holds, in order: folded into one HostInfo per host.
        let sql = format!(
            "SELECT h.name, h.role, h.started_at, h.last_seen, h.stats, s.id,
               {} - h.last_seen, h.label, h.version, h.stopped_at, h.drain, h.paused FROM hosts h
             LEFT JOIN submissions s ON s.claimed_by = h.name AND s.state = 'judging'
             ORDER BY h.last_seen DESC, h.name, s.id",
            E::NOW_MS
        );
        let rows = self.rows("list hosts", &sql, args![], |r| {
            let stats: HostStats = serde_json::from_str(&r.get::<String>(4)?).unwrap_or_default();
            let not_claiming = (stats.keys())
                .filter_map(|k| k.strip_prefix("not_claiming_"))
                .map(str::to_string)
                .collect();
            let host = HostInfo {
                name: r.get(0)?,
                label: r.get(7)?,
                version: r.get(8)?,
                stopped_at: r.get(9)?,
                drain: r.get(10)?,
                role: r.get(1)?,
                started_at: r.get(2)?,
                last_seen: r.get(3)?,
                seen_ago_ms: r.get(6)?,
                judging: Vec::new(),
                stats,
                paused: r.get(11)?,
                not_claiming,
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

    fn expired_leases(&self) -> Result<u64, StoreError> {
        let sql = format!(
            "SELECT COUNT(*) FROM submissions WHERE state = 'judging' AND lease_until < {}",
            E::NOW_MS
        );
        self.one("count expired leases", &sql, args![], |r| r.get(0))
    }

    fn collect(&self, keep_ms: i64) -> Result<Collected, StoreError> {
        let now = E::NOW_MS;
        let packages = format!(
            "DELETE FROM packages WHERE published_at < {now} - $1
               AND NOT EXISTS (SELECT 1 FROM problem_current c
                 WHERE c.version = packages.version)
               AND NOT EXISTS (SELECT 1 FROM judgings j WHERE j.package_version = packages.version
                 AND (j.finished_at IS NULL
                   OR EXISTS (SELECT 1 FROM submissions s WHERE s.current_judging = j.id)))"
        );
        let blobs = "DELETE FROM blobs WHERE hash NOT IN (SELECT f.value ->> 'hash'
             FROM packages p, jsonb_array_elements(p.manifest::jsonb) f)";
        let hosts = format!(
            "DELETE FROM hosts WHERE last_seen < {now} - $1
               AND NOT EXISTS (SELECT 1 FROM submissions s
                 WHERE s.claimed_by = hosts.name AND s.state = 'judging')"
        );
        self.tx("start collecting", "commit a collection", |c| {
            if E::KEEPS_BLOBS {
                c.exec("take the publishing lock", PUBLISHING_LOCK, args![])?;
            }
            let packages = c.exec("remove unused packages", &packages, args![keep_ms])?;
            let blobs = if E::KEEPS_BLOBS && packages > 0 {
                c.exec("remove unused blobs", blobs, args![])?
            } else {
                0
            };
            let hosts = c.exec("remove gone hosts", &hosts, args![keep_ms])?;
            Ok(Collected {
                packages,
                blobs,
                hosts,
            })
        })
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
                c.exec("take the publishing lock", PUBLISHING_LOCK, args![])?;
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

    fn pending_counts(&self) -> Result<(u64, u64), StoreError> {
        let sql = "SELECT state, CAST(SUM(n) AS BIGINT) FROM submission_counts
             WHERE state IN ('queued', 'judging') GROUP BY state";
        let rows = self.rows("count pending submissions", sql, args![], |r| {
            Ok((r.get::<String>(0)?, r.get::<u64>(1)?))
        })?;
        let count = |state: &str| rows.iter().find(|(s, _)| s == state).map_or(0, |(_, n)| *n);
        Ok((count("queued"), count("judging")))
    }

    fn notify(&self, payloads: &[String]) -> Result<(), StoreError> {
        self.send_events(payloads)
    }

    fn listen(&self, sink: EventSink) -> Result<bool, StoreError> {
        self.listen_events(sink)
    }
}

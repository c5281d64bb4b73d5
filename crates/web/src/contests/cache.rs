//! Standings computed once per change ([`Cache`]): the standings page and
//! `GET /api/v1/contests/{id}/standings` are polled every two seconds by every participant's
//! open page, so with 500 students a contest sees about 250 polls a second. Each poll used to read
//! every submission of the contest from the store and rank them again; now a table is computed
//! once per contest and view (everything, or hidden after the freeze) and shared, with its JSON
//! already serialized, until something that can change it happens:
//!
//! - a verdict is stored (any `Done` event on the live hub, which on PostgreSQL also carries
//!   other nodes' verdicts), including the one that auto-applies a rejudging;
//! - an admin applies a rejudging, freezes or unfreezes, or reloads the contests
//!   ([`Cache::invalidate`]);
//! - `[server] standings_cache` has passed (1 s by default): the backstop for what no event
//!   reports, such as a submission queued through another node, and how long a new submission
//!   may take to show as pending. `0s` turns the cache off (every poll computes).
//!
//! A table being computed is computed once: other requests for it wait for it rather than read
//! the store too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use tokio::sync::broadcast;

use ojd_service::contest::standings::Standings;
use ojd_service::events::Live;
use ojd_store::StoreError;

/// One contest's table for one view, with its JSON.
pub(crate) struct Table {
    pub(crate) standings: Standings,
    pub(crate) json: Bytes,
}

impl Table {
    pub(crate) fn new(standings: Standings) -> Table {
        let json = serde_json::to_vec(&standings).unwrap_or_default();
        Table {
            standings,
            json: Bytes::from(json),
        }
    }
}

/// (contest id, hidden after this time): the admin's view is `None`.
type Key = (String, Option<i64>);

struct Entry {
    at: Instant,
    table: Arc<Table>,
}

#[derive(Default)]
struct Inner {
    /// Verdict events since the last look; subscribed at the first use.
    events: Option<broadcast::Receiver<Arc<Live>>>,
    tables: HashMap<Key, Entry>,
    /// Whether an admin unfroze the contest, read from the store at most once per `ttl`.
    unfrozen: HashMap<String, (Instant, bool)>,
    /// One lock per table being computed.
    computing: HashMap<Key, Arc<Mutex<()>>>,
}

/// See the module docs.
pub(crate) struct Cache {
    ttl: Duration,
    inner: Mutex<Inner>,
    /// IOI group scores per finished judging: a judging's results never change once stored, so
    /// a recomputed table reads only the judgings it has not seen (until a reload, which may
    /// change a problem's groups).
    groups: Mutex<HashMap<i64, Vec<u64>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data: still usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Cache {
    pub(crate) fn new(ttl: Duration) -> Cache {
        Cache {
            ttl,
            inner: Mutex::new(Inner::default()),
            groups: Mutex::new(HashMap::new()),
        }
    }

    /// Forgets every table (a rejudging applied, a freeze changed, a reload).
    pub(crate) fn invalidate(&self) {
        let mut g = lock(&self.inner);
        g.tables.clear();
        g.unfrozen.clear();
    }

    /// Forgets the tables and the group scores too (a reload: groups may have changed).
    pub(crate) fn reset(&self) {
        self.invalidate();
        lock(&self.groups).clear();
    }

    /// The group scores of finished judging `judging`, computed by `compute` the first time.
    pub(crate) fn groups_of(
        &self,
        judging: i64,
        compute: impl FnOnce() -> Result<Vec<u64>, StoreError>,
    ) -> Result<Vec<u64>, StoreError> {
        if let Some(g) = lock(&self.groups).get(&judging) {
            return Ok(g.clone());
        }
        let g = compute()?;
        lock(&self.groups).insert(judging, g.clone());
        Ok(g)
    }

    /// Drops everything if a verdict was stored since the last look.
    fn drain(&self, g: &mut Inner, subscribe: impl FnOnce() -> broadcast::Receiver<Arc<Live>>) {
        let rx = g.events.get_or_insert_with(subscribe);
        let mut changed = false;
        loop {
            match rx.try_recv() {
                Ok(live) => changed |= matches!(*live, Live::Done { .. }),
                Err(broadcast::error::TryRecvError::Empty) => break,
                Err(broadcast::error::TryRecvError::Lagged(_)) => changed = true,
                Err(broadcast::error::TryRecvError::Closed) => {
                    g.events = None;
                    changed = true;
                    break;
                }
            }
        }
        if changed {
            g.tables.clear();
        }
    }

    /// Whether contest `id` is unfrozen, from the store at most once per `ttl`.
    pub(crate) fn unfrozen(
        &self,
        id: &str,
        read: impl FnOnce() -> Result<bool, StoreError>,
    ) -> Result<bool, StoreError> {
        if let Some((at, v)) = lock(&self.inner).unfrozen.get(id) {
            if at.elapsed() < self.ttl {
                return Ok(*v);
            }
        }
        let v = read()?;
        lock(&self.inner)
            .unfrozen
            .insert(id.to_string(), (Instant::now(), v));
        Ok(v)
    }

    /// The table of contest `id` hidden after `hide`, computed by `compute` only when there is
    /// no fresh one.
    pub(crate) fn get(
        &self,
        id: &str,
        hide: Option<i64>,
        subscribe: impl FnOnce() -> broadcast::Receiver<Arc<Live>>,
        compute: impl FnOnce() -> Result<Standings, StoreError>,
    ) -> Result<Arc<Table>, StoreError> {
        if self.ttl.is_zero() {
            return Ok(Arc::new(Table::new(compute()?)));
        }
        let key: Key = (id.to_string(), hide);
        let fresh = |g: &mut Inner| {
            g.tables
                .get(&key)
                .filter(|e| e.at.elapsed() < self.ttl)
                .map(|e| e.table.clone())
        };
        let gate = {
            let mut g = lock(&self.inner);
            self.drain(&mut g, subscribe);
            if let Some(t) = fresh(&mut g) {
                return Ok(t);
            }
            g.computing.entry(key.clone()).or_default().clone()
        };
        let _computing = lock(&gate);
        // Another request may have computed it while this one waited.
        let started = Instant::now();
        if let Some(t) = fresh(&mut lock(&self.inner)) {
            return Ok(t);
        }
        let table = Arc::new(Table::new(compute()?));
        let mut g = lock(&self.inner);
        // Dated from the start of the computation: what changed meanwhile is not missed for long.
        g.tables.insert(
            key,
            Entry {
                at: started,
                table: table.clone(),
            },
        );
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_service::contest::model::Scoring;

    fn table(rows: usize) -> Standings {
        Standings {
            scoring: Scoring::Icpc,
            problems: Vec::new(),
            rows: Vec::with_capacity(rows),
            frozen: false,
        }
    }

    #[test]
    fn computes_once_until_a_verdict_or_an_invalidation() {
        let (tx, _rx) = broadcast::channel::<Arc<Live>>(16);
        let cache = Cache::new(Duration::from_secs(3600));
        let computed = std::cell::Cell::new(0);
        let get = |hide| {
            cache
                .get(
                    "c",
                    hide,
                    || tx.subscribe(),
                    || {
                        computed.set(computed.get() + 1);
                        Ok(table(0))
                    },
                )
                .expect("get")
        };
        get(None);
        get(None);
        assert_eq!(
            computed.get(),
            1,
            "the second poll is served from the cache"
        );
        get(Some(5));
        assert_eq!(computed.get(), 2, "each view has its own table");
        tx.send(Arc::new(Live::Started { id: 1 })).expect("send");
        get(None);
        assert_eq!(computed.get(), 2, "progress events change nothing");
        tx.send(Arc::new(Live::Done { id: 1 })).expect("send");
        get(None);
        assert_eq!(computed.get(), 3, "a stored verdict does");
        cache.invalidate();
        get(Some(5));
        assert_eq!(computed.get(), 4, "and so does an invalidation");
        let json = get(Some(5)).json.clone();
        assert!(json.starts_with(b"{\"scoring\":\"icpc\""), "{json:?}");
    }

    #[test]
    fn group_scores_are_read_once_per_judging_until_a_reset() {
        let cache = Cache::new(Duration::from_secs(1));
        let reads = std::cell::Cell::new(0);
        let read = |v: u64| {
            reads.set(reads.get() + 1);
            Ok(vec![v, 0])
        };
        assert_eq!(cache.groups_of(7, || read(30)).expect("groups"), [30, 0]);
        assert_eq!(cache.groups_of(7, || read(99)).expect("groups"), [30, 0]);
        assert_eq!(cache.groups_of(8, || read(50)).expect("groups"), [50, 0]);
        assert_eq!(reads.get(), 2);
        cache.invalidate();
        assert_eq!(cache.groups_of(7, || read(99)).expect("groups"), [30, 0]);
        cache.reset();
        assert_eq!(cache.groups_of(7, || read(40)).expect("groups"), [40, 0]);
        assert_eq!(reads.get(), 3);
    }

    #[test]
    fn a_zero_ttl_computes_every_time() {
        let (tx, _rx) = broadcast::channel::<Arc<Live>>(16);
        let cache = Cache::new(Duration::ZERO);
        let mut n = 0;
        for _ in 0..3 {
            cache
                .get(
                    "c",
                    None,
                    || tx.subscribe(),
                    || {
                        n += 1;
                        Ok(table(0))
                    },
                )
                .expect("get");
        }
        assert_eq!(n, 3);
    }
}

//! Standings computed once per change ([`Cache`]): the standings page and
//! `GET /api/v1/contests/{id}/standings` are polled every two seconds by every participant's
//! open page, so with 500 students a contest sees about 250 polls a second. Each poll used to read
//! every submission of the contest from the store and rank them again; now a table is computed
//! once per contest and view (everything, or hidden after the freeze) and shared, with its JSON
//! already serialized, until something that can change it happens:
//!
//! - a verdict is stored (any `Done` event on the live hub, which on PostgreSQL also carries
//!   other nodes' verdicts), including the one that auto-applies a rejudging;
//! - an admin applies a rejudging, overrides a verdict, ignores a submission, freezes or
//!   unfreezes, edits the contest's definition or reloads the contests ([`Cache::invalidate`]);
//! - a submission is made through the contest on this node (it shows as pending at once:
//!   [`Cache::invalidate_contest`]);
//! - `[server] standings_cache` has passed (1 s by default): the backstop for what no event of
//!   this node reports, such as a submission queued, an override or a freeze changed through
//!   another node of a PostgreSQL cluster. `0s` turns the cache off (every poll computes).
//!
//! A table being computed is computed once: other requests for it wait for it rather than read
//! the store too. A table whose computation overlapped a change (a verdict event or an
//! invalidation between its start and its end) is served to the requests that waited for it but
//! not kept: it may have read the store before the change, and a stale board is a wrong one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use crate::contest::standings::Standings;
use crate::Live;
use ojd_store::StoreError;

/// One contest's table for one view, with its JSON.
pub(crate) struct Table {
    pub(crate) standings: Standings,
    /// `standings` as JSON, serialized once.
    pub(crate) json: Arc<[u8]>,
}

impl Table {
    pub(crate) fn new(standings: Standings) -> Table {
        let json = serde_json::to_vec(&standings).unwrap_or_default();
        Table {
            standings,
            json: Arc::from(json),
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
    /// Counts the changes (verdict events drained, invalidations): a computation that saw it
    /// move keeps nothing.
    generation: u64,
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

/// Drops every table if a verdict was stored since the last look (a receiver that lagged or
/// closed may have missed one).
fn drain_events(g: &mut Inner) {
    let Some(rx) = g.events.as_mut() else {
        return;
    };
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
        g.generation += 1;
    }
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
        g.generation += 1;
    }

    /// Forgets contest `id`'s tables (a submission made through it).
    pub(crate) fn invalidate_contest(&self, id: &str) {
        let mut g = lock(&self.inner);
        g.tables.retain(|(c, _), _| c != id);
        g.generation += 1;
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
        g.events.get_or_insert_with(subscribe);
        drain_events(g);
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
        let generation = {
            let mut g = lock(&self.inner);
            if let Some(t) = fresh(&mut g) {
                return Ok(t);
            }
            g.generation
        };
        let table = Arc::new(Table::new(compute()?));
        let mut g = lock(&self.inner);
        // A verdict stored meanwhile may be in the table or not: keep it only if nothing changed.
        drain_events(&mut g);
        if g.generation == generation {
            // Dated from the start of the computation, as what it read is.
            g.tables.insert(
                key,
                Entry {
                    at: started,
                    table: table.clone(),
                },
            );
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contest::Scoring;

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

    /// A stale board is a wrong board: a table whose computation overlapped a stored verdict or
    /// an invalidation may have read the store before the change, so it is not kept.
    #[test]
    fn a_table_computed_across_a_change_is_not_kept() {
        let (tx, _rx) = broadcast::channel::<Arc<Live>>(16);
        let cache = Cache::new(Duration::from_secs(3600));
        let computed = std::cell::Cell::new(0);
        let get = |id: &str, during: &dyn Fn()| {
            cache
                .get(
                    id,
                    None,
                    || tx.subscribe(),
                    || {
                        computed.set(computed.get() + 1);
                        during();
                        Ok(table(0))
                    },
                )
                .expect("get")
        };
        get("c", &|| ());
        cache.invalidate();
        // A verdict is stored while the table is computed (after its read of the store), and
        // another request (another contest's poll) sees the event first.
        get("c", &|| {
            tx.send(Arc::new(Live::Done { id: 7 })).expect("send");
            get("other", &|| ());
        });
        assert_eq!(computed.get(), 3);
        get("c", &|| ());
        assert_eq!(
            computed.get(),
            4,
            "the table that overlapped the verdict was not kept"
        );
        get("c", &|| ());
        assert_eq!(computed.get(), 4, "the next one was");
        cache.invalidate();
        get("c", &|| cache.invalidate());
        get("c", &|| ());
        assert_eq!(computed.get(), 6, "nor one that overlapped an invalidation");
        get("c", &|| ());
        assert_eq!(computed.get(), 6);
    }

    #[test]
    fn a_submission_forgets_its_contests_tables_only() {
        let (tx, _rx) = broadcast::channel::<Arc<Live>>(16);
        let cache = Cache::new(Duration::from_secs(3600));
        let computed = std::cell::RefCell::new(Vec::new());
        let get = |id: &str, hide: Option<i64>| {
            cache
                .get(
                    id,
                    hide,
                    || tx.subscribe(),
                    || {
                        computed.borrow_mut().push(format!("{id}{hide:?}"));
                        Ok(table(0))
                    },
                )
                .expect("get")
        };
        for _ in 0..2 {
            get("a", None);
            get("a", Some(5));
            get("b", None);
        }
        cache.invalidate_contest("a");
        get("a", None);
        get("a", Some(5));
        get("b", None);
        assert_eq!(
            *computed.borrow(),
            ["aNone", "aSome(5)", "bNone", "aNone", "aSome(5)"]
        );
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

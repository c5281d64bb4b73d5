//! `GET /api/contests/{id}/event-feed`: the contest's events as NDJSON, one JSON object a line
//! (`{"type", "id", "data", "token"}`), streaming: after the events so far it waits for more,
//! and sends a bare newline when nothing was sent for [`KEEP_ALIVE`].
//!
//! **Tokens.** An event's token is `<time>.<k>.<setup>`: the event's time (Unix ms), its place
//! among the events of that same time, and a fingerprint of the setup events. The events are
//! derived from the store ([`super::model`]), ordered by their stored times, so every serve
//! node gives each event the same token, and `?since_token=` resumes on any node with exactly
//! the events after it. An event is sent only once its time is `[server] feed_settle` old (2 s
//! by default; a setting of the App, so that a test on one node can set it to 0): a verdict
//! stored by another host with a slightly earlier time than the last event sent is not missed.
//! When a reload changed the setup (title, problems, languages…), a resumed feed sends the
//! setup events (and the problems) again first. A token that does not parse is a 400;
//! `since_id` (the older releases' name) is read the same way. `?stream=false` sends the
//! events so far and ends (as DOMjudge's does). Streaming feeds are capped (503 beyond) in
//! separate budgets for anonymous readers, teams and admins ([`MAX_STREAMS`]), one team's user
//! holding at most `[web] max_event_streams_per_user` of the teams'; the open feeds of one
//! contest and role share each second's read of the store.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::basic::Reader;
use super::model::{Role, Snapshot, SETUP};
use super::snapshot;
use super::version::Version;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use axum::Extension;

/// A newline is sent when nothing else was for this long (the standard asks for 120 s at most).
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// How often a streaming feed looks for new events.
const POLL: Duration = Duration::from_secs(1);
/// Streaming feeds open at once in this process, at most, per kind of reader: each one reads
/// the contest from the store every [`POLL`], so they are for the tools, not for every
/// participant's browser. Anonymous readers, teams and admins have budgets of their own, so
/// that anonymous streams can never take the feed a CDS or resolver reads as admin.
pub(crate) const MAX_STREAMS: usize = 256;
/// Of which anonymous readers may hold this many...
pub(crate) const MAX_PUBLIC_STREAMS: usize = 128;
/// ...and admins have this many more, whatever the others hold.
pub(crate) const MAX_ADMIN_STREAMS: usize = 32;

/// One budget of open streams.
struct Budget {
    open: AtomicUsize,
    max: usize,
}

static PUBLIC: Budget = Budget {
    open: AtomicUsize::new(0),
    max: MAX_PUBLIC_STREAMS,
};
static TEAMS: Budget = Budget {
    open: AtomicUsize::new(0),
    max: MAX_STREAMS - MAX_PUBLIC_STREAMS,
};
static ADMINS: Budget = Budget {
    open: AtomicUsize::new(0),
    max: MAX_ADMIN_STREAMS,
};

/// The streaming feeds each team's user holds now: one team may hold at most
/// `[web] max_event_streams_per_user` of the budget all teams share (else one team's client
/// could take every team's feed).
static PER_TEAM: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());

/// One open streaming feed, counted in its budget (and, a team's, against its user) until it
/// is dropped.
struct Open(&'static Budget, Option<String>);

impl Open {
    /// A feed for `role`, if its budget has room and, for a team, its user holds fewer than
    /// `per_team` feeds.
    fn take(role: &Role, per_team: usize) -> Option<Open> {
        let budget = match role {
            Role::Public => &PUBLIC,
            Role::Team(_) => &TEAMS,
            Role::Admin => &ADMINS,
        };
        let team = match role {
            Role::Team(name) => {
                let mut open = PER_TEAM.lock().unwrap_or_else(|e| e.into_inner());
                let n = open.entry(name.clone()).or_default();
                if *n >= per_team {
                    if *n == 0 {
                        open.remove(name);
                    }
                    return None;
                }
                *n += 1;
                Some(name.clone())
            }
            _ => None,
        };
        let taken = budget
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < budget.max).then_some(n + 1)
            });
        match taken {
            Ok(_) => Some(Open(budget, team)),
            Err(_) => {
                if let Some(name) = team {
                    release_team(&name);
                }
                None
            }
        }
    }
}

/// Gives back one of `name`'s team feeds.
fn release_team(name: &str) {
    let mut open = PER_TEAM.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = open.get_mut(name) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            open.remove(name);
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(name) = self.1.take() {
            release_team(&name);
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub(crate) struct FeedQuery {
    since_token: Option<String>,
    since_id: Option<String>,
    stream: Option<bool>,
}

/// Where a client is: after this event, with this setup.
#[derive(Clone, Debug, PartialEq)]
struct Cursor {
    at: i64,
    k: usize,
    setup: String,
}

fn parse_token(t: &str) -> Option<Cursor> {
    let mut p = t.splitn(3, '.');
    let at = p.next()?.parse().ok()?;
    let k = p.next()?.parse().ok()?;
    let setup = p.next()?.to_string();
    (!setup.is_empty() && setup.chars().all(|c| c.is_ascii_hexdigit())).then_some(Cursor {
        at,
        k,
        setup,
    })
}

/// How old an event must be before it is sent (see the module docs), in ms.
fn settle_ms(app: &App) -> i64 {
    i64::try_from(app.node.config().server.feed_settle.as_millis()).unwrap_or(i64::MAX)
}

/// The lines to send after `from` (everything when `None`), up to the settled time (events
/// `settle` ms old at the snapshot's time); moves `from` past them.
fn lines_after(snap: &Snapshot, from: &mut Option<Cursor>, settle: i64) -> Vec<u8> {
    let horizon = snap.built_at.saturating_sub(settle);
    let mut out = Vec::new();
    let resend_setup = from.as_ref().is_some_and(|c| c.setup != snap.setup);
    for ((at, k), e) in snap.keyed() {
        if at > horizon && at != SETUP {
            break;
        }
        let after = match from.as_ref() {
            None => true,
            Some(c) => (at, k) > (c.at, c.k) || (resend_setup && (e.is_setup() || e.is_roster())),
        };
        if !after {
            continue;
        }
        let token = format!("{at}.{k}.{}", snap.setup);
        let line = json!({"type": e.ty, "id": e.id, "data": e.data, "token": token});
        out.extend_from_slice(line.to_string().as_bytes());
        out.push(b'\n');
        let keep = from.as_ref().is_some_and(|c| (c.at, c.k) > (at, k));
        if !keep {
            *from = Some(Cursor {
                at,
                k,
                setup: snap.setup.clone(),
            });
        }
    }
    if let Some(c) = from.as_mut() {
        c.setup = snap.setup.clone();
    }
    out
}

pub(crate) async fn event_feed(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
    Query(q): Query<FeedQuery>,
) -> Result<Response, AppError> {
    let mut from = match q.since_token.as_deref().or(q.since_id.as_deref()) {
        None => None,
        Some(t) => Some(parse_token(t).ok_or_else(|| {
            AppError::BadRequest(format!(
                "since_token {t:?} is not a token of this feed (<time>.<index>.<setup>)"
            ))
        })?),
    };
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    let first = lines_after(&snap, &mut from, settle_ms(&app));
    let headers = [(header::CONTENT_TYPE, "application/x-ndjson")];
    if q.stream == Some(false) {
        return Ok((headers, first).into_response());
    }
    let per_team = app.node.config().web.max_event_streams_per_user;
    let open = Open::take(&Role::of(user.as_ref()), per_team).ok_or_else(|| {
        AppError::Unavailable(
            "as many event feeds as readers like you may open are open already; try again \
             later, or read it with ?stream=false"
                .to_string(),
        )
    })?;
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(16);
    tokio::spawn(async move {
        stream(app, cid, user, v, from, first, tx).await;
        drop(open);
    });
    Ok((headers, Body::from_stream(ReceiverStream::new(rx))).into_response())
}

/// A snapshot built for the same contest and role less than this long ago serves every open
/// feed's poll (shorter than [`POLL`], so that one feed alone always reads afresh).
const SHARED_FOR: Duration = Duration::from_millis(900);

type SharedKey = (usize, String, Role, Version);

/// The contest's events for a streaming feed's poll: built once per [`SHARED_FOR`] for all
/// the feeds of one contest and role (fifty public scoreboards poll as one). Only polls share
/// them: the endpoints and a feed's first answer read the store afresh.
async fn shared(
    app: &Arc<App>,
    cid: &str,
    user: Option<&User>,
    v: Version,
) -> Result<Arc<Snapshot>, AppError> {
    static SHARED: Mutex<Vec<(SharedKey, Instant, Arc<Snapshot>)>> = Mutex::new(Vec::new());
    // The app's address keeps two daemons in one process (tests) apart.
    let key: SharedKey = (
        Arc::as_ptr(app) as usize,
        cid.to_string(),
        Role::of(user),
        v,
    );
    {
        let mut all = SHARED.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|(_, at, _)| at.elapsed() < SHARED_FOR);
        if let Some((_, _, snap)) = all.iter().find(|(k, _, _)| *k == key) {
            return Ok(snap.clone());
        }
    }
    let started = Instant::now();
    let (_, _, snap) = snapshot(app, cid, user, v).await?;
    SHARED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((key, started, snap.clone()));
    Ok(snap)
}

/// Sends `first`, then whatever comes after `from`, until the client goes or the daemon stops.
async fn stream(
    app: Arc<App>,
    cid: String,
    user: Option<User>,
    v: Version,
    mut from: Option<Cursor>,
    first: Vec<u8>,
    tx: mpsc::Sender<Result<Bytes, Infallible>>,
) {
    let mut stopping = app.node.stopping();
    let mut last_sent = Instant::now();
    if !first.is_empty() && tx.send(Ok(Bytes::from(first))).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            _ = tokio::time::sleep(POLL) => {}
            _ = stopping.wait_for(|s| *s) => return,
            _ = tx.closed() => return,
        }
        // A contest removed by a reload ends the feed.
        let Ok(snap) = shared(&app, &cid, user.as_ref(), v).await else {
            return;
        };
        let lines = lines_after(&snap, &mut from, settle_ms(&app));
        if !lines.is_empty() {
            if tx.send(Ok(Bytes::from(lines))).await.is_err() {
                return;
            }
            last_sent = Instant::now();
        } else if last_sent.elapsed() >= KEEP_ALIVE {
            if tx.send(Ok(Bytes::from_static(b"\n"))).await.is_err() {
                return;
            }
            last_sent = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anonymous streams, however many, never take an admin's (a CDS's, a resolver's) feed.
    #[test]
    fn anonymous_feeds_cannot_take_the_admins_slots() {
        let public: Vec<Open> = std::iter::from_fn(|| Open::take(&Role::Public, 8)).collect();
        assert_eq!(public.len(), MAX_PUBLIC_STREAMS);
        assert!(Open::take(&Role::Public, 8).is_none());
        let admin = Open::take(&Role::Admin, 8);
        assert!(admin.is_some(), "the admin's feed opens");
        let team = Open::take(&Role::Team("t".into()), 8);
        assert!(team.is_some(), "so does a team's");
        drop(public);
        assert!(
            Open::take(&Role::Public, 8).is_some(),
            "freed when they close"
        );
    }

    /// One team's client, however many feeds it opens, holds at most its own share of the
    /// teams' budget: another team's feed still opens (128 streams of one team once left
    /// every other team with 503).
    #[test]
    fn one_team_cannot_take_every_team_s_feed() {
        let mallory = Role::Team("feed-test-mallory".into());
        let held: Vec<Open> = std::iter::from_fn(|| Open::take(&mallory, 8))
            .take(MAX_STREAMS)
            .collect();
        assert_eq!(held.len(), 8, "one team's share");
        let bob = Open::take(&Role::Team("feed-test-bob".into()), 8);
        assert!(bob.is_some(), "another team's feed opens");
        drop(held);
        assert!(Open::take(&mallory, 8).is_some(), "freed when they close");
    }
    use crate::ccs::model::Event;

    fn snap(setup: &str, built_at: i64, events: &[(i64, &'static str, &str)]) -> Snapshot {
        Snapshot {
            events: events
                .iter()
                .map(|(at, ty, id)| Event {
                    at: *at,
                    ty,
                    id: Some(id.to_string()),
                    data: json!({ "id": id }),
                })
                .collect(),
            setup: setup.into(),
            built_at,
        }
    }

    fn ids(lines: &[u8]) -> Vec<String> {
        String::from_utf8_lossy(lines)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("json");
                format!(
                    "{}@{}",
                    v["id"].as_str().unwrap_or(""),
                    v["token"].as_str().unwrap_or("")
                )
            })
            .collect()
    }

    /// The default `[server] feed_settle`, in ms.
    const SETTLE: i64 = 2000;

    #[test]
    fn a_feed_sends_settled_events_once_and_resumes_after_a_token() {
        let events = [
            (SETUP, "contest", "c"),
            (SETUP, "problems", "a"),
            (1000, "submissions", "1"),
            (1000, "judgements", "7"),
            (5000, "submissions", "2"),
        ];
        // Built at 6000: the event at 5000 is not 2 s old yet.
        let mut from = None;
        let first = lines_after(&snap("ab", 6000, &events), &mut from, SETTLE);
        assert_eq!(
            ids(&first),
            ["c@0.0.ab", "a@0.1.ab", "1@1000.0.ab", "7@1000.1.ab"]
        );
        assert_eq!(
            ids(&lines_after(&snap("ab", 6500, &events), &mut from, SETTLE)),
            Vec::<String>::new()
        );
        assert_eq!(
            ids(&lines_after(&snap("ab", 7000, &events), &mut from, SETTLE)),
            ["2@5000.0.ab"]
        );
        // A client resuming after the first submission gets exactly the rest.
        let mut resumed = parse_token("1000.0.ab");
        assert_eq!(
            ids(&lines_after(
                &snap("ab", 7000, &events),
                &mut resumed,
                SETTLE
            )),
            ["7@1000.1.ab", "2@5000.0.ab"]
        );
        // After a reload changed the setup, the setup comes again (with the problems, which
        // the public receives at the start), then the rest.
        let late_problems = [
            (SETUP, "contest", "c"),
            (1000, "problems", "a"),
            (3000, "submissions", "1"),
        ];
        let mut resumed = parse_token("3000.0.ab");
        assert_eq!(
            ids(&lines_after(
                &snap("cd", 9000, &late_problems),
                &mut resumed,
                SETTLE
            )),
            ["c@0.0.cd", "a@1000.0.cd"]
        );
        assert_eq!(resumed, parse_token("3000.0.cd"));
        let mut resumed = parse_token("1000.1.ab");
        assert_eq!(
            ids(&lines_after(
                &snap("cd", 7000, &events),
                &mut resumed,
                SETTLE
            )),
            ["c@0.0.cd", "a@0.1.cd", "2@5000.0.cd"]
        );
        assert_eq!(resumed, parse_token("5000.0.cd"));
        // With no settling (one node), every event is sent as soon as it exists.
        let mut from = None;
        let all = lines_after(&snap("ab", 5000, &events), &mut from, 0);
        assert_eq!(ids(&all).len(), 5, "{:?}", ids(&all));
    }

    #[test]
    fn tokens_parse_or_are_refused() {
        assert_eq!(
            parse_token("1700000000000.3.ab12cd34"),
            Some(Cursor {
                at: 1_700_000_000_000,
                k: 3,
                setup: "ab12cd34".into()
            })
        );
        for bad in ["", "x", "12.3", "12.x.ab", "12.3.", "12.3.zz", "a.b.c"] {
            assert_eq!(parse_token(bad), None, "{bad}");
        }
    }
}

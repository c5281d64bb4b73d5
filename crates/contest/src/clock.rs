//! A director's changes to a contest's clock — start now, delay the start, extend, end now,
//! the freeze's length — written into its `contest.toml`.
//!
//! The file stays the truth: a contest is what `contests/<id>/contest.toml` says, whether an
//! admin edited it by hand or through the web. [`ClockChange::apply`] computes the new `start`,
//! `duration` and `freeze` and [`rewrite`] replaces only those lines of the file (comments,
//! other keys and the problems stay as written), through a temporary file renamed over it.
//!
//! The freeze keeps its absolute time: `freeze` is written relative to the end, so extending a
//! contest extends `freeze` by as much, and ending it early shortens it (or drops it when the
//! freeze time was not reached: the contest then ends unfrozen, as it was).

use std::path::Path;
use std::time::Duration;

use super::model::{Contest, Phase};

/// One change of a contest's clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClockChange {
    /// Starts now (before the start only).
    StartNow,
    /// Moves the start this many minutes later (before the start only).
    Delay(u32),
    /// Makes the contest this many minutes longer (not after the end).
    Extend(u32),
    /// Ends now (while running only).
    EndNow,
    /// Freezes the standings for the last this many minutes, 0 for no freeze (before the
    /// start, or while running when the new freeze time is still to come; never while frozen).
    FreezeLast(u32),
}

/// A contest's clock as the file says it: `start` (Unix ms), `duration`, `freeze`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The start, Unix ms.
    pub start_ms: i64,
    /// How long the contest runs.
    pub duration: Duration,
    /// The standings freeze this long before the end, if they freeze.
    pub freeze: Option<Duration>,
}

impl ClockChange {
    /// What the change is called in the audit log and the API.
    pub fn name(self) -> String {
        match self {
            ClockChange::StartNow => "start now".into(),
            ClockChange::Delay(m) => format!("delay the start by {m} min"),
            ClockChange::Extend(m) => format!("extend by {m} min"),
            ClockChange::EndNow => "end now".into(),
            ClockChange::FreezeLast(0) => "no freeze".into(),
            ClockChange::FreezeLast(m) => format!("freeze the last {m} min"),
        }
    }

    /// The new clock of `c` at `now`, or why the change cannot be made now.
    pub fn apply(self, c: &Contest, now: i64) -> Result<Clock, String> {
        let phase = c.phase(now);
        let minutes = |m: u32| Duration::from_secs(u64::from(m) * 60);
        let mut clock = Clock {
            start_ms: c.start_ms,
            duration: c.duration,
            freeze: c.freeze,
        };
        match self {
            ClockChange::StartNow | ClockChange::Delay(_) if phase != Phase::Before => {
                return Err("the contest has started already".into())
            }
            ClockChange::Delay(0) | ClockChange::Extend(0) => {
                return Err("give a number of minutes from 1".into())
            }
            ClockChange::StartNow => clock.start_ms = now / 1000 * 1000,
            ClockChange::Delay(m) => clock.start_ms += minutes(m).as_millis() as i64,
            ClockChange::Extend(_) if phase == Phase::Ended => {
                return Err("the contest is over; it cannot be extended".into())
            }
            ClockChange::Extend(m) => {
                clock.duration += minutes(m);
                clock.freeze = clock.freeze.map(|f| f + minutes(m));
            }
            ClockChange::EndNow if !matches!(phase, Phase::Running | Phase::Frozen) => {
                return Err("the contest is not running".into())
            }
            ClockChange::EndNow => {
                // Whole seconds, rounded down so that it has ended at once (at least one: the
                // file's durations are in seconds).
                let secs = ((now - c.start_ms) / 1000).max(1) as u64;
                let old_end = c.end_ms();
                clock.duration = Duration::from_secs(secs);
                let new_end = c.start_ms + secs as i64 * 1000;
                clock.freeze = c.freeze.and_then(|f| {
                    let at = old_end - f.as_millis() as i64;
                    (at < new_end)
                        .then(|| Duration::from_secs(((new_end - at) / 1000).max(1) as u64))
                });
            }
            ClockChange::FreezeLast(_) if phase == Phase::Ended => {
                return Err("the contest is over; its freeze cannot change".into())
            }
            ClockChange::FreezeLast(_) if phase == Phase::Frozen => {
                return Err(
                    "the standings are frozen already: unfreeze them, or extend the contest".into(),
                )
            }
            ClockChange::FreezeLast(0) => clock.freeze = None,
            ClockChange::FreezeLast(m) => {
                let freeze = minutes(m);
                if freeze >= c.duration {
                    return Err(format!(
                        "a freeze of {m} min would start before the contest does (it lasts {})",
                        format_span(c.duration)
                    ));
                }
                if c.end_ms() - (freeze.as_millis() as i64) <= now {
                    return Err(format!(
                        "a freeze of the last {m} min would have started already, and what \
                         was shown since then cannot be hidden again"
                    ));
                }
                clock.freeze = Some(freeze);
            }
        }
        Ok(clock)
    }
}

/// "4h30m", "90s", "1h0m5s" as `parse_span` reads it back.
pub fn format_span(d: Duration) -> String {
    let s = d.as_secs();
    let (h, m, sec) = (s / 3600, s % 3600 / 60, s % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 || (h > 0 && sec > 0) {
        out.push_str(&format!("{m}m"));
    }
    if sec > 0 || out.is_empty() {
        out.push_str(&format!("{sec}s"));
    }
    out
}

/// RFC 3339 at `offset_s` seconds east of UTC: "2026-12-01T09:00:00+08:00".
pub fn rfc3339(ms: i64, offset_s: i32) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let off = time::UtcOffset::from_whole_seconds(offset_s).unwrap_or(time::UtcOffset::UTC);
    t.to_offset(off)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| ms.to_string())
}

/// The text of a `contest.toml` with its top-level `start`, `duration` and `freeze` replaced
/// (a missing key is added before the first table; `freeze = None` removes it).
pub(crate) fn rewrite_text(text: &str, clock: &Clock, offset_s: i32) -> String {
    let want: Vec<(&str, Option<String>)> = vec![
        (
            "start",
            Some(format!("\"{}\"", rfc3339(clock.start_ms, offset_s))),
        ),
        (
            "duration",
            Some(format!("\"{}\"", format_span(clock.duration))),
        ),
        (
            "freeze",
            clock.freeze.map(|f| format!("\"{}\"", format_span(f))),
        ),
    ];
    rewrite_keys(text, want)
}

/// The text of a `contest.toml` with these top-level keys set to these (TOML) values, or
/// removed for `None`; the other lines stay as written. A value written over several lines (an
/// array: `participants = [` … `]`) is replaced whole.
pub(crate) fn rewrite_keys(text: &str, mut want: Vec<(&str, Option<String>)>) -> String {
    let mut out = Vec::new();
    let mut top = true;
    // Brackets still open of a replaced value: its next lines are dropped with it.
    let mut open = 0;
    for line in text.lines() {
        if open > 0 {
            open += brackets(line);
            continue;
        }
        let t = line.trim_start();
        if t.starts_with('[') && top {
            top = false;
            for (k, v) in want.drain(..) {
                if let Some(v) = v {
                    out.push(format!("{k} = {v}"));
                }
            }
        }
        let key = t.split('=').next().unwrap_or("").trim();
        if top && t.contains('=') && !t.starts_with('#') {
            if let Some(i) = want.iter().position(|(k, _)| *k == key) {
                let (k, v) = want.remove(i);
                open = brackets(t).max(0);
                if let Some(v) = v {
                    // Keep a trailing comment after the value (a `#` outside the quotes).
                    let comment = comment_of(t).map(|c| format!("   {c}")).unwrap_or_default();
                    out.push(format!("{k} = {v}{comment}"));
                }
                continue;
            }
        }
        out.push(line.to_string());
    }
    for (k, v) in want {
        if let Some(v) = v {
            out.push(format!("{k} = {v}"));
        }
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// How many `[` a line opens less how many `]` it closes, outside strings and comments.
fn brackets(line: &str) -> i32 {
    let (mut n, mut quote, mut escaped) = (0, None, false);
    for ch in line.chars() {
        match (quote, ch) {
            (Some('"'), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), c) if c == q && !escaped => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(ch),
            (None, '#') => break,
            (None, '[') => n += 1,
            (None, ']') => n -= 1,
            (None, _) => {}
        }
        escaped = false;
    }
    n
}

/// The `# ...` comment at the end of a `key = "value"` line, if any.
fn comment_of(line: &str) -> Option<&str> {
    let mut quoted = false;
    for (i, ch) in line.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '#' if !quoted => return Some(&line[i..]),
            _ => {}
        }
    }
    None
}

/// Writes `clock` into `dir/contest.toml` (a temporary file renamed over it) and checks that
/// the result loads; if it does not, the old file is put back and the error returned.
pub fn rewrite(
    dir: &Path,
    problems: &Path,
    clock: &Clock,
    offset_s: i32,
) -> Result<Contest, String> {
    rewrite_with(dir, problems, |old| rewrite_text(old, clock, offset_s))
}

/// Writes `finalized = "<at>"` into `dir/contest.toml`, as [`rewrite`] does.
pub fn finalize(dir: &Path, problems: &Path, at_ms: i64, offset_s: i32) -> Result<Contest, String> {
    let value = format!("\"{}\"", rfc3339(at_ms, offset_s));
    rewrite_with(dir, problems, |old| {
        rewrite_keys(old, vec![("finalized", Some(value.clone()))])
    })
}

fn rewrite_with(
    dir: &Path,
    problems: &Path,
    change: impl Fn(&str) -> String,
) -> Result<Contest, String> {
    let file = dir.join("contest.toml");
    let old = std::fs::read_to_string(&file)
        .map_err(|e| format!("{}: failed to read: {e}", file.display()))?;
    let new = change(&old);
    let tmp = dir.join(".contest.toml.new");
    std::fs::write(&tmp, &new)
        .and_then(|()| std::fs::rename(&tmp, &file))
        .map_err(|e| format!("{}: failed to write: {e}", file.display()))?;
    match Contest::load(dir, problems) {
        Ok(c) => Ok(c),
        Err(e) => {
            let _ = std::fs::write(&file, &old);
            Err(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contest(start_ms: i64, minutes: u64, freeze: Option<u64>) -> Contest {
        Contest {
            id: "c".into(),
            dir: std::path::PathBuf::new(),
            title: "c".into(),
            start_ms,
            utc_offset_s: 0,
            duration: Duration::from_secs(minutes * 60),
            freeze: freeze.map(|m| Duration::from_secs(m * 60)),
            scoring: crate::model::Scoring::Icpc,
            penalty_minutes: 20,
            compile_errors_count: false,
            problems: Vec::new(),
            participants: crate::model::Participants::Anyone,
            public_standings: true,
            teams: Vec::new(),
            awards: Default::default(),
            finalized_ms: None,
            feedback: Default::default(),
        }
    }

    #[test]
    fn changes_follow_the_phase_and_keep_the_freeze_time() {
        let min = 60_000;
        let c = contest(100 * min, 120, Some(60)); // freezes at minute 160
        assert!(ClockChange::EndNow.apply(&c, 0).is_err(), "not running");
        assert!(ClockChange::Delay(0).apply(&c, 0).is_err());
        let d = ClockChange::Delay(15).apply(&c, 0).expect("delay");
        assert_eq!(d.start_ms, 115 * min);
        let s = ClockChange::StartNow
            .apply(&c, 7 * min + 1234)
            .expect("start");
        assert_eq!(s.start_ms, 7 * min + 1000, "whole seconds");
        assert!(
            ClockChange::StartNow.apply(&c, 101 * min).is_err(),
            "started"
        );
        let e = ClockChange::Extend(30)
            .apply(&c, 150 * min)
            .expect("extend");
        assert_eq!(
            (e.duration.as_secs(), e.freeze),
            (150 * 60, Some(Duration::from_secs(90 * 60)))
        );
        // Ended before the freeze time: no freeze; after it: the same freeze time.
        let early = ClockChange::EndNow.apply(&c, 130 * min + 500).expect("end");
        assert_eq!((early.duration.as_secs(), early.freeze), (30 * 60, None));
        let late = ClockChange::EndNow.apply(&c, 170 * min).expect("end");
        assert_eq!(late.duration.as_secs(), 70 * 60);
        assert_eq!(late.freeze, Some(Duration::from_secs(10 * 60)));
        assert!(ClockChange::Extend(5).apply(&c, 300 * min).is_err(), "over");
    }

    /// The freeze's length changes before the start, or while running while the new freeze
    /// time is still to come; never while frozen, after the end, or to before the start.
    #[test]
    fn the_freeze_length_changes_only_while_its_time_is_to_come() {
        let min = 60_000;
        let c = contest(100 * min, 120, Some(60)); // runs 100..220, freezes at minute 160
        let f = |m, now| ClockChange::FreezeLast(m).apply(&c, now);
        assert_eq!(f(30, 0).unwrap().freeze, Some(Duration::from_secs(30 * 60)));
        assert_eq!(f(0, 0).unwrap().freeze, None, "0: no freeze");
        assert_eq!(f(30, 0).unwrap().start_ms, 100 * min, "the start stays");
        assert!(f(120, 0).unwrap_err().contains("before the contest does"));
        // Running at minute 150: a freeze from minute 190 is to come, one from 140 has passed.
        assert_eq!(
            f(30, 150 * min).unwrap().freeze,
            Some(Duration::from_secs(30 * 60))
        );
        assert!(f(80, 150 * min)
            .unwrap_err()
            .contains("would have started already"));
        assert_eq!(f(0, 150 * min).unwrap().freeze, None);
        // Frozen (minute 170) and over (minute 230): refused.
        assert!(f(30, 170 * min).unwrap_err().contains("frozen already"));
        assert!(f(30, 230 * min).unwrap_err().contains("over"));
        assert_eq!(ClockChange::FreezeLast(45).name(), "freeze the last 45 min");
    }

    #[test]
    fn spans_read_back() {
        for (secs, text) in [
            (90 * 60, "1h30m"),
            (45, "45s"),
            (3605, "1h0m5s"),
            (0, "0s"),
            (7200, "2h"),
        ] {
            let d = Duration::from_secs(secs);
            assert_eq!(format_span(d), text);
            if secs > 0 {
                assert_eq!(super::super::model::parse_span(text), Some(d), "{text}");
            }
        }
    }

    #[test]
    fn only_the_clock_lines_change() {
        let text =
            "title = \"x\"\nstart = \"2026-11-01T09:00:00+08:00\"   # when\nduration = \"5h\"\n\
                    freeze = \"1h\"\n\n[[problem]]\nid = \"a\"\nstart = \"not me\"\n";
        let clock = Clock {
            start_ms: 1_800_000_000_000,
            duration: Duration::from_secs(5 * 3600 + 600),
            freeze: None,
        };
        let out = rewrite_text(text, &clock, 8 * 3600);
        assert_eq!(
            out,
            "title = \"x\"\nstart = \"2027-01-15T16:00:00+08:00\"   # when\nduration = \"5h10m\"\n\n\
             [[problem]]\nid = \"a\"\nstart = \"not me\"\n"
        );
        let added = rewrite_text(
            "title = \"x\"\n[[problem]]\nid = \"a\"\n",
            &Clock {
                freeze: Some(Duration::from_secs(60)),
                ..clock
            },
            0,
        );
        assert!(added.contains("freeze = \"1m\"\n[[problem]]"), "{added}");
    }

    #[test]
    fn a_value_over_several_lines_is_replaced_whole() {
        let text =
            "title = \"x\"\nparticipants = [   # the hall\n  \"alice\",  # \"]\n  \"b]ob\",\n]\n\
                    feedback = \"all\"\n[[problem]]\nid = \"a\"\n";
        let out = rewrite_keys(
            text,
            vec![("participants", Some("[\"alice\", \"carol\"]".into()))],
        );
        assert_eq!(
            out,
            "title = \"x\"\nparticipants = [\"alice\", \"carol\"]   # the hall\n\
             feedback = \"all\"\n[[problem]]\nid = \"a\"\n"
        );
        let gone = rewrite_keys(text, vec![("participants", None)]);
        assert_eq!(
            gone,
            "title = \"x\"\nfeedback = \"all\"\n[[problem]]\nid = \"a\"\n"
        );
    }
}

//! Verdict baselines ([`Baseline`]) and what changed since one was saved ([`BaselineDiff`]).
//!
//! The file is plain text so that a change of verdicts reads as a change of lines in a git diff:
//!
//! ```text
//! # ojd verify baseline, format 2
//! # problem<TAB>submission<TAB>test<TAB>verdict<TAB>cpu_ms<TAB>limit_ms<TAB>source<TAB>input
//! huarong<TAB>accepted/noip_spfa.cpp<TAB>01-same-cell<TAB>AC<TAB>3<TAB>1000<TAB>1f0c…<TAB>9a3e…
//! ```
//!
//! One line per (problem, submission, test), fields separated by one TAB, lines sorted byte-wise
//! (the order of `LC_ALL=C sort`), so two saves of the same verdicts differ only where times
//! moved. Lines starting with `#` and blank lines are ignored. The README documents each field.
//!
//! Format 2 adds what the cell ran ([`Ran`]): the submission's CPU time limit in that run, and
//! the first 16 hex digits of the SHA-256 of the submission's source file and of the test's
//! input file (what `sha256sum` prints, cut short: [`content_hash`]), so that a reader of the
//! file can tell which program on which input a time belongs to. Verify itself no longer acts
//! on them (they let a clear TLE be judged at the exact limit, a route issue 26 removed); a save
//! writes them all the same, so the format stays 2. Format-1 files (five fields) are still
//! read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use ojd_judge::Verdict;

/// The first line of a baseline written today; a reader refuses files of other formats.
const HEADER: &str = "# ojd verify baseline, format 2";

/// The first line of a baseline of format 1 (no [`Ran`] columns), still read.
const HEADER_1: &str = "# ojd verify baseline, format 1";

/// A time grows only when it also grows by this much: tiny times are mostly noise.
const MIN_GROWTH_MS: u64 = 100;

/// What a baseline line is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Key {
    /// The problem's id.
    pub problem: String,
    /// Path under `submissions/` ("accepted/x.cpp"), or the reference's path ("solution.rs").
    pub submission: String,
    /// The test's name.
    pub test: String,
}

/// What a baseline line records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Record {
    pub(crate) verdict: Verdict,
    pub(crate) cpu_ms: u64,
}

/// What a recorded run ran: what decides its time, besides the machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ran {
    /// The submission's CPU time limit (the problem's, times its language's factor).
    pub(crate) limit_ms: u64,
    /// [`content_hash`] of the submission's source file.
    pub(crate) source: u64,
    /// [`content_hash`] of the test's input file.
    pub(crate) input: u64,
}

/// The first 8 bytes of the SHA-256 of `bytes`, as a number: printed as 16 hex digits it is the
/// start of what `sha256sum` prints for the file.
pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(bytes);
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    u64::from_be_bytes(first)
}

/// Every recorded (problem, submission, test) → verdict and time, and (format 2) what it ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Baseline {
    pub(crate) entries: BTreeMap<Key, Record>,
    /// What each entry ran; empty for a format-1 file, and missing for an entry saved as `-`.
    pub(crate) ran: BTreeMap<Key, Ran>,
}

/// Why a baseline file could not be read, parsed or written; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file could not be read.
    #[error("failed to read baseline {path}")]
    Read {
        /// The baseline file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("failed to write baseline {path}")]
    Write {
        /// The baseline file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line of the file is malformed.
    #[error("{path}: line {line}: {message}")]
    Invalid {
        /// The baseline file.
        path: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A problem, submission or test name holds a TAB or a line break, which the format cannot
    /// hold.
    #[error("{key:?}: a name holds a TAB or a line break and cannot be saved in a baseline")]
    BadName {
        /// The entry with that name.
        key: Key,
    },
}

impl Baseline {
    /// Reads a baseline file (format 1 or 2); a malformed line is an error naming its number.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Baseline::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a baseline; `path` only names it in errors.
    pub(crate) fn parse(text: &str, path: &str) -> Result<Baseline, BaselineError> {
        let bad = |line: usize, message: String| BaselineError::Invalid {
            path: path.into(),
            line,
            message,
        };
        let fields = match text.lines().next() {
            Some(HEADER) => 8,
            Some(HEADER_1) => 5,
            _ => {
                return Err(bad(
                    1,
                    format!("not a baseline (the first line must be {HEADER:?} or {HEADER_1:?})"),
                ))
            }
        };
        let mut b = Baseline::default();
        for (i, line) in text.lines().enumerate().skip(1) {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != fields {
                return Err(bad(
                    i + 1,
                    format!("expected {fields} TAB-separated fields, found {}", f.len()),
                ));
            }
            let (verdict, cpu) = (f[3], f[4]);
            let verdict = Verdict::from_code(verdict)
                .ok_or_else(|| bad(i + 1, format!("unknown verdict {verdict:?}")))?;
            let number = |name: &str, v: &str| {
                v.parse::<u64>().map_err(|_| {
                    bad(
                        i + 1,
                        format!("{name}: expected a whole number, found {v:?}"),
                    )
                })
            };
            let cpu_ms = number("cpu_ms", cpu)?;
            let key = Key {
                problem: f[0].into(),
                submission: f[1].into(),
                test: f[2].into(),
            };
            if fields == 8 && f[5..] != ["-", "-", "-"] {
                let hash = |name: &str, v: &str| match u64::from_str_radix(v, 16) {
                    Ok(h) if v.len() == 16 => Ok(h),
                    _ => Err(bad(
                        i + 1,
                        format!("{name}: expected 16 hex digits or \"-\", found {v:?}"),
                    )),
                };
                let ran = Ran {
                    limit_ms: number("limit_ms", f[5])?,
                    source: hash("source", f[6])?,
                    input: hash("input", f[7])?,
                };
                b.ran.insert(key.clone(), ran);
            }
            if b.entries.insert(key, Record { verdict, cpu_ms }).is_some() {
                return Err(bad(
                    i + 1,
                    "the same problem, submission and test appear twice".into(),
                ));
            }
        }
        Ok(b)
    }

    /// The file's text (format 2): the header, then one sorted line per entry; `-` in the three
    /// last columns where what ran is not known (an entry kept from a format-1 file).
    fn to_text(&self) -> Result<String, BaselineError> {
        let mut out = format!(
            "{HEADER}\n# problem\tsubmission\ttest\tverdict\tcpu_ms\tlimit_ms\tsource\tinput\n"
        );
        for (k, r) in &self.entries {
            if [&k.problem, &k.submission, &k.test]
                .iter()
                .any(|s| s.contains(['\t', '\n', '\r']))
            {
                return Err(BaselineError::BadName { key: k.clone() });
            }
            let ran = match self.ran.get(k) {
                Some(r) => format!("{}\t{:016x}\t{:016x}", r.limit_ms, r.source, r.input),
                None => "-\t-\t-".to_string(),
            };
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{ran}\n",
                k.problem,
                k.submission,
                k.test,
                r.verdict.code(),
                r.cpu_ms
            ));
        }
        Ok(out)
    }

    /// Writes the baseline in the current format, entries sorted; refused when a name cannot be
    /// written in it.
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        let text = self.to_text()?;
        std::fs::write(path, text).map_err(|source| BaselineError::Write {
            path: path.display().to_string(),
            source,
        })
    }

    fn problems(&self) -> BTreeSet<&str> {
        self.entries.keys().map(|k| k.problem.as_str()).collect()
    }
}

/// A verdict that flipped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Change {
    #[serde(flatten)]
    pub(crate) key: Key,
    pub(crate) before: Record,
    pub(crate) after: Record,
}

/// What changed since the baseline. Flips, additions and removals fail verification (the
/// baseline must be saved again on purpose); slower tests are reported only, since timings are
/// noisier than verdicts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct BaselineDiff {
    /// The baseline file, as named on the command line.
    pub(crate) file: String,
    pub(crate) changed: Vec<Change>,
    pub(crate) added: Vec<(Key, Record)>,
    pub(crate) removed: Vec<(Key, Record)>,
    /// Same verdict, CPU time grown by more than the threshold (and by [`MIN_GROWTH_MS`]).
    pub(crate) slower: Vec<Change>,
    /// A flip between TLE and a run that finished near the limit: timing noise, reported only.
    pub(crate) near_limit: Vec<Change>,
    /// Problems of the baseline that this run could not judge (a package error), left alone.
    pub(crate) not_compared: Vec<String>,
}

impl BaselineDiff {
    /// Whether verification fails because of this diff.
    pub(crate) fn fails(&self) -> bool {
        !(self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty())
    }
}

/// Which problems a comparison covers.
pub(crate) struct Scope<'a> {
    /// Problems this run judged.
    pub(crate) judged: &'a BTreeSet<String>,
    /// Problems this run saw but could not judge.
    pub(crate) unjudged: &'a BTreeSet<String>,
    /// Every problem was verified (none named): a baseline problem not seen at all was removed.
    pub(crate) all: bool,
    /// (problem, submission) → its CPU time limit in this run, to tell timing noise from change.
    pub(crate) limits: &'a BTreeMap<(String, String), u64>,
    /// This run's time scale (`--time-scale`): its limits are the package's times this.
    pub(crate) time_scale: f64,
}

/// Compares `now` with `old` over `scope`; `threshold` is the allowed growth of a time (0.5 = 50%).
pub(crate) fn compare(
    file: &str,
    old: &Baseline,
    now: &Baseline,
    scope: &Scope<'_>,
    threshold: f64,
) -> BaselineDiff {
    let in_scope = |p: &str| scope.judged.contains(p) || (scope.all && !scope.unjudged.contains(p));
    let mut d = BaselineDiff {
        file: file.into(),
        ..Default::default()
    };
    d.not_compared = old
        .problems()
        .into_iter()
        .filter(|p| scope.unjudged.contains(*p))
        .map(String::from)
        .collect();
    for (k, before) in old.entries.iter().filter(|(k, _)| in_scope(&k.problem)) {
        match now.entries.get(k) {
            // A cell the baseline did not run is no loss when it is not there now (its test
            // removed shows in the other submissions' cells).
            None if not_run(before) => {}
            None => d.removed.push((k.clone(), *before)),
            // SK: a cell not run (after a brute force's first clear TLE) on either side says
            // nothing about the other's verdict or time.
            Some(after) if not_run(before) || not_run(after) => {}
            Some(after) if after.verdict != before.verdict => {
                let limit = scope.limits.get(&(k.problem.clone(), k.submission.clone()));
                let c = Change {
                    key: k.clone(),
                    before: *before,
                    after: *after,
                };
                if timing_noise(before, after, limit.copied(), scope.time_scale) {
                    d.near_limit.push(c);
                } else {
                    d.changed.push(c);
                }
            }
            Some(after) if grew(before, after, threshold) => d.slower.push(Change {
                key: k.clone(),
                before: *before,
                after: *after,
            }),
            Some(_) => {}
        }
    }
    for (k, r) in now
        .entries
        .iter()
        .filter(|(k, _)| in_scope(&k.problem) && !old.entries.contains_key(*k))
    {
        d.added.push((k.clone(), *r));
    }
    d
}

/// A baseline must hold on machines from `1 / SPEED_RANGE` to `SPEED_RANGE` times the speed of
/// the one that saved it: cloud CI machines differ by twice and more, and no single factor
/// describes a machine (a memory-bound brute force ran 2.2 times faster on a machine whose
/// median over the other cells was 0.76 times the baseline's).
const SPEED_RANGE: f64 = 2.0;

/// How much a load of two runs per core slows a run (the most seen here: 1.5 to 1.9 times).
const LOAD_SLOWDOWN: f64 = 1.5;

/// A run that finished at this share of its limit or more can land on either side of the limit
/// on another machine of [`SPEED_RANGE`] under load ([`LOAD_SLOWDOWN`]): a third of the limit.
/// Its flips with TLE are timing-dependent by nature.
const BAND: f64 = 1.0 / (SPEED_RANGE * LOAD_SLOWDOWN);

/// Whether a flip between TLE and a finishing verdict is timing rather than a change: the same
/// program landing on either side of the limit on another machine or at another load.
/// `limit_ms` is this run's limit, the package's times `scale` (`--time-scale`).
///
/// The finishing run must have ended within the limit it ran under (one above the package's
/// limit cannot be AC now, so a tightened limit is a change) and at [`BAND`] of it or more: a
/// baseline's finish is measured against the package's limit (`limit_ms / scale`), this run's
/// against this run's limit. So a run at 0.5, as on a machine twice as slow, lists a brute
/// force that finished at 1.3 s of 2 s in the baseline and is a TLE at 1 s now as timing. How far past the limit the TLE
/// ran does not matter: a TLE is stopped at the limit (or 1.5 times it), so its recorded time
/// says little, and a memory-bound program's speed differs between machines by more than the
/// others'. What a package promises is checked apart from the baseline, on every run: an
/// accepted submission that times out, or a `time_limit_exceeded/` one that never does, fails
/// verification whatever the baseline says (see [`super::expect`]).
///
/// A finishing run far below the limit (a brute force at 200 ms that now times out, or one that
/// timed out and now ends in 200 ms) is a change, and so is every flip between two finishing
/// verdicts (AC and WA, WA and RE): timing does not change an answer.
fn timing_noise(before: &Record, after: &Record, limit_ms: Option<u64>, scale: f64) -> bool {
    use Verdict::*;
    let Some(limit) = limit_ms else { return false };
    let finishes =
        |v: Verdict| !matches!(v, TimeLimitExceeded | CompileError | JudgeError | Skipped);
    let (finished, limit) = match (before.verdict, after.verdict) {
        (TimeLimitExceeded, v) if finishes(v) => (after, limit as f64),
        (v, TimeLimitExceeded) if finishes(v) => (before, limit as f64 / scale),
        _ => return false,
    };
    let f = finished.cpu_ms as f64;
    f <= limit && f >= BAND * limit
}

/// A cell recorded as not run: SK, the rest of a `time_limit_exceeded/` submission's row after
/// its first clear TLE (see `run`). Never compared.
fn not_run(r: &Record) -> bool {
    r.verdict == Verdict::Skipped
}

/// A time limit caps a TLE's time, so only runs that finished are compared.
fn grew(before: &Record, after: &Record, threshold: f64) -> bool {
    after.verdict != Verdict::TimeLimitExceeded
        && after.cpu_ms >= before.cpu_ms + MIN_GROWTH_MS
        && after.cpu_ms as f64 > before.cpu_ms as f64 * (1.0 + threshold)
}

/// Parses a growth threshold: "50%" or "50" (percent).
pub fn parse_percent(s: &str) -> Result<f64, crate::ValueError> {
    let n = s.trim().trim_end_matches('%').trim();
    match n.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v / 100.0),
        _ => Err(crate::ValueError::Percent(s.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(p: &str, s: &str, t: &str) -> Key {
        Key {
            problem: p.into(),
            submission: s.into(),
            test: t.into(),
        }
    }

    fn base(rows: &[(&str, &str, &str, Verdict, u64)]) -> Baseline {
        let entries = rows
            .iter()
            .map(|(p, s, t, v, ms)| {
                (
                    key(p, s, t),
                    Record {
                        verdict: *v,
                        cpu_ms: *ms,
                    },
                )
            })
            .collect();
        Baseline {
            entries,
            ran: BTreeMap::new(),
        }
    }

    #[test]
    fn text_round_trips_sorted() {
        use Verdict::*;
        let mut b = base(&[
            ("p", "wrong_answer/x.c", "02", WrongAnswer, 5),
            ("p", "accepted/a.c", "01", Accepted, 12),
            ("ab", "s.rs", "1", TimeLimitExceeded, 1250),
        ]);
        b.ran.insert(
            key("ab", "s.rs", "1"),
            Ran {
                limit_ms: 1000,
                source: content_hash(b"fn main() {}\n"),
                input: 0xff,
            },
        );
        let text = b.to_text().unwrap();
        assert!(text.starts_with("# ojd verify baseline, format 2\n"));
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(
            lines,
            [
                // `printf 'fn main() {}\n' | sha256sum` starts with these 16 digits.
                "ab\ts.rs\t1\tTLE\t1250\t1000\t536e506bb90914c2\t00000000000000ff",
                "p\taccepted/a.c\t01\tAC\t12\t-\t-\t-",
                "p\twrong_answer/x.c\t02\tWA\t5\t-\t-\t-"
            ]
        );
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(lines, sorted, "entry order is the byte order of the lines");
        assert_eq!(Baseline::parse(&text, "b").unwrap(), b);
    }

    #[test]
    fn format_1_is_read_and_records_nothing_of_what_ran() {
        let text = "# ojd verify baseline, format 1\n# problem\tsubmission\ttest\tverdict\tcpu_ms\np\ts.rs\t1\tTLE\t1500\n";
        let b = Baseline::parse(text, "b").unwrap();
        assert_eq!(b.entries.len(), 1);
        assert!(b.ran.is_empty());
        assert!(
            b.to_text()
                .unwrap()
                .ends_with("p\ts.rs\t1\tTLE\t1500\t-\t-\t-\n"),
            "saved again as format 2, with nothing of what ran"
        );
    }

    #[test]
    fn parse_errors_name_the_line() {
        let table = [
            ("nonsense\n", "b: line 1: not a baseline"),
            (
                "# ojd verify baseline, format 1\np\ts\tt\tAC\n",
                "b: line 2: expected 5 TAB-separated fields, found 4",
            ),
            (
                "# ojd verify baseline, format 1\n\np\ts\tt\tOK\t1\n",
                "b: line 3: unknown verdict \"OK\"",
            ),
            (
                "# ojd verify baseline, format 1\np\ts\tt\tAC\tfast\n",
                "b: line 2: cpu_ms: expected a whole number",
            ),
            (
                "# ojd verify baseline, format 1\np\ts\tt\tAC\t1\np\ts\tt\tWA\t1\n",
                "b: line 3: the same problem",
            ),
            (
                "# ojd verify baseline, format 2\np\ts\tt\tAC\t1\n",
                "b: line 2: expected 8 TAB-separated fields, found 5",
            ),
            (
                "# ojd verify baseline, format 2\np\ts\tt\tAC\t1\t1000\t12ab\t-\n",
                "b: line 2: source: expected 16 hex digits or \"-\", found \"12ab\"",
            ),
            (
                "# ojd verify baseline, format 2\np\ts\tt\tAC\t1\t1s\t0123456789abcdef\t0123456789abcdef\n",
                "b: line 2: limit_ms: expected a whole number",
            ),
            (
                "# ojd verify baseline, format 3\n",
                "b: line 1: not a baseline",
            ),
        ];
        for (text, want) in table {
            let e = Baseline::parse(text, "b").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        assert!(base(&[("p", "a\tb", "t", Verdict::Accepted, 1)])
            .to_text()
            .is_err());
    }

    #[test]
    fn a_cell_not_run_on_either_side_is_not_compared() {
        use Verdict::*;
        // A brute force stops at its first clear TLE: its later cells are SK (not run).
        let old = base(&[
            ("p", "tle", "01", Accepted, 5),
            ("p", "tle", "02", TimeLimitExceeded, 1500),
            ("p", "tle", "03", TimeLimitExceeded, 1500),
            ("p", "tle", "04", Skipped, 0),
            ("p", "tle", "05", Skipped, 0),
        ]);
        let now = base(&[
            ("p", "tle", "01", Accepted, 5),
            ("p", "tle", "02", TimeLimitExceeded, 1500),
            ("p", "tle", "03", Skipped, 0),
            ("p", "tle", "04", Accepted, 300),
        ]);
        let limits: BTreeMap<(String, String), u64> =
            [(("p".to_string(), "tle".to_string()), 1000)].into();
        let judged: BTreeSet<String> = ["p".to_string()].into();
        let d = compare(
            "b",
            &old,
            &now,
            &Scope {
                judged: &judged,
                unjudged: &BTreeSet::new(),
                all: true,
                limits: &limits,
                time_scale: 1.0,
            },
            0.5,
        );
        assert!(d.changed.is_empty() && d.near_limit.is_empty(), "{d:?}");
        assert!(d.slower.is_empty() && d.added.is_empty(), "{d:?}");
        // 05 was not run in the baseline and is not there now: nothing lost.
        assert!(d.removed.is_empty(), "{d:?}");
        assert!(!d.fails());
    }

    #[test]
    fn compare_reports_each_kind_of_change() {
        use Verdict::*;
        let old = base(&[
            ("p", "s", "01", Accepted, 10),
            ("p", "s", "02", Accepted, 100),
            ("p", "s", "03", Accepted, 100),
            ("p", "s", "04", Accepted, 10),
            ("p", "s", "05", TimeLimitExceeded, 1250),
            ("p", "s", "07", Accepted, 900),
            ("p", "s", "08", Accepted, 200),
            ("q", "s", "01", Accepted, 1),
            ("gone", "s", "01", Accepted, 1),
        ]);
        let now = base(&[
            ("p", "s", "01", WrongAnswer, 10),
            ("p", "s", "02", Accepted, 400),
            ("p", "s", "03", Accepted, 160),
            ("p", "s", "05", TimeLimitExceeded, 1300),
            ("p", "s", "06", Accepted, 1),
            ("p", "s", "07", TimeLimitExceeded, 1500),
            ("p", "s", "08", TimeLimitExceeded, 1500),
        ]);
        let limits: BTreeMap<(String, String), u64> =
            [(("p".to_string(), "s".to_string()), 1000)].into();
        let judged: BTreeSet<String> = ["p".to_string()].into();
        let unjudged: BTreeSet<String> = ["q".to_string()].into();
        let d = compare(
            "b",
            &old,
            &now,
            &Scope {
                judged: &judged,
                unjudged: &unjudged,
                all: true,
                limits: &limits,
                time_scale: 1.0,
            },
            0.5,
        );
        let keys = |v: &[Change]| v.iter().map(|c| c.key.test.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&d.changed), ["01", "08"]);
        assert_eq!(
            keys(&d.near_limit),
            ["07"],
            "900 ms of a 1000 ms limit, then a TLE: noise"
        );
        assert_eq!(
            keys(&d.slower),
            ["02"],
            "03 grew by 60 ms only; a TLE's time is capped"
        );
        let removed: Vec<_> = d
            .removed
            .iter()
            .map(|(k, _)| (k.problem.as_str(), k.test.as_str()))
            .collect();
        assert_eq!(removed, [("gone", "01"), ("p", "04")]);
        assert_eq!(d.added.len(), 1);
        assert_eq!(d.not_compared, ["q"]);
        assert!(d.fails());
        let named = compare(
            "b",
            &old,
            &now,
            &Scope {
                judged: &judged,
                unjudged: &unjudged,
                all: false,
                limits: &limits,
                time_scale: 1.0,
            },
            0.5,
        );
        assert_eq!(
            named.removed.len(),
            1,
            "problems not named are not compared"
        );
        assert!(!compare(
            "b",
            &now,
            &now,
            &Scope {
                judged: &judged,
                unjudged: &unjudged,
                all: true,
                limits: &limits,
                time_scale: 1.0,
            },
            0.5
        )
        .fails());
    }

    #[test]
    fn timing_noise_table() {
        use Verdict::*;
        let r = |verdict, cpu_ms| Record { verdict, cpu_ms };
        // (before, after, noise?) at a 1000 ms limit.
        let table = [
            // A finish near the limit, then a TLE of any time, and back.
            (r(Accepted, 747), r(TimeLimitExceeded, 1003), true),
            (r(Accepted, 747), r(TimeLimitExceeded, 1520), true),
            (r(TimeLimitExceeded, 1520), r(Accepted, 747), true),
            (r(TimeLimitExceeded, 1001), r(Accepted, 550), true),
            (r(WrongAnswer, 800), r(TimeLimitExceeded, 1100), true),
            (r(TimeLimitExceeded, 1500), r(RuntimeError, 400), true),
            // The band's edge: a third of the limit.
            (r(Accepted, 334), r(TimeLimitExceeded, 1100), true),
            (r(Accepted, 333), r(TimeLimitExceeded, 1100), false),
            // Far from the limit: a real change.
            (r(Accepted, 200), r(TimeLimitExceeded, 1520), false),
            (r(TimeLimitExceeded, 1001), r(Accepted, 200), false),
            // Finished above this run's limit (a tightened limit): a change.
            (r(Accepted, 1100), r(TimeLimitExceeded, 1200), false),
            // Timing does not change an answer.
            (r(Accepted, 900), r(WrongAnswer, 900), false),
            (r(WrongAnswer, 900), r(RuntimeError, 900), false),
            (r(CompileError, 0), r(TimeLimitExceeded, 1100), false),
            (r(TimeLimitExceeded, 1100), r(JudgeError, 900), false),
        ];
        for (before, after, want) in table {
            assert_eq!(
                timing_noise(&before, &after, Some(1000), 1.0),
                want,
                "{before:?} -> {after:?}"
            );
        }
        assert!(
            !timing_noise(&r(Accepted, 900), &r(TimeLimitExceeded, 1100), None, 1.0),
            "a submission without a limit in this run"
        );
    }

    #[test]
    fn flips_seen_on_other_machines_are_timing() {
        use Verdict::*;
        let r = |verdict, cpu_ms| Record { verdict, cpu_ms };
        let noise = |before, after| timing_noise(&before, &after, Some(2000), 1.0);
        // A fresh clone's CI on another machine of the same kind: holedox's brute force on
        // 06-open-max-far, a TLE stopped at 1.5 times the 2 s limit in the baseline, finished
        // in 1,359 to 1,410 ms there (the rest of its cells ran at 0.76 times the baseline's).
        assert!(noise(r(TimeLimitExceeded, 3004), r(Accepted, 1359)));
        assert!(noise(r(TimeLimitExceeded, 3004), r(Accepted, 1410)));
        // The same brute force on 21-hard-serpentine-4: 972 ms of 2 s in the baseline, a TLE
        // on a day this machine ran everything 1.3 times slower.
        assert!(noise(r(Accepted, 972), r(TimeLimitExceeded, 2004)));
        assert!(noise(r(Accepted, 972), r(TimeLimitExceeded, 3004)));
        // Twice as slow and loaded cannot bring 400 ms to 2 s: a change.
        assert!(!noise(r(Accepted, 400), r(TimeLimitExceeded, 3004)));
    }

    #[test]
    fn a_time_scale_measures_each_finish_against_the_limit_it_ran_under() {
        use Verdict::*;
        let r = |verdict, cpu_ms| Record { verdict, cpu_ms };
        // --time-scale 0.5 on holedox: this run's limit 1 s, the package's 2 s. brute.rs on
        // 08-closed-mixed finished in 1,299 ms in the baseline and is a TLE at 1 s now.
        let half = |before, after| timing_noise(&before, &after, Some(1000), 0.5);
        assert!(half(r(Accepted, 1299), r(TimeLimitExceeded, 1001)));
        assert!(
            !half(r(Accepted, 600), r(TimeLimitExceeded, 1001)),
            "under a third of 2 s"
        );
        // A finish now is measured against this run's limit.
        assert!(half(r(TimeLimitExceeded, 3001), r(Accepted, 400)));
        assert!(!half(r(TimeLimitExceeded, 3001), r(Accepted, 300)));
        // At 2.0 (limit 4 s, the package's 2 s): a baseline finish above 2 s was under a
        // different limit, a tightened one; a finish now at 3.3 s is within this run's 4 s.
        let twice = |before, after| timing_noise(&before, &after, Some(4000), 2.0);
        assert!(!twice(r(Accepted, 2100), r(TimeLimitExceeded, 4001)));
        assert!(twice(r(TimeLimitExceeded, 3001), r(Accepted, 3284)));
    }

    #[test]
    fn percentages() {
        for (s, want) in [
            ("50%", Some(0.5)),
            ("25", Some(0.25)),
            (" 0 % ", Some(0.0)),
            ("-5%", None),
            ("fast", None),
        ] {
            assert_eq!(parse_percent(s).ok(), want, "{s}");
        }
        let e = parse_percent("fast").unwrap_err();
        assert_eq!(e, crate::ValueError::Percent("fast".into()));
        assert_eq!(
            e.to_string(),
            "expected a percentage like \"50%\", found \"fast\""
        );
    }
}

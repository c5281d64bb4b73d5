//! `ojd calibrate`: a problem's time limit from its own submissions, by the Kattis rule.
//!
//! Every accepted submission (the reference included) is judged alone, one run at a time,
//! [`CalibrateOptions::repeats`] times on every test with a generous limit; a (submission, test)
//! counts its fastest run, since interference from other load only ever adds CPU time. Its CPU
//! time is divided by its language's `time_factor`, so a limit is always in C++ terms. The
//! slowest of those, times [`CalibrateOptions::multiplier`] and rounded up to
//! [`CalibrateOptions::resolution`], is the proposed limit; the submission and test it came from
//! "decide" it. Then every `time_limit_exceeded/` submission is judged with
//! [`CalibrateOptions::safety`] times the proposed limit and must still exceed it on some test —
//! otherwise the limit cannot tell it from an accepted one, and calibration fails.
//!
//! # Borderline proposals
//! A fastest-of-repeats time still varies between calibrations (on the shared 2-core build host
//! the same accepted run measured 476–559 ms alone on a quiet machine, minutes apart). When the
//! decider's time × multiplier and the same time [`CalibrateOptions::noise`] slower round up to
//! different steps, the proposal is *borderline*: either step is the rule's answer depending on
//! the run. Then a committed limit equal to either step agrees; otherwise the higher step is the
//! one proposed (an accepted submission must not fail on a slower day). The TLE submissions are
//! checked against the limit that would stand.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Serialize;

use ojd_judge::format_duration;
use ojd_judge::Problem;
use ojd_judge::Verdict;
use ojd_judge::{Judge, JudgeError, Submission};

/// The rule's parameters.
#[derive(Clone, Debug)]
pub struct CalibrateOptions {
    /// Runs alone of each accepted submission on each test; the fastest counts.
    pub repeats: usize,
    /// The limit is the slowest accepted CPU time times this (Kattis: 2).
    pub multiplier: f64,
    /// ... rounded up to a multiple of this (Kattis: 1 s).
    pub resolution: Duration,
    /// Every TLE submission must exceed this many times the limit (Kattis: 1.5).
    pub safety: f64,
    /// How much slower the decider may run on another day (0.2 = 20%); see the module docs.
    pub noise: f64,
}

impl Default for CalibrateOptions {
    fn default() -> Self {
        CalibrateOptions {
            repeats: 3,
            multiplier: 2.0,
            resolution: Duration::from_secs(1),
            safety: 1.5,
            noise: 0.2,
        }
    }
}

impl CalibrateOptions {
    /// These options with the package's own margins (`[limits]` of problem.toml) as the rule's
    /// multiplier (`ac_to_time_limit`) and the TLE submissions' line (`time_limit_to_tle`): the
    /// limit is proposed by the promise verify checks.
    pub fn for_package(&self, m: &ojd_judge::Margins) -> CalibrateOptions {
        CalibrateOptions {
            multiplier: m.ac_to_time_limit,
            safety: m.time_limit_to_tle,
            ..self.clone()
        }
    }
}

/// Accepted submissions are judged with this many times the committed limit, so that a slow
/// one is measured rather than cut off.
const GENEROUS: f64 = 4.0;

/// Why calibrating a problem failed.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// The package is invalid, or its submissions could not be listed.
    #[error("{dir}: {}", .errors.join("; "))]
    Package {
        /// The package's folder.
        dir: String,
        /// Every problem found, each naming its file.
        errors: Vec<String>,
    },
    /// The judge failed on a submission (a host fault or an unusable toolchain, never a verdict).
    #[error("{problem}: {submission}: {source}")]
    Judge {
        /// The problem's id.
        problem: String,
        /// The submission's path under `submissions/`.
        submission: String,
        /// The judge's error.
        #[source]
        source: JudgeError,
    },
    /// The new time limit could not be written into `problem.toml`.
    #[error("failed to write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `problem.toml` has no top-level `time_limit` line to replace ([`write_limit`] edits that
    /// line only, keeping every other line as written).
    #[error("{path}: no top-level `time_limit = ...` line to replace")]
    NoTimeLimitLine {
        /// The `problem.toml` file.
        path: PathBuf,
    },
}

/// The slowest test of one accepted submission.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct AcceptedTiming {
    pub(crate) submission: String,
    pub(crate) language: String,
    pub(crate) time_factor: f64,
    /// The test of its slowest (fastest-of-repeats) run, and that CPU time as measured.
    pub(crate) test: String,
    pub(crate) cpu_ms: u64,
    /// `cpu_ms / time_factor`: what it weighs in the rule.
    pub(crate) normalized_ms: u64,
}

/// How a TLE submission fared at `safety` times the proposed limit.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct TleCheck {
    pub(crate) submission: String,
    /// It exceeded the safety limit on some test, as its folder promises.
    pub(crate) exceeds: bool,
    pub(crate) verdict: Verdict,
    /// The test that decided it (the TLE one, or its slowest) and that run's CPU time.
    pub(crate) test: String,
    pub(crate) cpu_ms: u64,
    pub(crate) limit_ms: u64,
}

/// What calibrating one problem found.
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    pub(crate) problem: String,
    pub(crate) dir: PathBuf,
    /// The time limit committed in `problem.toml`, in milliseconds.
    pub committed_ms: u64,
    /// The rule applied to the decider's measured time.
    pub(crate) proposed_ms: u64,
    /// The rule applied to the decider's time [`CalibrateOptions::noise`] slower, when that is
    /// another step: the proposal is borderline.
    pub(crate) borderline_ms: Option<u64>,
    /// The limit calibration stands by: the proposal; when borderline, the committed limit if
    /// it is either step, else the higher step. `--write` writes this one.
    pub limit_ms: u64,
    /// Every accepted submission's slowest test; the first one decides.
    pub(crate) accepted: Vec<AcceptedTiming>,
    pub(crate) tle: Vec<TleCheck>,
    /// Accepted submissions that were not accepted even with a generous limit.
    pub(crate) problems: Vec<String>,
    /// `--write` changed problem.toml.
    pub written: bool,
}

impl Calibration {
    /// The submission and test that decide the limit.
    fn decider(&self) -> Option<&AcceptedTiming> {
        self.accepted.first()
    }

    /// The proposal is usable: every accepted submission passed and every TLE one exceeds it.
    pub fn sound(&self) -> bool {
        self.problems.is_empty() && self.tle.iter().all(|t| t.exceeds) && self.decider().is_some()
    }

    /// 0 sound and agreeing with (or written to) problem.toml, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.sound() && (self.limit_ms == self.committed_ms || self.written) {
            0
        } else {
            1
        }
    }
}

/// The rule with `opts`' multiplier and resolution; see [`kattis_limit`].
fn propose(slowest: Duration, opts: &CalibrateOptions) -> Duration {
    kattis_limit(slowest, opts.multiplier, opts.resolution)
}

/// The rule for `slowest`, and for `slowest` [`CalibrateOptions::noise`] slower when that gives
/// another (higher) step: `(proposal, Some(higher))` is a borderline proposal.
fn propose_with_noise(slowest: Duration, opts: &CalibrateOptions) -> (Duration, Option<Duration>) {
    let proposed = propose(slowest, opts);
    let slower = propose(slowest.mul_f64(1.0 + opts.noise.max(0.0)), opts);
    (proposed, (slower != proposed).then_some(slower))
}

/// Kattis's time-limit rule, the one place it is computed (`ojd calibrate` and the import of a
/// Kattis package without a time limit): `slowest × multiplier`, rounded up to `resolution`,
/// never zero.
pub fn kattis_limit(slowest: Duration, multiplier: f64, resolution: Duration) -> Duration {
    let res = resolution.as_nanos().max(1);
    let raw = slowest.mul_f64(multiplier).as_nanos();
    let steps = raw.div_ceil(res).max(1);
    Duration::from_nanos((steps * res) as u64)
}

/// Calibrates the problem in `dir`; `progress(done, total, item)` after each judging.
pub fn calibrate(
    judge: &Judge,
    dir: &Path,
    opts: &CalibrateOptions,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Calibration, CalibrateError> {
    let (problem, subs) = crate::discover::known_submissions(judge, dir).map_err(|errors| {
        CalibrateError::Package {
            dir: dir.display().to_string(),
            errors,
        }
    })?;
    let opts = &opts.for_package(&problem.margins);
    let accepted: Vec<_> = subs
        .iter()
        .filter(|s| s.expected == Verdict::Accepted)
        .collect();
    let tle: Vec<_> = subs
        .iter()
        .filter(|s| s.expected == Verdict::TimeLimitExceeded)
        .collect();
    let total = accepted.len() * opts.repeats.max(1) + tle.len();
    let mut done = 0;
    let mut cal = Calibration {
        problem: problem.id.clone(),
        dir: dir.to_path_buf(),
        committed_ms: ms(problem.time_limit),
        proposed_ms: 0,
        borderline_ms: None,
        limit_ms: 0,
        accepted: Vec::new(),
        tle: Vec::new(),
        problems: Vec::new(),
        written: false,
    };
    let judge_at = |sub: &Submission, name: &str, limit: Duration| {
        let mut p: Problem = problem.clone();
        let scale = limit.as_secs_f64() / problem.time_limit.as_secs_f64().max(1e-9);
        p.time_limit = limit;
        p.wall_time_limit = problem.wall_time_limit.map(|w| w.mul_f64(scale));
        judge
            .judge(&p, sub, &mut |_| {}, &AtomicBool::new(false))
            .map_err(|source| CalibrateError::Judge {
                problem: problem.id.clone(),
                submission: name.to_string(),
                source,
            })
    };
    let generous = problem.time_limit.mul_f64(GENEROUS);
    for s in &accepted {
        let factor = judge
            .language(&s.submission.language)
            .map_or(1.0, |l| l.time_factor);
        let mut best: Vec<Option<u64>> = vec![None; problem.tests.len()];
        let mut failed = None;
        for _ in 0..opts.repeats.max(1) {
            let report = judge_at(&s.submission, &s.name, generous)?;
            done += 1;
            progress(done, total, &s.name);
            if report.verdict != Verdict::Accepted {
                let why = report
                    .tests
                    .iter()
                    .find(|t| t.verdict == report.verdict)
                    .map(|t| format!(" on {}: {}", t.name, t.message))
                    .unwrap_or_default();
                failed = Some(format!(
                    "{} got {} with {} ({}× the committed limit){why}",
                    s.name,
                    report.verdict,
                    format_duration(generous),
                    GENEROUS
                ));
                break;
            }
            for (b, t) in best.iter_mut().zip(&report.tests) {
                *b = Some(b.map_or(t.cpu_ms, |b| b.min(t.cpu_ms)));
            }
        }
        if let Some(why) = failed {
            cal.problems.push(why);
            continue;
        }
        let slowest = best
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (i, b)))
            .max_by_key(|&(_, b)| b);
        if let Some((i, cpu_ms)) = slowest {
            cal.accepted.push(AcceptedTiming {
                submission: s.name.clone(),
                language: s.submission.language.clone(),
                time_factor: factor,
                test: problem.tests[i].name.clone(),
                cpu_ms,
                normalized_ms: (cpu_ms as f64 / factor).round() as u64,
            });
        }
    }
    cal.accepted.sort_by(|a, b| {
        b.normalized_ms
            .cmp(&a.normalized_ms)
            .then(a.submission.cmp(&b.submission))
    });
    let Some(decider) = cal.decider() else {
        return Ok(cal);
    };
    let (proposed, borderline) =
        propose_with_noise(Duration::from_millis(decider.normalized_ms), opts);
    cal.proposed_ms = ms(proposed);
    cal.borderline_ms = borderline.map(ms);
    cal.limit_ms = match cal.borderline_ms {
        Some(high) if cal.committed_ms != cal.proposed_ms && cal.committed_ms != high => high,
        Some(_) => cal.committed_ms,
        None => cal.proposed_ms,
    };
    let at = Duration::from_millis(cal.limit_ms).mul_f64(opts.safety);
    for s in &tle {
        let report = judge_at(&s.submission, &s.name, at)?;
        done += 1;
        progress(done, total, &s.name);
        let decisive = report
            .tests
            .iter()
            .find(|t| t.verdict == Verdict::TimeLimitExceeded)
            .or_else(|| report.tests.iter().max_by_key(|t| t.cpu_ms));
        let factor = judge
            .language(&s.submission.language)
            .map_or(1.0, |l| l.time_factor);
        cal.tle.push(TleCheck {
            submission: s.name.clone(),
            exceeds: report.verdict == Verdict::TimeLimitExceeded,
            verdict: report.verdict,
            test: decisive.map(|t| t.name.clone()).unwrap_or_default(),
            cpu_ms: decisive.map_or(0, |t| t.cpu_ms),
            limit_ms: ms(at.mul_f64(factor)),
        });
    }
    Ok(cal)
}

/// Writes `limit` as the `time_limit` of the problem.toml in `dir`, keeping every other line.
pub fn write_limit(dir: &Path, limit: Duration) -> Result<(), CalibrateError> {
    let path = dir.join("problem.toml");
    let text = std::fs::read_to_string(&path).map_err(|source| CalibrateError::Write {
        path: path.clone(),
        source,
    })?;
    let new = replace_time_limit(&text, limit)
        .ok_or_else(|| CalibrateError::NoTimeLimitLine { path: path.clone() })?;
    std::fs::write(&path, new).map_err(|source| CalibrateError::Write { path, source })
}

/// `text` with its top-level `time_limit = ...` line set to `limit` (a comment after the value
/// is kept); `None` when there is no such line before the first table.
fn replace_time_limit(text: &str, limit: Duration) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut done = false;
    let mut top = true;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') {
            top = false;
        }
        let key = t.split('=').next().map(str::trim);
        if top && !done && key == Some("time_limit") && t.contains('=') {
            let indent = &line[..line.len() - t.len()];
            let comment = t
                .find('#')
                .map(|h| t[t[..h].trim_end().len()..].trim_end())
                .unwrap_or("");
            let eol = if line.ends_with("\r\n") {
                "\r\n"
            } else if line.ends_with('\n') {
                "\n"
            } else {
                ""
            };
            out.push_str(&format!(
                "{indent}time_limit = \"{}\"{comment}{eol}",
                format_duration(limit)
            ));
            done = true;
        } else {
            out.push_str(line);
        }
    }
    done.then_some(out)
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// A human summary of one calibration.
pub fn render(cal: &Calibration, opts: &CalibrateOptions) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let d = |ms: u64| format_duration(Duration::from_millis(ms));
    let _ = writeln!(s, "{}:", cal.problem);
    for a in &cal.accepted {
        let factor = if (a.time_factor - 1.0).abs() > f64::EPSILON {
            format!(
                " (= {} ms at time factor {})",
                a.normalized_ms, a.time_factor
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  accepted {:<34} slowest {:>5} ms on {}{factor}",
            a.submission, a.cpu_ms, a.test
        );
    }
    for p in &cal.problems {
        let _ = writeln!(s, "  FAILED: {p}");
    }
    match cal.decider() {
        None => {
            let _ = writeln!(s, "  no accepted run: nothing to calibrate from");
        }
        Some(dec) => {
            let _ = writeln!(
                s,
                "  proposed time limit {} = {} ms × {} rounded up to {} (decided by {} on {}, fastest of {} runs alone)",
                d(cal.proposed_ms),
                dec.normalized_ms,
                opts.multiplier,
                format_duration(opts.resolution),
                dec.submission,
                dec.test,
                opts.repeats.max(1)
            );
            if let Some(high) = cal.borderline_ms {
                let _ = writeln!(
                    s,
                    "  borderline: {} ms, {:.0}% slower on another day, gives {}; either step is the rule's answer, {} stands",
                    dec.normalized_ms,
                    opts.noise * 100.0,
                    d(high),
                    d(cal.limit_ms)
                );
            }
        }
    }
    for t in &cal.tle {
        let _ = if t.exceeds {
            writeln!(
                s,
                "  ok: {} exceeds {}× the limit ({} ms) on {}",
                t.submission, opts.safety, t.limit_ms, t.test
            )
        } else {
            writeln!(
                s,
                "  FAILED: {} got {} within {}× the limit ({} ms; slowest {} ms on {}): the limit cannot separate it from the accepted ones",
                t.submission, t.verdict, opts.safety, t.limit_ms, t.cpu_ms, t.test
            )
        };
    }
    let verdict = if !cal.sound() {
        "no sound limit: see FAILED above".to_string()
    } else if cal.limit_ms == cal.committed_ms {
        format!("agrees with the committed {}", d(cal.committed_ms))
    } else if cal.written {
        format!(
            "problem.toml changed from {} to {}",
            d(cal.committed_ms),
            d(cal.limit_ms)
        )
    } else {
        format!(
            "differs from the committed {}: {} stands (write it with --write)",
            d(cal.committed_ms),
            d(cal.limit_ms)
        )
    };
    let _ = writeln!(s, "  {verdict}");
    s
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_packages_margins_are_the_rule() {
        use ojd_judge::Margins;
        let o = CalibrateOptions::default().for_package(&Margins::default());
        assert_eq!((o.multiplier, o.safety), (2.0, 1.5));
        let o = CalibrateOptions {
            repeats: 5,
            ..CalibrateOptions::default()
        }
        .for_package(&Margins {
            ac_to_time_limit: 3.0,
            time_limit_to_tle: 4.0,
        });
        assert_eq!((o.multiplier, o.safety, o.repeats), (3.0, 4.0, 5));
        // 300 ms × 3, rounded up to a second.
        assert_eq!(
            propose(Duration::from_millis(300), &o),
            Duration::from_secs(1)
        );
        assert_eq!(
            propose(Duration::from_millis(400), &o),
            Duration::from_secs(2)
        );
    }

    use super::*;

    #[test]
    fn the_rule_rounds_up_to_the_resolution() {
        let o = CalibrateOptions {
            resolution: Duration::from_millis(100),
            ..CalibrateOptions::default()
        };
        let p = |ms| propose(Duration::from_millis(ms), &o).as_millis();
        assert_eq!(p(0), 100);
        assert_eq!(p(50), 100);
        assert_eq!(p(51), 200);
        assert_eq!(p(412), 900);
        assert_eq!(p(500), 1000);
        let o = CalibrateOptions::default();
        assert_eq!(propose(Duration::from_millis(501), &o).as_millis(), 2000);
        // The legacy Kattis multiplier, as the import uses it: whole seconds, at least one.
        let s = Duration::from_secs(1);
        let k = |ms, m| kattis_limit(Duration::from_millis(ms), m, s).as_millis();
        assert_eq!(k(0, 5.0), 1000);
        assert_eq!(k(200, 5.0), 1000);
        assert_eq!(k(201, 5.0), 2000);
        assert_eq!(k(1400, 2.0), 3000);
    }

    #[test]
    fn a_proposal_within_the_noise_of_a_step_is_borderline() {
        let o = CalibrateOptions::default();
        let p = |ms| {
            let (p, b) = propose_with_noise(Duration::from_millis(ms), &o);
            (p.as_millis(), b.map(|b| b.as_millis()))
        };
        // holedox's bfs_code.cpp, measured 476 and 559 ms alone on two quiet minutes.
        assert_eq!(p(476), (1000, Some(2000)));
        assert_eq!(p(559), (2000, None));
        // Far from a step: one answer.
        assert_eq!(p(321), (1000, None));
        assert_eq!(p(100), (1000, None));
        // Exactly on the step: 500 ms × 2 is 1 s, 20% slower is 2 s.
        assert_eq!(p(500), (1000, Some(2000)));
        let none = CalibrateOptions {
            noise: 0.0,
            ..CalibrateOptions::default()
        };
        assert_eq!(
            propose_with_noise(Duration::from_millis(476), &none).1,
            None
        );
    }

    #[test]
    fn only_the_top_level_time_limit_line_changes() {
        let text = "title = \"x\"\ntime_limit = \"1s\"  # tight\nmemory_limit = \"64MiB\"\n[stress]\ntime_limit = 3\n";
        let got = replace_time_limit(text, Duration::from_millis(700)).unwrap();
        assert_eq!(
            got,
            "title = \"x\"\ntime_limit = \"700ms\"  # tight\nmemory_limit = \"64MiB\"\n[stress]\ntime_limit = 3\n"
        );
        assert_eq!(
            replace_time_limit("[a]\ntime_limit = 1\n", Duration::from_secs(1)),
            None
        );
        assert_eq!(
            replace_time_limit("time_limit_extra = 1\n", Duration::from_secs(1)),
            None
        );
    }
}

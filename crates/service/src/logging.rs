//! The operator's log: `tracing` events, written as plain text lines to stderr by the
//! subscriber that the `ojd` binary installs for `ojd serve` and `ojd worker`.
//!
//! Each submission gets two structured events with the same fields, so one `grep
//! submission=42` finds its whole story: `queued` (by the API: `submission`, `user`, `problem`,
//! `language`) and `judged` (by the worker that stored the verdict: the same fields plus
//! `verdict`, `time_ms`, `host`, and `cause` for a judge error). The filter follows `RUST_LOG`'s
//! syntax (`OJD_LOG` first, then `RUST_LOG`; default `info`), e.g. `OJD_LOG=ojd=debug`.
//! Colours as the caller decides: the binary's terminal layer, by `--color` and, for `auto`,
//! whether stderr is a terminal and `NO_COLOR`, `CLICOLOR_FORCE` and `TERM`.

/// One free-text line to the operator's log (an `info` event).
pub fn log(message: &str) {
    tracing::info!("{message}");
}

/// What a worker stored for one submission, for [`judged`].
pub(crate) struct Judged<'a> {
    pub(crate) submission: i64,
    pub(crate) user: &'a str,
    pub problem: &'a str,
    pub(crate) language: &'a str,
    /// The verdict's short code (AC, WA, …, JE).
    pub(crate) verdict: &'a str,
    /// How long the judging took, compile included.
    pub(crate) time_ms: u128,
    /// The host whose worker judged it (`judged_by`).
    pub host: &'a str,
    /// Why the judge failed (a judge error only; empty otherwise).
    pub(crate) cause: &'a str,
}

/// The `judged` event: a warning with its cause for a judge error, `info` otherwise.
pub(crate) fn judged(j: &Judged<'_>) {
    if j.cause.is_empty() {
        tracing::info!(
            submission = j.submission,
            user = j.user,
            problem = j.problem,
            language = j.language,
            verdict = j.verdict,
            time_ms = j.time_ms as u64,
            host = j.host,
            "judged"
        );
    } else {
        tracing::warn!(
            submission = j.submission,
            user = j.user,
            problem = j.problem,
            language = j.language,
            verdict = j.verdict,
            time_ms = j.time_ms as u64,
            host = j.host,
            cause = j.cause,
            "judged"
        );
    }
}

/// The `queued` event, when a submission is committed to the queue.
pub fn queued(submission: i64, user: &str, problem: &str, language: &str) {
    tracing::info!(submission, user, problem, language, "queued");
}

/// An error and every cause under it on one line (the one formatter of ojd, in `ojd-judge`).
pub use ojd_judge::error_chain;

//! The visibility policy, its one copy: what one viewer may see of a problem and of a
//! submission. Every channel that shows a submission (the JSON API, the pages, the live event
//! stream, the lists) asks this module through the service's reads ([`crate::Node::seen`],
//! [`crate::Node::seen_rows`]), so a rule changes in one place and no channel drifts.
//!
//! - A problem of a contest that has not started does not exist for anyone but admins: its
//!   submissions are "not found" on every path ([`Policy::problem_visible`]).
//! - A student (a team, the jury's account) sees only their own submissions; another's is "not
//!   found", so ids reveal nothing. Admins see every submission. Anonymous viewers see none.
//! - Which machine judged a submission (`judged_by`), a judge error's cause and the sandbox's
//!   isolation warnings are the operators' business: admins only.
//! - On a secret test a student sees the verdict, time and memory; the diff, the checker's
//!   message and the program's stderr only where `show_secret_diffs` or
//!   `show_secret_diffs_for` allows ([`redact`]). Samples always show everything.
//! - A submission made for a contest is shown under the contest's `feedback` policy
//!   ([`apply_feedback`]) to everyone but admins (a contest's jury account included: it is a
//!   team that is never ranked; the jury's own verdicts are the admins').
//! - A freeze hides other teams' results on the standings only: a team always sees its own
//!   verdicts, frozen or not, and never another's submission.
//! - Of a contest's clarifications, a student reads the public ones, their own questions and
//!   the announcements to them; an anonymous viewer the public ones; admins all. Who claimed a
//!   question is the jury's business ([`clarifications_seen`]).

use std::sync::Arc;

use ojd_config::ServerConfig;
use ojd_judge::{TestResult, Verdict};
use ojd_store::{Clarification, SubmissionInfo};

use crate::contest::{Contest, Feedback, Phase};

/// Who is looking.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Viewer<'a> {
    /// Not logged in.
    Anonymous,
    /// A logged-in user: a student (a team, a jury account) or an admin.
    User {
        /// The user's name.
        name: &'a str,
        /// Whether the user is an admin now.
        admin: bool,
    },
}

impl<'a> Viewer<'a> {
    /// Whether the viewer is an admin.
    pub fn admin(self) -> bool {
        matches!(self, Viewer::User { admin: true, .. })
    }

    /// The viewer's user name (`None`: anonymous).
    pub fn name(self) -> Option<&'a str> {
        match self {
            Viewer::Anonymous => None,
            Viewer::User { name, .. } => Some(name),
        }
    }
}

/// The policy's inputs: the server's settings, the contests loaded now and the time.
#[derive(Clone, Copy)]
pub struct Policy<'a> {
    /// The server's settings (what anonymous visitors and students may see outside contests).
    pub server: &'a ServerConfig,
    /// The contests loaded now.
    pub contests: &'a [Arc<Contest>],
    /// Now, Unix ms (a contest's phase depends on it).
    pub now_ms: i64,
}

impl Policy<'_> {
    /// Whether `viewer` may know of `problem` at all: the union of the contests that hold it.
    /// A problem in no contest is visible; one in contests is visible as soon as any of them
    /// has started, so adding a future contest that reuses a problem never takes it away from
    /// a running (or finished) one. Admins see everything.
    pub fn problem_visible(&self, problem: &str, viewer: Viewer<'_>) -> bool {
        if viewer.admin() {
            return true;
        }
        let mut holders = self
            .contests
            .iter()
            .filter(|c| c.label_of(problem).is_some())
            .peekable();
        holders.peek().is_none() || holders.any(|c| c.phase(self.now_ms) != Phase::Before)
    }

    /// Whether `viewer` may see a submission by `owner` of `problem`: admins any, a user their
    /// own of a visible problem, an anonymous viewer none.
    pub fn may_see(&self, viewer: Viewer<'_>, owner: &str, problem: &str) -> bool {
        match viewer {
            Viewer::Anonymous => false,
            Viewer::User { admin: true, .. } => true,
            Viewer::User { name, .. } => name == owner && self.problem_visible(problem, viewer),
        }
    }

    /// What `viewer` sees of a submission by `owner` of `problem` made for `contest` (`None`:
    /// practice). Call it only for a submission [`Policy::may_see`] allows.
    pub fn sight(
        &self,
        viewer: Viewer<'_>,
        owner: &str,
        problem: &str,
        contest: Option<&str>,
    ) -> Sight {
        let admin = viewer.admin();
        let s = self.server;
        let found = contest.and_then(|id| self.contests.iter().find(|c| c.id == id));
        Sight {
            admin,
            own: viewer.name() == Some(owner),
            secrets: admin
                || s.show_secret_diffs
                || s.show_secret_diffs_for.iter().any(|p| p == problem),
            feedback: if admin {
                Feedback::All
            } else {
                found.map_or(Feedback::All, |c| c.feedback)
            },
        }
    }
}

/// What one viewer sees of one submission ([`Policy::sight`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sight {
    /// An admin: everything, the operators' fields included.
    pub admin: bool,
    /// The viewer is the author (pages say "your output" only then).
    pub own: bool,
    /// Diffs and messages of secret tests are shown.
    pub secrets: bool,
    /// What the contest's feedback policy shows ([`Feedback::All`] outside contests).
    pub feedback: Feedback,
}

impl Sight {
    /// A list row or summary as seen: the judging host only for admins.
    pub fn row(&self, mut info: SubmissionInfo) -> SubmissionInfo {
        if !self.admin {
            info.judged_by = None;
        }
        info
    }

    /// The finished tests as seen: redacted, then cut by the feedback policy.
    pub fn tests(&self, tests: &[TestResult]) -> Vec<TestResult> {
        apply_feedback(
            self.feedback,
            tests.iter().map(|t| redact(t, self.secrets)).collect(),
        )
    }

    /// One test as the live stream sends it (once [`Sight::shows_test`] allowed it).
    pub fn test(&self, t: &TestResult) -> TestResult {
        let mut r = redact(t, self.secrets);
        if self.feedback != Feedback::All && !r.sample {
            r.diff = None;
        }
        r
    }

    /// Whether the live stream shows a test at this point, given whether a shown test
    /// already failed.
    pub fn shows_test(&self, failed: bool) -> bool {
        match self.feedback {
            Feedback::All => true,
            Feedback::Verdict => false,
            Feedback::FirstFailure => !failed,
        }
    }

    /// The judge's own note on a judge error (admins only; `None` when empty).
    pub fn judge_message(&self, message: String) -> Option<String> {
        (self.admin && !message.is_empty()).then_some(message)
    }

    /// The sandbox's isolation warnings (admins only).
    pub fn warnings(&self, warnings: Vec<String>) -> Vec<String> {
        if self.admin {
            warnings
        } else {
            Vec::new()
        }
    }
}

/// A test result as `show_secrets` allows it to be seen.
pub fn redact(t: &TestResult, show_secrets: bool) -> TestResult {
    if t.sample || show_secrets {
        return t.clone();
    }
    let message = match t.verdict {
        // These carry answer text or the program's stderr, which may echo the secret input.
        Verdict::WrongAnswer => "wrong answer (details of secret tests are hidden)".to_string(),
        Verdict::RuntimeError => t
            .message
            .split("; stderr:")
            .next()
            .unwrap_or_default()
            .to_string(),
        Verdict::JudgeError => "the judge failed on this test (not your fault)".to_string(),
        _ => t.message.clone(),
    };
    TestResult {
        diff: None,
        message,
        ..t.clone()
    }
}

/// The test results `policy` shows, in order (already redacted by [`redact`]): none for
/// `verdict`; up to and including the first failing one, without a hidden test's diff, for
/// `first_failure`; all for `all`.
pub fn apply_feedback(policy: Feedback, tests: Vec<TestResult>) -> Vec<TestResult> {
    match policy {
        Feedback::All => tests,
        Feedback::Verdict => Vec::new(),
        Feedback::FirstFailure => {
            let end = tests
                .iter()
                .position(|t| t.verdict != Verdict::Accepted)
                .map_or(tests.len(), |i| i + 1);
            tests
                .into_iter()
                .take(end)
                .map(|t| TestResult {
                    diff: if t.sample { t.diff } else { None },
                    ..t
                })
                .collect()
        }
    }
}

/// The clarifications `viewer` may read, of those given: public ones, their own questions and
/// the announcements to them (admins: all). Who claimed a question is the jury's business:
/// others do not see it.
pub fn clarifications_seen(all: Vec<Clarification>, viewer: Viewer<'_>) -> Vec<Clarification> {
    let admin = viewer.admin();
    all.into_iter()
        .filter(|c| match viewer {
            Viewer::User { admin: true, .. } => true,
            Viewer::User { name, .. } => {
                c.public
                    || c.user.as_deref() == Some(name)
                    || c.to_user.as_deref() == Some(name)
                    || c.to_more.iter().any(|u| u == name)
            }
            Viewer::Anonymous => c.public,
        })
        .map(|mut c| {
            if !admin {
                c.claimed_by = None;
                c.claimed_at = None;
            }
            c
        })
        .collect()
}

//! Verdicts and results: the values every entry point (CLI, daemon, CI) reports.

use serde::{Deserialize, Serialize};

/// A test's or a submission's verdict. The short codes are stable: JSON, the database and JUnit
/// use them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Verdict {
    /// AC: every test passed.
    #[serde(rename = "AC")]
    Accepted,
    /// WA: an output the checker rejected.
    #[serde(rename = "WA")]
    WrongAnswer,
    /// TLE: the CPU or wall-time limit was reached.
    #[serde(rename = "TLE")]
    TimeLimitExceeded,
    /// MLE: the memory limit was reached.
    #[serde(rename = "MLE")]
    MemoryLimitExceeded,
    /// OLE: more output than the output limit.
    #[serde(rename = "OLE")]
    OutputLimitExceeded,
    /// RE: a crash, a signal or a non-zero exit.
    #[serde(rename = "RE")]
    RuntimeError,
    /// CE: the source did not compile.
    #[serde(rename = "CE")]
    CompileError,
    /// JE: the judge itself failed (a checker's failure, a broken package); never the student's
    /// fault.
    #[serde(rename = "JE")]
    JudgeError,
    /// SK: not run, because an earlier test failed and the judge stops at the first failure
    /// (`run_all_tests = false`).
    #[serde(rename = "SK")]
    Skipped,
}

impl Verdict {
    /// Every verdict, in the order listings, filters and statistics show them.
    pub const ALL: [Verdict; 9] = [
        Verdict::Accepted,
        Verdict::WrongAnswer,
        Verdict::TimeLimitExceeded,
        Verdict::MemoryLimitExceeded,
        Verdict::OutputLimitExceeded,
        Verdict::RuntimeError,
        Verdict::CompileError,
        Verdict::JudgeError,
        Verdict::Skipped,
    ];

    /// The two- or three-letter code stored and shown for the verdict ("AC", "TLE").
    pub fn code(self) -> &'static str {
        match self {
            Verdict::Accepted => "AC",
            Verdict::WrongAnswer => "WA",
            Verdict::TimeLimitExceeded => "TLE",
            Verdict::MemoryLimitExceeded => "MLE",
            Verdict::OutputLimitExceeded => "OLE",
            Verdict::RuntimeError => "RE",
            Verdict::CompileError => "CE",
            Verdict::JudgeError => "JE",
            Verdict::Skipped => "SK",
        }
    }

    /// The verdict whose [`Verdict::code`] is `code`, in any case; none for an unknown code.
    pub fn from_code(code: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.code().eq_ignore_ascii_case(code))
    }

    /// The verdict's name in words ("Accepted").
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Accepted => "Accepted",
            Verdict::WrongAnswer => "Wrong Answer",
            Verdict::TimeLimitExceeded => "Time Limit Exceeded",
            Verdict::MemoryLimitExceeded => "Memory Limit Exceeded",
            Verdict::OutputLimitExceeded => "Output Limit Exceeded",
            Verdict::RuntimeError => "Runtime Error",
            Verdict::CompileError => "Compile Error",
            Verdict::JudgeError => "Judge Error",
            Verdict::Skipped => "Skipped",
        }
    }

    /// The Kattis-style folder name under `submissions/` that expects this verdict.
    pub fn folder(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::WrongAnswer => "wrong_answer",
            Verdict::TimeLimitExceeded => "time_limit_exceeded",
            Verdict::MemoryLimitExceeded => "memory_limit_exceeded",
            Verdict::OutputLimitExceeded => "output_limit_exceeded",
            Verdict::RuntimeError => "runtime_error",
            Verdict::CompileError => "compile_error",
            Verdict::JudgeError => "judge_error",
            Verdict::Skipped => "skipped",
        }
    }

    /// The verdict a `submissions/` folder expects (the inverse of [`Verdict::folder`], also taking
    /// Kattis's `run_time_error`); none for any other folder.
    pub fn from_folder(name: &str) -> Option<Verdict> {
        match name {
            "run_time_error" => Some(Verdict::RuntimeError),
            _ => Verdict::ALL.into_iter().find(|v| v.folder() == name),
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// One line of a diff, with the changed parts of the line marked.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DiffLine {
    /// '-' expected only, '+' output only, ' ' both.
    pub tag: char,
    /// 1-based line in the expected answer; none for a line only in the output.
    pub expected_line: Option<usize>,
    /// 1-based line in the output; none for a line only in the expected answer.
    pub output_line: Option<usize>,
    /// (emphasised, text) pieces; emphasised pieces are the characters that differ.
    pub segments: Vec<(bool, String)>,
}

/// A readable difference between the expected answer and the output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Diff {
    /// 1-based line and column of the first difference in the output.
    pub line: usize,
    /// 1-based column of the first difference in that line.
    pub column: usize,
    /// The lines around the first difference.
    pub lines: Vec<DiffLine>,
    /// True when lines before or after the window were left out.
    pub trimmed: bool,
}

/// The result of one test.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TestResult {
    /// The test's name (its file stem).
    pub name: String,
    /// Whether it is a sample.
    pub sample: bool,
    /// Its verdict.
    pub verdict: Verdict,
    /// CPU time used, in milliseconds.
    pub cpu_ms: u64,
    /// Wall-clock time used, in milliseconds.
    pub wall_ms: u64,
    /// Peak memory used, in KiB.
    pub memory_kib: u64,
    /// Exit code, or the signal as "SIGSEGV".
    pub exit: Option<String>,
    /// One line explaining the verdict ("killed by SIGSEGV", "line 2, column 3: expected ...").
    pub message: String,
    /// Where the output first differs from the answer, for a wrong answer.
    pub diff: Option<Diff>,
}

/// The result of judging one submission.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JudgeReport {
    pub(crate) problem: String,
    /// The id of the language it was judged in.
    pub language: String,
    /// The overall verdict: the first failing test's, or Accepted.
    pub verdict: Verdict,
    /// Points from groups (or the share of passed tests, 0–100, when there are no groups),
    /// whole: [`JudgeReport::score_milli`] rounded down, as the daemon stores it.
    pub score: u32,
    /// The exact score in thousandths of a point (groups worth 12.5 points, tests with partial
    /// credit); see [`crate::points`].
    #[serde(default)]
    pub score_milli: u64,
    /// Tests that earned part of their credit (a `cms` checker's score strictly between 0 and
    /// 1): the test's name → thousandths of its credit (1 to 999). A test not listed earns all
    /// of it when accepted and nothing otherwise.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub partial: std::collections::BTreeMap<String, u32>,
    /// The compiler's (capped) output.
    pub compile_output: String,
    /// Every test's result, in test order.
    pub tests: Vec<TestResult>,
    /// The largest CPU time of any test, in milliseconds.
    pub max_cpu_ms: u64,
    /// The largest peak memory of any test, in KiB.
    pub max_memory_kib: u64,
    /// The version of ojd that judged it.
    pub judge_version: String,
    /// Isolation warnings (empty with full isolation).
    pub warnings: Vec<String>,
}

impl JudgeReport {
    /// A report with no tests yet, stamped with this judge's version.
    pub fn new(
        problem: &str,
        language: &str,
        verdict: Verdict,
        warnings: Vec<String>,
    ) -> JudgeReport {
        JudgeReport {
            problem: problem.to_string(),
            language: language.to_string(),
            verdict,
            score: 0,
            score_milli: 0,
            partial: Default::default(),
            compile_output: String::new(),
            tests: Vec::new(),
            max_cpu_ms: 0,
            max_memory_kib: 0,
            judge_version: env!("CARGO_PKG_VERSION").to_string(),
            warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for v in Verdict::ALL {
            assert_eq!(Verdict::from_code(v.code()), Some(v));
            assert_eq!(Verdict::from_folder(v.folder()), Some(v));
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                format!("\"{}\"", v.code())
            );
        }
        assert_eq!(
            Verdict::from_folder("run_time_error"),
            Some(Verdict::RuntimeError)
        );
    }
}

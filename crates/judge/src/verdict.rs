//! Verdicts and results: the values every entry point (CLI, daemon, CI) reports.

use serde::{Deserialize, Serialize};

/// A test's or a submission's verdict. The short codes are stable: JSON, the database and JUnit
/// use them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Verdict {
    #[serde(rename = "AC")]
    Accepted,
    #[serde(rename = "WA")]
    WrongAnswer,
    #[serde(rename = "TLE")]
    TimeLimitExceeded,
    #[serde(rename = "MLE")]
    MemoryLimitExceeded,
    #[serde(rename = "OLE")]
    OutputLimitExceeded,
    #[serde(rename = "RE")]
    RuntimeError,
    #[serde(rename = "CE")]
    CompileError,
    #[serde(rename = "JE")]
    JudgeError,
    #[serde(rename = "SK")]
    Skipped,
}

impl Verdict {
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

    pub fn from_code(code: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.code().eq_ignore_ascii_case(code))
    }

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
    pub expected_line: Option<usize>,
    pub output_line: Option<usize>,
    /// (emphasised, text) pieces; emphasised pieces are the characters that differ.
    pub segments: Vec<(bool, String)>,
}

/// A readable difference between the expected answer and the output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Diff {
    /// 1-based line and column of the first difference in the output.
    pub line: usize,
    pub column: usize,
    pub lines: Vec<DiffLine>,
    /// True when lines before or after the window were left out.
    pub trimmed: bool,
}

/// The result of one test.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TestResult {
    pub name: String,
    pub sample: bool,
    pub verdict: Verdict,
    pub cpu_ms: u64,
    pub wall_ms: u64,
    pub memory_kib: u64,
    /// Exit code, or the signal as "SIGSEGV".
    pub exit: Option<String>,
    /// One line explaining the verdict ("killed by SIGSEGV", "line 2, column 3: expected ...").
    pub message: String,
    pub diff: Option<Diff>,
}

/// The result of judging one submission.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JudgeReport {
    pub(crate) problem: String,
    pub language: String,
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
    pub compile_output: String,
    pub tests: Vec<TestResult>,
    pub max_cpu_ms: u64,
    pub max_memory_kib: u64,
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

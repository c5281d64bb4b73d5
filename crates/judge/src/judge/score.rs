//! Aggregating the tests' results into the submission's verdict, score and maxima.

use crate::problem::{Problem, TestCase};
use crate::verdict::{JudgeReport, Verdict};

/// Overall verdict (the first test that is not AC, in test order), score and maxima.
pub(super) fn aggregate(problem: &Problem, report: &mut JudgeReport) {
    report.verdict = report
        .tests
        .iter()
        .map(|t| t.verdict)
        .find(|v| *v != Verdict::Accepted && *v != Verdict::Skipped)
        .unwrap_or(Verdict::Accepted);
    report.max_cpu_ms = report.tests.iter().map(|t| t.cpu_ms).max().unwrap_or(0);
    report.max_memory_kib = report.tests.iter().map(|t| t.memory_kib).max().unwrap_or(0);
    let passed = |name: &str| {
        report
            .tests
            .iter()
            .any(|t| t.name == name && t.verdict == Verdict::Accepted)
    };
    report.score = if problem.groups.is_empty() {
        let n = report.tests.len().max(1) as u32;
        let ok = report
            .tests
            .iter()
            .filter(|t| t.verdict == Verdict::Accepted)
            .count() as u32;
        ok * 100 / n
    } else {
        problem
            .groups
            .iter()
            .filter(|g| {
                let members: Vec<&TestCase> = problem
                    .tests
                    .iter()
                    .filter(|t| g.tests.iter().any(|p| t.name.starts_with(p.as_str())))
                    .collect();
                !members.is_empty() && members.iter().all(|t| passed(&t.name))
            })
            .map(|g| g.points)
            .sum()
    };
}

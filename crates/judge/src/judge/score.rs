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
    // Each test's share of its credit, in thousandths.
    let earned = |name: &str| -> u64 {
        match report.tests.iter().find(|t| t.name == name) {
            Some(t) if t.verdict == Verdict::Accepted => crate::points::MILLI as u64,
            Some(_) => report.partial.get(name).copied().unwrap_or(0) as u64,
            None => 0,
        }
    };
    report.score_milli = if problem.groups.is_empty() {
        let n = report.tests.len().max(1) as u64;
        let sum: u64 = report.tests.iter().map(|t| earned(&t.name)).sum();
        sum * 100 / n
    } else {
        // A group earns its points times the smallest share of its tests (all or nothing when
        // every test is accepted or not; CMS's GroupMin with partial credit).
        problem
            .groups
            .iter()
            .map(|g| {
                let members: Vec<&TestCase> = problem
                    .tests
                    .iter()
                    .filter(|t| g.tests.iter().any(|p| t.name.starts_with(p.as_str())))
                    .collect();
                let least = members.iter().map(|t| earned(&t.name)).min().unwrap_or(0);
                g.points_milli as u64 * least / crate::points::MILLI as u64
            })
            .sum()
    };
    report.score = crate::points::whole(report.score_milli);
}

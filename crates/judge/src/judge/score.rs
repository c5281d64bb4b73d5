//! Aggregating the tests' results into the submission's verdict, score and maxima.

use crate::points::MILLI;
use crate::problem::{Aggregation, Problem};
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
            Some(t) if t.verdict == Verdict::Accepted => MILLI as u64,
            Some(_) => report.partial.get(name).copied().unwrap_or(0) as u64,
            None => 0,
        }
    };
    report.score_milli = if problem.groups.is_empty() {
        let n = report.tests.len().max(1) as u64;
        let sum: u64 = report.tests.iter().map(|t| earned(&t.name)).sum();
        sum * 100 / n
    } else {
        // A group earns its points times its share: the smallest share of its tests (all or
        // nothing when every test is accepted or not; CMS's GroupMin with partial credit), or
        // their product (CMS's GroupMul).
        problem
            .groups
            .iter()
            .map(|g| {
                let shares: Vec<u64> = problem
                    .tests
                    .iter()
                    .filter(|t| g.holds(&t.name))
                    .map(|t| earned(&t.name))
                    .collect();
                group_milli(g.points_milli, g.aggregation, &shares)
            })
            .sum()
    };
    report.score = crate::points::whole(report.score_milli);
}

/// What a group worth `points` thousandths earns from its tests' shares (thousandths each),
/// rounded down to a thousandth; an empty group earns nothing.
fn group_milli(points: u32, aggregation: Aggregation, shares: &[u64]) -> u64 {
    if shares.is_empty() {
        return 0;
    }
    match aggregation {
        Aggregation::Min => {
            let least = shares.iter().copied().min().unwrap_or(0);
            points as u64 * least / MILLI as u64
        }
        Aggregation::Product => {
            // Nine more decimals than the result, so that rounding down at each step never
            // shows in the result (a share is a thousandth at the finest: it loses at most one
            // unit of the extra decimals per test).
            const EXTRA: u128 = 1_000_000_000;
            let mut acc = points as u128 * EXTRA;
            for s in shares {
                acc = acc * *s as u128 / MILLI as u128;
            }
            (acc / EXTRA) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_the_smallest_share_or_the_product() {
        use Aggregation::*;
        // (points, aggregation, shares, earned): all in thousandths.
        let cases: &[(u32, Aggregation, &[u64], u64)] = &[
            (30_000, Min, &[1000, 1000], 30_000),
            (30_000, Min, &[1000, 500, 0], 0),
            (30_000, Min, &[1000, 500, 750], 15_000),
            (30_000, Product, &[1000, 1000], 30_000),
            (30_000, Product, &[1000, 500, 500], 7_500),
            (30_000, Product, &[500, 0], 0),
            // 10 × 0.999^3 = 9.97002999: rounded down to 9.970
            (10_000, Product, &[999, 999, 999], 9_970),
            // 100 × 0.5^20 = 0.0000953...: below a thousandth
            (100_000, Product, &[500; 20], 0),
            // 100 × 0.9^10 = 34.86784401
            (100_000, Product, &[900; 10], 34_867),
            (50_000, Product, &[], 0),
            (50_000, Min, &[], 0),
        ];
        for (points, agg, shares, want) in cases {
            assert_eq!(
                group_milli(*points, *agg, shares),
                *want,
                "{points} {agg:?} {shares:?}"
            );
        }
    }
}

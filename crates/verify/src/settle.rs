//! Which near cells a parallel run settles without runs alone ([`settle`]), so that phase 3
//! judges alone only the cells whose verdict a run alone could still change in a way that
//! matters.
//!
//! A parallel run near the limit (`prior::near_limit`) is suspect only in one direction:
//! interference only ever adds time, so a run alone takes at most what the parallel run took,
//! and a program that finished ends the same way alone, with the same output. So:
//!
//! - **A finish within the exact limits** (CPU and wall time, AC, WA, RE, MLE or OLE) is its
//!   verdict at the limit whatever ran beside it: a run alone, faster, would finish too. This is
//!   the rule phase 3 applies to its own runs alone; a parallel run that finished at 80% of the
//!   limit is no less decided than a run alone that finished there. ([`Settle::WithinLimit`].)
//! - **A finish over the exact limit** (allowed the slack, it finished at 1.2 times the limit)
//!   is a TLE at the limit, and alone it could be that or its finishing verdict: the verdict
//!   still hangs on the load. It is judged alone where that matters to the folder's promise
//!   (`accepted/` and the reference: a TLE fails them; `rejected/` and `partially_accepted/`:
//!   the one rejection may hang on it), and settled by the parallel run where it cannot
//!   ([`Settle::ByPromise`]):
//!   - `wrong_answer/`, `runtime_error/`, `memory_limit_exceeded/`, `output_limit_exceeded/`:
//!     their promise counts a TLE whose run with the slack finished as the verdict it finished
//!     with (`expect::with_extra_time`), so both outcomes count the same;
//!   - `time_limit_exceeded_or_accepted/`, a finish that is AC: both are permitted;
//!   - `time_limit_exceeded/`, a finish other than a wrong answer: alone it finishes again (it
//!     finished with the slack, so it is never stopped there: never a *clear* TLE), so whether the
//!     submission keeps its promise rests on its other cells: a clear TLE elsewhere keeps it
//!     either way, and without one it fails either way (no TLE at all, or TLEs all within
//!     `time_limit_to_tle`, see `margins`). A wrong answer is judged alone: within the limit
//!     it would break the promise.
//!
//! A TLE near the limit (stopped, not finished) is always judged alone: alone it may finish.
//! Machine independence does not rest on these runs: it is the package's margins (`margins`)
//! and `--time-scale` that check a verdict holds on a machine slower or faster than this one.

use ojd_judge::Verdict;

use super::expect::Promise;

/// How a near cell's parallel run is taken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Settle {
    /// It finished within the exact limits: its verdict stands.
    WithinLimit,
    /// It finished over the exact limit, where the folder's promise holds or fails the same for
    /// a TLE and for its finishing verdict: a TLE at the limit, having finished as it did.
    ByPromise,
    /// Judged alone.
    Alone,
}

/// How the near cell whose parallel run ended with `parallel` is taken, for a submission whose
/// folder promises `(promise, expected)`; `within`: the run used no more CPU and wall time than
/// the exact limits allow.
pub(super) fn settle(
    (promise, expected): (Promise, Verdict),
    reference: bool,
    parallel: Verdict,
    within: bool,
) -> Settle {
    use Verdict::*;
    if matches!(
        parallel,
        TimeLimitExceeded | JudgeError | CompileError | Skipped
    ) {
        return Settle::Alone;
    }
    if within {
        return Settle::WithinLimit;
    }
    let by_promise = match (promise, expected) {
        _ if reference => false,
        (Promise::Verdict, WrongAnswer | RuntimeError)
        | (Promise::Verdict, MemoryLimitExceeded | OutputLimitExceeded) => true,
        (Promise::Verdict, TimeLimitExceeded) => parallel != WrongAnswer,
        // AC and TLE are both permitted: a finish other than AC is judged alone.
        (Promise::AcceptedOrTle, _) => parallel == Accepted,
        _ => false,
    };
    match by_promise {
        true => Settle::ByPromise,
        false => Settle::Alone,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    const AC_FOLDER: (Promise, Verdict) = (Promise::Verdict, Accepted);
    const TLE_FOLDER: (Promise, Verdict) = (Promise::Verdict, TimeLimitExceeded);
    const WA_FOLDER: (Promise, Verdict) = (Promise::Verdict, WrongAnswer);
    const REJECTED: (Promise, Verdict) = (Promise::Rejected, WrongAnswer);
    const PARTIAL: (Promise, Verdict) = (Promise::PartiallyAccepted, WrongAnswer);

    #[test]
    fn a_finish_within_the_limit_stands_in_every_folder() {
        for folder in [AC_FOLDER, TLE_FOLDER, WA_FOLDER, REJECTED, PARTIAL] {
            for v in [Accepted, WrongAnswer, RuntimeError, MemoryLimitExceeded] {
                assert_eq!(
                    settle(folder, false, v, true),
                    Settle::WithinLimit,
                    "{folder:?} {v:?}"
                );
            }
        }
        assert_eq!(settle(AC_FOLDER, true, Accepted, true), Settle::WithinLimit);
    }

    #[test]
    fn a_tle_near_the_limit_is_always_judged_alone() {
        for folder in [AC_FOLDER, TLE_FOLDER, WA_FOLDER, REJECTED, PARTIAL] {
            for within in [false, true] {
                assert_eq!(
                    settle(folder, false, TimeLimitExceeded, within),
                    Settle::Alone
                );
            }
        }
    }

    #[test]
    fn a_finish_over_the_limit_is_judged_alone_only_where_the_promise_hangs_on_it() {
        // (folder, reference, parallel verdict, settled by the promise)
        let table: &[((Promise, Verdict), bool, Verdict, bool)] = &[
            // A TLE fails an accepted submission and the reference: judged alone.
            (AC_FOLDER, false, Accepted, false),
            (AC_FOLDER, true, Accepted, false),
            // The one rejection of `rejected/`, the points of `partially_accepted/`.
            (REJECTED, false, Accepted, false),
            (PARTIAL, false, Accepted, false),
            // Counted as the verdict it finished with (extra time) either way.
            (WA_FOLDER, false, Accepted, true),
            (WA_FOLDER, false, WrongAnswer, true),
            ((Promise::Verdict, RuntimeError), false, RuntimeError, true),
            (
                (Promise::Verdict, OutputLimitExceeded),
                false,
                Accepted,
                true,
            ),
            // Never a clear TLE alone: the promise rests on the other cells.
            (TLE_FOLDER, false, Accepted, true),
            (TLE_FOLDER, false, RuntimeError, true),
            // A wrong answer within the limit would break it.
            (TLE_FOLDER, false, WrongAnswer, false),
            // AC and TLE are both permitted; a wrong answer is not.
            ((Promise::AcceptedOrTle, WrongAnswer), false, Accepted, true),
            (
                (Promise::AcceptedOrTle, WrongAnswer),
                false,
                WrongAnswer,
                false,
            ),
        ];
        for &(folder, reference, v, by_promise) in table {
            let want = match by_promise {
                true => Settle::ByPromise,
                false => Settle::Alone,
            };
            assert_eq!(
                settle(folder, reference, v, false),
                want,
                "{folder:?} {reference} {v:?}"
            );
        }
    }
}

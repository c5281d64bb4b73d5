//! The host's load in an interactive run: what a pair lost to the host ([`lost_to_host`]),
//! the program's own wall time ([`own_wall`]), whether a time limit was the host's doing
//! ([`starved_by_host`]), the stretched limit of the next try ([`stretched`]) and the
//! problem's limit that still holds under it ([`held_to_the_limit`]).

use std::time::Duration;

use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{Limits, RunOutcome};

/// What one run of the pair gave.
pub(super) enum Paired {
    Judged(TestResult),
    /// The program's run was ended by its wall-time limit while it waited for a CPU that the
    /// host's other work held, its own time still under the limit ([`own_wall`]).
    Starved {
        /// How long it waited, its partner's wait included (for the host fault's message).
        lost: Duration,
        /// The program's wall time.
        wall: Duration,
        /// The part of `wall` that was the host's ([`lost_to_host`]).
        waited: Duration,
    },
    /// A time limit on the program's own time, from a try that lost a measurable part of the
    /// limit to the host ([`loaded`]): the measure of the program's own time is then an upper
    /// bound (see [`own_wall`]), and another try may bound it lower. The verdict of the pass's
    /// last try.
    Over {
        /// The time limit verdict this try gave.
        result: TestResult,
        /// The program's wall time.
        wall: Duration,
        /// The part of `wall` that was the host's ([`lost_to_host`]).
        waited: Duration,
    },
}

/// The time a program of a pair lost to the host: its own (CPU wait and time blocked in the
/// kernel, as its keeper measured them), its partner's (less the program's CPU time, which
/// the interactor's keeper counts as other work: see [`starved_by_host`]) and the judge's
/// relays' (`relays`: their threads' wait for a CPU, while each message waited in them), less
/// the interactor's whole CPU time, which the program's keeper counts as other work (an
/// interactor that spins beside a program that spins is the problem's doing, never the
/// host's).
pub(super) fn lost_to_host(
    program: &RunOutcome,
    interactor: &RunOutcome,
    relays: Duration,
) -> Duration {
    (program.host_wait + interactor.host_wait + relays).saturating_sub(interactor.cpu_time)
}

/// A program's own wall time in a pair: its wall time less what it lost to the host
/// ([`lost_to_host`]), and never less than its CPU time, which is its own whatever else the
/// partner's keeper saw meanwhile. What its wall-time limit is held to, and what its test
/// reports.
///
/// An upper bound of the time that was the program's: the keepers measure the waits they can
/// see (a task's run-queue delay, its CPU's other work), and a loaded host takes more than
/// they see (the keeper's own sampling, wake-ups between measures), which stays in here. The
/// partner's wait is counted whole: a partner waits behind the program only while both want
/// the CPU at once, and the program's CPU time bounds that from below. So a program whose own
/// time is over the limit is over it in every try, and a correct program one try measures
/// within the limit is within it (see [`run_pass`](super::run_pass)).
pub(super) fn own_wall(
    program: &RunOutcome,
    interactor: &RunOutcome,
    relays: Duration,
) -> Duration {
    program
        .wall_time
        .saturating_sub(lost_to_host(program, interactor, relays))
        .max(program.cpu_time)
}

/// Whether a try of the pair lost a measurable part of the wall-time limit to the host (a
/// tenth of it, the sandbox's rule): its time limit verdict is then worth another try. A
/// program asleep or deadlocked with its partner waits for no CPU: its time limit stands at
/// once.
pub(super) fn loaded(lost: Duration, limits: &Limits) -> bool {
    lost >= limits.wall / 10
}

/// The program sandbox's wall-time limit for the try after a starved one: a try whose program
/// ran `wall`, `waited` of it for the host, was slowed `wall / (wall - waited)` times; the next
/// gets the problem's `limit` slowed twice as much, and at least twice the `last` try's, at
/// most [`ojd_sandbox::WALL_CEILING`] times `limit` (past that the host is too loaded: the
/// tries end as a host fault).
pub(super) fn stretched(
    limit: Duration,
    last: Duration,
    wall: Duration,
    waited: Duration,
) -> Duration {
    let own = wall.saturating_sub(waited).max(limit / 20);
    let slowdown = wall.as_secs_f64() / own.as_secs_f64();
    let ceiling = limit * ojd_sandbox::WALL_CEILING;
    limit
        .mul_f64(2.0 * slowdown.min(f64::from(ojd_sandbox::WALL_CEILING)))
        .max(last * 2)
        .min(ceiling)
}

/// Whether the host's load, not the program nor its partner, used up the program's wall time:
/// the pair lost a measurable part of the limit to the host ([`loaded`]) and the program's own
/// time ([`own_wall`]) is under the limit. Returns what the pair lost.
///
/// The time the interactor and the relays lost to the host counts as the program's wait too:
/// the program sleeps on its pipe while a starved partner waits for a CPU, and its own keeper
/// sees only a sleeper. So a run the keeper ended as the program's may still be the host's
/// here; it is then run again, and a host fault if the load stays, never a time limit verdict.
pub(super) fn starved_by_host(
    program: &RunOutcome,
    interactor: &RunOutcome,
    relays: Duration,
    limits: &Limits,
) -> Option<Duration> {
    program.wall_kill?;
    let lost = lost_to_host(program, interactor, relays);
    (program.killed_by == Some(ojd_sandbox::LimitKind::Wall)
        && loaded(lost, limits)
        && own_wall(program, interactor, relays) < limits.wall)
        .then_some(lost)
}

/// The verdict of a pair whose program ran under a stretched wall-time limit (`allowed`, more
/// than the problem's): accepted only within the problem's limit of its own time
/// ([`own_wall`]), else the time limit the run would have been without the load.
pub(super) fn held_to_the_limit(
    (verdict, message): (Verdict, String),
    own: Duration,
    limits: &Limits,
    allowed: Duration,
) -> (Verdict, String) {
    if allowed > limits.wall && verdict == Verdict::Accepted && own >= limits.wall {
        (
            Verdict::TimeLimitExceeded,
            format!(
                "wall-time limit of {} ms exceeded (the program was idle or blocked)",
                limits.wall.as_millis()
            ),
        )
    } else {
        (verdict, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::interactive::testing::run;
    use ojd_sandbox::{LimitKind, Termination};

    /// The program slept on its pipe (the keeper ended it as its own) while its interactor
    /// waited for a CPU: the host's, not a time limit. Without the partner's wait, the
    /// program's.
    #[test]
    fn a_program_waiting_on_a_starved_interactor_is_the_hosts() {
        let limits = Limits {
            cpu: Duration::from_secs(1),
            wall: Duration::from_secs(1),
            memory: 64 << 20,
            output: 1 << 20,
            processes: 8,
            file_size: 1 << 20,
        };
        let mut program = run(Termination::Signaled(libc::SIGKILL), Some(LimitKind::Wall));
        program.wall_time = Duration::from_millis(5800);
        program.cpu_time = Duration::from_millis(300);
        program.wall_kill = Some(ojd_sandbox::WallKill {
            cpu_wait: Duration::from_millis(200),
            io_wait: Duration::ZERO,
            cause: ojd_sandbox::WallCause::Program,
        });
        program.host_wait = Duration::from_millis(200);
        let mut interactor = run(Termination::Exited(0), None);
        // The interactor lived as long and waited most of it: all of it counts (less its own
        // 5 ms of CPU), and the program's CPU time is still its own.
        interactor.host_wait = Duration::from_millis(5400);
        assert_eq!(
            starved_by_host(&program, &interactor, Duration::ZERO, &limits),
            Some(Duration::from_millis(200 + 5400 - 5))
        );
        assert_eq!(
            own_wall(&program, &interactor, Duration::ZERO),
            Duration::from_millis(300)
        );
        interactor.host_wait = Duration::from_millis(100);
        assert_eq!(
            starved_by_host(&program, &interactor, Duration::ZERO, &limits),
            None
        );
        // The relays' wait for a CPU is the host's too.
        assert_eq!(
            starved_by_host(&program, &interactor, Duration::from_millis(5000), &limits),
            Some(Duration::from_millis(200 + 100 + 5000 - 5))
        );
        // A pair deadlocked or asleep waits for no CPU: its own time limit, at once.
        program.wall_time = Duration::from_millis(1050);
        program.host_wait = Duration::from_millis(50);
        interactor.host_wait = Duration::from_millis(10);
        assert!(!loaded(
            lost_to_host(&program, &interactor, Duration::ZERO),
            &limits
        ));
        assert_eq!(
            starved_by_host(&program, &interactor, Duration::ZERO, &limits),
            None
        );
        // A loaded try whose own time is still past the limit is no host fault either (a time
        // limit, tried again by `run_pass`).
        program.wall_time = Duration::from_millis(3000);
        program.host_wait = Duration::from_millis(1500);
        assert_eq!(
            starved_by_host(&program, &interactor, Duration::ZERO, &limits),
            None
        );
    }

    /// A starved try's measured slowdown, doubled, is the next try's wall time, at least twice
    /// the last try's and at most the sandbox's ceiling.
    #[test]
    fn a_try_after_a_starved_one_gets_the_wall_time_the_load_took_twice_over() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        // 6 s of wall, 5 s of it the host's: six times slower; twice that.
        assert_eq!(stretched(s(1), s(1), s(6), s(5)), s(12));
        // Slowed a little: still twice the last try's.
        assert_eq!(stretched(s(1), s(2), ms(1500), ms(400)), s(4));
        // All of it the host's: the ceiling, never more.
        let ceiling = s(1) * ojd_sandbox::WALL_CEILING;
        assert_eq!(stretched(s(1), s(1), s(10), s(10)), ceiling);
        assert_eq!(stretched(s(1), ceiling, s(40), s(20)), ceiling);
    }

    /// Under a stretched limit the program is still held to the problem's limit of its own
    /// time: accepted within it, a time limit past it; an unstretched try is the keeper's.
    #[test]
    fn a_stretched_try_holds_the_program_to_its_own_time() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        let limits = Limits {
            cpu: s(1),
            wall: s(1),
            memory: 64 << 20,
            output: 1 << 20,
            processes: 8,
            file_size: 1 << 20,
        };
        let ac = || (Verdict::Accepted, String::new());
        let held = held_to_the_limit(ac(), ms(1200), &limits, s(12));
        assert_eq!(held.0, Verdict::TimeLimitExceeded);
        assert!(held.1.contains("wall-time limit of 1000 ms"), "{}", held.1);
        assert_eq!(
            held_to_the_limit(ac(), ms(500), &limits, s(12)).0,
            Verdict::Accepted
        );
        assert_eq!(
            held_to_the_limit(ac(), ms(1200), &limits, s(1)).0,
            Verdict::Accepted
        );
        let wa = (Verdict::WrongAnswer, "wrong".to_string());
        assert_eq!(
            held_to_the_limit(wa, ms(1200), &limits, s(12)).0,
            Verdict::WrongAnswer
        );
        // Both sides' lost time is taken off the program's wall time, the partner's CPU not.
        let mut program = run(Termination::Exited(0), None);
        program.wall_time = ms(6000);
        program.cpu_time = ms(300);
        program.host_wait = ms(1000);
        let mut interactor = run(Termination::Exited(42), None);
        interactor.host_wait = ms(4300);
        interactor.cpu_time = ms(100);
        assert_eq!(
            lost_to_host(&program, &interactor, ms(0)),
            ms(1000 + 4300 - 100)
        );
        assert_eq!(own_wall(&program, &interactor, ms(0)), ms(800));
        // And the judge's relays' wait for a CPU.
        assert_eq!(own_wall(&program, &interactor, ms(400)), ms(400));
        // Never less than the program's own CPU time.
        assert_eq!(own_wall(&program, &interactor, ms(600)), ms(300));
    }
}

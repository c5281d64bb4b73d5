//! How long a run waited for what other work on the host held: a CPU, or the host's disk and
//! memory. What tells a wall-time kill caused by the host's load from one caused by the program
//! (see [`super::WallKill`]).
//!
//! The keeper takes a [`Sample`] at the run's first wake and another whenever the run's wall
//! time reaches its limit plus the wait measured so far, and [`cpu_wait`] compares them (the
//! limit counts only the program's own time: see `Keeper::supervise`). Between the two it looks
//! at every task it sees at each wake ([`Watch::observe`]), so a process that exited before the
//! end (a compiler's passes) still counts what it waited:
//! - the kernel's run-queue delay of the run's tasks (`/proc/<tid>/schedstat`, second field):
//!   time they were runnable but not running. It also grows while a task waits behind the run's
//!   own threads, so alone it would blame the host for a program that starves itself;
//! - the time the run's CPUs spent on other work: their capacity over the window less the run's
//!   own CPU time, their idle time and the hypervisor's steal (`/proc/stat`).
//!
//! The run waited for others at most the smaller of the two. Steal (the hypervisor running
//! another machine on this CPU) hides from both: the task is current but makes no progress; the
//! run's share of it (its share of the CPUs' busy time) is added.
//!
//! Nothing is read on the run's path before its first wake (most runs end before it, and a run
//! that ends before it cannot have been wall-killed), except the run-queue delays of the tasks
//! the run starts with: the ones the keeper forked and knows (the run's init and the pid
//! namespace's holder), each from a `schedstat` file opened before the run ([`delay_of`]). Every
//! other task of the run was forked after the start, and the kernel starts a task's counters at
//! zero (`sched_fork`), so the delays cover the whole run exactly. `/proc/stat` is read first at
//! the first wake: what the run's CPUs did before it (at most one wake interval, 25 ms) is
//! bounded by their capacity less the run's CPU time ([`Sample::first`]), so that part's wait is
//! never undercounted, and what it can add for a program that starves itself is at most that
//! interval (its own threads' queueing while the CPU also idled).
//!
//! A task can also lose wall time without being runnable: blocked in the kernel, uninterruptibly
//! (state `D`), on a page-in of its binary under memory pressure, a page migrated by compaction,
//! writeback throttling of its output file on a disk that other work keeps busy. That is neither
//! CPU wait nor the program's sleeping (a program asleep, blocked on a pipe or deadlocked is in
//! `S`). No per-task counter of it is on by default (`kernel.task_delayacct`), and the cgroup v2
//! `io.pressure` counts an idle disk's cold read the same, so each wake samples the tasks' states
//! and counts the time since the last wake as blocked when one of them is in `D`
//! ([`Watch::io_wait`]). A program can put itself in `D` too (a `vfork` parent waits there for
//! its child, `sync` waits for the host's writeback), so what is counted is bounded by the
//! wall-time limit itself: such a program gets at most twice its limit, and is then its own TLE,
//! never a host fault.
//!
//! The run-queue delay grows only when a task gets its CPU (`sched_info_arrive`): a task waiting
//! now has its current wait in no counter. Under heavy load that wait is long (a turn of every
//! runnable task on the CPU, 40 to 100 ms beside eight hogs per CPU), and the keeper, which
//! shares the run's CPU, looks exactly then: it runs, so the run's task waits. Left out, that
//! wait counted as the program's own time, enough to end a CPU-bound program whose CPU time was
//! near half its wall-time limit. So where the wall-time limit is looked at, a task seen
//! runnable on the keeper's own CPU adds the time since it last ran ([`Watch::in_flight`]): the
//! scheduler's clock of that CPU when the task last left it (`se.exec_start` in
//! `/proc/<tid>/sched`) against the same clock when the keeper got it, bounded by the time since
//! the task was last seen not runnable (a task that just woke from a sleep last ran before the
//! sleep).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Duration;

/// `/proc/stat` counts in USER_HZ ticks: 100 per second on every Linux ABI.
const TICK: Duration = Duration::from_millis(10);

/// What the keeper reads at both ends of the window.
pub(super) struct Sample {
    wall: Duration,
    /// The run's CPU time so far (the cgroup's counter less the keeper's own).
    cpu: Duration,
    /// Idle (with I/O wait) and steal time of the run's CPUs.
    idle: Duration,
    steal: Duration,
    /// Run-queue delay of each task of the run (nanoseconds), by thread id.
    delays: HashMap<u32, u64>,
    /// Counted as others' time on the run's CPUs before `wall`, where `/proc/stat` was not read
    /// (see [`Sample::first`]): an upper bound of it.
    head: Duration,
    /// The waits of the run's tasks still waiting for their CPU at `wall`, in no delay yet (see
    /// [`Watch::in_flight`]).
    in_flight: Duration,
}

impl Sample {
    /// Reads the counters now. `tasks` are the thread ids of the run (the keeper's cgroup less
    /// the keeper itself), `cpus` the CPUs it runs on, `stat` an open `/proc/stat`.
    pub(super) fn take(
        wall: Duration,
        cpu: Duration,
        tasks: &[u32],
        cpus: &[usize],
        stat: &File,
    ) -> Option<Sample> {
        let (idle, steal) = cpu_times(stat, cpus)?;
        let delays = tasks
            .iter()
            .filter_map(|&t| Some((t, run_delay(t)?)))
            .collect();
        Some(Sample {
            wall,
            cpu,
            idle,
            steal,
            delays,
            head: Duration::ZERO,
            in_flight: Duration::ZERO,
        })
    }

    /// The run's first sample, taken at its first wake (`wall`, `cpu`: the run's times then),
    /// with the delays its tasks had as it started (`at_start`: see [`start_delays`]); `ncpu` is
    /// the number of the run's CPUs. Before `wall` the CPUs' idle and steal time is unknown, so
    /// all their time the run did not use counts as others' (`head`): the run's wait there is
    /// at most its tasks' delay, as everywhere, and never less than it was.
    pub(super) fn first(
        wall: Duration,
        cpu: Duration,
        ncpu: u32,
        at_start: HashMap<u32, u64>,
        cpus: &[usize],
        stat: &File,
    ) -> Option<Sample> {
        let (idle, steal) = cpu_times(stat, cpus)?;
        Some(Sample {
            wall,
            cpu,
            idle,
            steal,
            delays: at_start,
            head: (wall * ncpu.max(1)).saturating_sub(cpu),
            in_flight: Duration::ZERO,
        })
    }

    /// Adds what [`Watch::observe`] recorded of tasks this sample did not see (they exited).
    pub(super) fn with_departed(mut self, seen: &Watch) -> Sample {
        for (&t, &d) in &seen.delays {
            let e = self.delays.entry(t).or_insert(0);
            *e = (*e).max(d);
        }
        self
    }

    /// Adds the waits in progress now (see [`Watch::in_flight`]), read after the delays: a task
    /// that got its CPU between the two reads has its wait in neither, never in both.
    pub(super) fn with_in_flight(mut self, in_flight: Duration) -> Sample {
        self.in_flight = in_flight;
        self
    }
}

/// The longest gap between two wakes that a `D` seen at the second one counts in full: the
/// keeper wakes every 25 ms at most; a later wake (the keeper itself waited for its CPU) says
/// nothing of the state before it.
const MAX_GAP: Duration = Duration::from_millis(50);

/// What the keeper saw of the run's tasks at its wakes: their run-queue delays (exited tasks
/// included) and how long one of them was blocked in the kernel.
#[derive(Default)]
pub(super) struct Watch {
    /// Run-queue delay of each task seen (nanoseconds, the largest value seen), by thread id.
    delays: HashMap<u32, u64>,
    /// Wall time in which some task was seen in state `D`.
    blocked: Duration,
    /// The run's wall time at the last wake.
    last: Duration,
    /// By thread id, of the tasks runnable at the last wake: the wall time of the wake before
    /// the first of the wakes that saw it runnable in a row. It has been runnable since then at
    /// most, so its current wait is no longer.
    runnable_since: HashMap<u32, Duration>,
}

impl Watch {
    /// Records the run-queue delay and the state of `tasks` now, at the run's wall time `wall`,
    /// keeping what was seen of tasks gone since (the largest delay seen of a thread id: a delay
    /// never decreases while the thread lives).
    pub(super) fn observe(&mut self, tasks: &[u32], wall: Duration) {
        let mut blocked = false;
        let before = self.last;
        let mut runnable = HashMap::new();
        for &t in tasks {
            if let Some(d) = run_delay(t) {
                let e = self.delays.entry(t).or_insert(0);
                *e = (*e).max(d);
            }
            match state(t) {
                Some(b'R') => {
                    let since = self.runnable_since.get(&t).copied().unwrap_or(before);
                    runnable.insert(t, since);
                }
                Some(b'D') => blocked = true,
                _ => {}
            }
        }
        self.runnable_since = runnable;
        self.note(blocked, wall);
    }

    /// The current waits of the tasks the last wake (at `wall`) saw runnable that are still
    /// waiting for the keeper's own CPU: for each, the time since it last left the CPU, at most
    /// the time since it was last seen not runnable. Zero when the keeper's clock cannot be read.
    /// A task on another CPU is left out: each CPU's scheduler clock is its own (it leaves out
    /// that CPU's interrupt and steal time), so two CPUs' clocks do not compare.
    ///
    /// Read where the wall-time limit is looked at only (two `/proc` files per task).
    pub(super) fn in_flight(&self, wall: Duration) -> Duration {
        if self.runnable_since.is_empty() {
            return Duration::ZERO;
        }
        let Some((cpu, now)) = own_clock() else {
            return Duration::ZERO;
        };
        self.runnable_since
            .iter()
            .filter_map(|(&t, &since)| {
                let (on, left) = waiting_since(t)?;
                (on == cpu).then(|| {
                    Duration::from_nanos(now.saturating_sub(left)).min(wall.saturating_sub(since))
                })
            })
            .sum()
    }

    /// Counts the time since the last wake as blocked when a task was seen in `D` now.
    fn note(&mut self, blocked: bool, wall: Duration) {
        if blocked {
            self.blocked += wall.saturating_sub(self.last).min(MAX_GAP);
        }
        self.last = self.last.max(wall);
    }

    /// The wall time the run lost blocked in the kernel (the host's I/O or memory), at most
    /// `limit` (the wall-time limit: see the module's text).
    pub(super) fn io_wait(&self, limit: Duration) -> Duration {
        self.blocked.min(limit)
    }
}

/// The time the run waited for a CPU that other work held, between `start` and `end`, with
/// `ncpu` CPUs (the run's cpuset).
pub(super) fn cpu_wait(start: &Sample, end: &Sample, ncpu: u32) -> Duration {
    let window = end.wall.saturating_sub(start.wall);
    let capacity = window * ncpu.max(1);
    let cpu = end.cpu.saturating_sub(start.cpu);
    let idle = end.idle.saturating_sub(start.idle);
    let steal = end.steal.saturating_sub(start.steal);
    let others = capacity
        .saturating_sub(cpu)
        .saturating_sub(idle)
        .saturating_sub(steal)
        + start.head;
    let delay: u64 = end
        .delays
        .iter()
        .map(|(t, d)| d.saturating_sub(start.delays.get(t).copied().unwrap_or(0)))
        .sum();
    let delay = Duration::from_nanos(delay) + end.in_flight;
    let busy = cpu + others;
    let stolen = if busy.is_zero() {
        Duration::ZERO
    } else {
        steal.mul_f64(cpu.as_secs_f64() / busy.as_secs_f64())
    };
    // The head covers the run before `start.wall`: the whole run is `end.wall` long.
    (delay.min(others) + stolen).min(window + start.head.min(start.wall))
}

/// The run-queue delays of the tasks a run starts with, read as it starts: (thread id, its
/// `/proc/<tid>/schedstat` opened earlier) of each. One `pread` each.
pub(super) fn start_delays<'a>(
    known: impl IntoIterator<Item = (u32, &'a File)>,
) -> HashMap<u32, u64> {
    known
        .into_iter()
        .filter_map(|(t, f)| Some((t, delay_of(f)?)))
        .collect()
}

/// Opens a thread's `/proc/<tid>/schedstat`, for [`start_delays`] (None when it has exited).
pub(super) fn open_schedstat(tid: u32) -> Option<File> {
    File::open(format!("/proc/{tid}/schedstat")).ok()
}

/// The run-queue delay in an open `schedstat` file, in nanoseconds (None once its thread has
/// exited): one `pread` from offset 0, which makes the kernel write the counters anew.
fn delay_of(f: &File) -> Option<u64> {
    // Three decimal counters of at most 20 digits each, two spaces and a newline.
    let mut buf = [0u8; 96];
    let n = f.read_at(&mut buf, 0).ok()?;
    parse_delay(&buf[..n])
}

fn parse_delay(buf: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(buf).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The run-queue delay of a thread, in nanoseconds (None when it has exited). One open and
/// one read into a buffer on the stack: it runs for every task of the run at every wake.
fn run_delay(tid: u32) -> Option<u64> {
    use std::io::Read;
    // Three decimal counters of at most 20 digits each, two spaces and a newline.
    let mut buf = [0u8; 96];
    let n = File::open(format!("/proc/{tid}/schedstat"))
        .ok()?
        .read(&mut buf)
        .ok()?;
    parse_delay(&buf[..n])
}

/// The state letter of a thread (`R`, `S`, `D`, ...; None when it has exited): the field after
/// the command name, which ends at the last `)` of `/proc/<tid>/stat`.
fn state(tid: u32) -> Option<u8> {
    use std::io::Read;
    // The state comes within the first 64 bytes after a command name of at most 64.
    let mut buf = [0u8; 160];
    let n = File::open(format!("/proc/{tid}/stat"))
        .ok()?
        .read(&mut buf)
        .ok()?;
    let end = buf[..n].iter().rposition(|&b| b == b')')?;
    buf.get(end + 2).copied()
}

/// The CPU the calling thread runs on, and the scheduler's clock of that CPU when the thread
/// last got it (nanoseconds): the thread has just woken, so that is close to now.
fn own_clock() -> Option<(u32, u64)> {
    let now = exec_start(&std::fs::read_to_string("/proc/thread-self/sched").ok()?)?;
    // SAFETY: sched_getcpu takes no arguments and only reads the calling thread's CPU.
    let cpu = u32::try_from(unsafe { libc::sched_getcpu() }).ok()?;
    Some((cpu, now))
}

/// A thread that is runnable now: the CPU it is queued on, and that CPU's scheduler clock when
/// it last left it (nanoseconds). None when it is not runnable or has exited.
fn waiting_since(tid: u32) -> Option<(u32, u64)> {
    // Read before the state: a task that runs between the two reads has a later clock, which
    // only shortens the wait counted.
    let left = exec_start(&std::fs::read_to_string(format!("/proc/{tid}/sched")).ok()?)?;
    let stat = std::fs::read_to_string(format!("/proc/{tid}/stat")).ok()?;
    let (state, cpu) = state_and_cpu(&stat)?;
    (state == "R").then_some((cpu, left))
}

/// The state and the CPU (`processor`, the 39th field) in a `/proc/<tid>/stat` line.
fn state_and_cpu(stat: &str) -> Option<(&str, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    // The state is the 3rd field; the processor the 39th.
    let cpu = fields.nth(35)?.parse().ok()?;
    Some((state, cpu))
}

/// `se.exec_start` of a `/proc/<tid>/sched` text, in nanoseconds: milliseconds with six
/// decimals there.
fn exec_start(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("se.exec_start"))?;
    let value = line.split(':').nth(1)?.trim();
    let (ms, frac) = value.split_once('.').unwrap_or((value, ""));
    let ns: u64 = format!("{frac:0<6}").get(..6)?.parse().ok()?;
    ms.parse::<u64>()
        .ok()?
        .checked_mul(1_000_000)?
        .checked_add(ns)
}

/// Idle (idle + iowait) and steal time summed over `cpus`, from `/proc/stat`.
///
/// One `pread` from offset 0 into a buffer larger than the file: the kernel makes the whole text
/// on every read, and a read at a later offset would make it again to skip to that offset (a
/// second `show_stat` per sample, for nothing). A buffer the text fills is doubled and the read
/// repeated, so a host with many CPUs and interrupts still gets one consistent snapshot.
fn cpu_times(stat: &File, cpus: &[usize]) -> Option<(Duration, Duration)> {
    let mut buf = vec![0u8; 16 << 10];
    loop {
        let n = stat.read_at(&mut buf, 0).ok()?;
        if n < buf.len() {
            return parse_cpu_times(std::str::from_utf8(&buf[..n]).ok()?, cpus);
        }
        if buf.len() >= 16 << 20 {
            return None;
        }
        buf.resize(buf.len() * 2, 0);
    }
}

fn parse_cpu_times(text: &str, cpus: &[usize]) -> Option<(Duration, Duration)> {
    let (mut idle, mut steal, mut found) = (0u64, 0u64, 0);
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(n) = f
            .next()
            .and_then(|name| name.strip_prefix("cpu"))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if !cpus.contains(&n) {
            continue;
        }
        // user nice system idle iowait irq softirq steal ...
        let v: Vec<u64> = f.take(8).filter_map(|x| x.parse().ok()).collect();
        if v.len() < 8 {
            return None;
        }
        idle += v[3] + v[4];
        steal += v[7];
        found += 1;
    }
    (found == cpus.len() && found > 0).then(|| (TICK * idle as u32, TICK * steal as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WallCause;

    fn sample(wall: u64, cpu: u64, idle: u64, steal: u64, delays: &[(u32, u64)]) -> Sample {
        Sample {
            wall: Duration::from_millis(wall),
            cpu: Duration::from_millis(cpu),
            idle: Duration::from_millis(idle),
            steal: Duration::from_millis(steal),
            delays: delays.iter().map(|&(t, d)| (t, d * 1_000_000)).collect(),
            head: Duration::ZERO,
            in_flight: Duration::ZERO,
        }
    }

    #[test]
    fn the_wait_is_what_others_took_from_a_runnable_run() {
        let start = sample(0, 0, 0, 0, &[(1, 0)]);
        // CPU-bound on a CPU shared with three hogs: a quarter of it, waiting the rest.
        let end = sample(1000, 250, 0, 0, &[(1, 750)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::from_millis(750));
        // Asleep under the same load: others used the CPU, but the run never waited for it.
        let end = sample(1000, 0, 0, 0, &[(1, 0)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::ZERO);
        // Four own threads on one quiet CPU: long run-queue delays, but behind its own threads.
        let start = sample(0, 0, 0, 0, &[(1, 0), (2, 0), (3, 0), (4, 0)]);
        let end = sample(1000, 1000, 0, 0, &[(1, 750), (2, 750), (3, 750), (4, 750)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::ZERO);
        // Half asleep on an idle CPU, half spinning with a second own thread.
        let end = sample(1000, 500, 500, 0, &[(1, 250), (2, 250)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::ZERO);
        // A task that appeared after the first sample counts from zero; one gone counts nothing.
        let start = sample(0, 0, 0, 0, &[(1, 100)]);
        let end = sample(1000, 400, 0, 0, &[(2, 500)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::from_millis(500));
    }

    #[test]
    fn before_the_first_wake_the_wait_is_the_delay_bounded_by_what_the_run_left_unused() {
        let ms = Duration::from_millis;
        let stat = File::open("/proc/stat").expect("/proc/stat");
        // First wake at 25 ms, having run 5 ms on its one CPU: 20 ms may have been others'.
        let start = Sample::first(ms(25), ms(5), 1, [(1, 0)].into(), &[0], &stat).expect("cpu0");
        assert_eq!(start.head, ms(20));
        let (idle, steal) = (
            start.idle.as_millis() as u64,
            start.steal.as_millis() as u64,
        );
        // It had waited 20 ms for a CPU others held, then ran alone to 1 s.
        let end = sample(1000, 980, idle, steal, &[(1, 20)]);
        assert_eq!(cpu_wait(&start, &end, 1), ms(20));
        // Asleep from the start, with other work on its CPU: no delay, no wait.
        let start = Sample::first(ms(25), ms(0), 1, [(1, 0)].into(), &[0], &stat).expect("cpu0");
        let end = sample(1000, 0, idle, steal, &[(1, 0)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::ZERO);
        // Four own threads on one quiet CPU from the start: it used the whole head, no wait.
        let s = Sample::first(ms(25), ms(25), 1, HashMap::new(), &[0], &stat).expect("cpu0");
        assert_eq!(s.head, Duration::ZERO);
        let end = sample(
            1000,
            1000,
            idle,
            steal,
            &[(1, 750), (2, 750), (3, 750), (4, 750)],
        );
        assert_eq!(cpu_wait(&s, &end, 1), Duration::ZERO);
    }

    #[test]
    fn the_delays_a_run_starts_with_are_read_from_files_opened_before() {
        let me = std::fs::read_to_string("/proc/thread-self/stat").expect("readable");
        let tid: u32 = me
            .split(' ')
            .next()
            .and_then(|t| t.parse().ok())
            .expect("a tid");
        let f = open_schedstat(tid).expect("this thread's schedstat");
        // A thread that exited after its file was opened has no delay to start from.
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            let me = std::fs::read_to_string("/proc/thread-self/stat").expect("readable");
            tx.send(me.split(' ').next().and_then(|t| t.parse::<u32>().ok()))
                .expect("receiver waits");
        });
        let gone = rx.recv().expect("sent").expect("a tid");
        let g = open_schedstat(gone);
        t.join().expect("thread ends");
        // join returns when the thread's tid is cleared, a moment before the kernel lets go of
        // the task: wait for that.
        while std::path::Path::new(&format!("/proc/self/task/{gone}")).exists() {
            std::thread::yield_now();
        }
        let d = start_delays([(tid, &f)].into_iter().chain(g.as_ref().map(|g| (gone, g))));
        // A delay never decreases while its thread lives.
        assert!(d[&tid] <= run_delay(tid).expect("alive"), "{d:?}");
        assert!(!d.contains_key(&gone), "{d:?}");
        assert!(open_schedstat(u32::MAX).is_none());
    }

    #[test]
    fn steal_counts_in_the_share_of_the_run() {
        let start = sample(0, 0, 0, 0, &[(1, 0)]);
        // The hypervisor took 600 ms; the CPU ran only the run otherwise.
        let end = sample(1000, 400, 0, 600, &[(1, 0)]);
        assert_eq!(cpu_wait(&start, &end, 1), Duration::from_millis(600));
    }

    #[test]
    fn the_keepers_rule_tells_load_from_waiting() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        // Killed at 3 s having waited 2.2 s for the CPU: the host's.
        assert_eq!(WallCause::of(s(3), ms(2200), s(3)), WallCause::HostLoad);
        // Killed at 3 s having waited 0.1 s: asleep or blocked, the program's.
        assert_eq!(WallCause::of(s(3), ms(100), s(3)), WallCause::Program);
        // Waited 0.2 s: under a tenth of the limit, the program's.
        assert_eq!(WallCause::of(s(3), ms(200), s(3)), WallCause::Program);
        // Waited 0.5 s of 3.3 s but used 2.8 s of its own: the program's.
        assert_eq!(WallCause::of(ms(3300), ms(500), s(3)), WallCause::Program);
        // Waited 0.4 s and used 2.6 s of its own: it might have ended in time; the host's.
        assert_eq!(WallCause::of(s(3), ms(400), s(3)), WallCause::HostLoad);
    }

    #[test]
    fn blocked_time_is_counted_between_wakes_and_bounded_by_the_limit() {
        let ms = Duration::from_millis;
        let mut w = Watch::default();
        // Running at 25 ms, blocked at 50 and 75: the two gaps before those wakes.
        w.note(false, ms(25));
        w.note(true, ms(50));
        w.note(true, ms(75));
        assert_eq!(w.io_wait(ms(1000)), ms(50));
        // A late wake (the keeper waited 400 ms for its CPU) counts at most MAX_GAP.
        w.note(true, ms(475));
        assert_eq!(w.io_wait(ms(1000)), ms(100));
        // Asleep (S) since: nothing more.
        w.note(false, ms(500));
        assert_eq!(w.io_wait(ms(1000)), ms(100));
        // Blocked for ever (a vfork parent whose child sleeps): never more than the limit.
        let mut t = 500;
        while t < 5000 {
            t += 25;
            w.note(true, ms(t));
        }
        assert_eq!(w.io_wait(ms(1000)), ms(1000));
    }

    #[test]
    fn a_threads_state_is_read_past_its_command_name() {
        // This test's own thread is running.
        let me = std::fs::read_to_string("/proc/thread-self/stat").expect("readable");
        let tid: u32 = me
            .split(' ')
            .next()
            .and_then(|t| t.parse().ok())
            .expect("a tid");
        assert_eq!(state(tid), Some(b'R'));
        assert_eq!(state(u32::MAX), None);
    }

    /// Pins the calling thread to `cpu`.
    fn pin(cpu: usize) {
        // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET and sched_setaffinity get a
        // pointer to this local and its size.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            assert_eq!(
                libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set),
                0,
                "pin to CPU {cpu}"
            );
        }
    }

    fn own_tid() -> u32 {
        // SAFETY: gettid has no arguments.
        unsafe { libc::gettid() as u32 }
    }

    /// Sets the calling thread's scheduling policy (priority 1 for a real-time one).
    fn set_policy(policy: i32) -> bool {
        let param = libc::sched_param {
            sched_priority: i32::from(policy == libc::SCHED_FIFO),
        };
        // SAFETY: sets the calling thread's policy from a local.
        unsafe { libc::sched_setscheduler(0, policy, &param) == 0 }
    }

    /// A task waiting for its CPU right now has that wait in no run-queue delay: the keeper,
    /// which holds the CPU then, counts it from the scheduler's clock. Here this thread keeps
    /// its CPU from a spinning thread for 300 ms (a real-time policy: the other cannot run
    /// meanwhile), as a loaded host's other work does, and measures.
    #[test]
    fn a_wait_in_progress_counts_though_no_delay_has_it_yet() {
        use std::sync::atomic::{AtomicBool, Ordering};
        // SAFETY: sched_getcpu has no arguments.
        let cpu = unsafe { libc::sched_getcpu() } as usize;
        pin(cpu);
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let spinner = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                pin(cpu);
                tx.send(own_tid()).expect("the test waits");
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        };
        let other = rx.recv().expect("the spinner started");
        // It has run (and spins on): the wait below starts when it leaves the CPU to this one.
        while run_delay(other).is_none() || state(other) != Some(b'R') {
            std::thread::yield_now();
        }
        if !set_policy(libc::SCHED_FIFO) {
            stop.store(true, Ordering::Relaxed);
            spinner.join().expect("the spinner ends");
            assert!(
                std::env::var_os("CI").is_none(),
                "SCHED_FIFO refused: this test needs root (CAP_SYS_NICE)"
            );
            eprintln!("skipped: SCHED_FIFO refused (not root)");
            return;
        }
        let start = std::time::Instant::now();
        let mut w = Watch::default();
        w.observe(&[other], start.elapsed());
        let before = run_delay(other);
        while start.elapsed() < Duration::from_millis(300) {
            std::hint::spin_loop();
        }
        let wall = start.elapsed();
        w.observe(&[other], wall);
        let after = run_delay(other);
        let in_flight = w.in_flight(wall);
        let restored = set_policy(libc::SCHED_OTHER);
        stop.store(true, Ordering::Relaxed);
        spinner.join().expect("the spinner ends");
        assert!(restored, "back to SCHED_OTHER");
        // The kernel's counter has none of the wait yet: what the keeper missed.
        let counted = after.zip(before).map(|(a, b)| a - b);
        assert!(counted < Some(10_000_000), "{counted:?}");
        // The wait in progress is there, and no more than the time it was seen runnable.
        assert!(in_flight >= Duration::from_millis(280), "{in_flight:?}");
        assert!(in_flight <= wall, "{in_flight:?} of {wall:?}");
    }

    #[test]
    fn a_task_waits_at_most_since_it_was_last_seen_not_runnable() {
        let ms = Duration::from_millis;
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let sleeper = std::thread::spawn(move || {
            tid_tx.send(own_tid()).expect("the test waits");
            let _ = rx.recv();
        });
        let asleep = tid_rx.recv().expect("a tid");
        while state(asleep) != Some(b'S') {
            std::thread::yield_now();
        }
        let me = own_tid();
        let mut w = Watch::default();
        // This thread runs (state R); the sleeper does not; a tid that is gone is nothing.
        w.observe(&[me, asleep, u32::MAX], ms(25));
        assert_eq!(w.runnable_since.get(&me), Some(&ms(0)));
        assert!(!w.runnable_since.contains_key(&asleep));
        assert!(!w.runnable_since.contains_key(&u32::MAX));
        // Runnable at the next wake too: still since the wake before the first that saw it so.
        w.observe(&[me, asleep], ms(50));
        assert_eq!(w.runnable_since.get(&me), Some(&ms(0)));
        drop(tx);
        sleeper.join().expect("the sleeper ends");
        // Its wait in progress is at most the time since then, whatever its clock says.
        assert!(w.in_flight(ms(50)) <= ms(50));
    }

    #[test]
    fn proc_sched_and_stat_fields() {
        let sched = "x (1, #threads: 1)\n---\nse.exec_start                                :       1134904.157866\nse.vruntime    :  1.5\n";
        assert_eq!(exec_start(sched), Some(1_134_904_157_866));
        assert_eq!(exec_start("se.exec_start : 12.5\n"), Some(12_500_000));
        assert_eq!(exec_start("se.exec_start : 7\n"), Some(7_000_000));
        assert_eq!(exec_start("se.vruntime : 7\n"), None);
        // A command name with spaces and parentheses; the processor is the 39th field.
        let mut stat = String::from("42 (a) b) R");
        for i in 4..=52 {
            stat.push_str(&format!(" {i}"));
        }
        assert_eq!(state_and_cpu(&stat), Some(("R", 39)));
        assert_eq!(state_and_cpu("42 (a) S 1 2"), None);
        let me = std::fs::read_to_string("/proc/thread-self/stat").expect("readable");
        assert_eq!(state_and_cpu(&me).map(|s| s.0), Some("R"));
        assert!(own_clock().is_some());
    }

    #[test]
    fn proc_stat_lines() {
        let text = "cpu  10 0 10 100 5 0 0 7 0 0\ncpu0 5 0 5 50 2 0 0 3 0 0\ncpu1 5 0 5 50 3 0 0 4 0 0\nintr 1 2 3\n";
        let ms = Duration::from_millis;
        assert_eq!(parse_cpu_times(text, &[1]), Some((ms(530), ms(40))));
        assert_eq!(parse_cpu_times(text, &[0, 1]), Some((ms(1050), ms(70))));
        assert_eq!(parse_cpu_times(text, &[2]), None);
    }
}

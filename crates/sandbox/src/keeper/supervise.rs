//! A run's supervision: the keeper waits for init's report, kills the run at a limit, and
//! measures the time the run lost to the host (see `starve`), which the wall-time limit does not
//! count.

use super::*;

impl Keeper {
    /// Waits for init's report (or its death without one: the report pipe hangs up), killing it
    /// when a limit is crossed; returns that limit, for the wall-time limit what the run waited
    /// for its CPUs (see `starve`), and the time the run lost to the host in all
    /// (`RunOutcome::host_wait`). `base` is the cgroup's counters before the run with the
    /// run-queue delays of its tasks at its start (`starve::start_delays`).
    ///
    /// The wall-time limit counts the program's own time only: time its tasks were runnable but
    /// waited while other work held their CPUs, or were blocked in the kernel on the host's I/O
    /// (bounded: see `starve`), is not its time. So when the wall time reaches
    /// the limit, the wait so far is measured and the deadline moves by it, as often as needed,
    /// until the wall time less the wait reaches the limit (a program asleep or blocked: its
    /// time limit verdict) or the wall time reaches [`WALL_CEILING`] times the limit (a host too
    /// loaded to run it: [`WallCause::HostLoad`], a host fault the judge retries).
    pub(super) fn supervise(
        &mut self,
        pid: libc::pid_t,
        report: RawFd,
        run: &Prepared,
        base: Option<(
            &crate::cgroup::Baseline,
            std::collections::HashMap<u32, u64>,
        )>,
        start: Instant,
        keeper_before: Duration,
    ) -> (Option<LimitKind>, Option<WallKill>, Duration) {
        let limits = &run.limits;
        // The delays at the start count the wait of the run's first moments too; the rest of
        // the first sample waits for the first wake (see `starve`).
        let (base, mut at_start) = match base {
            Some((b, d)) => (Some(b), Some(d)),
            None => (None, None),
        };
        let mut first: Option<Sample> = None;
        // The run-queue delay of each task seen so far (exited ones included), and the time
        // one was blocked in the kernel.
        let mut seen = Watch::default();
        let ceiling = limits.wall.saturating_mul(WALL_CEILING);
        // The wall time at which the limit is looked at again: the limit plus the wait so far.
        let mut deadline = limits.wall;
        let mut wall_kill: Option<WallKill> = None;
        let mut waited = false;
        loop {
            let wall = start.elapsed();
            // The run's CPU: the cgroup's counter less the keeper's own share of it. Not read
            // before the first wait: init has only just been told to start the program, and a
            // run over its CPU limit is found at the next wake or its end all the same.
            let cpu = match (&mut self.cgroup, base) {
                (Some(_), Some(_)) if !waited => Some(Duration::ZERO),
                (Some(c), Some(b)) => c
                    .cpu_since(b)
                    .map(|c| c.saturating_sub(own_cpu().saturating_sub(keeper_before))),
                _ => None,
            };
            // The first sample, at the first wake (or a deadline before it: a limit under the
            // wake interval). A run that ends before it reads nothing more.
            if waited || wall >= deadline {
                if let (Some(cpu), Some(stat)) = (cpu, &self.proc_stat) {
                    if let Some(delays) = at_start.take() {
                        let n = self.cpus.len() as u32;
                        first = Sample::first(wall, cpu, n, delays, &self.cpus, stat);
                    }
                }
            }
            // Not before the first wait: most runs end within it and never read their tasks.
            if first.is_some() && waited {
                if let Some(tasks) = self.run_tasks() {
                    seen.observe(&tasks, wall);
                }
            }
            if wall >= deadline && cpu.is_none_or(|c| c < limits.cpu) {
                let measured = match (&first, cpu) {
                    (Some(first), Some(cpu)) => self.sample(wall, cpu).map(|end| {
                        // The waits in progress count too: the keeper runs now, on the CPU
                        // the run's tasks wait for (see `starve`).
                        let end = end
                            .with_departed(&seen)
                            .with_in_flight(seen.in_flight(wall));
                        let cpu_wait = cpu_wait(first, &end, self.cpus.len() as u32);
                        let io_wait = seen.io_wait(limits.wall);
                        WallKill {
                            cpu_wait,
                            io_wait,
                            cause: WallCause::of(wall, cpu_wait + io_wait, limits.wall),
                        }
                    }),
                    _ => None,
                };
                wall_kill = measured;
                deadline = match measured {
                    Some(w) if wall < ceiling => (limits.wall + w.host_wait()).min(ceiling),
                    _ => wall,
                };
            }
            let verdict = if cpu.is_some_and(|c| c >= limits.cpu) {
                Some(LimitKind::Cpu)
            } else if wall >= deadline {
                Some(LimitKind::Wall)
            } else if output_over(run.output_bytes(), limits.output) {
                Some(LimitKind::Output)
            } else {
                None
            };
            if verdict.is_some() {
                // SAFETY: kills our own child; with namespaces the holder then kills what the
                // run left in the keeper's pid namespace (`PidNs::clean`).
                unsafe { libc::kill(pid, libc::SIGKILL) };
                if !self.namespaces {
                    // Without a pid namespace, the program's session is the best handle; what
                    // escapes it comes back to the keeper (a subreaper) and is killed after.
                    // SAFETY: kill has no memory-safety preconditions.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
                let lost = match wall_kill {
                    Some(w) if verdict == Some(LimitKind::Wall) => w.host_wait(),
                    _ => self.lost(first.as_ref(), &seen, wall, cpu, limits.wall),
                };
                let wall_kill = wall_kill.filter(|_| verdict == Some(LimitKind::Wall));
                return (verdict, wall_kill, lost);
            }
            let mut timeout = deadline.saturating_sub(wall).min(Duration::from_millis(25));
            if let Some(c) = cpu {
                timeout = timeout.min((limits.cpu - c) / self.ncpu);
            }
            let ms = timeout.as_millis().max(1) as i32;
            waited = true;
            // The report pipe is readable once init reported (the program and all it left are
            // reaped), and hung up if init died without a report.
            let mut p = libc::pollfd {
                fd: report,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            if unsafe { libc::poll(&mut p, 1, ms) } > 0 {
                let lost = self.lost(first.as_ref(), &seen, wall, cpu, limits.wall);
                return (None, None, lost);
            }
        }
    }
}

impl Keeper {
    /// The time a run that ended lost to the host (CPU wait and blocked time, see `starve`),
    /// measured from the last wake (`wall`, `cpu`: the run's wall and CPU time then). Zero for
    /// a run that ended before its first wake (a few milliseconds: nothing to take off) or
    /// without a cgroup.
    fn lost(
        &self,
        first: Option<&Sample>,
        seen: &Watch,
        wall: Duration,
        cpu: Option<Duration>,
        limit: Duration,
    ) -> Duration {
        let (Some(first), Some(cpu)) = (first, cpu) else {
            return Duration::ZERO;
        };
        if wall < MIN_LOST_WINDOW {
            return Duration::ZERO;
        }
        let waited = self.sample(wall, cpu).map_or(Duration::ZERO, |end| {
            cpu_wait(first, &end.with_departed(seen), self.cpus.len() as u32)
        });
        waited + seen.io_wait(limit)
    }

    /// The counters `starve` compares, now (None without a cgroup or `/proc/stat`).
    fn sample(&self, wall: Duration, cpu: Duration) -> Option<Sample> {
        let tasks = self.run_tasks()?;
        Sample::take(wall, cpu, &tasks, &self.cpus, self.proc_stat.as_ref()?)
    }

    /// The thread ids of the run: its cgroup's, less the keeper (None without a cgroup).
    fn run_tasks(&self) -> Option<Vec<u32>> {
        let me = std::process::id();
        Some(
            self.cgroup
                .as_ref()?
                .tasks()
                .into_iter()
                .filter(|&t| t != me)
                .collect(),
        )
    }
}

/// Runs shorter than this report no time lost to the host: not worth a `/proc/stat` read.
const MIN_LOST_WINDOW: Duration = Duration::from_millis(20);

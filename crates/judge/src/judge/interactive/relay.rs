//! The relay between the two sides of an interactive run: the four FIFOs ([`Pipes`]), the
//! two threads copying between them ([`Direction`], [`relay`]) with the bounded
//! [`Transcript`] and the program's output count, and the wake-ups of opens that a side that
//! never started will not answer ([`side_ended`], [`wake_relays`]).

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::super::JudgeError;

/// How many bytes of the two directions the transcript keeps.
pub(super) const TRANSCRIPT_LIMIT: usize = 4096;

/// The bounded record of both directions, in the order the relay saw them.
#[derive(Default)]
pub(super) struct Transcript {
    pub(super) chunks: Vec<(char, Vec<u8>)>,
    pub(super) kept: usize,
    pub(super) cut: bool,
}

impl Transcript {
    pub(super) fn push(&mut self, dir: char, data: &[u8]) {
        let room = TRANSCRIPT_LIMIT.saturating_sub(self.kept);
        let take = data.len().min(room);
        if take < data.len() {
            self.cut = true;
        }
        if take == 0 {
            return;
        }
        self.kept += take;
        match self.chunks.last_mut() {
            Some((d, v)) if *d == dir => v.extend_from_slice(&data[..take]),
            _ => self.chunks.push((dir, data[..take].to_vec())),
        }
    }

    /// Lines prefixed `> ` (program to interactor) and `< ` (interactor to program).
    pub(super) fn render(&self) -> String {
        let mut s = String::new();
        for (dir, data) in &self.chunks {
            for line in String::from_utf8_lossy(data).lines() {
                s.push(*dir);
                s.push(' ');
                s.push_str(line);
                s.push('\n');
            }
        }
        if self.cut {
            s.push_str(&format!("… (transcript cut at {TRANSCRIPT_LIMIT} bytes)\n"));
        }
        s
    }
}

pub(super) fn open_fifo(path: &Path, write: bool) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .open(path)
}

/// Wakes anyone still blocked opening `path` (a side that never started) by opening the other
/// end without blocking.
pub(super) fn unblock(path: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    for write in [false, true] {
        let _ = std::fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NONBLOCK)
            .open(path);
    }
}

/// Once both sides ended: wakes the relays' opens that no side will answer (a side that failed
/// before opening its ends), again until the relays ended, since an open that had not begun when
/// the ends were last opened would wait for ever (and the judging with it).
pub(super) fn wake_relays(pipes: &Pipes, relays: &[std::thread::ScopedJoinHandle<'_, ()>]) {
    while relays.iter().any(|r| !r.is_finished()) {
        for p in pipes.all() {
            unblock(p);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One direction of the relay: where it reads and writes, and what it records.
pub(super) struct Direction<'a> {
    pub(super) from: &'a Path,
    pub(super) to: &'a Path,
    /// `>` program to interactor, `<` back.
    pub(super) mark: char,
    pub(super) transcript: &'a Mutex<Transcript>,
    pub(super) count: AtomicU64,
    pub(super) limit: u64,
    pub(super) over: AtomicBool,
    /// When the writing side closed its end (it ended).
    pub(super) eof_at: Mutex<Option<Instant>>,
    /// The relay's open of `from`, then of `to`, has returned (opened or failed): nobody need
    /// wake it any more (see [`side_ended`]).
    pub(super) from_tried: AtomicBool,
    pub(super) to_tried: AtomicBool,
    /// The judge's own failure in this direction: an open, a read, or a write that failed for
    /// another reason than the partner's end being closed. The pair then says nothing about
    /// the program (what it sent was cut short by the judge), so its result is a host fault.
    pub(super) fault: Mutex<Option<(String, std::io::Error)>>,
    /// How long the relay's thread waited for a CPU while it ran (its run-queue delay,
    /// nanoseconds): every message of the pair passes through it, and meanwhile both sides
    /// wait, so it is time the pair lost to the host (`starved.rs`, `lost_to_host`).
    pub(super) waited: AtomicU64,
}

impl Direction<'_> {
    pub(super) fn new<'a>(
        from: &'a Path,
        to: &'a Path,
        mark: char,
        transcript: &'a Mutex<Transcript>,
        limit: u64,
    ) -> Direction<'a> {
        Direction {
            from,
            to,
            mark,
            transcript,
            count: AtomicU64::new(0),
            limit,
            over: AtomicBool::new(false),
            eof_at: Mutex::new(None),
            from_tried: AtomicBool::new(false),
            to_tried: AtomicBool::new(false),
            fault: Mutex::new(None),
            waited: AtomicU64::new(0),
        }
    }

    /// Records the first failure of the relay (see [`Direction::fault`]).
    pub(super) fn failed(&self, what: String, source: std::io::Error) {
        if let Ok(mut f) = self.fault.lock() {
            f.get_or_insert((what, source));
        }
    }

    /// The relay's own failure, as the host fault it is.
    pub(super) fn fault(&self) -> Option<JudgeError> {
        let (what, source) = self.fault.lock().ok()?.take()?;
        Some(JudgeError::Io {
            what: format!("relay the pipes of an interactive test: {what}"),
            source,
        })
    }
}

/// One side of the pair has ended (its run returned): the relays' opens of that side's two ends
/// that are still waiting will never be answered by it (a side that failed before its keeper
/// opened its pipes), so they are woken here, until they have returned. Without this, the relay
/// toward the other side holds that side's input open while it waits to open this side's
/// output: the other side waits for input that never comes, until its own wall limit, instead
/// of reading end of file at once. `ends` are the side's two FIFOs, `tried` the flags of the
/// relays' opens of them. A side that opened its ends leaves nothing to wake (both flags are
/// already set), so this never touches a pipe in use.
pub(super) fn side_ended(ends: [&Path; 2], tried: [&AtomicBool; 2]) {
    while tried.iter().any(|t| !t.load(Ordering::SeqCst)) {
        for p in ends {
            unblock(p);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The run-queue delay of the calling thread so far (`/proc/thread-self/schedstat`, second
/// field), `None` where the kernel does not say.
pub(super) fn thread_run_delay() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Relays `d` ([`relay_messages`]), recording how long its thread waited for a CPU.
pub(super) fn relay(d: &Direction<'_>) {
    let before = thread_run_delay();
    relay_messages(d);
    if let (Some(a), Some(b)) = (before, thread_run_delay()) {
        let waited = u64::try_from(b.saturating_sub(a).as_nanos()).unwrap_or(u64::MAX);
        d.waited.store(waited, Ordering::Relaxed);
    }
}

/// How long the relays of a pair waited for a CPU (see [`Direction::waited`]).
pub(super) fn relays_waited(ds: [&Direction<'_>; 2]) -> Duration {
    ds.iter()
        .map(|d| Duration::from_nanos(d.waited.load(Ordering::Relaxed)))
        .sum()
}

/// Copies `from` to `to` until end of file; once `to` is closed, keeps reading and drops.
/// Stops reading (closing `from`) when more than `limit` bytes came. Any other failure is the
/// judge's ([`Direction::fault`]), never the end of a side's output: it stops the relay
/// without marking an end of file.
pub(super) fn relay_messages(d: &Direction<'_>) {
    let (from, to, dir, transcript, count, limit, over) = (
        d.from,
        d.to,
        d.mark,
        d.transcript,
        &d.count,
        d.limit,
        &d.over,
    );
    std::thread::scope(|s| {
        let opener = s.spawn(|| {
            let f = open_fifo(to, true);
            d.to_tried.store(true, Ordering::SeqCst);
            f
        });
        let src = open_fifo(from, false);
        d.from_tried.store(true, Ordering::SeqCst);
        let mut dst = match opener.join() {
            Ok(Ok(f)) => Some(f),
            Ok(Err(e)) => {
                d.failed(format!("open {}", to.display()), e);
                None
            }
            Err(_) => {
                d.failed(
                    format!("open {}", to.display()),
                    std::io::Error::other("the opening thread panicked"),
                );
                None
            }
        };
        let mut src = match src {
            Ok(f) => f,
            Err(e) => {
                d.failed(format!("open {}", from.display()), e);
                return;
            }
        };
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match src.read(&mut buf) {
                Ok(0) => {
                    if let Ok(mut at) = d.eof_at.lock() {
                        *at = Some(Instant::now());
                    }
                    break;
                }
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    d.failed(format!("read {}", from.display()), e);
                    break;
                }
            };
            if count.fetch_add(n as u64, Ordering::Relaxed) + n as u64 > limit {
                over.store(true, Ordering::Relaxed);
                break;
            }
            if let Ok(mut t) = transcript.lock() {
                t.push(dir, &buf[..n]);
            }
            if let Some(f) = dst.as_mut() {
                match f.write_all(&buf[..n]).and_then(|_| f.flush()) {
                    Ok(()) => {}
                    // The partner closed its input (it ended): drop from now on.
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => dst = None,
                    Err(e) => {
                        d.failed(format!("write {}", to.display()), e);
                        break;
                    }
                }
            }
        }
    });
}

/// The four FIFOs of one interactive run.
pub(super) struct Pipes {
    pub(super) to_program: PathBuf,
    pub(super) from_program: PathBuf,
    pub(super) to_interactor: PathBuf,
    pub(super) from_interactor: PathBuf,
}

impl Pipes {
    pub(super) fn new(dir: &Path) -> Result<Pipes, JudgeError> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|source| JudgeError::Io {
            what: format!("create {}", dir.display()),
            source,
        })?;
        let p = Pipes {
            to_program: dir.join("to-program"),
            from_program: dir.join("from-program"),
            to_interactor: dir.join("to-interactor"),
            from_interactor: dir.join("from-interactor"),
        };
        for f in p.all() {
            ojd_sandbox::make_fifo(f).map_err(|source| JudgeError::Io {
                what: format!("create the pipe {}", f.display()),
                source,
            })?;
        }
        Ok(p)
    }

    pub(super) fn all(&self) -> [&PathBuf; 4] {
        [
            &self.to_program,
            &self.from_program,
            &self.to_interactor,
            &self.from_interactor,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both sides failed before opening their pipes, and a relay reached its opens only after
    /// the judge had last woken them (a loaded host): the relays still end, and with them the
    /// pair, within a bound. Woken once, such a relay waited for ever.
    #[test]
    fn relays_that_open_late_are_woken() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pipes");
        let (tx, rx) = std::sync::mpsc::channel();
        let watched = std::thread::spawn(move || {
            let pipes = Pipes::new(&dir).unwrap();
            let transcript = Mutex::new(Transcript::default());
            let direction = |from, to, mark| Direction::new(from, to, mark, &transcript, u64::MAX);
            let up = direction(&pipes.from_program, &pipes.to_interactor, '>');
            let down = direction(&pipes.from_interactor, &pipes.to_program, '<');
            std::thread::scope(|s| {
                let late = |d| {
                    move || {
                        std::thread::sleep(Duration::from_millis(300));
                        relay(d);
                    }
                };
                let relays = [s.spawn(late(&up)), s.spawn(late(&down))];
                wake_relays(&pipes, &relays);
            });
            let _ = tx.send(());
        });
        let ended = rx.recv_timeout(Duration::from_secs(20));
        if ended.is_ok() {
            watched.join().unwrap();
        }
        assert!(ended.is_ok(), "a relay that opened late waited for ever");
    }

    /// The program's side failed before its keeper opened its pipes (its run returned at once)
    /// while the interactor waits for its input: once the judge marks that side ended, the
    /// interactor reads end of file within a bound, instead of waiting for the relay that waits
    /// to open the program's output (for ever here; until its wall limit in a real pair).
    #[test]
    fn a_side_that_never_opened_its_pipes_gives_its_partner_end_of_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pipes");
        let pipes = Pipes::new(&dir).unwrap();
        let (to_interactor, from_interactor) =
            (pipes.to_interactor.clone(), pipes.from_interactor.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        // The interactor, as its keeper opens its streams: input, then output; then it reads.
        let interactor = std::thread::spawn(move || {
            let mut input = open_fifo(&to_interactor, false).unwrap();
            let _output = open_fifo(&from_interactor, true).unwrap();
            let mut got = Vec::new();
            let read = input.read_to_end(&mut got).map(|_| got);
            let _ = tx.send(read.map_err(|e| e.to_string()));
        });
        let transcript = Mutex::new(Transcript::default());
        let up = Direction::new(
            &pipes.from_program,
            &pipes.to_interactor,
            '>',
            &transcript,
            u64::MAX,
        );
        let down = Direction::new(
            &pipes.from_interactor,
            &pipes.to_program,
            '<',
            &transcript,
            u64::MAX,
        );
        let heard = std::thread::scope(|s| {
            let relays = [s.spawn(|| relay(&up)), s.spawn(|| relay(&down))];
            // The program's run returned without opening anything.
            side_ended(
                [&pipes.from_program, &pipes.to_program],
                [&up.from_tried, &down.to_tried],
            );
            let heard = rx.recv_timeout(Duration::from_secs(10));
            // However it went, nothing is left waiting.
            wake_relays(&pipes, &relays);
            heard
        });
        interactor.join().unwrap();
        let heard = heard.expect("the interactor still waits for input from a program gone");
        assert_eq!(heard, Ok(Vec::new()), "end of file, and nothing else");
    }

    /// A relay whose read or write fails (here: reading a folder, writing to a full device) is
    /// the judge's fault, reported as such, and no end of file of the side it reads: it once
    /// read as the program's end of output (the interactor then said wrong answer) or dropped
    /// the rest silently.
    #[test]
    fn a_relay_failure_is_a_host_fault_not_an_end_of_file() {
        let tmp = tempfile::tempdir().unwrap();
        let transcript = Mutex::new(Transcript::default());
        let reads = Direction::new(
            tmp.path(),
            Path::new("/dev/null"),
            '>',
            &transcript,
            u64::MAX,
        );
        relay(&reads);
        assert!(reads.eof_at.lock().unwrap().is_none(), "no end of file");
        let fault = reads.fault().expect("a failed read is a fault");
        assert!(
            fault.is_host_fault() && fault.to_string().contains("read"),
            "{fault}"
        );

        let input = tmp.path().join("in");
        std::fs::write(&input, "500\n").unwrap();
        let writes = Direction::new(&input, Path::new("/dev/full"), '>', &transcript, u64::MAX);
        relay(&writes);
        let fault = writes.fault().expect("a failed write is a fault");
        assert!(
            fault.is_host_fault() && fault.to_string().contains("write"),
            "{fault}"
        );

        // What is no fault: an input read to its end, written where it goes.
        let fine = Direction::new(&input, Path::new("/dev/null"), '>', &transcript, u64::MAX);
        relay(&fine);
        assert!(fine.fault().is_none() && fine.eof_at.lock().unwrap().is_some());
    }

    #[test]
    fn a_threads_run_queue_delay_is_readable_here() {
        assert!(thread_run_delay().is_some());
    }

    #[test]
    fn transcript_is_bounded_and_ordered() {
        let mut t = Transcript::default();
        t.push('>', b"1\n");
        t.push('>', b"2\n");
        t.push('<', b"higher\n");
        assert_eq!(t.render(), "> 1\n> 2\n< higher\n");
        t.push('>', &vec![b'x'; TRANSCRIPT_LIMIT]);
        assert!(t.kept == TRANSCRIPT_LIMIT && t.render().ends_with("bytes)\n"));
    }
}

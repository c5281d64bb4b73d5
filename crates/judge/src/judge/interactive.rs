//! The judging pipeline's run mode for interactive problems: the submission and the problem's
//! interactor run in two sandboxes joined by pipes. The main entry is [`run_test`]; the verdict
//! rule is [`decide`].
//!
//! # Theory of operation
//!
//! Each side runs in a sandbox of its own (the program in one of the judge's pool, the
//! interactor in a keeper started for it, with another uid), each under its own limits: the
//! program under the problem's, the interactor under generous ones of its own (CPU up to the
//! pair's wall limit, 1 GiB). Both have the same wall limit, so the pair's wall time is bounded
//! by it. The four ends are FIFOs in the judge's scratch folder, and the judge relays between
//! them (program → interactor, interactor → program) in two threads. The relay is what records
//! the transcript (bounded: the first [`TRANSCRIPT_LIMIT`] bytes of both directions, in order)
//! and counts the program's output against its output limit (a FIFO has no size for the
//! sandbox to count).
//!
//! EOF, defined: when the program exits (or is killed), the interactor reads end of file on its
//! standard input; its later writes are read and dropped. When the interactor exits, the
//! program reads end of file; what the program writes after that is read and dropped (and still
//! counts against its output limit). Past its output limit the program's output is no longer
//! read: its next write fails (SIGPIPE, or EPIPE if it ignores the signal). A side whose run
//! returned before its keeper opened its pipes has ended too: the judge wakes the relays'
//! opens of its ends ([`side_ended`]), so its partner reads end of file at once. A relay's own
//! failure is the judge's, a host fault ([`Direction::fault`]), never an end of file.
//!
//! Protocols: Kattis (`interactor testdata.in testdata.ans . [flags]`, 42 accepted, 43 wrong
//! answer, feedback files as for output validators) and testlib (`interactor input tout answer`,
//! 0 accepted, 1 or 2 wrong answer, 3 failure).

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::check::{kattis_outcome, testlib_outcome, CheckOutcome, FEEDBACK_CAPS, FEEDBACK_TMPFS};
use super::run::{retry_starved, Try, STARVED_TRIES};
use super::{classify, signal_name, Judge, JudgeError, Program, ProgramRun};
use crate::problem::{Interactor, InteractorProtocol, Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{Limits, RunOutcome, Termination};

/// How many bytes of the two directions the transcript keeps.
const TRANSCRIPT_LIMIT: usize = 4096;

/// The bounded record of both directions, in the order the relay saw them.
#[derive(Default)]
struct Transcript {
    chunks: Vec<(char, Vec<u8>)>,
    kept: usize,
    cut: bool,
}

impl Transcript {
    fn push(&mut self, dir: char, data: &[u8]) {
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
    fn render(&self) -> String {
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

fn open_fifo(path: &Path, write: bool) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .open(path)
}

/// Wakes anyone still blocked opening `path` (a side that never started) by opening the other
/// end without blocking.
fn unblock(path: &Path) {
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
fn wake_relays(pipes: &Pipes, relays: &[std::thread::ScopedJoinHandle<'_, ()>]) {
    while relays.iter().any(|r| !r.is_finished()) {
        for p in pipes.all() {
            unblock(p);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One direction of the relay: where it reads and writes, and what it records.
struct Direction<'a> {
    from: &'a Path,
    to: &'a Path,
    /// `>` program to interactor, `<` back.
    mark: char,
    transcript: &'a Mutex<Transcript>,
    count: AtomicU64,
    limit: u64,
    over: AtomicBool,
    /// When the writing side closed its end (it ended).
    eof_at: Mutex<Option<Instant>>,
    /// The relay's open of `from`, then of `to`, has returned (opened or failed): nobody need
    /// wake it any more (see [`side_ended`]).
    from_tried: AtomicBool,
    to_tried: AtomicBool,
    /// The judge's own failure in this direction: an open, a read, or a write that failed for
    /// another reason than the partner's end being closed. The pair then says nothing about
    /// the program (what it sent was cut short by the judge), so its result is a host fault.
    fault: Mutex<Option<(String, std::io::Error)>>,
    /// How long the relay's thread waited for a CPU while it ran (its run-queue delay,
    /// nanoseconds): every message of the pair passes through it, and meanwhile both sides
    /// wait, so it is time the pair lost to the host ([`lost_to_host`]).
    waited: AtomicU64,
}

impl Direction<'_> {
    fn new<'a>(
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
    fn failed(&self, what: String, source: std::io::Error) {
        if let Ok(mut f) = self.fault.lock() {
            f.get_or_insert((what, source));
        }
    }

    /// The relay's own failure, as the host fault it is.
    fn fault(&self) -> Option<JudgeError> {
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
fn side_ended(ends: [&Path; 2], tried: [&AtomicBool; 2]) {
    while tried.iter().any(|t| !t.load(Ordering::SeqCst)) {
        for p in ends {
            unblock(p);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Copies `from` to `to` until end of file; once `to` is closed, keeps reading and drops.
/// Stops reading (closing `from`) when more than `limit` bytes came. Any other failure is the
/// judge's ([`Direction::fault`]), never the end of a side's output: it stops the relay
/// without marking an end of file.
/// The run-queue delay of the calling thread so far (`/proc/thread-self/schedstat`, second
/// field), `None` where the kernel does not say.
fn thread_run_delay() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Relays `d` ([`relay_messages`]), recording how long its thread waited for a CPU.
fn relay(d: &Direction<'_>) {
    let before = thread_run_delay();
    relay_messages(d);
    if let (Some(a), Some(b)) = (before, thread_run_delay()) {
        let waited = u64::try_from(b.saturating_sub(a).as_nanos()).unwrap_or(u64::MAX);
        d.waited.store(waited, Ordering::Relaxed);
    }
}

/// How long the relays of a pair waited for a CPU (see [`Direction::waited`]).
fn relays_waited(ds: [&Direction<'_>; 2]) -> Duration {
    ds.iter()
        .map(|d| Duration::from_nanos(d.waited.load(Ordering::Relaxed)))
        .sum()
}

fn relay_messages(d: &Direction<'_>) {
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

/// What the two runs did, for [`decide`].
struct Ends<'a> {
    pub(crate) program: &'a RunOutcome,
    pub(crate) limits: &'a Limits,
    /// The program wrote more than its output limit (counted by the relay).
    pub(crate) output_over: bool,
    pub(crate) interactor: &'a RunOutcome,
    /// What the interactor's exit code (and feedback) says.
    pub(crate) said: CheckOutcome,
    /// The interactor's run ended before the program's.
    pub(crate) interactor_first: bool,
}

/// The verdict of an interactive run, by one rule applied in this order:
/// 1. the interactor crashed or exited with a code its protocol does not define → JE;
/// 2. the interactor ended first and said wrong answer → WA;
/// 3. the program went over a limit → TLE, MLE, OLE;
/// 4. the program crashed (signal, non-zero exit, forbidden system call) → RE;
/// 5. the interactor went over its own limits → JE;
/// 6. otherwise what the interactor said: AC, WA (or JE for its own failure).
fn decide(e: &Ends<'_>) -> (Verdict, String) {
    let interactor_limited = e.interactor.killed_by.is_some();
    if let (false, CheckOutcome::Failed(m)) = (interactor_limited, &e.said) {
        return (Verdict::JudgeError, format!("interactor: {m}"));
    }
    if let (true, CheckOutcome::Wrong(m)) = (e.interactor_first, &e.said) {
        return (Verdict::WrongAnswer, m.clone());
    }
    if e.output_over {
        return (
            Verdict::OutputLimitExceeded,
            format!("output limit of {} bytes exceeded", e.limits.output),
        );
    }
    let program = classify(e.program, e.limits);
    if let Some((
        v @ (Verdict::TimeLimitExceeded
        | Verdict::MemoryLimitExceeded
        | Verdict::OutputLimitExceeded),
        m,
    )) = &program
    {
        return (*v, m.clone());
    }
    if let Some((v, m)) = program {
        return (v, m);
    }
    if interactor_limited {
        return (
            Verdict::JudgeError,
            format!(
                "the interactor exceeded its own limit ({:?})",
                e.interactor.killed_by
            ),
        );
    }
    match &e.said {
        CheckOutcome::Accepted => (Verdict::Accepted, String::new()),
        CheckOutcome::Wrong(m) => (Verdict::WrongAnswer, m.clone()),
        CheckOutcome::Failed(m) => (Verdict::JudgeError, format!("interactor: {m}")),
    }
}

/// The four FIFOs of one interactive run.
struct Pipes {
    to_program: PathBuf,
    from_program: PathBuf,
    to_interactor: PathBuf,
    from_interactor: PathBuf,
}

impl Pipes {
    fn new(dir: &Path) -> Result<Pipes, JudgeError> {
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

    fn all(&self) -> [&PathBuf; 4] {
        [
            &self.to_program,
            &self.from_program,
            &self.to_interactor,
            &self.from_interactor,
        ]
    }
}

/// How much longer than the program's wall limit the interactor may run.
const INTERACTOR_WALL_MARGIN: std::time::Duration = std::time::Duration::from_millis(500);

/// Runs `program` against the problem's interactor (`spec`, compiled as `interactor`) on one
/// test (see the module documentation).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_test(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    spec: &Interactor,
    interactor: &Program,
    checker: Option<&Program>,
    test: &TestCase,
    limits: &Limits,
) -> Result<TestResult, JudgeError> {
    run_pass(
        judge, problem, program, spec, interactor, checker, test, limits, None,
    )
}

/// One pass of a multi-pass interactive problem: the interactor reads `input` (the test's, or
/// the `nextpass.in` of the pass before) and its feedback folder is `feedback`, a host folder
/// kept between passes by the caller; each try of the pass gets a copy of it, bound writable at
/// `/data/` ([`TryFeedback`]).
pub(super) struct Pass<'a> {
    pub(super) input: &'a Path,
    pub(super) feedback: &'a Path,
}

/// [`run_test`], or one pass of a multi-pass test.
///
/// Each try of a pass has a feedback folder of its own ([`TryFeedback`]), a copy of the pass's
/// as it was before the pass: a starved try's interactor may have written `nextpass.in` or
/// changed the state it leaves itself, and the try after must see neither.
///
/// A pair whose time limit verdict came from a wall-time kill of the program that the host's
/// load starved (see [`starved_by_host`]) says nothing about the program: the pair is run
/// again, with new pipes, up to [`STARVED_TRIES`] times in all, and then it is a host fault
/// ([`super::HostFault::Starved`]), never a time limit verdict. Only the whole pair can be run
/// again: one side alone would find its partner, and the relay between them, gone (its keeper
/// would wait for the other ends of its pipes).
///
/// Each try after a starved one gives the program's sandbox more wall time ([`stretched`]), as
/// much as the load measured in the try before took from it and twice that, up to
/// [`ojd_sandbox::WALL_CEILING`] times the limit: the program's keeper moves its deadline only by
/// the program's own waits, never by its partner's (a program asleep on its pipe while its
/// interactor waits for a CPU looks asleep), so under a load that lasts the same limit would
/// starve every try. What the program is judged by stays its own wall time against the
/// problem's limit: the pair's wall time less what both sides lost to the host
/// ([`own_wall`]); a program whose own time reaches the limit in a stretched try is a time
/// limit, as it would have been without the load. So a loaded host judges an interactive pair
/// slower, never otherwise.
///
/// That own time is an upper bound (the keepers do not see all that a loaded host takes), so a
/// time limit from a try that lost a measurable part of the limit to the host
/// ([`Paired::Over`]) is tried again, stretched, and stands only if every try of the pass
/// measured the program's own time past the limit: a program over the limit is over it in
/// every try, and a correct one needs one try measured within it. A program asleep or
/// deadlocked with its partner waits for no CPU: its time limit stands at the first try.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_pass(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    spec: &Interactor,
    interactor: &Program,
    checker: Option<&Program>,
    test: &TestCase,
    limits: &Limits,
    pass: Option<&Pass<'_>>,
) -> Result<TestResult, JudgeError> {
    // The program sandbox's wall-time limit of the next try (see above).
    let mut allowed = limits.wall;
    let mut tried = 0;
    retry_starved(
        STARVED_TRIES,
        "the program of an interactive test",
        limits.wall,
        || {
            let feedback = match pass {
                Some(p) => Some(TryFeedback::new(p.feedback, judge.fresh_dir("feedback")?)?),
                None => None,
            };
            tried += 1;
            let this_try = pass.zip(feedback.as_ref()).map(|(p, f)| Pass {
                input: p.input,
                feedback: &f.dir,
            });
            Ok(
                match pair_once(
                    judge,
                    problem,
                    program,
                    spec,
                    interactor,
                    checker,
                    test,
                    limits,
                    allowed,
                    this_try.as_ref(),
                )? {
                    Paired::Over { wall, waited, .. } if tried < STARVED_TRIES => {
                        allowed = stretched(limits.wall, allowed, wall, waited);
                        Try::Starved(waited)
                    }
                    Paired::Judged(mut result) | Paired::Over { mut result, .. } => {
                        if let (Some(p), Some(f)) = (pass, feedback) {
                            // The interactor built this tree: bounded before it is copied.
                            match crate::fsutil::check_tree(&f.dir, FEEDBACK_CAPS) {
                                Ok(()) => f.keep(p.feedback)?,
                                Err(why) => {
                                    result.verdict = Verdict::JudgeError;
                                    result.message =
                                        format!("the interactor's feedback folder {why}");
                                }
                            }
                        }
                        Try::Done(result)
                    }
                    Paired::Starved { lost, wall, waited } => {
                        allowed = stretched(limits.wall, allowed, wall, waited);
                        Try::Starved(lost)
                    }
                },
            )
        },
    )
}

/// The feedback folder of one try of a multi-pass pass: a new folder holding a copy of the
/// pass's folder (`kept`, the caller's, which no try writes). The try that counts hands its
/// folder's contents back to `kept` ([`TryFeedback::keep`]); a starved try's folder is dropped
/// (removed) with whatever its interactor left there.
///
/// The copy keeps what the interactor may rely on between passes: folders, files with their
/// modes, and their owners (the interactor runs as a sandbox uid and must still be able to
/// write what it wrote before); a symbolic link is copied as a link, never followed (the
/// interactor made it, and the judge copies as root); anything else (a FIFO, a socket) is left
/// out.
struct TryFeedback {
    dir: PathBuf,
}

impl TryFeedback {
    /// A copy of `kept` in `dir`, a new empty folder of the judge's (made if missing).
    fn new(kept: &Path, dir: PathBuf) -> Result<TryFeedback, JudgeError> {
        std::fs::create_dir_all(&dir).map_err(super::host::file_fault("create", &dir))?;
        let f = TryFeedback { dir };
        copy_mode_and_owner(kept, &f.dir)?;
        copy_tree(kept, &f.dir)?;
        Ok(f)
    }

    /// This try counts: `kept` becomes what the try left in its folder.
    fn keep(self, kept: &Path) -> Result<(), JudgeError> {
        let entries = std::fs::read_dir(kept)
            .map_err(super::host::file_fault("list the feedback folder", kept))?;
        for e in entries {
            let e = e.map_err(super::host::file_fault("list the feedback folder", kept))?;
            let path = e.path();
            let gone = crate::fsutil::remove_tree(&path);
            gone.map_err(super::host::file_fault("remove", &path))?;
        }
        copy_tree(&self.dir, kept)
    }
}

impl Drop for TryFeedback {
    fn drop(&mut self) {
        let _ = crate::fsutil::remove_tree(&self.dir);
    }
}

/// Gives `to` the mode and owner of `from` (owner only where they differ: a judge that is not
/// root owns everything it could copy).
fn copy_mode_and_owner(from: &Path, to: &Path) -> Result<(), JudgeError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let m = std::fs::symlink_metadata(from)
        .map_err(super::host::file_fault("read the metadata of", from))?;
    let t = std::fs::symlink_metadata(to)
        .map_err(super::host::file_fault("read the metadata of", to))?;
    if !m.file_type().is_symlink() {
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(m.mode() & 0o7777))
            .map_err(super::host::file_fault("set the mode of", to))?;
    }
    if (m.uid(), m.gid()) != (t.uid(), t.gid()) {
        std::os::unix::fs::lchown(to, Some(m.uid()), Some(m.gid()))
            .map_err(super::host::file_fault("set the owner of", to))?;
    }
    Ok(())
}

/// Copies the contents of folder `from` into folder `to` (see [`TryFeedback`] for what is kept),
/// without recursion: the tree was checked against the feedback caps, and a work list instead
/// of the stack keeps it so even if it were not.
fn copy_tree(from: &Path, to: &Path) -> Result<(), JudgeError> {
    let mut work = vec![(from.to_path_buf(), to.to_path_buf())];
    let mut dirs = Vec::new();
    while let Some((from, to)) = work.pop() {
        copy_level(&from, &to, &mut work)?;
        dirs.push((from, to));
    }
    // A folder's mode and owner once its contents are in (a read-only one could not take
    // them after), deepest first; the top is the caller's.
    for (src, dst) in dirs.iter().skip(1).rev() {
        copy_mode_and_owner(src, dst)?;
    }
    Ok(())
}

/// Copies the files and links of folder `from` into `to`, creating its sub-folders there and
/// adding them to `work`.
fn copy_level(
    from: &Path,
    to: &Path,
    work: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), JudgeError> {
    let entries = std::fs::read_dir(from)
        .map_err(super::host::file_fault("list the feedback folder", from))?;
    for e in entries {
        let e = e.map_err(super::host::file_fault("list the feedback folder", from))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e
            .file_type()
            .map_err(super::host::file_fault("read the type of", &src))?;
        if kind.is_dir() {
            std::fs::create_dir(&dst).map_err(super::host::file_fault("create", &dst))?;
            work.push((src, dst));
            continue;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).map_err(super::host::file_fault("copy", &src))?;
        } else if kind.is_symlink() {
            let target =
                std::fs::read_link(&src).map_err(super::host::file_fault("read the link", &src))?;
            std::os::unix::fs::symlink(&target, &dst)
                .map_err(super::host::file_fault("create the link", &dst))?;
        } else {
            continue;
        }
        copy_mode_and_owner(&src, &dst)?;
    }
    Ok(())
}

/// What one run of the pair gave.
enum Paired {
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
fn lost_to_host(program: &RunOutcome, interactor: &RunOutcome, relays: Duration) -> Duration {
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
/// within the limit is within it (see [`run_pass`]).
fn own_wall(program: &RunOutcome, interactor: &RunOutcome, relays: Duration) -> Duration {
    program
        .wall_time
        .saturating_sub(lost_to_host(program, interactor, relays))
        .max(program.cpu_time)
}

/// Whether a try of the pair lost a measurable part of the wall-time limit to the host (a
/// tenth of it, the sandbox's rule): its time limit verdict is then worth another try. A
/// program asleep or deadlocked with its partner waits for no CPU: its time limit stands at
/// once.
fn loaded(lost: Duration, limits: &Limits) -> bool {
    lost >= limits.wall / 10
}

/// The program sandbox's wall-time limit for the try after a starved one: a try whose program
/// ran `wall`, `waited` of it for the host, was slowed `wall / (wall - waited)` times; the next
/// gets the problem's `limit` slowed twice as much, and at least twice the `last` try's, at
/// most [`ojd_sandbox::WALL_CEILING`] times `limit` (past that the host is too loaded: the
/// tries end as a host fault).
fn stretched(limit: Duration, last: Duration, wall: Duration, waited: Duration) -> Duration {
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
fn starved_by_host(
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
fn held_to_the_limit(
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

/// One run of the pair (see [`run_pass`]).
#[allow(clippy::too_many_arguments)]
fn pair_once(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    spec: &Interactor,
    interactor: &Program,
    checker: Option<&Program>,
    test: &TestCase,
    limits: &Limits,
    allowed: Duration,
    pass: Option<&Pass<'_>>,
) -> Result<Paired, JudgeError> {
    // The program's sandbox gets `allowed` of wall time (a stretched try: see `run_pass`).
    let program_limits = Limits {
        wall: allowed,
        ..limits.clone()
    };
    // A folder of its own for every run of the pair, with new pipes: a pair run again after
    // starvation must never meet a pipe that a relay or keeper of the earlier run still holds.
    let dir = judge.fresh_dir("interactive")?;
    let pipes = Pipes::new(&dir)?;
    let (judge_msg, team_msg, tout) = match pass {
        Some(p) => (
            p.feedback.join("judgemessage.txt"),
            p.feedback.join("teammessage.txt"),
            dir.join("tout"),
        ),
        None => (
            dir.join("judgemessage.txt"),
            dir.join("teammessage.txt"),
            dir.join("tout"),
        ),
    };
    let mut pass_test = test.clone();
    let mut binds = Vec::new();
    if let Some(p) = pass {
        pass_test.input = p.input.to_path_buf();
        for f in [&judge_msg, &team_msg] {
            let _ = std::fs::remove_file(f);
        }
        binds.push(ojd_sandbox::Bind {
            host: p.feedback.to_path_buf(),
            inside: "/data".into(),
            writable: true,
            cap: Some(FEEDBACK_TMPFS),
        });
    }
    let (mut args, box_files, mut collect) =
        interactor_io(spec, &pass_test, &judge_msg, &team_msg, &tout);
    if pass.is_some() && spec.protocol == InteractorProtocol::Kattis {
        // The feedback folder is the bound one; nothing to collect from the box.
        args[2] = "/data/".into();
        collect.clear();
    }
    // The interactor's wall limit is a little longer than the program's longest: when both
    // sides wait for each other (a program that never flushes), the program must be the one
    // stopped by the wall limit (TLE), never the interactor (which would read as a judge
    // error). On a loaded host the program's wall-time limit does not count its wait for a
    // CPU, up to the sandbox's ceiling, while the interactor, blocked on the program, waits
    // for nothing the sandbox counts: it must outlast that ceiling, or a slow program would
    // lose its partner (a broken pipe) for the host's load.
    let interactor_limits = Limits {
        cpu: limits.wall,
        wall: allowed * ojd_sandbox::WALL_CEILING + INTERACTOR_WALL_MARGIN,
        memory: limits.memory.max(1 << 30),
        output: 64 << 20,
        processes: 4,
        file_size: 64 << 20,
    };
    let mut sandbox = judge.start_sandbox()?;
    let transcript = Mutex::new(Transcript::default());
    let up = Direction::new(
        &pipes.from_program,
        &pipes.to_interactor,
        '>',
        &transcript,
        limits.output,
    );
    let down = Direction::new(
        &pipes.from_interactor,
        &pipes.to_program,
        '<',
        &transcript,
        u64::MAX,
    );
    let (program_err, interactor_err) = (dir.join("program.err"), dir.join("interactor.err"));
    let (prog, inter) = std::thread::scope(|s| {
        let relays = [s.spawn(|| relay(&up)), s.spawn(|| relay(&down))];
        let prog = s.spawn(|| {
            // Tried once: a run again alone would wait for pipes nobody opens any more.
            let run = judge.execute_once(&ProgramRun {
                program,
                args: &[],
                stdin: Some(&pipes.to_program),
                stdout: &pipes.from_program,
                stderr: Some(&program_err),
                box_files: vec![],
                collect: vec![],
                limits: program_limits.clone(),
            });
            side_ended(
                [&pipes.from_program, &pipes.to_program],
                [&up.from_tried, &down.to_tried],
            );
            run
        });
        let inter = judge.execute_in_with_binds(
            &mut sandbox,
            &ProgramRun {
                program: interactor,
                args: &args,
                stdin: Some(&pipes.to_interactor),
                stdout: &pipes.from_interactor,
                stderr: Some(&interactor_err),
                box_files,
                collect,
                limits: interactor_limits.clone(),
            },
            &binds,
        );
        side_ended(
            [&pipes.to_interactor, &pipes.from_interactor],
            [&up.to_tried, &down.from_tried],
        );
        let prog = prog.join();
        wake_relays(&pipes, &relays);
        (prog, inter)
    });
    let prog = prog.map_err(|_| JudgeError::Io {
        what: "run the program of an interactive test".into(),
        source: std::io::Error::other("the run thread panicked"),
    })??;
    let inter = inter?;
    if let Some(fault) = up.fault().or_else(|| down.fault()) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(fault);
    }
    let ended = |d: &Direction<'_>| d.eof_at.lock().ok().and_then(|a| *a);
    // Who ended first, by when each closed its output (the relay saw end of file).
    let interactor_first = match (ended(&down), ended(&up)) {
        (Some(i), Some(p)) => i < p,
        (Some(_), None) => true,
        _ => false,
    };
    let said = interactor_said(
        spec.protocol,
        &inter,
        &judge_msg,
        &team_msg,
        &interactor_err,
    );
    let relays = relays_waited([&up, &down]);
    let own = own_wall(&prog, &inter, relays);
    let (verdict, message) = held_to_the_limit(
        decide(&Ends {
            program: &prog,
            limits,
            output_over: up.over.load(Ordering::Relaxed),
            interactor: &inter,
            said,
            interactor_first,
        }),
        own,
        limits,
        allowed,
    );
    // Only a time limit verdict is the starved wall-time kill's: an interactor that said wrong
    // answer first, or output over its limit, are the program's whatever the load did.
    let starved = match (verdict, prog.killed_by) {
        (Verdict::TimeLimitExceeded, Some(ojd_sandbox::LimitKind::Wall)) => {
            starved_by_host(&prog, &inter, relays, limits)
        }
        _ => None,
    };
    let waited = lost_to_host(&prog, &inter, relays);
    if let Some(lost) = starved {
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(Paired::Starved {
            lost,
            wall: prog.wall_time,
            waited,
        });
    }
    // A wall-time verdict (the keeper's, or the stretched try's own time) of a try that lost a
    // measurable part of the limit to the host: the own time is an upper bound, worth another
    // try (see `run_pass`).
    let over = verdict == Verdict::TimeLimitExceeded
        && prog.killed_by != Some(ojd_sandbox::LimitKind::Cpu)
        && loaded(waited, limits);
    let transcript = transcript.lock().map(|t| t.render()).unwrap_or_default();
    let mut message = message;
    if verdict == Verdict::RuntimeError {
        let err = crate::fsutil::read_capped(&program_err, 2048);
        if let Some(line) = err.lines().rev().find(|l| !l.trim().is_empty()) {
            message = format!("{message}; stderr: {}", line.trim());
        }
    }
    if !transcript.is_empty() {
        message = format!(
            "{message}\n--- transcript ({} bytes to the interactor, {} back) ---\n{transcript}",
            up.count.load(Ordering::Relaxed),
            down.count.load(Ordering::Relaxed)
        );
    }
    let result = TestResult {
        name: test.name.clone(),
        sample: test.sample,
        verdict,
        cpu_ms: prog.cpu_time.as_millis() as u64,
        // The program's own wall time, what its limit is held to (as for a plain run).
        wall_ms: own.as_millis() as u64,
        memory_kib: prog.peak_memory / 1024,
        exit: Some(match prog.termination {
            Termination::Exited(c) => c.to_string(),
            Termination::Signaled(s) => signal_name(s),
        }),
        message: message.trim_start().to_string(),
        diff: None,
    };
    let result = match checker {
        Some(c) if verdict == Verdict::Accepted && spec.protocol == InteractorProtocol::Testlib => {
            check_tout(judge, problem, c, test, &tout, &dir, result)?
        }
        _ => result,
    };
    let _ = std::fs::remove_dir_all(&dir);
    Ok(if over {
        Paired::Over {
            result,
            wall: prog.wall_time,
            waited,
        }
    } else {
        Paired::Judged(result)
    })
}

/// Polygon's rule for interactive problems with a checker: once the interactor accepts, the
/// checker judges what the interactor wrote to `tout` (as the output) against the test's
/// answer, which may be absent for an interactive problem (then an empty file). The
/// interactor's message stays in front of the checker's.
fn check_tout(
    judge: &Judge,
    problem: &Problem,
    checker: &Program,
    test: &TestCase,
    tout: &Path,
    dir: &Path,
    result: TestResult,
) -> Result<TestResult, JudgeError> {
    let mut test = test.clone();
    if !test.answer.is_file() {
        let empty = dir.join("empty.ans");
        File::create(&empty).map_err(|source| JudgeError::Io {
            what: "create an empty answer for the checker".into(),
            source,
        })?;
        test.answer = empty;
    }
    if !tout.is_file() {
        File::create(tout).map_err(|source| JudgeError::Io {
            what: "create the interactor's tout".into(),
            source,
        })?;
    }
    let said = result.message.clone();
    let mut checked = judge.check(problem, Some(checker), &test, tout, dir, result)?;
    if checked.verdict != Verdict::Accepted {
        checked.message = format!("checker: {}\n{said}", checked.message);
    }
    Ok(checked)
}

type InteractorIo = (Vec<String>, Vec<(PathBuf, String)>, Vec<(String, PathBuf)>);

/// Arguments, input files and collected files of the interactor, by protocol.
fn interactor_io(
    spec: &Interactor,
    test: &TestCase,
    judge_msg: &Path,
    team_msg: &Path,
    tout: &Path,
) -> InteractorIo {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match spec.protocol {
        InteractorProtocol::Kattis => {
            let mut args = strings(&["testdata.in", "testdata.ans", "."]);
            args.extend(spec.flags.iter().cloned());
            (
                args,
                vec![
                    (test.input.clone(), "testdata.in".into()),
                    (test.answer.clone(), "testdata.ans".into()),
                ],
                vec![
                    ("judgemessage.txt".into(), judge_msg.to_path_buf()),
                    ("teammessage.txt".into(), team_msg.to_path_buf()),
                ],
            )
        }
        InteractorProtocol::Testlib => (
            strings(&["input", "tout", "answer"]),
            vec![
                (test.input.clone(), "input".into()),
                (test.answer.clone(), "answer".into()),
            ],
            vec![("tout".into(), tout.to_path_buf())],
        ),
    }
}

fn interactor_said(
    protocol: InteractorProtocol,
    outcome: &RunOutcome,
    judge_msg: &Path,
    team_msg: &Path,
    stderr: &Path,
) -> CheckOutcome {
    // A feedback folder the interactor filled to its cap during the pass: the package's fault.
    if let Some(why) = &outcome.over_cap {
        return CheckOutcome::Failed(format!("its feedback folder {why}"));
    }
    let read = |p: &Path| crate::fsutil::read_tail(p, 16 << 10);
    let code = match outcome.termination {
        Termination::Exited(c) if outcome.exec_error.is_none() => Some(c),
        _ => None,
    };
    match protocol {
        InteractorProtocol::Kattis => {
            let mut judge = read(judge_msg);
            if judge.trim().is_empty() {
                judge = read(stderr);
            }
            kattis_outcome(code, &judge, &read(team_msg))
        }
        InteractorProtocol::Testlib => testlib_outcome(code, &read(stderr)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_sandbox::LimitKind;

    fn run(termination: Termination, killed_by: Option<LimitKind>) -> RunOutcome {
        RunOutcome {
            termination,
            cpu_time: Duration::from_millis(5),
            wall_time: Duration::from_millis(5),
            peak_memory: 1 << 20,
            killed_by,
            output_bytes: 0,
            forbidden_syscall: None,
            exec_error: None,
            fully_isolated: true,
            wall_kill: None,
            host_wait: Duration::ZERO,
            over_cap: None,
        }
    }

    #[test]
    fn the_verdict_rule_in_its_order() {
        let limits = Limits {
            cpu: Duration::from_secs(1),
            wall: Duration::from_secs(3),
            memory: 64 << 20,
            output: 1 << 20,
            processes: 8,
            file_size: 1 << 20,
        };
        let ok = run(Termination::Exited(0), None);
        let tle = run(Termination::Signaled(9), Some(LimitKind::Cpu));
        let idle = run(Termination::Signaled(9), Some(LimitKind::Wall));
        let crash = run(Termination::Signaled(11), None);
        let wa = || CheckOutcome::Wrong("wrong guess".into());
        let table: Vec<(&RunOutcome, bool, &RunOutcome, CheckOutcome, bool, Verdict)> = vec![
            // 1: the interactor crashed or gave an unknown code: JE whatever the program did.
            (
                &tle,
                false,
                &crash,
                CheckOutcome::Failed("crashed".into()),
                false,
                Verdict::JudgeError,
            ),
            (
                &ok,
                false,
                &ok,
                CheckOutcome::Failed("code 7".into()),
                true,
                Verdict::JudgeError,
            ),
            // 2: the interactor ended first with WA: WA, even if the program then crashed.
            (&crash, false, &ok, wa(), true, Verdict::WrongAnswer),
            (&tle, false, &ok, wa(), true, Verdict::WrongAnswer),
            // 3: the program over a limit.
            (&tle, false, &ok, wa(), false, Verdict::TimeLimitExceeded),
            (
                &idle,
                false,
                &idle,
                CheckOutcome::Failed("killed".into()),
                false,
                Verdict::TimeLimitExceeded,
            ),
            (
                &ok,
                true,
                &ok,
                CheckOutcome::Accepted,
                false,
                Verdict::OutputLimitExceeded,
            ),
            // 4: the program crashed.
            (
                &crash,
                false,
                &ok,
                CheckOutcome::Accepted,
                false,
                Verdict::RuntimeError,
            ),
            // 5: the interactor over its own limit while the program was fine.
            (
                &ok,
                false,
                &tle,
                CheckOutcome::Failed("killed".into()),
                false,
                Verdict::JudgeError,
            ),
            // 6: what the interactor said.
            (
                &ok,
                false,
                &ok,
                CheckOutcome::Accepted,
                false,
                Verdict::Accepted,
            ),
            (&ok, false, &ok, wa(), false, Verdict::WrongAnswer),
        ];
        for (i, (program, over, interactor, said, first, want)) in table.into_iter().enumerate() {
            let (got, _) = decide(&Ends {
                program,
                limits: &limits,
                output_over: over,
                interactor,
                said,
                interactor_first: first,
            });
            assert_eq!(got, want, "row {i}");
        }
    }

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

    /// A multi-pass pass run again after starvation: the try after a starved one starts from the
    /// feedback folder as it was before the pass, whatever the starved try's interactor wrote
    /// there (a `nextpass.in`, changed state, a new file); the try that counts hands its folder
    /// back. With the one folder shared by every try, the second try found the first one's
    /// `nextpass.in` and state.
    #[test]
    fn every_try_of_a_pass_starts_from_the_pass_feedback() {
        let tmp = tempfile::tempdir().unwrap();
        let kept = tmp.path().join("feedback");
        std::fs::create_dir(&kept).unwrap();
        std::fs::write(kept.join("state"), "after pass 1").unwrap();
        std::fs::create_dir(kept.join("sub")).unwrap();
        std::fs::write(kept.join("sub/deep"), "kept too").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", kept.join("link")).unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();

        // The starved try: its interactor asks for another pass and changes its state.
        let starved = TryFeedback::new(&kept, tmp.path().join("try-1")).unwrap();
        assert_ne!(starved.dir, kept);
        std::fs::write(starved.dir.join("nextpass.in"), "stale").unwrap();
        std::fs::write(starved.dir.join("state"), "changed by a starved try").unwrap();
        std::fs::write(starved.dir.join("junk"), "").unwrap();
        let starved_dir = starved.dir.clone();
        drop(starved);
        assert!(!starved_dir.exists(), "a dropped try's folder is removed");

        // The try after: the pass's folder as it was, nothing of the starved try.
        let again = TryFeedback::new(&kept, tmp.path().join("try-2")).unwrap();
        assert!(!again.dir.join("nextpass.in").exists());
        assert!(!again.dir.join("junk").exists());
        assert_eq!(read(&again.dir.join("state")), "after pass 1");
        assert_eq!(read(&again.dir.join("sub/deep")), "kept too");
        let link = std::fs::symlink_metadata(again.dir.join("link")).unwrap();
        assert!(link.file_type().is_symlink(), "a link is copied as a link");
        // It counts: the caller's folder becomes what it left.
        std::fs::write(again.dir.join("state"), "after pass 2").unwrap();
        std::fs::remove_file(again.dir.join("sub/deep")).unwrap();
        again.keep(&kept).unwrap();
        assert_eq!(read(&kept.join("state")), "after pass 2");
        assert!(!kept.join("sub/deep").exists() && kept.join("sub").is_dir());
        assert!(!kept.join("nextpass.in").exists());
        assert!(!tmp.path().join("try-2").exists());
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
    fn transcript_is_bounded_and_ordered() {
        let mut t = Transcript::default();
        t.push('>', b"1\n");
        t.push('>', b"2\n");
        t.push('<', b"higher\n");
        assert_eq!(t.render(), "> 1\n> 2\n< higher\n");
        t.push('>', &vec![b'x'; TRANSCRIPT_LIMIT]);
        assert!(t.kept == TRANSCRIPT_LIMIT && t.render().ends_with("bytes)\n"));
    }

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
        // A thread's run-queue delay is readable here.
        assert!(thread_run_delay().is_some());
    }
}

//! Just enough D-Bus to ask systemd for a delegated transient scope holding this process.
//!
//! One conversation, the one `systemd-run --scope -p Delegate=yes` has: authenticate
//! (EXTERNAL, as root), `Subscribe`, `StartTransientUnit("ojd-<pid>.scope", "fail",
//! [PIDs=[pid], Delegate=true, ...], [])`, then wait for the `JobRemoved` signal of the job it
//! returned (systemd moves the process when the job runs, after it answered), or until the
//! process is seen in the scope's cgroup, whichever comes first. systemd's private
//! socket is tried first (peer to peer, no bus daemon needed: what systemctl uses as root), the
//! system bus after. A client library would be larger than this whole conversation: zbus brings
//! an async runtime and dozens of crates to build in CI, the `dbus` crate links the C libdbus.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

const PRIVATE: &str = "/run/systemd/private";
const SYSTEM_BUS: &str = "/run/dbus/system_bus_socket";
/// How long systemd may take to start the scope (a slow, emulated machine included).
const PATIENCE: Duration = Duration::from_secs(60);
/// How often the process's own cgroup is looked at while no message comes from systemd.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// Asks systemd for the transient scope `name` with `Delegate=yes` holding `pid`, and waits
/// until systemd has moved it there.
pub(crate) fn start_delegated_scope(name: &str, pid: u32) -> Result<(), String> {
    let moved = || in_cgroup_named(name);
    start_scope_via(&[(PRIVATE, false), (SYSTEM_BUS, true)], name, pid, &moved)
}

/// Whether this process's cgroup v2 path ends in `name` (what systemd's job does, seen directly).
fn in_cgroup_named(name: &str) -> bool {
    std::fs::read_to_string("/proc/self/cgroup").is_ok_and(|t| {
        t.lines()
            .filter_map(|l| l.strip_prefix("0::"))
            .any(|p| p.trim_end().rsplit('/').next() == Some(name))
    })
}

/// [`start_delegated_scope`] through the first of `sockets` (path, is a bus daemon) that
/// works; `moved` says whether systemd has moved the process yet.
fn start_scope_via(
    sockets: &[(&str, bool)],
    name: &str,
    pid: u32,
    moved: &dyn Fn() -> bool,
) -> Result<(), String> {
    let mut tried = Vec::new();
    for &(socket, bus) in sockets {
        if !std::path::Path::new(socket).exists() {
            tried.push(format!("{socket}: absent"));
            continue;
        }
        let asked = Conversation::open(socket, bus)
            .map_err(Failed::Io)
            .and_then(|mut c| c.start_scope(name, pid, moved));
        match asked {
            Ok(()) => return Ok(()),
            // Asked once already: the scope exists, or systemd refused it for a reason the
            // other socket would be given too. Only a socket that could not be talked to is
            // worth the next one.
            Err(Failed::Refused(e)) => {
                tried.push(format!("{socket}: {e}"));
                break;
            }
            Err(Failed::Io(e)) => tried.push(format!("{socket}: {e}")),
        }
    }
    Err(format!("systemd could not be asked ({})", tried.join("; ")))
}

/// Why a conversation gave no scope.
enum Failed {
    /// The socket could not be talked to (absent, refused the connection, garbled).
    Io(io::Error),
    /// systemd answered, and its answer was no (an error reply, a failed job, no move in time).
    Refused(String),
}

impl From<io::Error> for Failed {
    fn from(e: io::Error) -> Failed {
        Failed::Io(e)
    }
}

struct Conversation {
    stream: UnixStream,
    serial: u32,
    /// Signals that came while waiting for a reply.
    signals: Vec<Message>,
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

impl Conversation {
    fn open(socket: &str, bus: bool) -> io::Result<Conversation> {
        let mut stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(PATIENCE))?;
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() }.to_string();
        let hex: String = uid.bytes().map(|b| format!("{b:02x}")).collect();
        stream.write_all(format!("\0AUTH EXTERNAL {hex}\r\n").as_bytes())?;
        let mut line = Vec::new();
        let mut byte = [0u8];
        while !line.ends_with(b"\r\n") {
            stream.read_exact(&mut byte)?;
            line.push(byte[0]);
            if line.len() > 512 {
                return Err(bad("an endless authentication line"));
            }
        }
        if !line.starts_with(b"OK ") {
            return Err(bad(format!(
                "authentication refused: {}",
                String::from_utf8_lossy(&line).trim()
            )));
        }
        stream.write_all(b"BEGIN\r\n")?;
        let mut c = Conversation {
            stream,
            serial: 0,
            signals: Vec::new(),
        };
        if bus {
            c.call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus",
                "Hello",
                "",
                &[],
            )?;
            // The bus daemon forwards systemd's signals only to those who asked.
            let mut body = Body::default();
            body.string(
                "type='signal',sender='org.freedesktop.systemd1',\
                 interface='org.freedesktop.systemd1.Manager',member='JobRemoved'",
            );
            c.call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus",
                "AddMatch",
                "s",
                &body.0,
            )?;
        }
        Ok(c)
    }

    /// Starts the scope and waits until the process is in it: a `JobRemoved` of the job, or the
    /// process seen in the scope's cgroup, whichever comes first. The signal alone is not
    /// waited for: a conversation that missed it (or a systemd that sent it before the reply
    /// was read, on another connection) would wait the whole [`PATIENCE`] for a move done long
    /// before, and then ask again on the system bus, where the scope already exists.
    fn start_scope(
        &mut self,
        name: &str,
        pid: u32,
        moved: &dyn Fn() -> bool,
    ) -> Result<(), Failed> {
        const MANAGER: &str = "org.freedesktop.systemd1.Manager";
        const PATH: &str = "/org/freedesktop/systemd1";
        self.call(
            "org.freedesktop.systemd1",
            PATH,
            MANAGER,
            "Subscribe",
            "",
            &[],
        )?;
        let mut b = Body::default();
        b.string(name);
        b.string("fail");
        // Properties a(sv): PIDs=au[pid], Delegate=b true, Description=s.
        b.array(8, |b| {
            b.align(8);
            b.string("PIDs");
            b.signature("au");
            b.array(4, |b| b.u32(pid));
            b.align(8);
            b.string("Delegate");
            b.signature("b");
            b.u32(1);
            b.align(8);
            b.string("Description");
            b.signature("s");
            b.string("ojd: keepers' delegated cgroups");
        });
        // Auxiliary units a(sa(sv)): none.
        b.array(8, |_| {});
        let reply = self.call(
            "org.freedesktop.systemd1",
            PATH,
            MANAGER,
            "StartTransientUnit",
            "ssa(sv)a(sa(sv))",
            &b.0,
        );
        let reply = match reply {
            Err(e) if e.kind() == io::ErrorKind::Other => {
                return Err(Failed::Refused(e.to_string()))
            }
            r => r?,
        };
        let job = Cursor::new(&reply.body, reply.little).string()?;
        let deadline = Instant::now() + PATIENCE;
        loop {
            if moved() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Failed::Refused(format!(
                    "job {job} did not move this process into {name} in {PATIENCE:?}"
                )));
            }
            let m = match self.signals.pop() {
                Some(m) => m,
                None if self.readable(LOOK_EVERY)? => self.receive()?,
                None => continue,
            };
            if m.kind != SIGNAL || m.member.as_deref() != Some("JobRemoved") {
                continue;
            }
            // JobRemoved(u id, o job, s unit, s result)
            let mut c = Cursor::new(&m.body, m.little);
            c.u32()?;
            if c.string()? != job {
                continue;
            }
            c.string()?;
            let result = c.string()?;
            return match result.as_str() {
                "done" => Ok(()),
                other => Err(Failed::Refused(format!(
                    "the job starting {name} ended {other:?}"
                ))),
            };
        }
    }

    /// Sends a method call and returns its reply (an error reply is an error of kind `Other`,
    /// which no failure of the socket itself has here: `start_scope` tells them apart by it).
    fn call(
        &mut self,
        dest: &str,
        path: &str,
        iface: &str,
        member: &str,
        sig: &str,
        body: &[u8],
    ) -> io::Result<Message> {
        self.serial += 1;
        let serial = self.serial;
        let mut h = Body::default();
        h.0.extend_from_slice(&[b'l', CALL, 0, 1]);
        h.u32(body.len() as u32);
        h.u32(serial);
        h.array(8, |h| {
            let field = |h: &mut Body, code: u8, t: &str, v: &str| {
                h.align(8);
                h.0.push(code);
                h.signature(t);
                match t {
                    "g" => h.signature(v),
                    _ => h.string(v),
                }
            };
            field(h, 1, "o", path);
            field(h, 2, "s", iface);
            field(h, 3, "s", member);
            field(h, 6, "s", dest);
            if !sig.is_empty() {
                field(h, 8, "g", sig);
            }
        });
        h.align(8);
        h.0.extend_from_slice(body);
        self.stream.write_all(&h.0)?;
        loop {
            let m = self.receive()?;
            if m.kind == SIGNAL {
                self.signals.insert(0, m);
                continue;
            }
            if m.reply_serial != Some(serial) {
                continue;
            }
            if m.kind == ERROR {
                let text = Cursor::new(&m.body, m.little).string().unwrap_or_default();
                return Err(io::Error::other(format!(
                    "{member}: {}: {text}",
                    m.error.unwrap_or_default()
                )));
            }
            return Ok(m);
        }
    }

    /// Whether a message starts arriving within `wait` (a whole one is then read with the
    /// stream's own, long timeout: a read cut by a short one would lose the framing).
    fn readable(&mut self, wait: Duration) -> io::Result<bool> {
        use std::os::fd::AsRawFd;
        let mut p = libc::pollfd {
            fd: self.stream.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        let r = unsafe { libc::poll(&mut p, 1, wait.as_millis().max(1) as libc::c_int) };
        match r {
            0 => Ok(false),
            r if r > 0 => Ok(true),
            _ => {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::Interrupted => Ok(false),
                    _ => Err(e),
                }
            }
        }
    }

    fn receive(&mut self) -> io::Result<Message> {
        let mut fixed = [0u8; 16];
        self.stream.read_exact(&mut fixed)?;
        let little = match fixed[0] {
            b'l' => true,
            b'B' => false,
            _ => return Err(bad("not a D-Bus message")),
        };
        let num = |b: &[u8]| {
            let a = [b[0], b[1], b[2], b[3]];
            if little {
                u32::from_le_bytes(a)
            } else {
                u32::from_be_bytes(a)
            }
        };
        let body_len = num(&fixed[4..8]) as usize;
        let fields_len = num(&fixed[12..16]) as usize;
        if body_len > 1 << 20 || fields_len > 1 << 16 {
            return Err(bad("a message too large"));
        }
        let header_end = (16 + fields_len).div_ceil(8) * 8;
        let mut rest = vec![0u8; header_end - 16 + body_len];
        self.stream.read_exact(&mut rest)?;
        let mut all = fixed.to_vec();
        all.extend_from_slice(&rest);
        let mut m = Message {
            kind: fixed[1],
            little,
            member: None,
            error: None,
            reply_serial: None,
            body: all[header_end..].to_vec(),
        };
        let mut c = Cursor::new(&all[..16 + fields_len], little);
        c.at = 16;
        while c.at < 16 + fields_len {
            c.align(8);
            let code = c.byte()?;
            let sig = c.signature()?;
            match sig.as_str() {
                "s" | "o" => {
                    let v = c.string()?;
                    match code {
                        3 => m.member = Some(v),
                        4 => m.error = Some(v),
                        _ => {}
                    }
                }
                "g" => {
                    c.signature()?;
                }
                "u" => {
                    let v = c.u32()?;
                    if code == 5 {
                        m.reply_serial = Some(v);
                    }
                }
                other => return Err(bad(format!("a header field of type {other:?}"))),
            }
        }
        Ok(m)
    }
}

const CALL: u8 = 1;
const ERROR: u8 = 3;
const SIGNAL: u8 = 4;

struct Message {
    kind: u8,
    little: bool,
    member: Option<String>,
    error: Option<String>,
    reply_serial: Option<u32>,
    body: Vec<u8>,
}

/// A message being written, little-endian; offsets count from the message's start (the body
/// starts 8-aligned, so a body's own offsets align the same).
#[derive(Default)]
struct Body(Vec<u8>);

impl Body {
    fn align(&mut self, n: usize) {
        while !self.0.len().is_multiple_of(n) {
            self.0.push(0);
        }
    }
    fn u32(&mut self, v: u32) {
        self.align(4);
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn string(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
    }
    fn signature(&mut self, s: &str) {
        self.0.push(s.len() as u8);
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
    }
    /// An array whose elements align to `element_align`; its length excludes the padding
    /// before the first element.
    fn array(&mut self, element_align: usize, fill: impl FnOnce(&mut Body)) {
        self.align(4);
        let at = self.0.len();
        self.0.extend_from_slice(&[0; 4]);
        self.align(element_align);
        let start = self.0.len();
        fill(self);
        let len = (self.0.len() - start) as u32;
        self.0[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
    little: bool,
}

impl<'a> Cursor<'a> {
    fn new(data: &'a [u8], little: bool) -> Cursor<'a> {
        Cursor {
            data,
            at: 0,
            little,
        }
    }
    fn align(&mut self, n: usize) {
        self.at = self.at.div_ceil(n) * n;
    }
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        let s = self
            .data
            .get(self.at..self.at + n)
            .ok_or_else(|| bad("a message cut short"))?;
        self.at += n;
        Ok(s)
    }
    fn byte(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> io::Result<u32> {
        self.align(4);
        let b = self.take(4)?;
        let a = [b[0], b[1], b[2], b[3]];
        Ok(if self.little {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        })
    }
    fn string(&mut self) -> io::Result<String> {
        let n = self.u32()? as usize;
        let s = self.take(n + 1)?;
        Ok(String::from_utf8_lossy(&s[..n]).into_owned())
    }
    fn signature(&mut self) -> io::Result<String> {
        let n = self.byte()? as usize;
        let s = self.take(n + 1)?;
        Ok(String::from_utf8_lossy(&s[..n]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The call's body as the D-Bus specification lays it out, byte by byte.
    #[test]
    fn an_array_of_variants_is_laid_out_as_the_specification_says() {
        let mut b = Body::default();
        b.string("a");
        b.array(8, |b| {
            b.align(8);
            b.string("PIDs");
            b.signature("au");
            b.array(4, |b| b.u32(7));
        });
        let want: Vec<u8> = [
            &[1, 0, 0, 0, b'a', 0, 0, 0][..],
            // array length 24 (from the 8-aligned first element), then padding to 16
            &[24, 0, 0, 0, 0, 0, 0, 0],
            &[4, 0, 0, 0, b'P', b'I', b'D', b's', 0],
            &[2, b'a', b'u', 0],
            // padding to 4 (29 -> 32), the inner array's length, the pid
            &[0, 0, 0],
            &[4, 0, 0, 0, 7, 0, 0, 0],
        ]
        .concat();
        assert_eq!(b.0, want);
        let mut c = Cursor::new(&b.0, true);
        assert_eq!(c.string().expect("string"), "a");
        assert_eq!(c.u32().expect("len"), 24);
        c.align(8);
        assert_eq!(c.string().expect("key"), "PIDs");
        assert_eq!(c.signature().expect("sig"), "au");
    }

    /// What the fake systemd does after answering `Subscribe`.
    #[derive(Clone, Copy)]
    enum Answer {
        /// Replies with a job, moves the process, and never sends `JobRemoved`.
        MovesSilently,
        /// Replies with a D-Bus error.
        Refuses,
        /// Replies with a job, then `JobRemoved` with result "failed".
        JobFails,
    }

    const JOB: &str = "/org/freedesktop/systemd1/job/7";

    /// A message from the fake systemd: a reply to `reply_to` (or a signal when None).
    fn message(kind: u8, reply_to: Option<u32>, name: &str, sig: &str, body: &[u8]) -> Vec<u8> {
        let mut h = Body::default();
        h.0.extend_from_slice(&[b'l', kind, 0, 1]);
        h.u32(body.len() as u32);
        h.u32(1000);
        h.array(8, |h| {
            if let Some(serial) = reply_to {
                h.align(8);
                h.0.push(5);
                h.signature("u");
                h.u32(serial);
            }
            if !name.is_empty() {
                // The error name of an error, the member of a signal.
                h.align(8);
                h.0.push(if kind == ERROR { 4 } else { 3 });
                h.signature("s");
                h.string(name);
            }
            h.align(8);
            h.0.push(8);
            h.signature("g");
            h.signature(sig);
        });
        h.align(8);
        h.0.extend_from_slice(body);
        h.0
    }

    /// Serves one conversation on `listener` as systemd would, answering as `answer` says;
    /// sets `moved` when it "moved" the process.
    fn fake_systemd(
        listener: std::os::unix::net::UnixListener,
        answer: Answer,
        moved: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().expect("a client");
            let mut line = Vec::new();
            let mut byte = [0u8];
            while !line.ends_with(b"\r\n") {
                stream.read_exact(&mut byte).expect("the AUTH line");
                line.push(byte[0]);
            }
            assert!(line.starts_with(b"\0AUTH EXTERNAL "), "{line:?}");
            stream.write_all(b"OK 0123456789abcdef\r\n").expect("OK");
            let mut begin = [0u8; 7];
            stream.read_exact(&mut begin).expect("BEGIN");
            assert_eq!(&begin, b"BEGIN\r\n");
            let mut server = Conversation {
                stream,
                serial: 0,
                signals: Vec::new(),
            };
            // The client numbers its calls from 1: Subscribe, then StartTransientUnit.
            let m = server.receive().expect("Subscribe");
            assert_eq!(m.member.as_deref(), Some("Subscribe"));
            let reply = message(2, Some(1), "", "", &[]);
            server.stream.write_all(&reply).expect("reply");
            let m = server.receive().expect("StartTransientUnit");
            assert_eq!(m.member.as_deref(), Some("StartTransientUnit"));
            let mut job = Body::default();
            job.string(JOB);
            match answer {
                Answer::Refuses => {
                    let mut text = Body::default();
                    text.string("Access denied");
                    let e = "org.freedesktop.DBus.Error.AccessDenied";
                    let reply = message(ERROR, Some(2), e, "s", &text.0);
                    server.stream.write_all(&reply).expect("error");
                }
                Answer::MovesSilently => {
                    let reply = message(2, Some(2), "", "o", &job.0);
                    server.stream.write_all(&reply).expect("reply");
                    moved.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                Answer::JobFails => {
                    let reply = message(2, Some(2), "", "o", &job.0);
                    server.stream.write_all(&reply).expect("reply");
                    let mut b = Body::default();
                    b.u32(7);
                    b.string(JOB);
                    b.string("ojd-1.scope");
                    b.string("failed");
                    let signal = message(SIGNAL, None, "JobRemoved", "uoss", &b.0);
                    server.stream.write_all(&signal).expect("signal");
                }
            }
            // Holds the connection until the client hangs up, as systemd would.
            let _ = server.stream.read(&mut [0u8; 1]);
        })
    }

    /// Asks a fake systemd answering as `answer` says, with a socket before it that nothing
    /// listens on (as on a host without systemd's private socket but with a bus); returns the
    /// outcome.
    fn ask(answer: Answer) -> Result<(), String> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("ojd-dbus-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let dead = dir.join("dead");
        drop(std::os::unix::net::UnixListener::bind(&dead).expect("bind"));
        let live = dir.join("live");
        let listener = std::os::unix::net::UnixListener::bind(&live).expect("bind");
        let moved = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let server = fake_systemd(listener, answer, moved.clone());
        let looked = || moved.load(std::sync::atomic::Ordering::SeqCst);
        let sockets = [
            (dead.to_str().expect("utf-8"), false),
            (live.to_str().expect("utf-8"), false),
        ];
        let r = start_scope_via(&sockets, "ojd-1.scope", 1, &looked);
        server.join().expect("the fake systemd ends");
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    #[test]
    fn a_move_is_seen_in_the_cgroup_without_waiting_for_the_jobs_signal() {
        // Before, the missing JobRemoved cost the whole patience (60 s) and then an error.
        assert_eq!(ask(Answer::MovesSilently), Ok(()));
    }

    #[test]
    fn a_refused_call_is_an_error_naming_systemds_answer() {
        let e = ask(Answer::Refuses).expect_err("refused");
        assert!(
            e.contains("AccessDenied") && e.contains("Access denied"),
            "{e}"
        );
        // The socket nobody listened on is named too, with why it was passed over.
        assert!(e.contains("dead: "), "{e}");
    }

    #[test]
    fn a_failed_job_is_an_error_naming_its_result() {
        let e = ask(Answer::JobFails).expect_err("failed job");
        assert!(e.contains("ended \"failed\""), "{e}");
    }

    #[test]
    fn a_cut_message_is_an_error_not_a_panic() {
        let data = [9, 0, 0, 0, b'a'];
        assert!(Cursor::new(&data, true).string().is_err());
    }
}

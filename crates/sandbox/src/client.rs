//! The judge's side of a keeper: [`Sandbox`] (one keeper, one run at a time) and
//! [`SandboxPool`] (a bounded set of keepers shared by workers).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};

use super::protocol::{KeeperConfig, Request, Response};
use super::{Capabilities, EarlierCache, RunOutcome, RunSpec, SandboxError};

/// How keepers are started.
#[derive(Clone, Debug)]
pub struct SandboxOptions {
    /// The `ojd` executable, re-executed as `ojd __keeper`: an absolute path.
    pub keeper_exe: PathBuf,
    /// Scratch folder for the keepers' roots.
    pub scratch: PathBuf,
    /// First uid of the sandbox users: each keeper reserves a uid of its own in
    /// `uid_base..uid_base + 1000`, unique across every ojd process on the host.
    pub uid_base: u32,
    /// Host folders every program can read (toolchains outside /usr).
    pub ro_paths: Vec<PathBuf>,
    /// False runs with rlimits only (for hosts without root); needs `allow_insecure`.
    pub isolate: bool,
    /// Accept keepers without full isolation (no root, no cgroups or namespaces, or `isolate`
    /// off). Off, such a keeper is refused with [`SandboxError::Insecure`] naming what is missing.
    pub allow_insecure: bool,
    /// Size of each keeper's `/box` tmpfs (the working folder; compilers write here).
    pub box_size: u64,
    /// Size of each keeper's private `/tmp`.
    pub tmp_size: u64,
}

impl SandboxOptions {
    /// Defaults: this very executable as keeper (or `OJD_KEEPER`, an absolute path).
    pub fn new(scratch: PathBuf) -> SandboxOptions {
        SandboxOptions {
            keeper_exe: default_keeper_exe(),
            scratch,
            uid_base: 40000,
            ro_paths: Vec::new(),
            isolate: true,
            allow_insecure: false,
            box_size: 512 << 20,
            tmp_size: 256 << 20,
        }
    }
}

/// The keeper, which runs as root: `OJD_KEEPER` when it names an absolute path (tests and
/// benches whose binary is not `ojd` point it at the built one), else this very executable.
/// Never a guess from the executable's name or folder: a build renamed `ojd-old` once ran a
/// newer `../ojd` as its keeper, and a renamed build picked up another user's `ojd` from a
/// parent folder, as root.
pub(super) fn default_keeper_exe() -> PathBuf {
    keeper_exe_from(
        std::env::var_os("OJD_KEEPER").map(PathBuf::from),
        std::env::current_exe().ok(),
    )
}

/// [`default_keeper_exe`] from the variable's value and the running executable. A relative
/// `OJD_KEEPER` is kept as given, so that [`Sandbox::start`] refuses it by name rather than
/// resolving it against whatever folder the daemon was started in.
fn keeper_exe_from(var: Option<PathBuf>, current: Option<PathBuf>) -> PathBuf {
    match var {
        Some(p) if !p.as_os_str().is_empty() => p,
        // The kernel's name for the running executable, should its path be unreadable.
        _ => current.unwrap_or_else(|| PathBuf::from("/proc/self/exe")),
    }
}

static NEXT_KEEPER: AtomicU32 = AtomicU32::new(0);

/// One keeper process and the pipe to it.
pub struct Sandbox {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    capabilities: Capabilities,
    cgroup_dirs: Vec<PathBuf>,
    root_dir: PathBuf,
}

impl Sandbox {
    /// Starts a keeper and waits until it has built its root.
    pub fn start(opts: &SandboxOptions) -> Result<Sandbox, SandboxError> {
        let index = NEXT_KEEPER.fetch_add(1, Ordering::Relaxed);
        let root_dir = opts
            .scratch
            .join(format!("root-{}-{index}", std::process::id()));
        let config = KeeperConfig {
            uid: opts.uid_base + index % 1000,
            gid: opts.uid_base + index % 1000,
            uid_base: opts.uid_base,
            root_dir: root_dir.clone(),
            ro_paths: opts.ro_paths.clone(),
            isolate: opts.isolate,
            box_size: opts.box_size,
            tmp_size: opts.tmp_size,
            // Made once per process, before its first keeper, and only for isolating root.
            cgroup_v2: (opts.isolate && super::running_as_root())
                .then(super::delegate::ensure)
                .flatten()
                .map(|d| d.map(|d| d.base)),
        };
        if !opts.keeper_exe.is_absolute() {
            // A relative path would be looked up in PATH or the current folder.
            return Err(SandboxError::Spawn {
                path: opts.keeper_exe.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the keeper must be given as an absolute path",
                ),
            });
        }
        let mut child = Command::new(&opts.keeper_exe)
            .arg("__keeper")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .env_clear()
            .spawn()
            .map_err(|source| SandboxError::Spawn {
                path: opts.keeper_exe.clone(),
                source,
            })?;
        super::affinity::pin_keeper(child.id());
        let to = child.stdin.take().expect("stdin was piped");
        let from = BufReader::new(child.stdout.take().expect("stdout was piped"));
        let mut sandbox = Sandbox {
            child,
            to,
            from,
            capabilities: Capabilities::default(),
            cgroup_dirs: Vec::new(),
            root_dir,
        };
        sandbox.send(&serde_json::to_string(&config).expect("config serializes"))?;
        match sandbox.receive()? {
            Response::Ready {
                capabilities,
                cgroup_dirs,
            } => {
                sandbox.cgroup_dirs = cgroup_dirs;
                if !capabilities.full() && !opts.allow_insecure {
                    return Err(SandboxError::Insecure {
                        missing: capabilities.missing(),
                    });
                }
                sandbox.capabilities = capabilities;
                Ok(sandbox)
            }
            Response::Failed(e) => Err(SandboxError::Keeper(e)),
            Response::Outcome(_) => Err(SandboxError::Keeper("unexpected outcome at start".into())),
        }
    }

    /// What isolation this keeper achieved.
    pub fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// The keeper's process id (tests tell a replaced keeper by it).
    pub(super) fn keeper_pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, line: &str) -> Result<(), SandboxError> {
        self.to
            .write_all(line.as_bytes())
            .and_then(|_| self.to.write_all(b"\n"))
            .and_then(|_| self.to.flush())
            .map_err(|_| SandboxError::KeeperGone)
    }

    fn receive(&mut self) -> Result<Response, SandboxError> {
        let mut line = String::new();
        match self.from.read_line(&mut line) {
            Ok(0) => Err(SandboxError::KeeperGone),
            Ok(_) => serde_json::from_str(&line).map_err(|e| {
                SandboxError::Protocol(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            }),
            Err(e) => Err(SandboxError::Protocol(e)),
        }
    }

    /// Runs one program and waits for its outcome; the keeper's earlier page cache is
    /// reclaimed first ([`EarlierCache::Reclaim`]).
    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        self.run_with(spec, EarlierCache::Reclaim)
    }

    /// Runs one program and waits for its outcome, with the keeper's earlier page cache
    /// reclaimed or kept as `cache` says.
    pub fn run_with(
        &mut self,
        spec: &RunSpec,
        cache: EarlierCache,
    ) -> Result<RunOutcome, SandboxError> {
        let line = serde_json::to_string(&Request::Run(Box::new(spec.clone()), cache))
            .expect("specs serialize");
        self.send(&line)?;
        match self.receive()? {
            Response::Outcome(o) => Ok(*o),
            Response::Failed(e) => Err(SandboxError::Keeper(e)),
            Response::Ready { .. } => Err(SandboxError::Keeper("unexpected ready".into())),
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Closing the pipe ends the keeper; its cgroups can be removed once it is gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
        for dir in &self.cgroup_dirs {
            let _ = super::cgroup::remove_tree(dir);
        }
        let _ = std::fs::remove_dir(&self.root_dir);
    }
}

/// A bounded set of keepers; `get` blocks while all are busy.
pub struct SandboxPool {
    opts: SandboxOptions,
    size: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
}

struct PoolState {
    idle: Vec<Sandbox>,
    alive: usize,
}

/// A keeper borrowed from the pool; returned on drop (or discarded if it failed).
pub struct PooledSandbox<'a> {
    pool: &'a SandboxPool,
    sandbox: Option<Sandbox>,
}

impl SandboxPool {
    /// A pool of at most `size` keepers (at least one), started lazily as [`SandboxPool::get`]
    /// needs them.
    pub fn new(opts: SandboxOptions, size: usize) -> SandboxPool {
        SandboxPool {
            opts,
            size: size.max(1),
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                alive: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// The options every keeper of the pool starts with.
    pub fn options(&self) -> &SandboxOptions {
        &self.opts
    }

    /// How many keepers may run at once.
    pub fn capacity(&self) -> usize {
        self.size
    }

    /// An idle keeper, or a new one while fewer than the capacity run, or else waits until one is
    /// returned. An error when a new keeper fails to start.
    pub fn get(&self) -> Result<PooledSandbox<'_>, SandboxError> {
        let mut st = self
            .state
            .lock()
            .expect("pool lock is never poisoned by panics in run");
        loop {
            if let Some(s) = st.idle.pop() {
                return Ok(PooledSandbox {
                    pool: self,
                    sandbox: Some(s),
                });
            }
            if st.alive < self.size {
                st.alive += 1;
                drop(st);
                return match Sandbox::start(&self.opts) {
                    Ok(s) => Ok(PooledSandbox {
                        pool: self,
                        sandbox: Some(s),
                    }),
                    Err(e) => {
                        self.state.lock().expect("pool lock").alive -= 1;
                        Err(e)
                    }
                };
            }
            st = self.freed.wait(st).expect("pool lock");
        }
    }
}

impl PooledSandbox<'_> {
    /// [`Sandbox::run`] on the borrowed keeper.
    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        self.run_with(spec, EarlierCache::Reclaim)
    }

    /// [`Sandbox::run_with`] on the borrowed keeper.
    pub fn run_with(
        &mut self,
        spec: &RunSpec,
        cache: EarlierCache,
    ) -> Result<RunOutcome, SandboxError> {
        let s = self.sandbox.as_mut().expect("present until drop");
        let r = s.run_with(spec, cache);
        if r.is_err() {
            // A keeper that failed (gone, garbled, or reporting an internal failure such as a
            // box it could not clear) is never returned to the pool: the next run gets a new one.
            self.sandbox = None;
        }
        r
    }

    /// The keeper's process id, while it is held.
    pub fn keeper_pid(&self) -> Option<u32> {
        self.sandbox.as_ref().map(Sandbox::keeper_pid)
    }

    /// What isolation the borrowed keeper achieved (the default, nothing, once it failed and was
    /// dropped).
    pub fn capabilities(&self) -> Capabilities {
        self.sandbox
            .as_ref()
            .map(|s| s.capabilities().clone())
            .unwrap_or_default()
    }
}

impl Drop for PooledSandbox<'_> {
    fn drop(&mut self) {
        let mut st = self.pool.state.lock().expect("pool lock");
        match self.sandbox.take() {
            Some(s) => st.idle.push(s),
            None => st.alive -= 1,
        }
        self.pool.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary is not named `ojd`, and a built `ojd` usually sits in the folder above
    /// it: the keeper is still this executable, never that neighbour.
    #[test]
    fn the_keeper_is_the_running_executable_never_a_neighbour() {
        let exe = std::env::current_exe().expect("current exe");
        let var = std::env::var_os("OJD_KEEPER").map(PathBuf::from);
        let expected = var.clone().unwrap_or_else(|| exe.clone());
        assert_eq!(default_keeper_exe(), expected);
        let renamed = PathBuf::from("/opt/build/ojd-old");
        assert_eq!(keeper_exe_from(None, Some(renamed.clone())), renamed);
        assert_eq!(
            keeper_exe_from(Some(PathBuf::new()), Some(renamed.clone())),
            renamed
        );
        assert_eq!(
            keeper_exe_from(Some("/usr/bin/ojd".into()), Some(renamed)),
            PathBuf::from("/usr/bin/ojd")
        );
        assert_eq!(keeper_exe_from(None, None), PathBuf::from("/proc/self/exe"));
    }

    #[test]
    fn a_relative_keeper_is_refused_by_name() {
        // Refused before anything is made in the scratch folder.
        let mut opts = SandboxOptions::new(std::env::temp_dir());
        opts.keeper_exe = "ojd".into();
        let e = Sandbox::start(&opts).err().expect("refused");
        let source = std::error::Error::source(&e).map(ToString::to_string);
        let text = format!("{e}: {}", source.unwrap_or_default());
        assert!(text.contains("ojd") && text.contains("absolute"), "{text}");
    }
}

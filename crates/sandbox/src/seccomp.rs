//! The seccomp deny list: a classic-BPF filter built once by the keeper, installed by each run's
//! init before it forks the program.
//!
//! It is a deny list, not an allow list, on purpose: the namespaces already hide the host, and
//! language runtimes (CPython, the JVM, Go's runtime) use a long tail of harmless calls that an
//! allow list breaks with every upgrade. What is denied is what a judged program never needs and
//! what could reach past the namespaces: ptrace, mounts, new namespaces, BPF, kernel keyrings,
//! io_uring (its own syscall-free path around seccomp), perf events, module loading, reboot,
//! swap, clock setting, and sockets (and socket pairs) of any family but AF_UNIX (except that
//! `socket(AF_INET/AF_INET6)` fails with EACCES rather than stop the run: JVMs probe them at
//! start). System V IPC and
//! POSIX message queues are denied too: no judged program needs them, and an object left in an
//! ipc namespace outlives the process that made it (each run has an ipc and a network namespace
//! of its own as well). `fallocate` fails with EOPNOTSUPP: it reserves disk blocks that a file's
//! size does not show. Foreign ABIs (i386 `int 0x80`,
//! x32) are refused outright, since their syscall numbers would bypass the table.
//!
//! A denied call is reported to the run's init through a seccomp user-notification listener
//! (`SECCOMP_RET_USER_NOTIF`): the call never executes, init reads its number, kills the run and
//! reports "forbidden system call NAME". Where the kernel lacks listeners, the same list kills the
//! process outright (`SECCOMP_RET_KILL_PROCESS`, seen as SIGSYS). `clone3` gets ENOSYS instead, because its flags live in memory a filter cannot read and
//! glibc then falls back to `clone`, whose flags the filter checks.

use libc::{c_long, sock_filter};

const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;

const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const BPF_JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const BPF_JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K

const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const OFFSET_ARG0: u32 = 16;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

const NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

macro_rules! syscalls {
    ($($name:ident),* $(,)?) => {
        &[$((libc::$name, stringify!($name))),*]
    };
}

/// Denied system calls with their names, for reports (the same on every architecture).
#[rustfmt::skip]
pub(super) const DENIED: &[(c_long, &str)] = syscalls!(
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp, SYS_pidfd_getfd,
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_fsopen, SYS_fsmount, SYS_fsconfig,
    SYS_fspick, SYS_move_mount, SYS_open_tree, SYS_mount_setattr,
    SYS_unshare, SYS_setns,
    SYS_bpf, SYS_userfaultfd, SYS_perf_event_open, SYS_fanotify_init,
    SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
    SYS_kexec_load, SYS_kexec_file_load, SYS_reboot, SYS_swapon, SYS_swapoff,
    SYS_init_module, SYS_finit_module, SYS_delete_module,
    SYS_acct, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex,
    SYS_syslog, SYS_quotactl, SYS_vhangup, SYS_sethostname, SYS_setdomainname,
    SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_lookup_dcookie,
    SYS_shmget, SYS_semget, SYS_msgget, SYS_mq_open,
);

/// Denied calls that exist only on x86-64 (port I/O).
#[cfg(target_arch = "x86_64")]
const DENIED_ARCH: &[(c_long, &str)] = syscalls!(SYS_iopl, SYS_ioperm);
#[cfg(not(target_arch = "x86_64"))]
const DENIED_ARCH: &[(c_long, &str)] = &[];

fn all_denied() -> impl Iterator<Item = &'static (c_long, &'static str)> {
    DENIED.iter().chain(DENIED_ARCH)
}

/// The name of a system call number, if it is one the filter denies (or `socket`/`clone`).
pub(super) fn syscall_name(nr: i64) -> Option<&'static str> {
    if nr == libc::SYS_socket {
        return Some("socket");
    }
    if nr == libc::SYS_socketpair {
        return Some("socketpair");
    }
    if nr == libc::SYS_clone {
        return Some("clone");
    }
    all_denied()
        .find(|(n, _)| *n == nr)
        .map(|(_, name)| name.trim_start_matches("SYS_"))
}

fn stmt(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// What a denied call does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum DenyAction {
    /// Suspend the call and notify the listener (init names it and kills the run).
    Notify,
    /// Kill the process at once (SIGSYS).
    Kill,
}

/// What the filter does with one system call number.
enum Rule {
    /// Return this action.
    Ret(u32),
    /// `socket(domain, ...)`: AF_UNIX is allowed. AF_INET and AF_INET6 fail with EACCES instead
    /// of stopping the run: the JVM opens one of each to probe IPv4/IPv6 support whenever
    /// java.net or NIO loads (javac and kotlinc always do), and the call never executes either
    /// way. Any other family stops the run.
    Socket,
    /// `socketpair(domain, ...)`: AF_UNIX only.
    Socketpair,
    /// `clone(flags, ...)`: no new namespaces.
    Clone,
}

impl Rule {
    /// The instructions for a call this rule matched; every path ends in a return.
    fn body(&self, deny: u32) -> Vec<sock_filter> {
        let unix = libc::AF_UNIX as u32;
        match self {
            Rule::Ret(k) => vec![stmt(BPF_RET_K, *k)],
            Rule::Socket => vec![
                stmt(BPF_LD_W_ABS, OFFSET_ARG0),
                jump(BPF_JEQ_K, unix, 0, 1),
                stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
                jump(BPF_JEQ_K, libc::AF_INET as u32, 1, 0),
                jump(BPF_JEQ_K, libc::AF_INET6 as u32, 0, 1),
                stmt(BPF_RET_K, SECCOMP_RET_ERRNO | libc::EACCES as u32),
                stmt(BPF_RET_K, deny),
            ],
            Rule::Socketpair => vec![
                stmt(BPF_LD_W_ABS, OFFSET_ARG0),
                jump(BPF_JEQ_K, unix, 0, 1),
                stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
                stmt(BPF_RET_K, deny),
            ],
            Rule::Clone => vec![
                stmt(BPF_LD_W_ABS, OFFSET_ARG0),
                jump(BPF_JSET_K, NAMESPACE_FLAGS, 0, 1),
                stmt(BPF_RET_K, deny),
                stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
            ],
        }
    }
}

/// Builds the filter program. Foreign ABIs always kill: their numbers mean other calls.
///
/// The numbers are found by a binary search (a tree of `JGE` tests over the sorted rules), not a
/// chain of `JEQ`: besides running every call through about 6 tests instead of up to 60, this
/// matters for every run, because when a filter is attached the kernel runs it for every system
/// call number to cache the ones it always allows, and for a chain of 60 tests that took about
/// 0.4 ms per run on this project's machine (see `benches/sandbox_steps.c`).
pub(super) fn build_filter(action: DenyAction) -> Vec<sock_filter> {
    let kill = SECCOMP_RET_KILL_PROCESS;
    let deny = match action {
        DenyAction::Notify => libc::SECCOMP_RET_USER_NOTIF,
        DenyAction::Kill => SECCOMP_RET_KILL_PROCESS,
    };
    let mut p = vec![
        stmt(BPF_LD_W_ABS, OFFSET_ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, kill),
        stmt(BPF_LD_W_ABS, OFFSET_NR),
    ];
    if cfg!(target_arch = "x86_64") {
        // x32 system calls carry bit 30.
        p.push(jump(BPF_JGE_K, 0x4000_0000, 0, 1));
        p.push(stmt(BPF_RET_K, kill));
    }
    let mut rules: Vec<(u32, Rule)> = all_denied()
        .map(|(nr, _)| (*nr as u32, Rule::Ret(deny)))
        .collect();
    // clone3 gets ENOSYS: its flags live in memory a filter cannot read, and glibc then falls
    // back to clone, whose flags the filter checks.
    rules.push((
        libc::SYS_clone3 as u32,
        Rule::Ret(SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
    ));
    // fallocate: refused with an error, never run. It reserves blocks that the size of a file
    // does not show (KEEP_SIZE), so on stdout it would cost the host disk past the output limit;
    // glibc's posix_fallocate falls back to writing, which RLIMIT_FSIZE bounds.
    rules.push((
        libc::SYS_fallocate as u32,
        Rule::Ret(SECCOMP_RET_ERRNO | libc::EOPNOTSUPP as u32),
    ));
    rules.push((libc::SYS_socket as u32, Rule::Socket));
    rules.push((libc::SYS_socketpair as u32, Rule::Socketpair));
    rules.push((libc::SYS_clone as u32, Rule::Clone));
    rules.sort_by_key(|r| r.0);
    rules.dedup_by_key(|r| r.0);
    p.extend(search(&rules, deny));
    p
}

/// The binary search over `rules` (sorted by number, the number in the accumulator); a number
/// no rule names is allowed. A `JGE` node jumps over its lower half, which stays far below the
/// 255 instructions a classic BPF jump can skip (checked by a test).
fn search(rules: &[(u32, Rule)], deny: u32) -> Vec<sock_filter> {
    if rules.len() <= 3 {
        let mut p = Vec::new();
        for (nr, rule) in rules {
            let body = rule.body(deny);
            p.push(jump(BPF_JEQ_K, *nr, 0, body.len() as u8));
            p.extend(body);
        }
        p.push(stmt(BPF_RET_K, SECCOMP_RET_ALLOW));
        return p;
    }
    let mid = rules.len() / 2;
    let (low, high) = (search(&rules[..mid], deny), search(&rules[mid..], deny));
    let skip = u8::try_from(low.len()).expect("a half of the rules fits a BPF jump");
    let mut p = vec![jump(BPF_JGE_K, rules[mid].0, skip, 0)];
    p.extend(low);
    p.extend(high);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(syscall_name(libc::SYS_ptrace), Some("ptrace"));
        assert_eq!(syscall_name(libc::SYS_socket), Some("socket"));
        assert_eq!(syscall_name(libc::SYS_read), None);
    }

    /// Runs a classic BPF filter as the kernel would, for the instructions the filter uses.
    fn emulate(p: &[sock_filter], arch: u32, nr: u32, arg0: u32) -> u32 {
        let (mut pc, mut a) = (0usize, 0u32);
        loop {
            let i = p[pc];
            pc += 1;
            let cond = match i.code {
                BPF_LD_W_ABS => {
                    a = match i.k {
                        OFFSET_NR => nr,
                        OFFSET_ARCH => arch,
                        OFFSET_ARG0 => arg0,
                        k => panic!("load of offset {k}"),
                    };
                    continue;
                }
                BPF_RET_K => return i.k,
                BPF_JEQ_K => a == i.k,
                BPF_JGE_K => a >= i.k,
                BPF_JSET_K => a & i.k != 0,
                c => panic!("instruction {c:#x}"),
            };
            pc += if cond { i.jt } else { i.jf } as usize;
        }
    }

    /// What the filter must decide, written plainly.
    fn expected(nr: u32, arg0: u32, deny: u32) -> u32 {
        let nr_l = nr as c_long;
        let unix = libc::AF_UNIX as u32;
        if nr >= 0x4000_0000 {
            SECCOMP_RET_KILL_PROCESS
        } else if all_denied().any(|(n, _)| *n == nr_l) {
            deny
        } else if nr_l == libc::SYS_clone3 {
            SECCOMP_RET_ERRNO | libc::ENOSYS as u32
        } else if nr_l == libc::SYS_fallocate {
            SECCOMP_RET_ERRNO | libc::EOPNOTSUPP as u32
        } else if nr_l == libc::SYS_socket && arg0 == unix {
            SECCOMP_RET_ALLOW
        } else if nr_l == libc::SYS_socket
            && (arg0 == libc::AF_INET as u32 || arg0 == libc::AF_INET6 as u32)
        {
            SECCOMP_RET_ERRNO | libc::EACCES as u32
        } else if nr_l == libc::SYS_socket
            || (nr_l == libc::SYS_socketpair && arg0 != unix)
            || (nr_l == libc::SYS_clone && arg0 & NAMESPACE_FLAGS != 0)
        {
            deny
        } else {
            SECCOMP_RET_ALLOW
        }
    }

    #[test]
    fn filter_decides_every_number_as_the_rules_say() {
        for (action, deny) in [
            (DenyAction::Notify, libc::SECCOMP_RET_USER_NOTIF),
            (DenyAction::Kill, SECCOMP_RET_KILL_PROCESS),
        ] {
            let p = build_filter(action);
            let args = [
                0,
                libc::AF_UNIX as u32,
                libc::AF_INET as u32,
                libc::AF_INET6 as u32,
                libc::AF_NETLINK as u32,
                libc::CLONE_NEWNET as u32,
                (libc::CLONE_VM | libc::SIGCHLD) as u32,
            ];
            for nr in (0..1024).chain([0x4000_0000, 0x4000_0001, u32::MAX]) {
                for arg0 in args {
                    assert_eq!(
                        emulate(&p, AUDIT_ARCH, nr, arg0),
                        expected(nr, arg0, deny),
                        "call {nr} ({:?}), arg0 {arg0:#x}",
                        syscall_name(nr as i64)
                    );
                }
            }
            assert_eq!(
                emulate(&p, 0x4000_0003, 1, 0),
                SECCOMP_RET_KILL_PROCESS,
                "a foreign ABI"
            );
        }
    }

    #[test]
    fn filter_jumps_stay_in_range() {
        let p = build_filter(DenyAction::Notify);
        assert!(p.len() < 4096);
        for (i, ins) in p.iter().enumerate() {
            assert!(i + 1 + (ins.jt.max(ins.jf) as usize) < p.len() || ins.code == BPF_RET_K);
        }
        assert_eq!(p.last().map(|i| i.code), Some(BPF_RET_K));
    }
}

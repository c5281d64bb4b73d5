//! How a run travels from the keeper to its init, forked before the run was asked for: one
//! `SOCK_SEQPACKET` message, the standard streams beside it as descriptors (`SCM_RIGHTS`).

use super::*;

/// A run as it travels from the keeper to its init, which was forked before the run was asked
/// for (see `Keeper::spare`); the standard streams go beside it as descriptors (`SCM_RIGHTS`).
#[derive(serde::Serialize, serde::Deserialize)]
struct Wire {
    limits: crate::Limits,
    /// `Mode`'s fields.
    mode: [bool; 3],
    argv: Vec<Vec<u8>>,
    envp: Vec<Vec<u8>>,
    workdir: Vec<u8>,
    uid: u32,
    gid: u32,
}

/// The largest run message: far above any real argv and environment, within what one
/// `SOCK_SEQPACKET` message carries at the kernel's default buffer size.
pub(super) const WIRE_MAX: usize = 128 << 10;

impl Prepared {
    /// Sends the run to init over `sock` (one message, with the streams' descriptors).
    pub(crate) fn send(&self, sock: &OwnedFd) -> Result<(), String> {
        let bytes = |v: &[CString]| v.iter().map(|c| c.as_bytes().to_vec()).collect();
        let wire = Wire {
            limits: self.limits.clone(),
            mode: [
                self.mode.namespaces,
                self.mode.drop_uid,
                self.mode.rlimit_memory,
            ],
            argv: bytes(&self._argv),
            envp: bytes(&self._envp),
            workdir: self.workdir.as_bytes().to_vec(),
            uid: self.uid,
            gid: self.gid,
        };
        let data = serde_json::to_vec(&wire).expect("a run serializes");
        if data.len() > WIRE_MAX {
            return Err(format!(
                "the run's arguments and environment take {} bytes, more than {WIRE_MAX}",
                data.len()
            ));
        }
        let mut fds = vec![self.stdin.as_raw_fd(), self.stdout.as_raw_fd()];
        fds.extend(self.stderr.as_ref().map(|f| f.as_raw_fd()));
        send_with_fds(sock.as_raw_fd(), &data, &fds)
            .map_err(|e| format!("send the run to init: {e}"))
    }

    /// Init's side of [`Prepared::send`] into `data` (at least [`WIRE_MAX`] bytes, allocated
    /// while init waited): None when the keeper closed the socket instead.
    pub(super) fn receive(sock: RawFd, data: &mut [u8]) -> Option<Prepared> {
        let (n, mut fds) = receive_with_fds(sock, data)?;
        let wire: Wire = serde_json::from_slice(&data[..n]).ok()?;
        if !(2..=3).contains(&fds.len()) {
            return None;
        }
        let stderr = (fds.len() == 3).then(|| fds.pop()).flatten();
        let stdout = fds.pop()?;
        let stdin = fds.pop()?;
        let cstrings = |v: Vec<Vec<u8>>| -> Option<Vec<CString>> {
            v.into_iter().map(|b| CString::new(b).ok()).collect()
        };
        let (argv, envp) = (cstrings(wire.argv)?, cstrings(wire.envp)?);
        let nul_terminated = |v: &[CString]| {
            let mut p: Vec<*const libc::c_char> = v.iter().map(|a| a.as_ptr()).collect();
            p.push(std::ptr::null());
            p
        };
        if argv.is_empty() {
            return None;
        }
        Some(Prepared {
            limits: wire.limits,
            mode: Mode {
                namespaces: wire.mode[0],
                drop_uid: wire.mode[1],
                rlimit_memory: wire.mode[2],
            },
            argv_ptrs: nul_terminated(&argv),
            envp_ptrs: nul_terminated(&envp),
            _argv: argv,
            _envp: envp,
            stdin,
            stdout,
            stderr,
            workdir: CString::new(wire.workdir).ok()?,
            uid: wire.uid,
            gid: wire.gid,
        })
    }
}

/// The most descriptors one run message carries (stdin, stdout, stderr).
const WIRE_FDS: usize = 3;

/// `sendmsg` of `data` with `fds` as `SCM_RIGHTS`.
fn send_with_fds(sock: RawFd, data: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    assert!(fds.len() <= WIRE_FDS, "at most three streams");
    let fd_bytes = std::mem::size_of_val(fds) as u32;
    // A buffer aligned for `cmsghdr`, large enough for three descriptors.
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: msghdr is plain data; all-zero is a valid value, filled below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    // SAFETY: CMSG_SPACE only computes a size.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(fd_bytes) } as usize;
    // SAFETY: msg_control points at a buffer of msg_controllen bytes (64 >= CMSG_SPACE(12)),
    // so the first header and its data fit; the descriptors are copied into it.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(fd_bytes) as usize;
        std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg) as *mut RawFd, fds.len());
    }
    loop {
        // SAFETY: msg and everything it points at live across the call.
        let n = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) };
        if n >= 0 {
            return match n as usize == data.len() {
                true => Ok(()),
                false => Err(std::io::Error::other("the run message was cut")),
            };
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `recvmsg` of one message into `data`, with the descriptors it carried (close-on-exec).
/// None at end of file, on an error, or for a message or control data cut short.
fn receive_with_fds(sock: RawFd, data: &mut [u8]) -> Option<(usize, Vec<OwnedFd>)> {
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: msghdr is plain data; all-zero is a valid value, filled below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = std::mem::size_of_val(&control);
    let n = loop {
        // SAFETY: msg points at live buffers of the lengths it states.
        let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 || errno() != libc::EINTR {
            break n;
        }
    };
    let mut fds = Vec::new();
    // SAFETY: the kernel filled msg_control with msg_controllen bytes of well-formed headers;
    // CMSG_FIRSTHDR/NXTHDR stay within them, and each SCM_RIGHTS header's data holds the
    // descriptors its length says, now owned by this process.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let len = (*cmsg).cmsg_len - libc::CMSG_LEN(0) as usize;
                let p = libc::CMSG_DATA(cmsg) as *const RawFd;
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(p.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    let cut = msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0;
    (n > 0 && !cut).then_some((n as usize, fds))
}

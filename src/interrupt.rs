//! SIGINT for headless runs, caught from the process's first instructions.
//!
//! The CLI contract says an interrupted headless run still prints its `result`. A handler
//! installed once the runtime and the agent exist leaves the first tens of milliseconds
//! unguarded (the default action kills the process, printing nothing), so `main` installs
//! this one before anything else (on Linux even before `main`, from `.init_array`). It only
//! records the signal and wakes a pipe; headless mode turns that into a cancelled turn, the
//! TUI and the subcommands put the default action back.

use std::os::fd::{IntoRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static SEEN: AtomicBool = AtomicBool::new(false);
/// Write end of the wake-up pipe, or -1 before anyone waits.
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only async-signal-safe work here: an atomic store and write(2).
    SEEN.store(true, Ordering::SeqCst);
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) of one byte from a static buffer; errors (a full pipe) are fine.
        unsafe {
            libc::write(fd, b"!".as_ptr().cast(), 1);
        }
    }
}

/// Catches SIGINT from now on. Cheap and idempotent; safe to call before `main`.
pub extern "C" fn install() {
    // SAFETY: a plain sigaction with a handler that is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
}

/// Gives SIGINT back its default action (the TUI and the subcommands). True if one already
/// arrived, in which case the caller should exit with 130 as the default would have.
pub fn release() -> bool {
    // SAFETY: restoring the default disposition.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
    SEEN.load(Ordering::SeqCst)
}

/// Whether a SIGINT arrived since [`install`].
pub fn seen() -> bool {
    SEEN.load(Ordering::SeqCst)
}

/// Resolves when a SIGINT arrived since [`install`], also one from before this call.
pub struct Waiter {
    rx: Option<tokio::net::unix::pipe::Receiver>,
}

impl Waiter {
    /// Must be called inside a tokio runtime. Falls back to polling [`seen`] when a pipe
    /// cannot be made.
    pub fn new() -> Waiter {
        // std's pipe is close-on-exec on every Unix (pipe2 is not on macOS).
        let Ok((read, write)) = std::io::pipe() else {
            return Waiter { rx: None };
        };
        let write = OwnedFd::from(write).into_raw_fd();
        // The handler must never block: a full pipe just drops the extra byte.
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let flags = libc::fcntl(write, libc::F_GETFL);
            libc::fcntl(write, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        // The write end stays open for the life of the process: the handler may use it at
        // any time.
        let old = WAKE_FD.swap(write, Ordering::SeqCst);
        if old >= 0 {
            // SAFETY: the previous waiter's write end, no longer reachable by the handler.
            unsafe {
                libc::close(old);
            }
        }
        // tokio puts the read end in non-blocking mode.
        let rx = tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(read)).ok();
        Waiter { rx }
    }

    pub async fn recv(&mut self) {
        loop {
            // Checked after the pipe is registered, so a signal in between is never lost.
            if seen() {
                return;
            }
            match &mut self.rx {
                Some(rx) => {
                    let _ = rx.readable().await;
                    let mut buf = [0u8; 16];
                    let _ = rx.try_read(&mut buf);
                }
                None => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
            }
        }
    }
}

impl Default for Waiter {
    fn default() -> Self {
        Self::new()
    }
}

/// Cancels `token` at the first SIGINT (also one that came before this call). The task
/// ends with the runtime; abort it when the run is over.
pub fn cancel_on_sigint(
    token: &tokio_util::sync::CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let token = token.clone();
    let mut waiter = Waiter::new();
    tokio::spawn(async move {
        waiter.recv().await;
        token.cancel();
    })
}

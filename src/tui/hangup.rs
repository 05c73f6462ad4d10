//! Ends the terminal's input stream when the terminal hangs up.
//!
//! When the terminal goes away (window closed, tmux server killed) the kernel sends SIGHUP
//! only to the session leader. If tooloop is not the leader (it runs under a wrapper script,
//! a profiler, `cargo run`…) and the leader neither dies nor passes the signal on, tooloop
//! gets no signal at all; reading the dead tty then returns 0 bytes forever, and crossterm's
//! reader (0.28) retries that read in a loop: 100 % of a core, no event, no error, and the
//! process never ends. Found that way: two tooloops under `heaptrack` still spinning 40 min
//! after their tmux was killed.
//!
//! So the tty itself is watched: the same terminal crossterm reads (stdin when it is a tty,
//! else /dev/tty) is registered with tokio's reactor, and a hang-up (EPOLLHUP) ends the
//! stream, so the event loop exits as it does for a closed input. Nothing is read here and
//! nothing wakes while the terminal is idle; a keystroke costs one readiness check.

use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// `inner` (terminal events) until the terminal hangs up; then the stream ends.
pub struct UntilHangup<S> {
    inner: S,
    tty: Option<AsyncFd<OwnedFd>>,
    hung_up: bool,
}

impl<S> UntilHangup<S> {
    /// Watches the process's terminal; without one (or outside a tokio runtime) `inner`
    /// passes through unwatched.
    pub fn new(inner: S) -> Self {
        let in_runtime = tokio::runtime::Handle::try_current().is_ok();
        let tty = terminal_fd().filter(|_| in_runtime).and_then(|fd| {
            register(fd)
                .map_err(|e| tracing::warn!("cannot watch the terminal for a hang-up: {e}"))
                .ok()
        });
        Self::with_fd(inner, tty)
    }

    fn with_fd(inner: S, tty: Option<AsyncFd<OwnedFd>>) -> Self {
        UntilHangup {
            inner,
            tty,
            hung_up: false,
        }
    }

    /// Whether the terminal has hung up, registering for the next readiness change if not.
    fn poll_hangup(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(tty) = &self.tty else { return false };
        loop {
            match tty.poll_read_ready(cx) {
                Poll::Ready(Ok(mut guard)) => {
                    if guard.ready().is_read_closed() {
                        return true;
                    }
                    // Input to read (crossterm reads it): wait for the next change.
                    guard.clear_ready();
                }
                Poll::Ready(Err(e)) => {
                    tracing::warn!("watching the terminal: {e}");
                    self.tty = None;
                    return false;
                }
                Poll::Pending => return false,
            }
        }
    }
}

impl<S: Stream + Unpin> Stream for UntilHangup<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        if self.hung_up {
            return Poll::Ready(None);
        }
        if self.poll_hangup(cx) {
            tracing::info!("the terminal hung up");
            self.hung_up = true;
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

fn register(fd: OwnedFd) -> std::io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: the AsyncFd owns the OwnedFd, so the fd stays open and the same until it drops.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.map_err(|e| e.into())
}

/// The terminal crossterm reads: a duplicate of stdin when it is a tty, else /dev/tty.
fn terminal_fd() -> Option<OwnedFd> {
    let stdin = std::io::stdin();
    if std::io::IsTerminal::is_terminal(&stdin) {
        return stdin.as_fd().try_clone_to_owned().ok();
    }
    std::fs::File::open("/dev/tty").ok().map(OwnedFd::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    /// A pty whose master is closed hangs up its slave: the stream ends although the inner
    /// one never would (crossterm's reader spins instead).
    #[tokio::test]
    async fn a_closed_pty_ends_the_stream_and_a_live_one_does_not() {
        let (master, slave) = open_pty();
        let tty = register(slave).expect("register");
        let mut s = UntilHangup::with_fd(futures::stream::pending::<u8>(), Some(tty));
        // Live, with input waiting: no end.
        write_all(&master, b"abc\n");
        let quiet = tokio::time::timeout(std::time::Duration::from_millis(50), s.next()).await;
        assert!(
            quiet.is_err(),
            "a live terminal with input must not end the stream"
        );
        drop(master);
        let end = tokio::time::timeout(std::time::Duration::from_secs(5), s.next()).await;
        assert_eq!(end.expect("the hang-up is seen"), None);
        assert_eq!(s.next().await, None, "stays ended");
    }

    #[tokio::test]
    async fn without_a_terminal_the_inner_stream_passes_through() {
        let mut s = UntilHangup::with_fd(futures::stream::iter([1, 2]), None);
        assert_eq!(s.next().await, Some(1));
        assert_eq!(s.next().await, Some(2));
        assert_eq!(s.next().await, None);
    }

    fn open_pty() -> (OwnedFd, OwnedFd) {
        use std::os::fd::FromRawFd;
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two fds; the name, termios and winsize are not asked for.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty");
        // SAFETY: both fds were just opened and are owned here only.
        unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
    }

    fn write_all(fd: &OwnedFd, bytes: &[u8]) {
        use std::os::fd::AsRawFd;
        // SAFETY: a valid fd and buffer.
        let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        assert_eq!(n, bytes.len() as isize);
    }
}

//! `terminal_input`: bytes a terminal (or anything writing to it: a paste, a program that
//! printed escape sequences, line noise) sends, through the decoder the TUI reads with —
//! crossterm's, reading a real pty in raw mode as the TUI's stdin — and then through the TUI's
//! own event loop (`tui::event_loop::run`) into the app, drawn to a screen. Never a panic, the
//! decoder gives every byte back (a marker written after the input always arrives), and no
//! frame holds a control character.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crossterm::event::{Event, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::{App, RunInfo};
use tooloop::tui::event_loop::{self, Screen};
use tooloop::tui::view;

/// Inputs are cut here: the pty holds them whole before the decoder reads.
const MAX_TERMINAL_INPUT: usize = 2048;

/// Ends a bracketed paste left open, then (twice, in case the first is eaten by a sequence the
/// input left unfinished) a sequence that ends any other numbered CSI sequence, then the two
/// sequences crossterm reads with no bound: an answer to a device-attributes query (`ESC [ ?`
/// waits for a `c` or a `u`: crash 16; crossterm keeps it to itself) and a mouse move to the
/// top-left cell (an SGR report `ESC [ <` waits for an `M` or `m`: crash 14). A terminal's next
/// answer or report, or a typed `c`/`m`, ends them the same way, dropping what they held.
const RESET: &[u8] = b"\x1b[201~\x1b[201~\x1b[201~\x1b[?1c\x1b[<35;1;1M";
/// Focus lost, gained, lost: the marker that all before it was decoded.
const MARKER: &[u8] = b"\x1b[O\x1b[I\x1b[O";

/// The pty's writing end; its other end is this process's stdin, in raw mode.
fn pty() -> &'static Mutex<std::fs::File> {
    static PTY: OnceLock<Mutex<std::fs::File>> = OnceLock::new();
    PTY.get_or_init(|| {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two new descriptors into the two ints.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both are fresh descriptors this function owns from here on.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        // crossterm reads stdin when it is a tty: make the pty's slave stdin.
        // SAFETY: dup2 onto fd 0 of this (fuzzing or test) process, which reads no stdin.
        assert!(unsafe { libc::dup2(slave.as_raw_fd(), libc::STDIN_FILENO) } >= 0);
        crossterm::terminal::enable_raw_mode().expect("raw mode on the pty");
        Mutex::new(std::fs::File::from(master))
    })
}

/// What the decoder made of `bytes` (and the reset after them), the marker taken off; None
/// when the marker did not come back.
fn decode(bytes: &[u8]) -> Option<Vec<Event>> {
    let mut master = pty().lock().unwrap_or_else(|p| p.into_inner());
    let mut all = bytes.to_vec();
    all.extend_from_slice(RESET);
    all.extend_from_slice(MARKER);
    master.write_all(&all).expect("write to the pty");
    let mut events = Vec::new();
    loop {
        if !crossterm::event::poll(Duration::from_secs(5)).expect("poll") {
            return None;
        }
        events.push(crossterm::event::read().expect("read"));
        let n = events.len();
        if n >= 3
            && matches!(
                &events[n - 3..],
                [Event::FocusLost, Event::FocusGained, Event::FocusLost]
            )
        {
            events.truncate(n - 3);
            // The reset's mouse move, when no unfinished report took it.
            if matches!(
                events.last(),
                Some(Event::Mouse(MouseEvent {
                    kind: MouseEventKind::Moved,
                    column: 0,
                    row: 0,
                    ..
                }))
            ) {
                events.pop();
            }
            return Some(events);
        }
    }
}

/// The app's workspace and JSON save directory: what an input makes it write (`/init`'s
/// AGENTS.md, `/export`, Ctrl+S) lands here, never in the directory the fuzzer or the suite
/// runs in. Emptied after each input, so no input sees what an earlier one left.
fn scratch() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("tooloop-fuzz-terminal")
            .tempdir()
            .expect("scratch dir")
    })
    .path()
}

fn empty(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
    }
}

/// A screen that checks every frame it draws.
struct Recorded {
    term: Terminal<TestBackend>,
}

impl Screen for Recorded {
    fn draw_frame(&mut self, app: &mut App, now: tokio::time::Instant) -> std::io::Result<()> {
        let frame = self.term.draw(|f| view::draw(app, f, now))?;
        for cell in frame.buffer.content() {
            assert!(
                !cell.symbol().chars().any(char::is_control),
                "a control character on screen: {:?}",
                cell.symbol()
            );
        }
        Ok(())
    }

    fn resized(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn terminal_input(data: &[u8]) {
    if data.len() > MAX_TERMINAL_INPUT || data.windows(MARKER.len()).any(|w| w == MARKER) {
        return;
    }
    let Some(events) = decode(data) else {
        panic!("the decoder never gave back the marker after {data:?}");
    };
    // Nothing left over for the next input.
    assert!(
        !crossterm::event::poll(Duration::ZERO).expect("poll"),
        "events after the marker"
    );
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let rt = RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("runtime")
    });
    rt.block_on(async move {
        let mut app = App::new(RunInfo {
            workspace: scratch().to_path_buf(),
            save_dir: scratch().join("json"),
            ..RunInfo::default()
        });
        let mut screen = Recorded {
            term: Terminal::new(TestBackend::new(80, 24)).expect("terminal"),
        };
        let (_keep, rx) = mpsc::unbounded_channel::<AgentEvent>();
        let (commands, _sent) = mpsc::unbounded_channel::<AgentCommand>();
        let input = futures::stream::iter(events.into_iter().map(Ok));
        event_loop::run(&mut screen, &mut app, rx, &commands, input)
            .await
            .expect("the event loop");
        // The loop may end with the input before its next frame: draw what the app now holds.
        screen
            .draw_frame(&mut app, tokio::time::Instant::now())
            .expect("draw");
    });
    empty(scratch());
}

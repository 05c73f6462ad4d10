//! The one tmux harness of the end-to-end TUI tests (suite/tmux/): a private tmux server per
//! test, keys in, `capture-pane` out, polled against a deadline (nothing waits on a fixed
//! sleep), killed on drop.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::env;

/// True when tmux runs here. Without it the test is skipped visibly, or fails under CI
/// (`env::require`).
pub fn available() -> bool {
    env::tmux()
}

/// `HOME=… XDG_*=…` under `home`, for a command line: the run reads and writes nothing of
/// the user's.
pub fn isolated_home(home: &Path) -> String {
    let h = home.display();
    format!(
        "HOME='{h}' XDG_STATE_HOME='{h}/state' XDG_CONFIG_HOME='{h}/config' \
         XDG_DATA_HOME='{h}/data' XDG_CACHE_HOME='{h}/cache'"
    )
}

/// A tmux server of its own with one pane running a command.
pub struct Tmux {
    socket: String,
    /// How long `wait_for` polls before it fails the test, and how often.
    pub deadline: Duration,
    pub poll: Duration,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a `width`×`height` pane on the socket
    /// `tooloop-{name}-{pid}`.
    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        let socket = format!("tooloop-{name}-{}", std::process::id());
        let (w, h) = (width.to_string(), height.to_string());
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &w, "-y", &h])
            .arg(command)
            .env_remove("TMUX")
            .status()
            .expect("tmux new-session");
        assert!(status.success(), "tmux new-session failed");
        Tmux {
            socket,
            deadline: Duration::from_secs(20),
            poll: Duration::from_millis(100),
        }
    }

    pub fn with_timing(mut self, deadline: Duration, poll: Duration) -> Tmux {
        self.deadline = deadline;
        self.poll = poll;
        self
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Key names as tmux reads them ("Enter", "C-c", "Tab").
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Literal text.
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
    }

    /// Text as a terminal pastes it (bracketed, where the program asked for that): what a
    /// drag and drop of a file onto the terminal sends.
    pub fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "--", text]);
        self.tmux(&["paste-buffer", "-p", "-t", "0"]);
    }

    /// Literal text, then Enter.
    pub fn send_line(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "0"])
    }

    /// Polls the screen until `pred` holds; fails the test with the last screen at the
    /// deadline.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > self.deadline {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(self.poll);
        }
    }

    pub fn wait_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?}"), |s| s.contains(needle))
    }

    /// The last non-empty line of a screen (the status bar).
    pub fn status_line(s: &str) -> String {
        s.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    }

    pub fn alternate_screen_on(&self) -> bool {
        self.tmux(&["display-message", "-p", "-t", "0", "#{alternate_on}"])
            .trim()
            == "1"
    }

    pub fn pane_pid(&self) -> u32 {
        self.tmux(&["display-message", "-p", "-t", "0", "#{pane_pid}"])
            .trim()
            .parse()
            .expect("pid")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

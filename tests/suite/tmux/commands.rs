//! End to end in tmux: the bell when a turn ends unfocused, the base URL and its errors on
//! screen, the resume notice, `/status` and `/quit`. Each test polls `capture-pane` against
//! a deadline; without tmux each is skipped visibly, or fails under CI (tests/support/env.rs).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::tmux::Tmux;

/// tooloop in a `w`×`h` pane, HOME and workspace of its own, `env` and `args` added.
struct Tui {
    t: Tmux,
    _dir: tempfile::TempDir,
    home: PathBuf,
    workspace: PathBuf,
}

impl std::ops::Deref for Tui {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&workspace).expect("ws");
    std::fs::write(workspace.join("Cargo.toml"), "[package]\nname = \"demo\"\n").expect("write");
    (dir, home, workspace)
}

impl Tui {
    fn start(name: &str, size: (u16, u16), env: &str, args: &str) -> Tui {
        let (dir, home, workspace) = dirs();
        Tui::start_in(name, size, env, args, dir, home, workspace)
    }

    fn start_in(
        name: &str,
        (w, h): (u16, u16),
        env: &str,
        args: &str,
        dir: tempfile::TempDir,
        home: PathBuf,
        workspace: PathBuf,
    ) -> Tui {
        let bin = env!("CARGO_BIN_EXE_tooloop");
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}' {args}; echo EXITED:\\$?; sleep 600",
            ws = workspace.display()
        );
        let command = format!(
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL \
             -u TERM_PROGRAM -u KITTY_WINDOW_ID {} {env} bash -c \"{script}\"",
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(name, w, h, &command)
            .with_timing(Duration::from_secs(20), Duration::from_millis(100));
        Tui {
            t,
            _dir: dir,
            home,
            workspace,
        }
    }

    fn window_bell(&self, window: &str) -> bool {
        self.tmux(&["display-message", "-p", "-t", window, "#{window_bell_flag}"])
            .trim()
            == "1"
    }
}

fn write_config(home: &Path, text: &str) {
    let dir = home.join("config/tooloop");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(dir.join("config.toml"), text).expect("config");
}

/// Sends a prompt, then moves to another tmux window (tmux tells the pane it lost the
/// focus) and waits for the turn to end in window 0. Returns whether window 0 rang.
fn turn_while_away(t: &Tui) -> bool {
    t.tmux(&["set-option", "-g", "focus-events", "on"]);
    t.wait_text("Ask something");
    t.type_text("what time is it");
    t.tmux(&["new-window", "-d", "sleep 600"]);
    t.tmux(&["select-window", "-t", ":1"]);
    // Enter only now: the focus-out tmux wrote to window 0's terminal comes before it, so
    // a turn that ends fast (a loaded machine, a quick model) still ends unfocused.
    t.tmux(&["send-keys", "-t", ":0", "Enter"]);
    // capture-pane of window 0 while window 1 is the active one.
    t.wait_for("the turn ends in window 0", |_| {
        t.tmux(&["capture-pane", "-p", "-t", ":0"])
            .contains("Anything else?")
    });
    // The bell follows the frame that shows the end: poll for it, briefly.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while std::time::Instant::now() < deadline {
        if t.window_bell(":0") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_turn_that_ends_unfocused_rings_the_bell() {
    if !support::tmux::available() {
        return;
    }
    let t = Tui::start("notify", (100, 30), "", "");
    assert!(
        turn_while_away(&t),
        "window 0 rang when its turn ended unfocused"
    );
}

#[test]
fn notify_off_never_rings() {
    if !support::tmux::available() {
        return;
    }
    let (dir, home, ws) = dirs();
    write_config(&home, "[tui]\nnotify = \"off\"\n");
    let t = Tui::start_in("notify-off", (100, 30), "", "", dir, home, ws);
    assert!(!turn_while_away(&t), "notify = off: no bell");
}

#[test]
fn a_wrong_base_url_is_named_on_screen_and_fails_in_seconds() {
    if !support::tmux::available() {
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let t = Tui::start(
        "base-url",
        (80, 24),
        "ANTHROPIC_API_KEY=sk-test",
        &format!("--provider anthropic --base-url {url}"),
    );
    let s = t.wait_text("Ask something");
    assert!(s.contains(&format!("base URL {url}")), "{s}");
    t.send_line("你好");
    let s = t.wait_for("the turn ends", |s| s.contains("model_error"));
    let retries = s.lines().filter(|l| l.contains("retry ")).count();
    assert_eq!(retries, 2, "two retries:\n{s}");
    for line in s.lines().filter(|l| l.contains("retry ")) {
        assert!(
            line.contains(&format!("connection refused by {url}")),
            "{s}"
        );
    }
    assert!(
        s.contains(&format!("connection refused by {url}/v1/messages")),
        "{s}"
    );
}

#[test]
fn continue_names_the_session_and_the_provider_then_status_and_quit() {
    if !support::tmux::available() {
        return;
    }
    let first = Tui::start("resume-1", (120, 40), "", "");
    first.wait_text("Ask something");
    first.send_line("列出文件 list files");
    first.wait_for("the answer", |s| s.contains("Anything else?"));
    first.send_line("/quit");
    let s = first.wait_text("EXITED:0");
    let id = s
        .split_whitespace()
        .skip_while(|w| *w != "--resume")
        .nth(1)
        .expect("the quit hint names the session")
        .to_string();
    let (home, ws) = (first.home.clone(), first.workspace.clone());
    for (w, h) in [(80, 24), (200, 50)] {
        let t = Tui::start_in(
            &format!("resume-{w}"),
            (w, h),
            "",
            "-c",
            tempfile::tempdir().expect("tmp"),
            home.clone(),
            ws.clone(),
        );
        let s = t.wait_text("resumed session");
        assert!(
            s.contains(&format!(
                "resumed session {id} (1 prompt) on demo/tooloop-demo"
            )),
            "{w}x{h}\n{s}"
        );
        t.send_line("/status");
        let s = t.wait_text("sandbox");
        assert!(s.contains("demo/tooloop-demo"), "{w}x{h}\n{s}");
        assert!(s.contains(&id), "{w}x{h}\n{s}");
        t.send_line("/quit");
        t.wait_text("EXITED:0");
    }
}

#[test]
fn with_mouse_a_click_focuses_the_tools_pane() {
    if !support::tmux::available() {
        return;
    }
    let t = Tui::start("mouse", (120, 30), "", "--no-session --mouse");
    t.wait_text("Ask something");
    let styled = || t.tmux(&["capture-pane", "-p", "-e", "-t", "0"]);
    // An unfocused pane's title is dim.
    assert!(styled().contains("\x1b[2m tools"), "{}", styled());
    // A left click (SGR mouse report, as the terminal sends it) at column 100, row 5:
    // inside the tools pane.
    t.type_text("\x1b[<0;100;5M\x1b[<0;100;5m");
    t.wait_for("the tools title no longer dim", |_| {
        let s = styled();
        s.contains(" tools ") && !s.contains("\x1b[2m tools")
    });
    // The click typed nothing into the input.
    assert!(t.screen().contains("Ask something"), "{}", t.screen());
}

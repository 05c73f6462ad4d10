//! `tooloop replay` in a real terminal (tmux, 80×24): a run recorded against the mock is
//! played back offline; tool rows end with their recorded durations, and `--step` plays one
//! event per Space. Without tmux each test is skipped visibly, or fails under CI
//! (tests/support/env.rs).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use support::tmux::Tmux;
use support::*;

const DEADLINE: Duration = Duration::from_secs(20);
/// Long enough for any step's frame to be on the screen, on a slow machine too.
const STEP_DRAWN: Duration = Duration::from_millis(750);

fn have_tmux() -> bool {
    support::tmux::available()
}

/// tooloop with `args` in an 80×24 pane, colours off.
struct Pane(Tmux);

impl std::ops::Deref for Pane {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.0
    }
}

impl Pane {
    fn start(name: &str, args: &str) -> Pane {
        let bin = env!("CARGO_BIN_EXE_tooloop");
        let command = format!(
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY NO_COLOR=1 '{bin}' {args}; echo EXITED:$?; sleep 600"
        );
        let t = Tmux::start(&format!("replay-{name}"), 80, 24, &command)
            .with_timing(DEADLINE, Duration::from_millis(50));
        Pane(t)
    }

    fn space(&self, n: usize) {
        for _ in 0..n {
            self.keys(&["Space"]);
        }
    }

    /// One Space (the next step), then the screen once `done` holds or [`STEP_DRAWN`] has
    /// passed.
    fn step(&self, done: impl Fn(&str) -> bool) -> String {
        self.press("Space", done)
    }

    /// `key`, then the screen once `done` holds or [`STEP_DRAWN`] has passed. A fixed 60 ms
    /// between keys let a slow machine take the key after the one the test looked for before
    /// the screen showed it (the screen never settles while a stream is open: its timeline
    /// bar grows).
    fn press(&self, key: &str, done: impl Fn(&str) -> bool) -> String {
        self.keys(&[key]);
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) || start.elapsed() > STEP_DRAWN {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

fn find(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(find(&p, suffix));
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
    out
}

/// A recorded run: one reply with a 700 ms shell command and a clock call, then an answer.
fn recording() -> (Run, PathBuf) {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("Waiting a little.")
            .tool_use("toolu_sleep", "bash", json!({"command": "sleep 0.7"}))
            .tool_use("toolu_time", "get_current_time", json!({}))
            .delay_ms(5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("Replayed fine.").build());
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "sleep a bit",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--allow-tool",
        "bash",
        "--sandbox",
        "off",
        "--record",
    ])
    .env("ANTHROPIC_API_KEY", "k-test")
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let rec = find(run.home.path(), ".record").pop().expect("a recording");
    (run, rec)
}

#[test]
fn tool_rows_end_with_their_recorded_durations() {
    if !have_tmux() {
        return;
    }
    let (_run, rec) = recording();
    let started = Instant::now();
    let pane = Pane::start("pace", &format!("replay '{}'", rec.display()));
    let running = pane.wait_for("the shell call running", |s| {
        s.contains("sleep 0.7") && !s.contains("replay finished")
    });
    assert!(running.contains("(replay)"), "{running}");
    let done = pane.wait_for("the end of the replay", |s| s.contains("replay finished"));
    // Nothing ran: the row shows the recorded duration, and the replay took about as long.
    let row = done
        .lines()
        .find(|l| l.contains("✓ bash sleep 0.7"))
        .unwrap_or_else(|| panic!("no finished bash row:\n{done}"));
    assert!(
        row.contains("· 0.7s") || row.contains("· 0.8s"),
        "recorded duration: {row:?}\n{done}"
    );
    assert!(done.contains("Replayed fine."), "{done}");
    assert!(started.elapsed() >= Duration::from_millis(700));
    assert!(!done.contains("Ask something"), "{done}");
    assert!(
        done.contains("replay · nothing typed is sent · Ctrl+C: stop, twice: quit"),
        "{done}"
    );
}

#[test]
fn step_plays_one_block_or_tool_call_per_space() {
    if !have_tmux() {
        return;
    }
    let (_run, rec) = recording();
    let pane = Pane::start("step", &format!("replay --step '{}'", rec.display()));
    let intro = pane.wait_for("the intro", |s| {
        s.contains("events, one block or tool call per Space")
    });
    let n: usize = intro
        .split("recording: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("event count in:\n{intro}"));
    assert!(n > 10, "{intro}");
    // A replay offers no key that would send anything, and the input does not invite a
    // prompt: it names the keys a replay takes.
    let status = Tmux::status_line(&intro);
    assert!(!status.contains("send"), "{status}");
    assert!(!intro.contains("Ask something"), "{intro}");
    assert!(intro.contains("replay · Space: next step"), "{intro}");
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        !pane.screen().contains("sleep a bit"),
        "nothing plays by itself"
    );
    pane.space(1);
    pane.wait_for("the prompt (the first step)", |s| s.contains("sleep a bit"));
    assert!(!pane.screen().contains("Waiting"), "{}", pane.screen());
    // The whole first text block in one step, not a word of it; no tool call yet.
    pane.space(1);
    let s = pane.wait_for("the first block", |s| s.contains("Waiting a little."));
    assert!(!s.contains("get_current_time"), "{s}");
    let mut keys = 2;
    let mut screen = pane.screen();
    while !screen.contains("replay finished") {
        assert!(keys < n, "more steps than events:\n{screen}");
        screen = pane.step(|s| s.contains("replay finished"));
        keys += 1;
    }
    // The prompt, two blocks, two tool calls (the slow one in two pieces, as the other
    // finished in between), the end of the turn: a handful of keys for a recording of many
    // events.
    assert!(keys <= 8, "{keys} keys for {n} events");
    let after = pane.screen();
    assert!(after.contains("Replayed fine."), "{after}");
    assert!(
        after.contains("replay · Space: next step · Ctrl+C: stop, twice: quit"),
        "Space never reached the input box (its placeholder still shows):\n{after}"
    );
    assert!(!after.contains("Ask something"), "{after}");
}

/// The live TUI against the mock, recording, in its own HOME (120×40).
fn start_live(name: &str, home: &Path, base: &str) -> Pane {
    let bin = env!("CARGO_BIN_EXE_tooloop");
    let h = home.display();
    let command = format!(
        "cd '{h}' && env -u OPENAI_API_KEY -u ANTHROPIC_BASE_URL NO_COLOR=1 {env} \
         ANTHROPIC_API_KEY=k-test '{bin}' --workspace '{h}' --provider anthropic \
         --base-url '{base}' --model claude-mock --record; echo EXITED:$?; sleep 600",
        env = support::tmux::isolated_home(home)
    );
    let t = Tmux::start(&format!("replay-{name}"), 120, 40, &command)
        .with_timing(DEADLINE, Duration::from_millis(50));
    Pane(t)
}

#[test]
fn the_stepper_reaches_requests_made_before_new() {
    if !have_tmux() {
        return;
    }
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("First answer.").build());
    server.enqueue(ReplyBuilder::new().text("Second answer.").build());
    let dir = tempfile::tempdir().expect("tempdir");
    let pane = start_live("new", dir.path(), &server.anthropic_base());
    pane.wait_for("the first screen", |s| s.contains("Ask something"));
    let send = |text: &str| {
        pane.tmux(&["send-keys", "-t", "0", "-l", text]);
        pane.tmux(&["send-keys", "-t", "0", "Enter"]);
    };
    send("alpha question");
    pane.wait_for("the first answer", |s| s.contains("First answer."));
    send("/new");
    pane.wait_for("the new conversation", |s| {
        s.contains("new conversation") && !s.contains("First answer.")
    });
    send("beta question");
    pane.wait_for("the second answer", |s| s.contains("Second answer."));
    // Two recordings now, one per transcript.
    assert_eq!(find(dir.path(), ".record").len(), 2);
    // JSON pane, request view, focused (Tab from the input: conversation, tools, JSON;
    // Shift+Tab cycles the approval mode in a live session).
    pane.tmux(&["send-keys", "-t", "0", "F2"]);
    pane.tmux(&["send-keys", "-t", "0", "F3"]);
    for _ in 0..3 {
        pane.tmux(&["send-keys", "-t", "0", "Tab"]);
    }
    pane.wait_for("the live request", |s| {
        s.contains("request 2 of 2") && s.contains("beta question")
    });
    pane.tmux(&["send-keys", "-t", "0", "["]);
    pane.wait_for("the request before /new", |s| s.contains("request 1 of 2"));
    // Only its messages (d), so the prompt is on screen.
    pane.tmux(&["send-keys", "-t", "0", "d"]);
    let older = pane.wait_for("its messages", |s| s.contains("(the first request)"));
    assert!(
        older.contains("alpha question"),
        "the first request's body, read from the first recording:\n{older}"
    );
    assert!(
        !older.contains("fewer requests") && !older.contains("is not in"),
        "{older}"
    );
}

/// A live TUI session where the user approved a shell command after about a second.
fn recording_with_an_approval() -> (tempfile::TempDir, PathBuf) {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("Let me look.")
            .tool_use("toolu_ls", "bash", json!({"command": "echo approved-run"}))
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("Looked fine.").build());
    let dir = tempfile::tempdir().expect("tempdir");
    let pane = start_live("ask", dir.path(), &server.anthropic_base());
    pane.wait_for("the first screen", |s| s.contains("Ask something"));
    pane.tmux(&["send-keys", "-t", "0", "-l", "list things"]);
    pane.tmux(&["send-keys", "-t", "0", "Enter"]);
    pane.wait_for("the question", |s| s.contains("allow bash?"));
    std::thread::sleep(Duration::from_millis(1200));
    pane.tmux(&["send-keys", "-t", "0", "Enter"]);
    pane.wait_for("the answer", |s| s.contains("Looked fine."));
    drop(pane);
    let rec = find(dir.path(), ".record").pop().expect("a recording");
    (dir, rec)
}

#[test]
fn a_replayed_approval_shows_and_closes_on_the_recorded_answer() {
    if !have_tmux() {
        return;
    }
    let (_dir, rec) = recording_with_an_approval();
    let file = std::fs::read_to_string(&rec).expect("recording");
    assert!(file.contains("\"type\":\"permission_request\""), "{file}");

    // At the recorded pace: the modal opens, Enter does not answer it, the recorded answer
    // closes it about 1.2 s later and says so.
    let pane = Pane::start("approve", &format!("replay '{}'", rec.display()));
    pane.wait_for("the recorded question", |s| s.contains("allow bash?"));
    pane.tmux(&["send-keys", "-t", "0", "Enter"]);
    let done = pane.wait_for("the end of the replay", |s| s.contains("replay finished"));
    let line = done
        .lines()
        .find(|l| l.contains("recorded answer: bash approved by the user after"))
        .unwrap_or_else(|| panic!("no recorded answer line:\n{done}"));
    assert!(
        line.contains("after 1.") || line.contains("after 2."),
        "the recorded wait: {line}"
    );
    assert!(
        done.contains("this is a replay: the recorded answer"),
        "{done}"
    );
    assert!(done.contains("Looked fine."), "{done}");
    drop(pane);

    // Stepping: the question stays until Space plays the answer.
    let pane = Pane::start(
        "approve-step",
        &format!("replay --step '{}'", rec.display()),
    );
    pane.wait_for("the intro", |s| {
        s.contains("one block or tool call per Space")
    });
    let start = Instant::now();
    let mut screen = pane.screen();
    while !screen.contains("allow bash?") {
        assert!(start.elapsed() < DEADLINE, "{screen}");
        screen = pane.step(|s| s.contains("allow bash?"));
    }
    pane.tmux(&["send-keys", "-t", "0", "Enter"]);
    pane.tmux(&["send-keys", "-t", "0", "Escape"]);
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        pane.screen().contains("allow bash?"),
        "Enter / Esc do not answer a recorded question:\n{}",
        pane.screen()
    );
    // The box shows no keys to answer it, and the status bar none to send.
    let s = pane.screen();
    assert!(s.contains("recorded question"), "{s}");
    assert!(!s.contains("allow once"), "{s}");
    assert!(!Tmux::status_line(&s).contains("send"), "{s}");
    // Space plays on (the rest of the stream, then the answer) until the answer closes it.
    let start = Instant::now();
    let mut screen = pane.screen();
    while screen.contains("allow bash?") {
        assert!(start.elapsed() < DEADLINE, "{screen}");
        screen = pane.step(|s| !s.contains("allow bash?"));
    }
    pane.wait_for("the recorded answer", |s| {
        s.contains("approved by the user after")
    });
}

#[test]
fn a_timeline_bar_opens_in_the_json_pane() {
    if !have_tmux() {
        return;
    }
    let (_run, rec) = recording();
    let pane = Pane::start("bars", &format!("replay --speed 5 '{}'", rec.display()));
    pane.wait_for("the end of the replay", |s| s.contains("replay finished"));
    let keys = |k: &[&str]| {
        for key in k {
            pane.tmux(&["send-keys", "-t", "0", key]);
        }
    };
    // Tools pane (Tab twice); ← from the newest bar back to the last request's.
    keys(&["Tab", "Tab"]);
    let start = Instant::now();
    let mut screen = pane.screen();
    while !screen.contains("request 2 · Enter: open in JSON") {
        assert!(start.elapsed() < DEADLINE, "{screen}");
        screen = pane.press("Left", |s| s.contains("request 2 · Enter: open in JSON"));
    }
    assert!(screen.contains("═"), "{screen}");
    keys(&["Enter"]);
    pane.wait_for("that request in the JSON pane", |s| {
        s.contains("request 2 of 2") && s.contains("\"model\": \"claude-mock\"")
    });
    // Back to the tools pane; ← walks to a tool bar, Enter shows its input and output. Esc
    // goes alone: read in one piece with the Tab after it, it is Alt+Tab (seen under load).
    keys(&["Escape"]);
    pane.wait_for("the input focused again", |s| !s.contains("Esc back"));
    keys(&["Tab", "Tab", "Left"]);
    let picked = pane.wait_for("a tool bar", |s| {
        s.contains("Enter: input and output in JSON") && s.contains("▓")
    });
    keys(&["Enter"]);
    let shown = pane.wait_for("the tool view", |s| {
        s.contains(" tool ") && s.contains("\"tool_use\": {")
    });
    assert!(
        shown.contains("\"id\": \"toolu_time\"") || shown.contains("\"id\": \"toolu_sleep\""),
        "{picked}\n{shown}"
    );
}

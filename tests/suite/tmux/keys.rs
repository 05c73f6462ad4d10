//! End to end, what a user types in a real terminal (tmux) on the demo model: fast input
//! that arrives in one burst, the approval box that only a deliberate act answers, and a
//! timeline bar picked with ← that ends with its prompt.
//! Without tmux each test is skipped visibly, or fails under CI (tests/support/env.rs).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::tmux::Tmux;

/// tooloop on the demo model in a pane of its own, in a workspace with one file.
struct Tui {
    t: Tmux,
    dir: tempfile::TempDir,
    workspace: PathBuf,
}

impl std::ops::Deref for Tui {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

impl Tui {
    fn start(name: &str, width: u16, height: u16) -> Tui {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&workspace).expect("ws");
        std::fs::write(workspace.join("notes.md"), "one\ntwo\nthree\nfour\n").expect("write");
        let bin = env!("CARGO_BIN_EXE_tooloop");
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}'; echo EXITED:\\$?; sleep 600",
            ws = workspace.display()
        );
        let command = format!(
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL \
             {} bash -c \"{script}\"",
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(name, width, height, &command)
            .with_timing(Duration::from_secs(20), Duration::from_millis(100));
        Tui { t, dir, workspace }
    }

    /// Whether some file under the test's home (the saved session) contains `needle`.
    fn saved(&self, needle: &str) -> bool {
        fn walk(dir: &Path, needle: &str) -> bool {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return false;
            };
            entries.flatten().any(|e| {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, needle)
                } else {
                    std::fs::read_to_string(&p).is_ok_and(|s| s.contains(needle))
                }
            })
        }
        walk(&self.dir.path().join("home"), needle)
    }
}

/// 3,000 characters arriving at once (a terminal without bracketed paste, an input method's
/// commit) are all read before the next key: the Enter right after them sends all of them.
#[test]
fn a_burst_of_three_thousand_characters_is_sent_whole_by_the_next_enter() {
    if !support::tmux::available() {
        return;
    }
    let t = Tui::start("burst", 200, 50);
    t.wait_text("Ask something");
    let text: String = (0..300).map(|i| format!("w{:03}-abcd ", i)).collect();
    assert_eq!(text.len(), 3_000);
    let text = text.trim_end().to_string();
    t.type_text(&text);
    t.keys(&["Enter"]);
    t.wait_for("the answer", |s| {
        s.contains("› w000-abcd") && Tmux::status_line(s).contains("idle")
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !t.saved(&text) {
        assert!(
            std::time::Instant::now() < deadline,
            "the session does not hold the whole prompt; screen:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = &t.workspace;
}

/// The input line (the one above the status bar).
fn input_line(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .len()
        .checked_sub(2)
        .map(|i| lines[i].trim().to_string())
        .unwrap_or_default()
}

/// Letters never answer the approval box: `yay好` typed after the question opened and a
/// lone `h` after a pause both land in the input; the Enter after them asks for a choice
/// instead of confirming "1. Yes"; the digit 1 then Enter approves.
#[test]
fn a_stray_letter_goes_to_the_input_and_only_enter_answers() {
    if !support::tmux::available() {
        return;
    }
    let t = Tui::start("stray", 80, 24);
    t.wait_text("Ask something");
    t.send_line("run `echo stray-ok`");
    let s = t.wait_text("allow bash?");
    assert!(s.contains("❯ 1. Yes"), "{s}");
    assert!(
        s.contains("No, tell the model what to do differently"),
        "{s}"
    );
    let settle =
        tooloop::tui::overlays::approval::GUARD + tooloop::tui::overlays::approval::BURST_GAP;
    std::thread::sleep(settle);
    t.type_text("yay好");
    let s = t.wait_for("the letters in the input", |s| {
        input_line(s).contains("yay好")
    });
    assert!(s.contains("allow bash?"), "a letter answered the box:\n{s}");
    std::thread::sleep(settle);
    t.type_text("h");
    let s = t.wait_for("the lone letter in the input", |s| {
        input_line(s).contains("yay好h")
    });
    assert!(s.contains("allow bash?"), "{s}");
    std::thread::sleep(settle);
    t.keys(&["Enter"]);
    let s = t.wait_text("choose with ↑/↓ or 1–");
    assert!(
        s.contains("allow bash?"),
        "Enter after letters answered:\n{s}"
    );
    std::thread::sleep(settle);
    t.keys(&["1"]);
    std::thread::sleep(settle);
    t.keys(&["Enter"]);
    let s = t.wait_for("the approved call to finish", |s| {
        !s.contains("allow bash?") && Tmux::status_line(s).contains("idle")
    });
    assert!(s.contains("exit code 0"), "{s}");
    assert!(
        input_line(&s).contains("yay好h"),
        "the typing is kept:\n{s}"
    );
}

/// Issue 41, item 0: `n` then Enter, as at a y/n prompt, denies; the command never runs and
/// the `n` does not stay in the input. Checked at both sizes.
#[test]
fn n_then_enter_denies_the_command() {
    if !support::tmux::available() {
        return;
    }
    for (w, h) in [(80, 24), (200, 50)] {
        let t = Tui::start(&format!("n-enter-{w}"), w, h);
        t.wait_text("Ask something");
        t.send_line("run `touch made-by-bash`");
        t.wait_text("allow bash?");
        let settle =
            tooloop::tui::overlays::approval::GUARD + tooloop::tui::overlays::approval::BURST_GAP;
        std::thread::sleep(settle);
        t.type_text("n");
        t.wait_for("the n in the input", |s| input_line(s).ends_with('n'));
        std::thread::sleep(settle);
        t.keys(&["Enter"]);
        let s = t.wait_for("the denied call", |s| {
            !s.contains("allow bash?") && Tmux::status_line(s).contains("idle")
        });
        assert!(s.contains("denied"), "{s}");
        assert!(
            !t.workspace.join("made-by-bash").exists(),
            "n Enter ran the command:\n{s}"
        );
        assert!(!input_line(&s).ends_with('n'), "{s}");
    }
}

/// A timeline bar picked during one prompt is forgotten when the next prompt starts: the
/// title does not keep `request N · Enter: open in JSON` (issue 29).
#[test]
fn the_timeline_selection_ends_with_its_prompt() {
    if !support::tmux::available() {
        return;
    }
    let t = Tui::start("bars", 120, 40);
    t.wait_text("Ask something");
    t.send_line("list files");
    t.wait_for("the answer", |s| {
        s.contains("Anything else?") && Tmux::status_line(s).contains("idle")
    });
    t.keys(&["Tab", "Tab"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !t.screen().contains("Enter: open in JSON") {
        assert!(std::time::Instant::now() < deadline, "{}", t.screen());
        t.keys(&["Left"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    t.keys(&["Escape"]);
    t.send_line("what time is it");
    let s = t.wait_for("the second answer", |s| {
        s.matches("Anything else?").count() >= 2 && Tmux::status_line(s).contains("idle")
    });
    assert!(
        !s.contains("Enter: open in JSON") && !s.contains("Enter: input and output"),
        "the old selection stayed:\n{s}"
    );
}

/// Issue 41, item 15: the timeline's title says "Enter: open in JSON" only while the tools
/// pane has the focus; after Esc (focus back to the input) Enter would send a prompt.
#[test]
fn the_timeline_title_drops_its_enter_hint_when_the_focus_leaves() {
    if !support::tmux::available() {
        return;
    }
    let t = Tui::start("bars-focus", 120, 40);
    t.wait_text("Ask something");
    t.send_line("list files");
    t.wait_for("the answer", |s| {
        s.contains("Anything else?") && Tmux::status_line(s).contains("idle")
    });
    t.keys(&["Tab", "Tab"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !t.screen().contains("Enter: open in JSON") {
        assert!(std::time::Instant::now() < deadline, "{}", t.screen());
        t.keys(&["Left"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    t.keys(&["Escape"]);
    let s = t.wait_for("the title without the hint", |s| {
        !s.contains("Enter: open in JSON")
    });
    assert!(s.contains("timeline"), "{s}");
}

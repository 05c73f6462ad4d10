//! The input's shortcuts in a real 80×24 terminal (issue 29): the `/` menu (filtered as
//! typed, commands from files included, no stale hint after a completion), Tab after `@`,
//! Ctrl+G through $EDITOR, a `!command`, all with Chinese text. The offline demo model.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::tmux::Tmux;

/// tooloop at 80×24 in a workspace of its own, with a command file and an editor script.
struct Tui {
    t: Tmux,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Tui {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}

impl Tui {
    fn start(name: &str) -> Tui {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let ws: PathBuf = dir.path().join("ws");
        std::fs::create_dir_all(&home).expect("home");
        write(&ws.join("src/main.rs"), "fn main() {}\n");
        write(&ws.join("src/lib.rs"), "\n");
        write(&ws.join("notes.txt"), "TODO: nothing\n");
        write(&ws.join("文档/说明.md"), "# 说明\n");
        write(
            &ws.join(".tooloop/commands/review.md"),
            "Review $ARGUMENTS for bugs.\n",
        );
        write(
            &ws.join(".claude/commands/summary.md"),
            "# 总结这个项目\nSummarize the project in three lines.\n",
        );
        // The editor: puts a mark before what it was given (as a user's edit would).
        let editor = dir.path().join("editor.sh");
        write(
            &editor,
            "#!/bin/sh\n{ printf 'edited: '; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
        );
        std::process::Command::new("chmod")
            .args(["+x", &editor.display().to_string()])
            .status()
            .expect("chmod");
        let bin = env!("CARGO_BIN_EXE_tooloop");
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}' --sandbox off; echo EXITED:\\$?; sleep 600",
            ws = ws.display()
        );
        let command = format!(
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL \
             -u VISUAL EDITOR='{}' {} bash -c \"{script}\"",
            editor.display(),
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(name, 80, 24, &command)
            .with_timing(Duration::from_secs(20), Duration::from_millis(100));
        t.wait_text("Ask something");
        Tui { t, _dir: dir }
    }

    /// The input's first row (the line above the status bar).
    fn input_line(&self) -> String {
        let screen = self.screen();
        let lines: Vec<&str> = screen.lines().collect();
        // Blank while the editor has the terminal.
        let Some(status) = lines.iter().rposition(|l| !l.trim().is_empty()) else {
            return String::new();
        };
        lines[status.saturating_sub(1)].trim_end().to_string()
    }

    fn wait_input(&self, want: &str) {
        let start = std::time::Instant::now();
        loop {
            let line = self.input_line();
            if line == want {
                return;
            }
            assert!(
                start.elapsed() < self.deadline,
                "input is {line:?}, not {want:?}; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(self.poll);
        }
    }
}

#[test]
fn the_slash_menu_filters_completes_and_leaves_no_stale_hint() {
    if !support::tmux::available() {
        eprintln!("skipped: no tmux");
        return;
    }
    let t = Tui::start("input-menu");
    t.type_text("/");
    let s = t.wait_text("keys and commands");
    assert!(s.contains("/compact [instructions]"), "{s}");
    t.type_text("ex");
    let s = t.wait_for("only /export and /exit", |s| {
        s.contains("/export [FILE]") && !s.contains("/help")
    });
    assert!(s.contains("quit tooloop"), "{s}");
    // Tab completes the selection; the other candidate does not linger anywhere.
    t.keys(&["Tab"]);
    t.wait_input("/export");
    let s = t.screen();
    assert!(!s.contains("/exit"), "stale hint after completion:\n{s}");
    assert!(!s.contains("quit tooloop"), "the menu closed:\n{s}");

    // Esc closes the menu and it stays closed for that text.
    t.keys(&["C-u"]);
    t.type_text("/he");
    t.wait_text("keys and commands");
    t.keys(&["Escape"]);
    t.wait_for("the menu to close", |s| !s.contains("keys and commands"));
    t.wait_input("/he");

    // Commands from files, with their first line; ↓ picks, Enter completes one that
    // takes arguments (and sends one that takes none).
    t.keys(&["C-u"]);
    t.type_text("/su");
    let s = t.wait_text("总结这个项目");
    assert!(s.contains("/summary"), "{s}");
    t.keys(&["C-u"]);
    t.type_text("/re");
    t.wait_text("/review ARGS");
    t.wait_text("/rewind");
    t.keys(&["Down", "Enter"]);
    t.wait_input("/review");
    t.type_text("@notes.txt");
    t.keys(&["Enter"]);
    t.wait_text("Review @notes.txt for bugs.");
}

#[test]
fn tab_after_at_completes_workspace_paths() {
    if !support::tmux::available() {
        eprintln!("skipped: no tmux");
        return;
    }
    let t = Tui::start("input-at");
    t.type_text("看 @no");
    t.keys(&["Tab"]);
    t.wait_input("看 @notes.txt");
    t.type_text("和 @s");
    t.keys(&["Tab"]);
    t.wait_input("看 @notes.txt 和 @src/");
    // Two candidates: the menu lists them, Tab takes the selected one.
    t.keys(&["Tab"]);
    let s = t.wait_text("src/lib.rs");
    assert!(s.contains("src/main.rs"), "{s}");
    t.keys(&["Down", "Tab"]);
    t.wait_input("看 @notes.txt 和 @src/main.rs");
    // Chinese names complete too.
    t.type_text("@文");
    t.keys(&["Tab"]);
    t.wait_input("看 @notes.txt 和 @src/main.rs @文档/");
    t.keys(&["Tab"]);
    t.wait_input("看 @notes.txt 和 @src/main.rs @文档/说明.md");
}

#[test]
fn ctrl_g_edits_the_input_in_the_editor() {
    if !support::tmux::available() {
        eprintln!("skipped: no tmux");
        return;
    }
    let t = Tui::start("input-editor");
    t.type_text("写一个 hello");
    t.keys(&["C-g"]);
    t.wait_input("edited: 写一个 hello");
    // The full screen is back (the editor had the terminal meanwhile).
    let s = t.wait_text("demo/tooloop-demo");
    assert!(t.alternate_screen_on(), "{s}");
    assert!(s.contains("────"), "{s}");
    // Keys go to tooloop again.
    t.type_text("!");
    t.wait_input("edited: 写一个 hello!");
}

#[test]
fn a_bang_command_runs_and_shows_its_output() {
    if !support::tmux::available() {
        eprintln!("skipped: no tmux");
        return;
    }
    let t = Tui::start("input-bang");
    t.send_line("!echo 你好-$((40+2))");
    let s = t.wait_text("你好-42");
    assert!(s.contains("› !echo 你好-$((40+2))"), "{s}");
    t.wait_for("the turn to end", |s| Tmux::status_line(s).contains("idle"));
}

#[test]
fn up_takes_a_queued_prompt_back_and_ctrl_c_stops_a_bang_command() {
    if !support::tmux::available() {
        eprintln!("skipped: no tmux");
        return;
    }
    let t = Tui::start("input-queue");
    t.send_line("!echo 开始; sleep 30");
    t.wait_text("开始");
    t.send_line("第一个 queued");
    t.send_line("second queued");
    t.wait_text("queued: 2 prompts");
    // ↑ on the empty input: the last one comes back, out of the queue.
    t.keys(&["Up"]);
    t.wait_input("second queued");
    t.wait_text("queued: 1 prompt");
    t.type_text(" edited");
    t.keys(&["Enter"]);
    t.wait_text("queued: 2 prompts");
    t.keys(&["Up"]);
    t.wait_input("second queued edited");
    // Esc drops it (and does not stop the turn).
    t.keys(&["Escape"]);
    t.wait_text("queued prompt removed");
    let s = t.wait_text("queued: 1 prompt");
    assert!(Tmux::status_line(&s).contains("running"), "{s}");
    // Ctrl+C stops the command; the queued prompt waits in the input.
    t.keys(&["C-c"]);
    t.wait_text("interrupted");
    t.wait_input("第一个 queued");
}

/// 40 lines pasted by a terminal without bracketed paste (keys, each newline an Enter, in
/// one read) are one paste in the input, not 40 prompts (issue #41 item 7); typing a
/// line and Enter still sends it.
#[test]
fn a_paste_without_bracketed_paste_is_one_paste() {
    if !support::tmux::available() {
        eprintln!("skipped: no tmux");
        return;
    }
    let t = Tui::start("input-raw-paste");
    let text: String = (1..=40).map(|i| format!("第{i}行 line {i}\n")).collect();
    t.tmux(&["set-buffer", "--", text.trim_end()]);
    // No -p: the text arrives as typed keys, each newline a carriage return.
    t.tmux(&["paste-buffer", "-t", "0"]);
    t.wait_input("[Pasted 40 lines]");
    let s = t.screen();
    assert!(
        Tmux::status_line(&s).contains("idle"),
        "nothing was sent:\n{s}"
    );
    assert!(!s.contains("› 第1行"), "no line went as a prompt:\n{s}");
    t.keys(&["Enter"]);
    let s = t.wait_for("the one prompt's turn to end", |s| {
        let status = Tmux::status_line(s);
        status.contains("idle") && status.contains("turn 1")
    });
    assert!(!s.contains("queued"), "one prompt:\n{s}");
    t.send_line("read notes.txt");
    t.wait_text("TODO: nothing");
}

//! End to end: the real binary in a real terminal (tmux), on the offline demo model. Each test
//! polls `capture-pane` against a deadline; nothing waits on a fixed sleep.
//! Without tmux each test is skipped visibly, or fails under CI (tests/support/env.rs).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(100);

/// tooloop in a 120×40 pane on the demo model, in a workspace of its own with a few files.
struct Tui {
    t: Tmux,
    _dir: tempfile::TempDir,
    pub workspace: PathBuf,
}

impl std::ops::Deref for Tui {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

fn have_tmux() -> bool {
    support::tmux::available()
}

impl Tui {
    /// Starts tooloop in a 120×40 tmux pane inside `bash -c '…; echo EXITED:$?'`.
    fn start(name: &str, args: &str) -> Tui {
        Tui::start_after(name, args, "")
    }

    /// The same, with `prelude` (shell commands) run by that bash first.
    fn start_after(name: &str, args: &str, prelude: &str) -> Tui {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(workspace.join("src")).expect("ws");
        std::fs::write(
            workspace.join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        )
        .expect("write");
        std::fs::write(
            workspace.join("src/main.rs"),
            "fn main() {\n    println!(\"hi\");\n}\n",
        )
        .expect("write");
        std::fs::write(workspace.join("notes.txt"), "TODO: nothing\n").expect("write");
        let bin = env!("CARGO_BIN_EXE_tooloop");
        let script = format!(
            "{prelude}cd '{ws}' && '{bin}' --workspace '{ws}' {args}; echo EXITED:\\$?; sleep 600",
            ws = workspace.display()
        );
        let command = format!(
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL \
             {} bash -c \"{script}\"",
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(name, 120, 40, &command).with_timing(DEADLINE, POLL);
        Tui {
            t,
            _dir: dir,
            workspace,
        }
    }
}

/// The pid of `parent`'s first child (tooloop, under the pane's bash).
fn child_of(parent: u32) -> String {
    let children = format!("/proc/{parent}/task/{parent}/children");
    let pids = std::fs::read_to_string(children).expect("children");
    pids.split_whitespace()
        .next()
        .expect("tooloop runs")
        .to_string()
}

fn has_timer(line: &str) -> bool {
    line.split_whitespace().any(|w| {
        w.strip_suffix('s').is_some_and(|n| {
            let mut parts = n.split('.');
            matches!((parts.next(), parts.next()), (Some(a), Some(b)) if !a.is_empty() && a.chars().all(|c| c.is_ascii_digit()) && b.len() == 1 && b.chars().all(|c| c.is_ascii_digit()))
        })
    })
}

#[test]
fn chat_interrupt_json_pane_and_quit() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("main", "");
    t.wait_text("Ask something");
    assert!(t.alternate_screen_on());

    t.type_text("list files, read Cargo.toml and tell me the time");
    t.keys(&["Enter"]);
    // Three tool rows, each with a timer or a final duration, and then the answer.
    let s = t.wait_for("three tool rows with timers", |s| {
        ["list_dir", "read_file", "get_current_time"]
            .iter()
            .all(|name| s.lines().any(|l| l.contains(name) && has_timer(l)))
    });
    assert!(s.contains("timeline"), "{s}");
    t.wait_for("the answer and idle", |s| {
        s.contains("Anything else?") && Tmux::status_line(s).contains("idle")
    });

    // Ctrl+C mid-turn.
    t.type_text("list files in src and read notes.txt");
    t.keys(&["Enter"]);
    t.wait_for("the second turn running", |s| {
        let st = Tmux::status_line(s);
        st.contains("streaming") || st.contains("running")
    });
    t.keys(&["C-c"]);
    let s = t.wait_for("interrupted, then idle", |s| {
        s.contains("interrupted") && Tmux::status_line(s).contains("idle")
    });
    assert!(
        !s.contains("press Ctrl+C again"),
        "an abort must not arm quit:\n{s}"
    );

    // The next prompt continues the same conversation.
    t.type_text("what time is it");
    t.keys(&["Enter"]);
    t.wait_for("an answer after the interrupted turn", |s| {
        let lines: Vec<&str> = s.lines().collect();
        let asked = lines.iter().rposition(|l| l.contains("› what time is it"));
        let answered = lines.iter().rposition(|l| l.contains("Anything else?"));
        matches!((asked, answered), (Some(a), Some(b)) if b > a)
            && Tmux::status_line(s).contains("idle")
    });

    // The JSON pane shows the history with tool_use and tool_result blocks.
    t.keys(&["C-o"]);
    t.wait_text("// history[");
    let mut seen = [false, false];
    let mut look = |s: &str| {
        seen[0] |= s.contains("\"type\": \"tool_use\"");
        seen[1] |= s.contains("\"type\": \"tool_result\"");
        seen[0] && seen[1]
    };
    if !look(&t.screen()) {
        // Focus the JSON pane and page up through the history until both were on screen.
        t.keys(&["Tab", "Tab", "Tab"]);
        t.wait_text("JSON: Up scroll");
        for _ in 0..60 {
            t.keys(&["PageUp"]);
            std::thread::sleep(POLL);
            if look(&t.screen()) {
                break;
            }
        }
    }
    assert_eq!(
        seen,
        [true, true],
        "tool_use / tool_result not both shown:\n{}",
        t.screen()
    );
    t.keys(&["Escape"]);
    t.keys(&["C-o"]);

    // Two Ctrl+C quit, and the shell gets its terminal back.
    t.keys(&["C-c"]);
    t.wait_text("press Ctrl+C again to quit");
    t.keys(&["C-c"]);
    let s = t.wait_text("EXITED:0");
    assert!(
        !s.contains("Ask something"),
        "the TUI is still on screen:\n{s}"
    );
    assert!(
        !t.alternate_screen_on(),
        "the alternate screen was not left"
    );
}

#[test]
fn bash_asks_for_approval_in_a_modal() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("approval", "");
    t.wait_text("Ask something");
    t.type_text("run `echo hello-from-bash`");
    t.keys(&["Enter"]);
    let s = t.wait_text("allow bash?");
    assert!(s.contains("$ echo hello-from-bash"), "{s}");
    assert!(s.contains("❯ 1. Yes"), "{s}");
    assert!(
        Tmux::status_line(&s).contains("waiting for approval"),
        "{s}"
    );
    // Keys within the guard time after the question appears go to the input; a user who
    // reads the question first answers after it.
    std::thread::sleep(
        tooloop::tui::overlays::approval::GUARD + tooloop::tui::overlays::approval::BURST_GAP,
    );
    t.keys(&["Enter"]);
    let s = t.wait_for("the approved call to finish", |s| {
        !s.contains("allow bash?") && Tmux::status_line(s).contains("idle")
    });
    // The command really ran: the bash row finished ok and the answer quotes its result.
    assert!(s.lines().any(|l| l.contains("✓ bash")), "{s}");
    assert!(s.contains("exit code 0"), "{s}");
    // Ctrl+D on an empty input quits.
    t.keys(&["C-d"]);
    let s = t.wait_text("EXITED:0");
    assert!(!t.alternate_screen_on());
    assert!(
        s.contains("tooloop --resume "),
        "how to resume is printed on quit:\n{s}"
    );
    let _ = &t.workspace;
}

#[test]
fn sigterm_restores_the_terminal() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("sigterm", "");
    t.wait_text("Ask something");
    // The pane runs bash -c, which runs tooloop: walk down to the process of our binary.
    let tooloop =
        find_descendant(t.pane_pid(), env!("CARGO_BIN_EXE_tooloop")).expect("tooloop pid");
    let status = Command::new("kill")
        .args(["-TERM", &tooloop.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    t.wait_text("EXITED:143");
    assert!(
        !t.alternate_screen_on(),
        "the alternate screen was not left"
    );
}

fn children(pid: u32) -> Vec<u32> {
    let path = format!("/proc/{pid}/task/{pid}/children");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn find_descendant(root: u32, exe: &str) -> Option<u32> {
    let want = Path::new(exe).canonicalize().ok()?;
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        if std::fs::read_link(format!("/proc/{pid}/exe"))
            .ok()
            .as_deref()
            == Some(want.as_path())
        {
            return Some(pid);
        }
        stack.extend(children(pid));
    }
    None
}

/// Closing the terminal (tmux gone: SIGHUP, and the pty returns EIO) ends tooloop quietly:
/// nothing is printed to the dead terminal and nothing panics (the panic hook would log it).
#[test]
fn closing_the_terminal_ends_quietly_without_a_panic() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("hup", "");
    t.wait_text("Ask something");
    t.type_text("list files");
    t.keys(&["Enter"]);
    // tooloop is the child of the pane's bash; the test waits for it to be gone.
    let bash = t.pane_pid();
    let tooloop = child_of(bash);
    t.tmux(&["kill-server"]);
    let logs = t
        .workspace
        .parent()
        .expect("parent")
        .join("home/state/tooloop");
    let start = Instant::now();
    let log = loop {
        let text: String = std::fs::read_dir(&logs)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                    .collect()
            })
            .unwrap_or_default();
        let gone = !Path::new(&format!("/proc/{tooloop}")).exists();
        if gone && text.contains("tui exits") {
            break text;
        }
        assert!(start.elapsed() < DEADLINE, "tooloop did not exit:\n{text}");
        std::thread::sleep(POLL);
    };
    assert!(!log.contains("panic"), "{log}");
}

/// The terminal closes while tooloop runs under a parent that keeps SIGHUP from it (here a
/// bash with `trap '' HUP`; a wrapper script or a profiler does the same). The kernel signals
/// only the session leader, so nothing tells tooloop but the dead tty, whose reads return 0
/// bytes: crossterm's reader retried them forever at 100 % CPU and the process never ended.
/// Now the hang-up ends the input and tooloop exits.
#[test]
fn closing_the_terminal_ends_tooloop_even_when_no_sighup_reaches_it() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start_after("hupwrap", "", "trap '' HUP; ");
    t.wait_text("Ask something");
    let bash = t.pane_pid();
    // The bash (and its `sleep`) outlive the terminal by design: end them when done.
    struct KillGroup(i32);
    impl Drop for KillGroup {
        fn drop(&mut self) {
            // SAFETY: kill(2) on the bash's process group, which this test started.
            unsafe { libc::kill(-self.0, libc::SIGKILL) };
        }
    }
    let _group = KillGroup(bash as i32);
    let tooloop = child_of(bash);
    t.tmux(&["kill-server"]);
    let start = Instant::now();
    while Path::new(&format!("/proc/{tooloop}")).exists() {
        let stat = std::fs::read_to_string(format!("/proc/{tooloop}/stat")).unwrap_or_default();
        // A zombie has ended; its parent (the bash) just has not reaped it yet.
        if stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            break;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "tooloop still runs {DEADLINE:?} after its terminal closed: {stat}"
        );
        std::thread::sleep(POLL);
    }
    assert!(
        Path::new(&format!("/proc/{bash}")).exists(),
        "the bash ignored SIGHUP"
    );
}

/// `tooloop "PROMPT"` starts the TUI with the prompt already sent, and it joins the history.
#[test]
fn a_positional_prompt_is_sent_at_start() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("positional", "'list files'");
    t.wait_text("Here is what I found");
    let screen = t.screen();
    assert!(screen.contains("› list files"), "{screen}");
    t.keys(&["Up"]);
    t.wait_for("the prompt recalled", |s| {
        s.lines().any(|l| l.trim_start().starts_with("list files"))
    });
}

/// The first screen says where tooloop runs, with which model and approval mode, and how
/// to start.
#[test]
fn the_first_screen_orients() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("orient", "");
    let screen = t.wait_text("approval ask");
    let ws = t.workspace.display().to_string();
    assert!(screen.contains(&format!("tooloop in {ws}")), "{screen}");
    assert!(screen.contains("demo/tooloop-demo"), "{screen}");
    assert!(screen.contains("/ commands · ? keys"), "{screen}");
}

/// F5 puts the last answer on the clipboard through OSC 52: tmux (set-clipboard on) turns
/// it into a paste buffer.
#[test]
fn f5_copies_through_osc52() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("copy", "");
    t.tmux(&["set", "-g", "set-clipboard", "on"]);
    t.wait_text("Ask something");
    t.type_text("read notes.txt");
    t.keys(&["Enter"]);
    t.wait_text("Anything else?");
    t.keys(&["F5"]);
    t.wait_text("copied");
    let start = Instant::now();
    loop {
        let buffer = t.tmux(&["show-buffer"]);
        if buffer.contains("notes.txt") {
            break;
        }
        assert!(start.elapsed() < DEADLINE, "no tmux buffer: {buffer:?}");
        std::thread::sleep(POLL);
    }
}

/// `/sessions` in the real binary: after `/new`, the picker lists the earlier session and
/// Enter brings it back, its tool row with the duration it had; the next prompt continues it.
#[test]
fn sessions_picker_resumes_an_earlier_session() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("sessions", "");
    t.wait_text("approval ask");
    t.send_line("现在几点 what time is it");
    t.wait_for("the answer", |s| {
        s.contains("Anything else?") && Tmux::status_line(s).contains("idle")
    });
    t.send_line("/new");
    t.wait_text("new conversation");
    t.send_line("/sessions");
    // The picker reads the sessions in the background ("reading the saved sessions…").
    t.wait_for("the listed session", |s| {
        s.contains("Enter resume") && s.contains("现在几点 what time is it")
    });
    t.keys(&["Enter"]);
    let s = t.wait_for("the resumed conversation", |s| {
        s.contains("› 现在几点 what time is it") && !s.contains("Enter resume")
    });
    assert!(
        s.contains("▾ prompt 1 · 现在几点 what time is it · 1 tool"),
        "{s}"
    );
    let row = s
        .lines()
        .find(|l| l.contains("get_current_time") && l.contains(" · "))
        .unwrap_or_default();
    assert!(has_timer(row), "the call keeps its duration: {row:?}\n{s}");
    t.send_line("list files");
    t.wait_for("the next answer", |s| {
        s.matches("Anything else?").count() >= 2
    });
}

/// After `/new` with nothing sent there is no new session on disk: the exit hint must not
/// name it (issue 29). Any `--resume ID` printed names a saved session.
#[test]
fn the_exit_hint_names_only_a_saved_session() {
    if !have_tmux() {
        return;
    }
    let t = Tui::start("exit-hint", "");
    t.wait_text("approval ask");
    t.send_line("list files");
    t.wait_for("the answer", |s| {
        s.contains("Anything else?") && Tmux::status_line(s).contains("idle")
    });
    t.send_line("/new");
    t.wait_text("new conversation");
    t.keys(&["C-d"]);
    let s = t.wait_text("EXITED:0");
    let home = t.workspace.parent().expect("dir").join("home");
    let saved = |id: &str| {
        let found = Command::new("find")
            .arg(&home)
            .args(["-name", &format!("*{id}*.jsonl")])
            .output()
            .expect("find");
        !String::from_utf8_lossy(&found.stdout).trim().is_empty()
    };
    for id in s
        .split("tooloop --resume ")
        .skip(1)
        .filter_map(|rest| rest.split_whitespace().next())
    {
        assert!(
            saved(id),
            "the hint names session {id}, which was never saved:\n{s}"
        );
    }
}

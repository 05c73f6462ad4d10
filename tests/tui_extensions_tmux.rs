//! MCP tools and hooks in the real TUI (tmux), against the mock model and the real fixture
//! MCP server: the status bar and `/mcp` show the servers, a read-only MCP tool runs
//! unasked, an unsafe one opens the approval modal, and hooks are rows on the tools pane.
//! Skipped (with a message) when tmux is not installed.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use support::*;

const DEADLINE: Duration = Duration::from_secs(30);

struct Screen {
    socket: String,
    _dir: tempfile::TempDir,
    workspace: PathBuf,
}

impl Screen {
    fn start(name: &str, server: &MockServer, config: &str) -> Option<Screen> {
        if !Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            eprintln!("SKIPPED: tmux is not installed");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        let cfg = dir.path().join("config.toml");
        std::fs::write(&cfg, config).unwrap();
        let socket = format!("tooloop-ext-{name}-{}", std::process::id());
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}' --config '{cfg}' --provider anthropic \
             --base-url '{base}' --model claude-mock; echo EXITED:\\$?; sleep 600",
            ws = workspace.display(),
            bin = env!("CARGO_BIN_EXE_tooloop"),
            cfg = cfg.display(),
            base = server.anthropic_base(),
        );
        let h = home.display().to_string();
        let ok = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "120", "-y", "40"])
            .arg(format!(
                "env ANTHROPIC_API_KEY=sk-ant-tmux HOME='{h}' XDG_STATE_HOME='{h}/state' \
                 XDG_CONFIG_HOME='{h}/config' XDG_DATA_HOME='{h}/data' \
                 XDG_CACHE_HOME='{h}/cache' bash -c \"{script}\""
            ))
            .env_remove("TMUX")
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session failed");
        Some(Screen {
            socket,
            _dir: dir,
            workspace,
        })
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn send(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
        self.tmux(&["send-keys", "-t", "0", "Enter"]);
    }

    fn wait_text(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.tmux(&["capture-pane", "-p", "-t", "0"]);
            if s.contains(needle) {
                return s;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {needle:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn config(hook_log: &Path) -> String {
    format!(
        "[mcp.servers.fx]\ncommand = {:?}\n\n\
         [[hooks.pre_tool_use]]\nmatcher = \"mcp__.*\"\ncommand = \"echo $PPID >> {}\"\n",
        mcp_fixture().display().to_string(),
        hook_log.display()
    )
}

#[test]
fn mcp_tools_and_hooks_in_the_tui() {
    let log_dir = tempfile::tempdir().unwrap();
    let hook_log = log_dir.path().join("hooks.log");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_r", "mcp__fx__slow_read", json!({"ms": 400}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("read it all").usage(10, 5).build());
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_w",
                "mcp__fx__write_note",
                json!({"text": "from the tui"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .text("note written")
            .usage(10, 5)
            .build(),
    );
    let Some(t) = Screen::start("mcp", &server, &config(&hook_log)) else {
        return;
    };
    t.wait_text("mcp 1/1");

    // Read-only: runs unasked; the hook ran first and is a row of the tools pane.
    t.send("read with the server");
    let s = t.wait_text("read it all");
    assert!(s.contains("mcp__fx__slow_read"), "{s}");
    assert!(s.contains("hook pre_tool_use"), "{s}");
    assert!(hook_log.exists(), "the hook ran");

    // Unsafe: the approval modal asks, and `y` (after the guard time) runs it.
    t.send("write a note");
    t.wait_text("mcp__fx__write_note");
    let s = t.wait_text("allow");
    assert!(s.contains("mcp__fx__write_note"), "{s}");
    std::thread::sleep(Duration::from_millis(800));
    t.tmux(&["send-keys", "-t", "0", "y"]);
    t.wait_text("note written");
    assert_eq!(
        std::fs::read_to_string(t.workspace.join("note.txt")).unwrap(),
        "from the tui"
    );

    t.send("/mcp");
    let s = t.wait_text("MCP fx: ready, 5 tools");
    assert!(s.contains("mcp__fx__slow_read"), "{s}");
    assert_eq!(server.accepted().len(), 4, "/mcp is not sent to the model");
}

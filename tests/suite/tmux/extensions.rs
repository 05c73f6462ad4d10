//! MCP tools and hooks in the real TUI (tmux), against the mock model and the real fixture
//! MCP server: the status bar and `/mcp` show the servers, a read-only MCP tool runs
//! unasked, an unsafe one opens the approval modal, and hooks are rows on the tools pane.
//! Without tmux each test is skipped visibly, or fails under CI (tests/support/env.rs).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use support::tmux::Tmux;
use support::*;

const DEADLINE: Duration = Duration::from_secs(30);

/// tooloop against the mock in a 120×40 pane, with `config`, in a workspace of its own.
struct Screen {
    t: Tmux,
    _dir: tempfile::TempDir,
    workspace: PathBuf,
}

impl std::ops::Deref for Screen {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

impl Screen {
    fn start(name: &str, server: &MockServer, config: &str) -> Option<Screen> {
        if !support::tmux::available() {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        let cfg = dir.path().join("config.toml");
        std::fs::write(&cfg, config).unwrap();
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}' --config '{cfg}' --provider anthropic \
             --base-url '{base}' --model claude-mock; echo EXITED:\\$?; sleep 600",
            ws = workspace.display(),
            bin = env!("CARGO_BIN_EXE_tooloop"),
            cfg = cfg.display(),
            base = server.anthropic_base(),
        );
        let command = format!(
            "env ANTHROPIC_API_KEY=sk-ant-tmux {} bash -c \"{script}\"",
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(&format!("ext-{name}"), 120, 40, &command)
            .with_timing(DEADLINE, Duration::from_millis(100));
        Some(Screen {
            t,
            _dir: dir,
            workspace,
        })
    }

    fn send(&self, text: &str) {
        self.send_line(text);
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

    // Unsafe: the approval modal asks, and Enter (after the guard time) confirms "1. Yes".
    t.send("write a note");
    t.wait_text("mcp__fx__write_note");
    let s = t.wait_text("allow");
    assert!(s.contains("mcp__fx__write_note"), "{s}");
    std::thread::sleep(Duration::from_millis(800));
    t.tmux(&["send-keys", "-t", "0", "Enter"]);
    t.wait_text("note written");
    assert_eq!(
        std::fs::read_to_string(t.workspace.join("note.txt")).unwrap(),
        "from the tui"
    );

    t.send("/mcp");
    let s = t.wait_text("MCP fx: ready, 6 tools");
    assert!(s.contains("mcp__fx__slow_read"), "{s}");
    assert_eq!(server.accepted().len(), 4, "/mcp is not sent to the model");
}

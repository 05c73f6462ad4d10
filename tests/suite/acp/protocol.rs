//! `tooloop acp` fed raw JSON-RPC lines (what the official client in tests/acp_e2e.rs will
//! not send): every bad input gets a JSON-RPC error with the standard code and a message
//! naming the problem, the process and its sessions keep running, stdout holds nothing but
//! protocol lines, and closing stdin ends with exit 0 and the sessions saved.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line read so far, for the final check.
    seen: Vec<String>,
    home: tempfile::TempDir,
}

impl Agent {
    fn start() -> Agent {
        Agent::start_with(&["--provider", "demo"])
    }

    /// `tooloop acp` with these provider flags (an API key for the mock when it is named).
    fn start_with(provider: &[&str]) -> Agent {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let mut command = Command::new(env!("CARGO_BIN_EXE_tooloop"));
        command
            .arg("acp")
            .args(provider)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY");
        if provider.contains(&"anthropic") {
            command.env("ANTHROPIC_API_KEY", "sk-ant-acp-test");
        }
        let mut child = command
            .env("HOME", h)
            .env("XDG_CONFIG_HOME", h.join(".config"))
            .env("XDG_DATA_HOME", h.join(".local/share"))
            .env("XDG_STATE_HOME", h.join(".local/state"))
            .current_dir(h)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("tooloop acp");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Agent {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            home,
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string());
    }

    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a line from tooloop acp");
        self.seen.push(line.clone());
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The response with this id (notifications before it are kept in `seen`).
    fn answer(&mut self, id: Value) -> Value {
        loop {
            let v = self.next();
            if v.get("method").is_none() && v["id"] == id {
                return v;
            }
        }
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(json!(id))
    }

    fn error(&mut self, id: i64, method: &str, params: Value) -> (i64, String) {
        let v = self.request(id, method, params);
        let e = &v["error"];
        assert!(e.is_object(), "{method} should fail: {v}");
        (
            e["code"].as_i64().unwrap(),
            e["message"].as_str().unwrap().to_string(),
        )
    }

    fn cwd(&self) -> String {
        self.home
            .path()
            .canonicalize()
            .unwrap()
            .display()
            .to_string()
    }
}

#[test]
fn bad_input_gets_standard_errors_and_the_process_goes_on() {
    let mut a = Agent::start();
    // Before initialize.
    let (code, msg) = a.error(1, "session/new", json!({"cwd": "/", "mcpServers": []}));
    assert_eq!(code, -32600);
    assert!(msg.contains("initialize"), "{msg}");
    // Not JSON, not an object, not JSON-RPC 2.0.
    a.send_raw("{this is not json");
    let v = a.answer(Value::Null);
    assert_eq!(v["error"]["code"], -32700);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("parse error")
    );
    a.send_raw("[1, 2, 3]");
    assert_eq!(a.answer(Value::Null)["error"]["code"], -32600);
    a.send_raw(r#"{"id": 5, "method": "initialize"}"#);
    let v = a.answer(json!(5));
    assert_eq!(v["error"]["code"], -32600);
    assert!(v["error"]["message"].as_str().unwrap().contains("jsonrpc"));

    let init = a.request(2, "initialize", json!({"protocolVersion": 1}));
    assert_eq!(init["result"]["protocolVersion"], 1);
    // A client asking for a newer version is answered with 1.
    let init = a.request(3, "initialize", json!({"protocolVersion": 7}));
    assert_eq!(init["result"]["protocolVersion"], 1);
    let (code, msg) = a.error(4, "initialize", json!({"protocolVersion": "one"}));
    assert_eq!(code, -32602, "{msg}");

    let (code, msg) = a.error(6, "session/fly", json!({}));
    assert_eq!(code, -32601);
    assert!(msg.contains("session/fly"), "{msg}");
    let (code, msg) = a.error(
        7,
        "session/new",
        json!({"cwd": "relative/dir", "mcpServers": []}),
    );
    assert_eq!(code, -32602);
    assert!(msg.contains("relative/dir"), "{msg}");
    let (code, _) = a.error(8, "session/new", json!({"mcpServers": []}));
    assert_eq!(code, -32602);
    let (code, msg) = a.error(9, "authenticate", json!({"methodId": "oauth"}));
    assert_eq!(code, -32602);
    assert!(msg.contains("oauth"), "{msg}");
    let (code, msg) = a.error(
        10,
        "session/prompt",
        json!({"sessionId": "ghost", "prompt": [{"type": "text", "text": "hi"}]}),
    );
    assert_eq!(code, -32002);
    assert!(msg.contains("ghost"), "{msg}");
    let (code, msg) = a.error(
        11,
        "session/set_mode",
        json!({"sessionId": "ghost", "modeId": "plan"}),
    );
    assert_eq!(code, -32002, "{msg}");
    // A cancel for nobody and an answer to a request never made: no reply, nothing breaks.
    a.send(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "ghost"}}));
    a.send(json!({"jsonrpc": "2.0", "id": 999, "result": {}}));

    // Two sessions, each with a prompt, side by side.
    let cwd = a.cwd();
    let s1 = a.request(20, "session/new", json!({"cwd": cwd, "mcpServers": []}));
    let s1 = s1["result"]["sessionId"].as_str().unwrap().to_string();
    let s2 = a.request(21, "session/new", json!({"cwd": cwd, "mcpServers": []}));
    let s2 = s2["result"]["sessionId"].as_str().unwrap().to_string();
    assert_ne!(s1, s2);
    let (code, msg) = a.error(
        22,
        "session/set_mode",
        json!({"sessionId": s1, "modeId": "warp"}),
    );
    assert_eq!(code, -32602);
    assert!(msg.contains("warp"), "{msg}");
    let (code, _) = a.error(
        23,
        "session/prompt",
        json!({"sessionId": s1, "prompt": "not blocks"}),
    );
    assert_eq!(code, -32602);
    let prompt = |id: i64, s: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": {
            "sessionId": s, "prompt": [{"type": "text", "text": "what time is it"}]}})
    };
    a.send(prompt(30, &s1));
    a.send(prompt(31, &s1)); // the same session is busy
    a.send(prompt(32, &s2));
    let busy = a.answer(json!(31));
    assert_eq!(busy["error"]["code"], -32600, "{busy}");
    assert!(
        busy["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already running")
    );
    let mut ends = Vec::new();
    while ends.len() < 2 {
        let v = a.next();
        if v["id"] == 30 || v["id"] == 32 {
            ends.push(v["result"]["stopReason"].clone());
        }
    }
    assert_eq!(ends, [json!("end_turn"), json!("end_turn")]);
    let chunks_of = |a: &Agent, s: &str| {
        a.seen
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["params"]["sessionId"] == s)
            .filter(|v| v["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
            .count()
    };
    assert!(chunks_of(&a, &s1) > 0 && chunks_of(&a, &s2) > 0);

    // Stdin closes: exit 0, both sessions saved where `tooloop sessions` finds them.
    a.stdin = None;
    while let Ok(line) = a.lines.recv_timeout(Duration::from_secs(10)) {
        a.seen.push(line);
    }
    let status = a.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    for line in &a.seen {
        let v: Value = serde_json::from_str(line).expect("only JSON on stdout");
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        assert!(!line.contains('\n'));
    }
    let h = a.home.path();
    let list = Command::new(env!("CARGO_BIN_EXE_tooloop"))
        .arg("sessions")
        .env("HOME", h)
        .env("XDG_CONFIG_HOME", h.join(".config"))
        .env("XDG_DATA_HOME", h.join(".local/share"))
        .env("XDG_STATE_HOME", h.join(".local/state"))
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains(&s1) && listed.contains(&s2), "{listed}");
}

/// An MCP server's prompts are commands over ACP too: advertised once the server is ready
/// (`/mcp__fx__greet` with its arguments as the input hint), and a prompt typed as one goes
/// to the agent as in the TUI: the request carries the prompt's messages.
#[test]
fn an_mcp_servers_prompts_are_advertised_and_run_as_typed() {
    let server = crate::support::MockServer::start();
    server.enqueue(
        crate::support::ReplyBuilder::new()
            .text("hello back")
            .usage(10, 5)
            .build(),
    );
    let base = server.anthropic_base();
    let mut a = Agent::start_with(&["--provider", "anthropic", "--base-url", &base]);
    let log = a.home.path().join("fx.log").display().to_string();
    let fixture = crate::support::mcp_fixture().display().to_string();
    let cwd = a.cwd();
    let fx = json!({"name": "fx", "command": fixture, "args": [],
        "env": [{"name": "MCP_FIXTURE_LOG", "value": log}]});
    a.request(1, "initialize", json!({"protocolVersion": 1}));
    let s = a.request(2, "session/new", json!({"cwd": cwd, "mcpServers": [fx]}));
    let s = s["result"]["sessionId"]
        .as_str()
        .expect("session")
        .to_string();
    // The first update (at session/new) cannot know the server yet; the next one does.
    let greet = loop {
        let v = a.next();
        let update = &v["params"]["update"];
        if update["sessionUpdate"] != "available_commands_update" {
            continue;
        }
        let commands = update["availableCommands"].as_array().expect("commands");
        if let Some(c) = commands.iter().find(|c| c["name"] == "mcp__fx__greet") {
            break c.clone();
        }
    };
    assert_eq!(greet["description"], "Greets someone by name (MCP fx)");
    assert_eq!(greet["input"]["hint"], "<name> [style]", "{greet}");
    let v = a.request(
        3,
        "session/prompt",
        json!({"sessionId": s, "prompt": [{"type": "text", "text": "/mcp__fx__greet Ada"}]}),
    );
    assert_eq!(v["result"]["stopReason"], "end_turn", "{v}");
    let sent = &server.accepted()[0].body_text;
    assert!(sent.contains("Say hello to Ada"), "{sent}");
    let log = std::fs::read_to_string(a.home.path().join("fx.log")).unwrap_or_default();
    assert!(log.contains("prompt greet {"), "{log}");
}

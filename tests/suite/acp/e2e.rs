//! `tooloop acp` driven by the official ACP TypeScript client (@agentclientprotocol/sdk,
//! tests/acp_client/drive.mjs) against the mock Anthropic server: initialize, a new
//! session, read_file + bash with permission granted, a denied write, a cancel while a
//! tool runs, set_mode plan, slash commands (built-in and from a file), bad requests, and
//! the first session loaded back. The client reports what it saw; the asserts are here.

use crate::support;
use crate::support::env as env_support;

use serde_json::{Value, json};
use support::*;

use super::client::{KEY, of_kind, run_client, updates};

fn script(server: &MockServer) {
    server.enqueue(
        ReplyBuilder::new()
            .text("Reading and running.")
            .tool_use("toolu_read", "read_file", json!({"path": "notes.txt"}))
            .tool_use(
                "toolu_bash",
                "bash",
                json!({"command": "echo hello-from-bash"}),
            )
            .build(),
    );
    server.enqueue(text_reply("Read it and ran it."));
    server.enqueue(tool_reply(&[(
        "toolu_write",
        "write_file",
        json!({"path": "out.txt", "content": "should never exist"}),
    )]));
    server.enqueue(text_reply("Not written, as you said."));
    server.enqueue(tool_reply(&[(
        "toolu_sleep",
        "bash",
        json!({"command": "sleep 30"}),
    )]));
    server.enqueue(tool_reply(&[(
        "toolu_plan",
        "exit_plan_mode",
        json!({"plan": "1. read notes.txt\n2. summarize it"}),
    )]));
    server.enqueue(text_reply("Plan approved; starting."));
    server.enqueue(text_reply("Reviewed notes.txt."));
}

fn text_of(list: &[&Value], kind: &str) -> String {
    of_kind(list, kind)
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

#[test]
fn the_official_client_completes_every_flow() {
    let Some(client_dir) = env_support::acp_client() else {
        return;
    };
    let server = MockServer::start();
    script(&server);
    let home = tempfile::tempdir().expect("home");
    let ws = home.path().join("project");
    std::fs::create_dir_all(ws.join(".tooloop/commands")).unwrap();
    std::fs::write(ws.join("notes.txt"), "the notes say 42\n").unwrap();
    std::fs::write(
        ws.join(".tooloop/commands/review.md"),
        "---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully\n",
    )
    .unwrap();
    let ws = ws.canonicalize().unwrap();
    let base = server.anthropic_base();
    let args = json!([
        "--provider",
        "anthropic",
        "--base-url",
        base,
        "--model",
        "claude-mock",
        "--approval",
        "ask"
    ]);
    let seen = run_client(&client_dir, "drive.mjs", &args, &ws, home.path());
    let ctx = format!("{seen:#}");
    assert_eq!(seen["exitCode"], 0, "stdin closed: exit 0\n{ctx}");
    assert!(!seen["stderr"].as_str().unwrap_or("").contains(KEY));

    // Bad requests: standard codes, messages that name the problem.
    let err = |name: &str| &seen["errors"][name];
    assert_eq!(err("before_initialize")["code"], -32600, "{ctx}");
    assert!(
        err("before_initialize")["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
    assert_eq!(err("unknown_session")["code"], -32002, "{ctx}");
    assert!(
        err("unknown_session")["message"]
            .as_str()
            .unwrap()
            .contains("no-such-session")
    );
    assert_eq!(err("unknown_method")["code"], -32601, "{ctx}");
    assert!(
        err("unknown_method")["message"]
            .as_str()
            .unwrap()
            .contains("session/frobnicate")
    );
    assert_eq!(err("wrong_params")["code"], -32602, "{ctx}");
    assert_eq!(err("load_missing")["code"], -32002, "{ctx}");
    assert!(
        err("load_missing")["message"]
            .as_str()
            .unwrap()
            .contains("feedbeef")
    );

    // initialize and session/new.
    let init = &seen["initialize"];
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentInfo"]["name"], "tooloop");
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(
        init["agentCapabilities"]["promptCapabilities"]["image"],
        true
    );
    assert_eq!(
        init["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true
    );
    let new = &seen["new"];
    assert_eq!(new["modes"]["currentModeId"], "ask");
    let modes: Vec<&str> = new["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    for m in ["ask", "auto-edit", "plan", "yolo"] {
        assert!(modes.contains(&m), "{modes:?}");
    }
    let setup = updates(&seen, "new");
    let commands = of_kind(&setup, "available_commands_update");
    assert_eq!(commands.len(), 1, "{ctx}");
    let names: Vec<&str> = commands[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for c in [
        "compact", "clear", "model", "cost", "status", "init", "rewind", "review",
    ] {
        assert!(names.contains(&c), "{c} in {names:?}");
    }

    // read_file + bash, bash allowed by the editor.
    let first = updates(&seen, "read_and_bash");
    assert_eq!(seen["stops"]["read_and_bash"], "end_turn");
    assert!(text_of(&first, "agent_message_chunk").contains("Read it and ran it."));
    let calls = of_kind(&first, "tool_call");
    let read = calls
        .iter()
        .find(|c| c["toolCallId"] == "toolu_read")
        .expect("read call");
    assert_eq!(read["kind"], "read");
    assert_eq!(read["locations"][0]["path"], json!(ws.join("notes.txt")));
    let bash = calls
        .iter()
        .find(|c| c["toolCallId"] == "toolu_bash")
        .expect("bash call");
    assert_eq!(bash["kind"], "execute");
    assert_eq!(bash["title"], "bash: echo hello-from-bash");
    let end_of = |list: &[&Value], id: &str| -> Value {
        of_kind(list, "tool_call_update")
            .into_iter()
            .rfind(|u| u["toolCallId"] == id && u.get("content").is_some())
            .cloned()
            .unwrap_or_else(|| panic!("no final update for {id}\n{ctx}"))
    };
    let read_end = end_of(&first, "toolu_read");
    assert_eq!(read_end["status"], "completed");
    assert!(
        read_end["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("the notes say 42")
    );
    let bash_end = end_of(&first, "toolu_bash");
    assert_eq!(bash_end["status"], "completed", "{ctx}");
    assert!(
        bash_end["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("hello-from-bash")
    );
    let perms = seen["permissions"].as_array().unwrap();
    let asked: Vec<&str> = perms
        .iter()
        .map(|p| p["toolCall"]["toolCallId"].as_str().unwrap())
        .collect();
    assert!(asked.contains(&"toolu_bash"), "{asked:?}");
    assert!(
        !asked.contains(&"toolu_read"),
        "read_file is never asked: {asked:?}"
    );
    let options: Vec<&str> = perms[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    // The proposed rule (`bash(echo:*)`) can be written as a deny rule too.
    assert_eq!(
        options,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    assert!(
        of_kind(&first, "usage_update")
            .iter()
            .any(|u| u["size"].as_u64() > Some(0))
    );

    // The denied write never ran.
    assert!(
        !ws.join("out.txt").exists(),
        "a denied write_file must not run"
    );
    let denied = updates(&seen, "denied_write");
    assert_eq!(seen["stops"]["denied_write"], "end_turn");
    assert_eq!(end_of(&denied, "toolu_write")["status"], "failed");
    assert!(asked.contains(&"toolu_write"));

    // Cancel mid-tool: answered `cancelled` well within 500 ms.
    assert_eq!(seen["stops"]["cancel"], "cancelled", "{ctx}");
    let cancel_ms = seen["timings"]["cancel_ms"].as_f64().unwrap();
    assert!(cancel_ms < 500.0, "cancel took {cancel_ms} ms");
    let cancelled = updates(&seen, "cancel");
    assert_eq!(end_of(&cancelled, "toolu_sleep")["status"], "failed");

    // set_mode plan: answered, and the mode update follows.
    let mode = updates(&seen, "set_mode");
    assert!(
        of_kind(&mode, "current_mode_update")
            .iter()
            .any(|u| u["currentModeId"] == "plan"),
        "{ctx}"
    );

    // /status answers without a model request; /review expands the file's template.
    let status = text_of(&updates(&seen, "status_command"), "agent_message_chunk");
    assert!(
        status.contains("mode: plan") && status.contains(seen["sessionId"].as_str().unwrap()),
        "{status}"
    );
    // In plan mode the plan is approved in the editor: the mode switches and says so.
    assert_eq!(seen["stops"]["plan_approval"], "end_turn");
    let plan = updates(&seen, "plan_approval");
    assert!(text_of(&plan, "agent_message_chunk").contains("Plan approved; starting."));
    let plan_ask = perms
        .iter()
        .find(|p| p["toolCall"]["toolCallId"] == "toolu_plan")
        .expect("the plan is asked about");
    assert_eq!(plan_ask["toolCall"]["kind"], "switch_mode");
    assert!(
        of_kind(&plan, "current_mode_update")
            .iter()
            .any(|u| u["currentModeId"] == "auto-edit"),
        "{ctx}"
    );
    assert_eq!(seen["stops"]["file_command"], "end_turn");
    assert!(text_of(&updates(&seen, "file_command"), "agent_message_chunk").contains("Reviewed"));
    let requests = server.accepted();
    let last = requests.last().expect("requests").body_text.clone();
    assert!(last.contains("Review notes.txt carefully"), "{last}");
    // The cancelled bash has a synthetic result in the history the next request sent.
    assert!(last.contains("toolu_sleep"), "{last}");

    // session/load replays the whole conversation before it answers.
    let load = updates(&seen, "load");
    let users = text_of(&load, "user_message_chunk");
    assert!(users.contains("read notes.txt, then run echo"), "{users}");
    assert!(users.contains("write out.txt"), "{users}");
    assert!(text_of(&load, "agent_message_chunk").contains("Read it and ran it."));
    let replayed = of_kind(&load, "tool_call");
    let bash = replayed
        .iter()
        .find(|c| c["toolCallId"] == "toolu_bash")
        .expect("replayed bash");
    assert_eq!(bash["status"], "completed");
    assert!(
        bash["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("hello-from-bash")
    );
    let write = replayed
        .iter()
        .find(|c| c["toolCallId"] == "toolu_write")
        .expect("replayed write");
    assert_eq!(write["status"], "failed");
    assert_eq!(of_kind(&load, "available_commands_update").len(), 1);
    assert_eq!(server.pending(), 0, "every scripted reply was used");
}

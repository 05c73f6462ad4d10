//! Steered words pass the `UserPromptSubmit` hooks as a typed prompt does: a guard that
//! blocks a prompt carrying an API key blocks it when it is typed during a turn too (it is
//! never sent and comes back to the user), and an allowed message joins with the hook's
//! context after it. Real binary, the project's Python guard from
//! tests/fixtures/claude_hooks unchanged in `.claude/settings.json`, the validating mock.

use crate::support;

use serde_json::{Value, json};
use support::session::Sandbox;
use support::{MockServer, ReplyBuilder, text_reply};

use super::steer_stdin::{WAIT_FOR_GO, steered_run};

const GUARD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude_hooks/prompt-guard-context.py"
);
const KEY: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz";

/// The workspace's `.claude/`: the guard as its UserPromptSubmit hook, and the notes it
/// adds as context.
fn guarded(sb: &Sandbox) {
    let dir = sb.workspace.join(".claude/hooks");
    std::fs::create_dir_all(&dir).expect("hooks dir");
    std::fs::copy(GUARD, dir.join("prompt-guard-context.py")).expect("copy guard");
    let command = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/prompt-guard-context.py";
    let settings = json!({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": command}]}
    ]}});
    std::fs::write(dir.join("../settings.json"), settings.to_string()).expect("settings");
    std::fs::write(dir.join("../notes.md"), "Use tabs in the Makefile.\n").expect("notes");
}

#[test]
fn a_steered_secret_is_blocked_and_returned_and_an_allowed_one_joins_with_context() {
    let sb = Sandbox::new();
    guarded(&sb);
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "bash", json!({"command": WAIT_FOR_GO}))
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "bash", json!({"command": "echo ok"}))
            .build(),
    );
    server.enqueue(text_reply("all done"));
    let secret = format!("deploy with key {KEY}");
    let texts = [secret.as_str(), "tidy the Makefile too"];
    let lines = steered_run(&sb, &server, "two steps please", &texts);
    let requests = server.accepted();
    assert_eq!(requests.len(), 3, "two steps and the answer");
    for r in &requests {
        assert!(!r.body_text.contains(KEY), "the key never went out");
    }
    // The allowed message joined after step 1's result, the guard's context after it.
    let after_step_1 = requests[1].body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .expect("last message");
    assert_eq!(after_step_1["content"][0]["type"], "tool_result");
    let texts: Vec<&str> = after_step_1["content"]
        .as_array()
        .expect("blocks")
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert_eq!(texts[0], "tidy the Makefile too");
    assert!(
        texts[1].starts_with("[user_prompt_submit hook]")
            && texts[1].contains("Project notes:\nUse tabs in the Makefile."),
        "{texts:?}"
    );
    // The blocked one is told and handed back; the allowed one echoed as joined.
    let users: Vec<&Value> = lines.iter().filter(|v| v["type"] == "user").collect();
    assert_eq!(users.len(), 2, "{lines:#?}");
    let blocked = users.iter().find(|v| v["sent"] == false).expect("returned");
    assert_eq!(blocked["text"], format!("deploy with key {KEY}"));
    assert!(
        lines.iter().any(|v| v["type"] == "notice"
            && v["text"]
                .as_str()
                .is_some_and(|t| t.contains("The prompt seems to contain a secret"))),
        "{lines:#?}"
    );
    let result = lines.last().expect("result");
    assert_eq!(result["type"], "result");
    assert_eq!(
        result["not_sent"],
        json!([format!("deploy with key {KEY}")])
    );
    support::assert_valid_history(result);
}

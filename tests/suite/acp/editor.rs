//! `tooloop acp` against an editor that serves its own files, driven by the official ACP
//! TypeScript client (tests/acp_client/editor.mjs): read_file, edit_file and write_file go
//! through `fs/read_text_file` / `fs/write_text_file` (the unsaved buffer wins over the
//! disk, the diff shows the buffer's text); a command file that appears mid-session is
//! announced once and runs; "always reject" writes a deny rule that holds without asking.

use crate::support;
use crate::support::env as env_support;

use serde_json::{Value, json};
use support::*;

use super::client::{of_kind, run_client, updates};

fn script(server: &MockServer) {
    server.enqueue(tool_reply(&[(
        "toolu_read",
        "read_file",
        json!({"path": "notes.txt"}),
    )]));
    server.enqueue(tool_reply(&[(
        "toolu_edit",
        "edit_file",
        json!({"path": "notes.txt", "old_string": "says 43", "new_string": "says 44"}),
    )]));
    server.enqueue(tool_reply(&[(
        "toolu_write",
        "write_file",
        json!({"path": "sub/new.txt", "content": "fresh\n"}),
    )]));
    server.enqueue(text_reply("Edited in your buffers."));
    server.enqueue(text_reply("Deploying."));
    for id in ["toolu_touch1", "toolu_touch2"] {
        server.enqueue(tool_reply(&[(
            id,
            "bash",
            json!({"command": "touch build.log"}),
        )]));
        server.enqueue(text_reply("Not touched."));
    }
}

fn final_update<'a>(list: &[&'a Value], id: &str) -> &'a Value {
    of_kind(list, "tool_call_update")
        .into_iter()
        .rfind(|u| u["toolCallId"] == id && u.get("content").is_some())
        .unwrap_or_else(|| panic!("no final update for {id}"))
}

#[test]
fn an_editor_serves_files_hears_new_commands_and_rejects_for_good() {
    let Some(client_dir) = env_support::acp_client() else {
        return;
    };
    let server = MockServer::start();
    script(&server);
    let home = tempfile::tempdir().expect("home");
    let ws = home.path().join("project");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "the disk says 42\n").unwrap();
    let ws = ws.canonicalize().unwrap();
    let args = json!([
        "--provider",
        "anthropic",
        "--base-url",
        server.anthropic_base(),
        "--model",
        "claude-mock",
        "--approval",
        "ask"
    ]);
    let seen = run_client(&client_dir, "editor.mjs", &args, &ws, home.path());
    let ctx = format!("{seen:#}");
    assert_eq!(seen["exitCode"], 0, "{ctx}");
    for phase in ["edit", "deploy", "touch", "again"] {
        assert_eq!(seen["stops"][phase], "end_turn", "{phase}\n{ctx}");
    }
    let requests = server.accepted();

    // read_file read the editor's buffer, not the disk.
    let notes = ws.join("notes.txt");
    let fs = seen["fs"].as_array().unwrap();
    assert_eq!(fs[0]["method"], "read", "{ctx}");
    assert_eq!(fs[0]["path"], json!(notes));
    let edit = updates(&seen, "edit");
    let read_out = final_update(&edit, "toolu_read")["content"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(read_out.contains("the buffer says 43"), "{read_out}");
    let second = &requests[1].body_text;
    assert!(second.contains("the buffer says 43"), "{second}");
    assert!(!second.contains("the disk says 42"), "{second}");

    // edit_file edited the buffer through fs/write_text_file: the disk is untouched, the
    // diff is the buffer's before and after.
    let writes: Vec<&Value> = fs.iter().filter(|f| f["method"] == "write").collect();
    assert_eq!(writes.len(), 2, "{ctx}");
    assert_eq!(writes[0]["path"], json!(notes));
    assert_eq!(writes[0]["content"], "the buffer says 44\n");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "the disk says 42\n"
    );
    assert_eq!(
        seen["buffers"][notes.to_str().unwrap()],
        "the buffer says 44\n"
    );
    let edited = final_update(&edit, "toolu_edit");
    assert_eq!(edited["status"], "completed", "{ctx}");
    let diff = &edited["content"][1];
    assert_eq!(diff["type"], "diff", "{ctx}");
    assert_eq!(diff["oldText"], "the buffer says 43\n");
    assert_eq!(diff["newText"], "the buffer says 44\n");
    // write_file too: the new file is the editor's (its folder is made on disk).
    let new_file = ws.join("sub/new.txt");
    assert_eq!(writes[1]["path"], json!(new_file));
    assert_eq!(writes[1]["content"], "fresh\n");
    assert!(
        !new_file.exists(),
        "the write went to the editor, not the disk"
    );
    let written = final_update(&edit, "toolu_write");
    assert_eq!(written["status"], "completed", "{ctx}");
    assert_eq!(written["content"][1]["newText"], "fresh\n");
    assert!(
        of_kind(&edit, "available_commands_update").is_empty(),
        "no command changed: nothing announced\n{ctx}"
    );

    // The command file written between prompts: announced once, with its description,
    // and it runs.
    let deploy = updates(&seen, "deploy");
    let announced = of_kind(&deploy, "available_commands_update");
    assert_eq!(announced.len(), 1, "{ctx}");
    let listed = announced[0]["availableCommands"].as_array().unwrap();
    let cmd = listed
        .iter()
        .find(|c| c["name"] == "deploy")
        .unwrap_or_else(|| panic!("deploy in {listed:?}"));
    assert_eq!(cmd["description"], "Deploy somewhere");
    assert!(cmd["input"].is_object(), "it takes arguments: {cmd}");
    assert!(
        requests[4].body_text.contains("Deploy to prod now"),
        "{}",
        requests[4].body_text
    );

    // "Always reject": offered with the proposed rule, written to the deny list where the
    // TUI writes allow rules; the same command is then refused without asking.
    let perms = seen["permissions"].as_array().unwrap();
    let touch: Vec<&Value> = perms
        .iter()
        .filter(|p| p["toolCall"]["rawInput"]["command"] == "touch build.log")
        .collect();
    assert_eq!(touch.len(), 1, "asked once, never again\n{ctx}");
    assert_eq!(touch[0]["phase"], "touch");
    let reject = touch[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "reject_always")
        .expect("reject_always offered");
    assert!(
        reject["name"].as_str().unwrap().contains("bash(touch:*)"),
        "{reject}"
    );
    let local = std::fs::read_to_string(ws.join(".tooloop/settings.local.toml")).unwrap();
    let parsed: toml::Table = toml::from_str(&local).unwrap();
    assert_eq!(
        parsed["permissions"]["deny"].as_array().unwrap(),
        &vec![toml::Value::String("bash(touch:*)".into())],
        "{local}"
    );
    assert!(!ws.join("build.log").exists());
    for (phase, id) in [("touch", "toolu_touch1"), ("again", "toolu_touch2")] {
        assert_eq!(
            final_update(&updates(&seen, phase), id)["status"],
            "failed",
            "{ctx}"
        );
    }
    let last = &requests.last().unwrap().body_text;
    assert!(last.contains("toolu_touch2"), "{last}");
    assert_eq!(server.pending(), 0, "every scripted reply was used");
}

//! Writes the fuzzers' seed inputs (fuzz/seeds/TARGET/) from the same builders the tests
//! use for the mock server's replies, so the fuzzers start from what a real stream looks
//! like. Run by hand before fuzzing a new target (FUZZING.md); ignored in the ordinary
//! suite, which replays the minimized corpora instead (tests/suite/fuzz/corpus.rs).

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::json;
use support::openai as oa;
use support::{Body, Reply, ReplyBuilder};

fn dir(target: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

fn body(reply: &Reply) -> Vec<u8> {
    match &reply.body {
        Body::Sse { events, .. } => events.iter().flat_map(|e| e.bytes.clone()).collect(),
        Body::Status { body, .. } => body.clone().into_bytes(),
        Body::Hang => Vec::new(),
    }
}

fn write(target: &str, name: &str, header: &[u8], bytes: &[u8]) {
    let mut data = header.to_vec();
    data.extend_from_slice(bytes);
    std::fs::write(dir(target).join(name), data).expect("write seed");
}

#[test]
#[ignore = "writes fuzz/seeds; run by hand (FUZZING.md)"]
fn write_seeds() {
    let anthropic = [
        (
            "text",
            ReplyBuilder::new().text("Hello there, world").build(),
        ),
        (
            "tools",
            ReplyBuilder::new()
                .text("Looking")
                .tool_use("toolu_a", "read_file", json!({"path": "Cargo.toml"}))
                .tool_use_fragments("toolu_b", "glob", &["{\"pat", "tern\": \"*.rs\"}"])
                .stop_reason("tool_use")
                .build(),
        ),
        (
            "thinking",
            ReplyBuilder::new()
                .thinking("hmm", "sig")
                .redacted_thinking("opaque")
                .text("ok")
                .build(),
        ),
        (
            "max_tokens",
            ReplyBuilder::new()
                .tool_use_fragments("toolu_c", "bash", &["{\"command\": \"l"])
                .stop_reason("max_tokens")
                .build(),
        ),
        (
            "error",
            ReplyBuilder::new()
                .text("partial")
                .error_after(3, "overloaded_error", "Overloaded"),
        ),
        ("dropped", ReplyBuilder::new().text("cut").drop_after(2)),
        (
            "malformed",
            ReplyBuilder::new().text("x").malformed_after(2),
        ),
        (
            "no_stop",
            ReplyBuilder::new().text("x").without_message_stop(),
        ),
    ];
    for (name, reply) in &anthropic {
        write("anthropic_sse", name, &[0, 0], &body(reply));
        write(
            "anthropic_sse",
            &format!("{name}_split"),
            &[7, 5],
            &body(reply),
        );
    }
    let openai = [
        ("text", oa::text_reply("Hello there")),
        (
            "calls",
            oa::calls_reply(&[
                ("call_a", "read_file", json!({"path": "a"})),
                ("call_1", "glob", json!({"pattern": "*"})),
            ]),
        ),
        (
            "error",
            Reply::sse(vec![
                oa::role(),
                oa::text("hi"),
                oa::error_event("server_error", "boom"),
            ]),
        ),
        (
            "no_done",
            Reply::sse(vec![
                oa::role(),
                oa::call(0, None, Some("glob"), Some("{}")),
                oa::finish("stop"),
            ]),
        ),
    ];
    for (name, reply) in &openai {
        write("openai_sse", name, &[0, 0, 0], &body(reply));
        write(
            "openai_sse",
            &format!("{name}_split"),
            &[9, 4, 0],
            &body(reply),
        );
    }
    let whole = json!({"model": "m", "choices": [{"index": 0, "message": {"content": "hi",
        "tool_calls": [{"index": 0, "id": "c", "function": {"name": "glob", "arguments": "{}"}}]},
        "finish_reason": "tool_calls"}]});
    write(
        "openai_sse",
        "json_body",
        &[0, 0, 1],
        whole.to_string().as_bytes(),
    );

    // Tool inputs from the tools' own tests, and the hostile paths of workspace.rs's.
    let inputs = [
        json!({"path": "sub/a.txt", "offset": 2, "limit": 3}),
        json!({"path": "sub/new/b.txt", "content": "x"}),
        json!({"path": "sub/../sub/a.txt", "old_string": "a\nb", "new_string": "a\nB", "replace_all": true}),
        json!({"pattern": "**/*.rs", "path": "in_link"}),
        json!({"pattern": "fn \\w+", "path": "src", "glob": "*.rs", "case_insensitive": true}),
        json!({"command": "ls -la\necho hi", "timeout_ms": 5}),
        json!({"url": "http://127.0.0.1:1/x", "max_bytes": 10}),
        json!({"timezone": "Europe/Paris"}),
        json!({"path": "../x"}),
        json!({"path": "/etc/passwd"}),
        json!({"path": "new/../../y"}),
        json!({"path": "etc_link/secret"}),
        json!({"path": "dangling"}),
    ];
    for (i, v) in inputs.iter().enumerate() {
        write(
            "tool_input",
            &format!("input_{i}"),
            &[],
            v.to_string().as_bytes(),
        );
    }
    write("tool_input", "raw_path", &[], b"sub/deeper/../a.txt");

    let markdown = [
        "# Title\n\nSome *emphasis*, `code` and a [link](http://x).\n\n- one\n- two\n  - nested\n\n> quoted\n> text\n",
        "```rust\nfn main() { println!(\"hi\"); }\n```\n",
        "| a | b |\n|---|---|\n| 中文 | é́ |\n",
        "1. first\n2. second with a very long line that must wrap somewhere around here\n\n---\n",
        "混合 English 和中文的段落，很长很长很长很长很长很长很长很长。\u{200b}zero\u{200d}width \u{202e}rtl\u{202c} \u{1b}[31mred\u{1b}[0m\t\ttab",
    ];
    for (i, m) in markdown.iter().enumerate() {
        write(
            "markdown_wrap",
            &format!("md_{i}"),
            &[i as u8 * 50 + 7],
            m.as_bytes(),
        );
        write("sanitize", &format!("text_{i}"), &[], m.as_bytes());
    }
    write(
        "sanitize",
        "escapes",
        &[],
        b"a\x1b]52;c;aGk=\x07b\x1b[2Jc\td\n\xc2\x9be\xe2\x80\xae!\xe2\x81\xa6",
    );
    write(
        "config_parse",
        "default",
        &[],
        tooloop::config_file::DEFAULT_CONFIG.as_bytes(),
    );
    write(
        "config_parse",
        "sections",
        &[],
        b"provider = \"openai\"\nmax_turns = 5\n[tools]\ntimeout_secs = 3\n[models.\"m\"]\ncontext_window = 1000\n[[hooks.pre_tool_use]]\nmatcher = \"bash\"\ncommand = \"true\"\n[mcp.servers.x]\ncommand = \"echo\"\n",
    );
    write(
        "config_parse",
        "permissions",
        &[],
        b"[permissions]\nallow = [\"bash(cargo test:*)\", \"edit_file(src/**)\"]\nask = [\"bash(git push:*)\"]\ndeny = [\"read_file(.env)\", \"mcp__fs__*\"]\n",
    );
    // bash_rules: byte 0 even = a free command line, odd = a payload before a redirection
    // outside the workspace (byte 1 picks which).
    let commands = [
        "cargo test && echo $(cat ~/.ssh/id_rsa)",
        "git status; ls `pwd`",
        "diff <(ls a) <(ls b)",
        "echo \"$(whoami)\" | tee out.txt",
        "cat <<EOF\n$(id)\nEOF",
        "rm -rf build",
        "ls -la src | grep rs",
    ];
    for (i, c) in commands.iter().enumerate() {
        write("bash_rules", &format!("free_{i}"), &[0, 0], c.as_bytes());
    }
    let payloads = [
        "echo hi",
        "cargo test -- --nocapture",
        "ls 'a b' \"c d\"",
        "rm -rf build",
        "git log --oneline | head",
        "echo a\\",
        "(cd sub && make)",
        "true &",
    ];
    for (i, p) in payloads.iter().enumerate() {
        write(
            "bash_rules",
            &format!("redirect_{i}"),
            &[1, (i * 37 % 256) as u8],
            p.as_bytes(),
        );
    }
}

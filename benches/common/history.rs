//! A long conversation for the TUI benches: ~2.2 MB of JSON at 10,000 messages.

use serde_json::json;
use tooloop::message::{ContentBlock, Message};

/// `n` messages in the rhythm of an agent session: prompt, answer + tool call, result, answer.
pub fn history(n: usize) -> Vec<Message> {
    let mut out = Vec::with_capacity(n);
    let mut k = 0;
    while out.len() < n {
        let id = format!("toolu_{k:06}");
        out.push(Message::user_text(format!(
            "Question {k}: why does the build fail in module {k}? Please look at the logs."
        )));
        out.push(Message::assistant(vec![
            ContentBlock::text(format!(
                "Let me check **module {k}**.\n\n```rust\nfn f{k}() -> u32 {{\n    {k}\n}}\n```\n"
            )),
            ContentBlock::ToolUse {
                id: id.clone(),
                name: "read_file".into(),
                input: json!({"path": format!("src/module_{k}.rs")}),
            },
        ]));
        let output: String = (0..6)
            .map(|l| format!("{l:>4}  let value_{l} = compute({k}, {l});\n"))
            .collect();
        out.push(Message::user(vec![ContentBlock::tool_result(
            &id, output, false,
        )]));
        out.push(Message::assistant(vec![ContentBlock::text(format!(
            "The function `f{k}` returns the wrong type; change `u32` to `u64` and it builds. \
             - first\n- second\n\nDone with step {k}."
        ))]));
        k += 1;
    }
    out.truncate(n);
    out
}

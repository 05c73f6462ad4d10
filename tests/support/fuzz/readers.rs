//! `html_text`, `hook_decision`, `agent_definition`, `command_file`, `mcp_result`: the
//! readers of what web pages, hook scripts, files in `.claude/`/`.tooloop/` and MCP servers
//! hand tooloop. Each reads anything without a panic and keeps its stated promises.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tooloop::agent::subagent::definitions;
use tooloop::hooks::decision::{HookDecision, interpret};
use tooloop::hooks::runner::HookProcess;
use tooloop::prompt::commands;

use super::MAX_INPUT;

/// byte 0 odd: the rest is wrapped in `<script>…</script>` (with any `</script` taken out),
/// and nothing of it may come out. Otherwise the page as it is. web_fetch's text: each line
/// trimmed with single spaces, no blank line at either end or two in a row, never more
/// characters than the page.
pub fn html_text(data: &[u8]) {
    if data.is_empty() || data.len() > MAX_INPUT {
        return;
    }
    let rest = String::from_utf8_lossy(&data[1..]);
    if data[0] % 2 == 1 {
        let inner = rest.replace("</script", "").replace("</SCRIPT", "");
        // Case-insensitive closers (`</ScRiPt`) would end it early: leave such inputs.
        if inner.to_ascii_lowercase().contains("</script") {
            return;
        }
        let page = format!("<p>before</p><script>{inner}</script><p>after</p>");
        let without = tooloop::tools::html::to_text("<p>before</p><p>after</p>");
        let text = tooloop::tools::html::to_text(&page);
        assert_eq!(text, without, "script content leaked from {page:?}");
        return;
    }
    let text = tooloop::tools::html::to_text(&rest);
    assert!(
        text.chars().count() <= rest.chars().count(),
        "{} characters out of {}",
        text.chars().count(),
        rest.chars().count()
    );
    let lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() {
        return;
    }
    assert!(!lines[0].is_empty(), "a leading blank line: {text:?}");
    assert!(
        !lines[lines.len() - 1].is_empty(),
        "a trailing blank line: {text:?}"
    );
    for pair in lines.windows(2) {
        assert!(
            !(pair[0].is_empty() && pair[1].is_empty()),
            "two blank lines in a row: {text:?}"
        );
    }
    for line in &lines {
        let squeezed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(*line, squeezed, "a line not squeezed in {text:?}");
    }
}

/// byte 0 picks how the hook ended (exit 0, 2, 1, 127, killed, timed out, cancelled, not
/// started); the rest is its stdout, then after a NUL its stderr. A hook that failed never
/// blocks; exit 2 always does; an Allow or a Stop comes only from a JSON answer that says so.
pub fn hook_decision(data: &[u8]) {
    if data.is_empty() || data.len() > MAX_INPUT {
        return;
    }
    let rest = &data[1..];
    let (out, err) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &rest[..0]),
    };
    let (stdout, stderr) = (
        String::from_utf8_lossy(out).into_owned(),
        String::from_utf8_lossy(err).into_owned(),
    );
    let how = data[0] % 8;
    let p = HookProcess {
        exit: match how {
            0 => Some(0),
            1 => Some(2),
            2 => Some(1),
            3 => Some(127),
            _ => None,
        },
        stdout: stdout.clone(),
        stderr,
        duration: Duration::from_millis(5),
        timed_out: how == 5,
        cancelled: how == 6,
        spawn_error: (how == 7).then(|| "no such file".to_string()),
    };
    let v = interpret(&p, data[0] & 0x80 != 0);
    if let Some(r) = &v.reason {
        assert!(!r.trim().is_empty(), "an empty reason");
    }
    // What the JSON answer says, read here on its own.
    let said = serde_json::from_str::<Value>(stdout.trim())
        .ok()
        .filter(|_| stdout.trim().starts_with('{'))
        .and_then(|j| {
            // `continue: false` beats every answer; then Claude Code's hookSpecificOutput
            // (permissionDecision, or PermissionRequest's decision.behavior), then `decision`.
            if j.get("continue") == Some(&Value::Bool(false)) {
                return Some("stop".to_string());
            }
            let specific = j.get("hookSpecificOutput").and_then(|s| {
                s.get("permissionDecision")
                    .and_then(Value::as_str)
                    .or_else(|| s.get("decision")?.get("behavior")?.as_str())
            });
            specific
                .or_else(|| j.get("decision").and_then(Value::as_str))
                .map(str::to_string)
        });
    match how {
        0 => match v.decision {
            HookDecision::Allow => assert!(
                matches!(said.as_deref(), Some("allow" | "approve")),
                "allowed without saying so: {stdout:?}"
            ),
            HookDecision::Deny => assert!(
                matches!(said.as_deref(), Some("deny" | "block")),
                "denied without saying so: {stdout:?}"
            ),
            HookDecision::Stop => {
                assert_eq!(said.as_deref(), Some("stop"), "stopped without saying so")
            }
            HookDecision::None => {}
        },
        1 => assert_eq!(v.decision, HookDecision::Deny, "exit 2 must block"),
        _ => assert_eq!(
            v.decision,
            HookDecision::None,
            "a hook that failed decided {:?}",
            v.decision
        ),
    }
}

/// An agent file: a definition whose prompt is what follows the front matter and whose name
/// is a slash word, or an error naming the file and a line of it.
pub fn agent_definition(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let path = Path::new("/agents/fuzz.md");
    match definitions::parse(path, &text) {
        Ok(d) => {
            assert!(!d.name.is_empty(), "an empty name");
            assert!(
                d.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                "name {:?}",
                d.name
            );
            assert!(d.max_turns != Some(0), "max_turns 0 accepted");
            // Lines are read as `str::lines` reads them: a CRLF file's prompt has `\n`.
            let unix = text.replace("\r\n", "\n");
            assert!(unix.contains(d.prompt.trim()), "a prompt not from the file");
            assert_eq!(d.source.as_deref(), Some(path));
        }
        Err(e) => {
            let lines = text.lines().count().max(1);
            assert!(
                (1..=lines + 1).contains(&e.line),
                "line {} of {lines}: {}",
                e.message,
                e.line
            );
            assert!(!e.message.is_empty());
            let shown = e.to_string();
            assert!(shown.contains("fuzz.md"), "{shown}");
        }
    }
}

/// A command file, written where tooloop looks and loaded as it would be: at most one
/// command, a one-line menu description of at most 120 characters with no control character,
/// a body without its front matter; `/fuzz ARGS` keeps what was typed.
pub fn command_file(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("tooloop-fuzz-commands-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("commands dir");
        d
    });
    std::fs::write(dir.join("fuzz.md"), data).expect("write command");
    let found = commands::load(std::slice::from_ref(dir), &["help"]);
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(
            found.is_empty(),
            "a file that is not UTF-8 became a command"
        );
        return;
    };
    assert_eq!(found.len(), 1, "one file, one command");
    let c = &found[0];
    assert_eq!(c.name, "fuzz");
    assert!(
        c.description.chars().count() <= 120,
        "{}",
        c.description.len()
    );
    assert!(
        !c.description.chars().any(char::is_control),
        "{:?}",
        c.description
    );
    assert!(text.contains(c.body.as_str()), "a body not from the file");
    let expanded = c.expand("ARG-xyz");
    assert!(
        expanded.contains("ARG-xyz"),
        "the arguments were dropped: {expanded:?}"
    );
}

/// An MCP `tools/call` result (JSON; bytes that are not are one text block): the tool's
/// output is never empty, is an error exactly when `isError` is true, and holds every text
/// block's text.
pub fn mcp_result(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let result: Value = serde_json::from_slice(data).unwrap_or_else(|_| {
        serde_json::json!({"content": [{"type": "text", "text": String::from_utf8_lossy(data)}]})
    });
    let out = tooloop::mcp::result::to_output(&result);
    assert!(!out.content.is_empty(), "an empty output for {result}");
    assert_eq!(
        out.is_error,
        result.get("isError") == Some(&Value::Bool(true)),
        "{result}"
    );
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if block.get("type").and_then(Value::as_str) == Some("text")
            && let Some(t) = block.get("text").and_then(Value::as_str)
        {
            assert!(
                out.content.contains(t),
                "text {t:?} missing from the output"
            );
        }
    }
}

/// One stdin line of `--input-format stream-json` (headless steering): a blank line is
/// nothing; a message's text is never blank and reads back the same when sent again as a
/// message of its own; anything else is an error of one line that says why.
pub fn stdin_message(data: &[u8]) {
    use tooloop::headless::stdin_messages::parse_line;
    if data.len() > MAX_INPUT {
        return;
    }
    let line = String::from_utf8_lossy(data);
    match parse_line(&line) {
        None => assert!(line.trim().is_empty(), "a line that says something skipped"),
        Some(Ok(text)) => {
            assert!(!text.trim().is_empty(), "a blank message");
            let again =
                serde_json::json!({"type": "user", "message": {"role": "user", "content": text}});
            assert_eq!(parse_line(&again.to_string()), Some(Ok(text)));
        }
        Some(Err(e)) => {
            let said = e.to_string();
            assert!(!said.is_empty() && !said.contains('\n'), "{said:?}");
        }
    }
}

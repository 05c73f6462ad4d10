//! What tooloop itself knows about the session, recorded as it happens rather than asked
//! of the model: the user's requests, the files tools changed and read, the commands run
//! and how they ended (DESIGN.md §12). A compaction restates these facts in its state
//! block ([`super::state_block`]), so they survive however poor the model's summary is.
//!
//! The facts are read from the messages as they join history (tool_use, then its
//! tool_result) and from the prompts, so a resumed session rebuilds them from its
//! transcript with the same code. Every list is bounded: a session of any length keeps a
//! few kilobytes here.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::message::{ContentBlock, Message, Role};
use crate::tools::{Effect, ToolRegistry};

/// Requests kept (the state block quotes at most this many).
pub const MAX_REQUESTS: usize = 20;
/// Earlier requests are cut at this many characters when a newer one arrives.
pub const EARLIER_REQUEST_CHARS: usize = 500;
/// Files read: the most recent paths, each once.
pub const MAX_FILES_READ: usize = 50;
/// Commands: the most recent runs.
pub const MAX_COMMANDS: usize = 20;
/// Files changed are all kept up to this many (the oldest are dropped beyond it).
pub const MAX_FILES_CHANGED: usize = 200;
/// A command line is cut at this many characters.
const COMMAND_CHARS: usize = 300;
/// An approved plan is kept up to this many characters (the state block cuts it further).
const PLAN_CHARS: usize = 20_000;

/// One request of the user, numbered from 1 in the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub number: usize,
    /// In full for the latest; earlier ones cut at [`EARLIER_REQUEST_CHARS`].
    pub text: String,
}

/// A file a tool changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// Relative to the workspace when inside it.
    pub path: String,
    /// The first change created it (it did not exist before the session touched it).
    pub created: bool,
    /// Successful editing calls that named it.
    pub edits: u32,
}

/// How a command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandStatus {
    Exit(i32),
    /// It did not exit by itself: timed out, killed, refused, interrupted (the first line
    /// of its result says which).
    Other(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandRun {
    pub command: String,
    pub status: CommandStatus,
}

/// The recorded facts of one session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionFacts {
    /// The last [`MAX_REQUESTS`] requests, oldest first.
    pub requests: Vec<Request>,
    /// Requests of the session so far (numbers continue across compactions).
    pub request_count: usize,
    /// In the order each file was first changed.
    pub files_changed: Vec<FileChange>,
    /// Oldest first; a path read again moves to the end.
    pub files_read: Vec<String>,
    /// Oldest first.
    pub commands: Vec<CommandRun>,
    /// The last plan the user approved (`exit_plan_mode` that ran with the approval).
    pub approved_plan: Option<String>,
    /// tool_use blocks waiting for their result: id → (tool name, input).
    pending: HashMap<String, (String, Value)>,
}

impl SessionFacts {
    /// Facts rebuilt from a transcript: its prompts and every message it holds (those that
    /// compactions replaced first), as a resumed session needs them.
    pub fn rebuild<'a>(
        prompts: &[String],
        messages: impl IntoIterator<Item = &'a Message>,
        tools: &ToolRegistry,
        root: &Path,
    ) -> SessionFacts {
        let mut facts = SessionFacts::default();
        for p in prompts {
            facts.record_request(p);
        }
        for m in messages {
            facts.observe(m, tools, root);
        }
        facts.pending.clear();
        facts
    }

    /// The user sent `text` (after the prompt hooks let it through).
    pub fn record_request(&mut self, text: &str) {
        if let Some(last) = self.requests.last_mut() {
            last.text = cut_chars(&last.text, EARLIER_REQUEST_CHARS);
        }
        self.request_count += 1;
        self.requests.push(Request {
            number: self.request_count,
            text: text.to_string(),
        });
        if self.requests.len() > MAX_REQUESTS {
            self.requests.remove(0);
        }
    }

    /// Forgets requests numbered `from` and later (a rewind to before prompt `from`).
    pub fn forget_requests_from(&mut self, from: usize) {
        self.requests.retain(|r| r.number < from);
        self.request_count = self.request_count.min(from.saturating_sub(1));
    }

    /// Reads what a message tells: the calls an assistant message asks for, and how the
    /// results in a user message say they went.
    pub fn observe(&mut self, message: &Message, tools: &ToolRegistry, root: &Path) {
        for block in &message.content {
            match block {
                ContentBlock::ToolUse { id, name, input } if message.role == Role::Assistant => {
                    // Unbounded only if results never come; a reply's calls are answered
                    // by the next message, so this holds one reply's calls at most.
                    if self.pending.len() > 1_000 {
                        self.pending.clear();
                    }
                    self.pending
                        .insert(id.clone(), (name.clone(), input.clone()));
                }
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => {
                    if let Some((name, input)) = self.pending.remove(tool_use_id) {
                        self.tool_ended(&name, &input, content, *is_error, tools, root);
                    }
                }
                _ => {}
            }
        }
    }

    fn tool_ended(
        &mut self,
        name: &str,
        input: &Value,
        output: &str,
        is_error: bool,
        tools: &ToolRegistry,
        root: &Path,
    ) {
        // The plan tool is a fact whatever the registry holds (it joins it in plan mode).
        if name == crate::tools::exit_plan_mode::EXIT_PLAN_MODE {
            if !is_error
                && output.starts_with(crate::tools::exit_plan_mode::APPROVED)
                && let Some(plan) = input.get("plan").and_then(Value::as_str)
            {
                self.approved_plan = Some(cut_chars(plan, PLAN_CHARS));
            }
            return;
        }
        let Some(registered) = tools.get(name) else {
            return;
        };
        let tool = &registered.tool;
        match tool.effect() {
            Effect::Edit if !is_error => {
                let paths = tool.paths(input);
                // write_file says "Created PATH" when the file was new.
                let created = paths.len() == 1 && output.starts_with("Created ");
                for p in paths {
                    self.changed(display_path(root, &p), created);
                }
            }
            Effect::Edit => {}
            Effect::ReadOnly => {
                if name == "read_file"
                    && !is_error
                    && let Some(p) = input.get("path").and_then(Value::as_str)
                {
                    self.read(display_path(root, p));
                }
            }
            Effect::Exec => {
                if let Some(cmd) = input.get("command").and_then(Value::as_str) {
                    self.command(cmd, command_status(output, is_error));
                }
            }
        }
    }

    fn changed(&mut self, path: String, created: bool) {
        match self.files_changed.iter_mut().find(|f| f.path == path) {
            Some(f) => f.edits += 1,
            None => {
                self.files_changed.push(FileChange {
                    path,
                    created,
                    edits: 1,
                });
                if self.files_changed.len() > MAX_FILES_CHANGED {
                    self.files_changed.remove(0);
                }
            }
        }
    }

    fn read(&mut self, path: String) {
        self.files_read.retain(|p| *p != path);
        self.files_read.push(path);
        if self.files_read.len() > MAX_FILES_READ {
            self.files_read.remove(0);
        }
    }

    fn command(&mut self, command: &str, status: CommandStatus) {
        let one_line = command.trim().replace('\n', " ⏎ ");
        self.commands.push(CommandRun {
            command: cut_chars(&one_line, COMMAND_CHARS),
            status,
        });
        if self.commands.len() > MAX_COMMANDS {
            self.commands.remove(0);
        }
    }
}

/// How a shell command ended, read from its result: bash ends its output with
/// `exit code N` (notes in brackets may follow); anything else is said by the first line.
fn command_status(output: &str, is_error: bool) -> CommandStatus {
    // A background start has not ended: say it started, and as which job.
    if !is_error && let Some(rest) = output.strip_prefix(crate::tools::bash_background::STARTED) {
        let id = rest.split_whitespace().next().unwrap_or("");
        return CommandStatus::Other(cut_chars(
            &format!("{}{id}", crate::tools::bash_background::STARTED),
            120,
        ));
    }
    for line in output.lines().rev().take(6) {
        if let Some(code) = line.trim().strip_prefix("exit code ")
            && let Ok(code) = code.trim().parse::<i32>()
        {
            return CommandStatus::Exit(code);
        }
    }
    if !is_error {
        return CommandStatus::Exit(0);
    }
    let line = output
        .lines()
        .rev()
        .find(|l| {
            let l = l.trim();
            l.starts_with("Error") || l.starts_with("[stopped") || l.starts_with("killed")
        })
        .or_else(|| output.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("failed");
    CommandStatus::Other(cut_chars(line.trim(), 120))
}

/// A path as the user thinks of it: relative to the workspace when inside it, `./` dropped.
fn display_path(root: &Path, path: &str) -> String {
    let p = Path::new(path);
    let shown = match p.strip_prefix(root) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string(),
    };
    let mut s = shown.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

/// The first `max` characters, with `…` when something was cut.
pub fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, input: Value) -> Message {
        Message::assistant(vec![ContentBlock::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }])
    }

    fn result(id: &str, content: &str, is_error: bool) -> Message {
        Message::user(vec![ContentBlock::tool_result(id, content, is_error)])
    }

    fn run(facts: &mut SessionFacts, name: &str, input: Value, out: &str, err: bool) {
        let tools = ToolRegistry::builtin();
        let root = Path::new("/ws");
        let id = format!("t{}", facts.commands.len() + facts.files_read.len() + 100);
        facts.observe(&call(&id, name, input), &tools, root);
        facts.observe(&result(&id, out, err), &tools, root);
    }

    #[test]
    fn only_a_plan_the_user_approved_is_kept() {
        let mut f = SessionFacts::default();
        let plan = |p: &str| json!({ "plan": p });
        // Headless plan mode hands it over: nobody approved it.
        let handed = "The plan was handed to the user for review. Stop here; do not start on it.";
        run(&mut f, "exit_plan_mode", plan("# A"), handed, false);
        assert_eq!(f.approved_plan, None);
        let refused = "The user did not approve the plan and wants you to keep planning";
        run(&mut f, "exit_plan_mode", plan("# B"), refused, true);
        assert_eq!(f.approved_plan, None);
        let approved = format!(
            "{}; tooloop is now in yolo mode.",
            crate::tools::exit_plan_mode::APPROVED
        );
        run(&mut f, "exit_plan_mode", plan("# C"), &approved, false);
        assert_eq!(f.approved_plan.as_deref(), Some("# C"));
        run(&mut f, "exit_plan_mode", plan("# D"), refused, true);
        assert_eq!(
            f.approved_plan.as_deref(),
            Some("# C"),
            "the last approved one stays"
        );
        run(&mut f, "exit_plan_mode", plan("# E"), &approved, false);
        assert_eq!(f.approved_plan.as_deref(), Some("# E"));
    }

    #[test]
    fn tool_calls_become_facts() {
        let mut f = SessionFacts::default();
        run(
            &mut f,
            "write_file",
            json!({"path": "/ws/src/new.rs", "content": "x"}),
            "Created src/new.rs (1 bytes)",
            false,
        );
        run(
            &mut f,
            "edit_file",
            json!({"path": "src/new.rs", "old_string": "x", "new_string": "y"}),
            "Edited src/new.rs",
            false,
        );
        run(
            &mut f,
            "edit_file",
            json!({"path": "./lib.rs", "old_string": "x", "new_string": "y"}),
            "Edited lib.rs",
            false,
        );
        run(
            &mut f,
            "edit_file",
            json!({"path": "gone.rs", "old_string": "x", "new_string": "y"}),
            "Error: no such file",
            true,
        );
        run(&mut f, "read_file", json!({"path": "a.rs"}), "1\tx", false);
        run(&mut f, "read_file", json!({"path": "b.rs"}), "1\tx", false);
        run(
            &mut f,
            "read_file",
            json!({"path": "./a.rs"}),
            "1\tx",
            false,
        );
        run(
            &mut f,
            "bash",
            json!({"command": "cargo test"}),
            "test failed\nexit code 101",
            true,
        );
        run(
            &mut f,
            "bash",
            json!({"command": "cargo test"}),
            "ok\nexit code 0\n[background processes the command left running were stopped]",
            false,
        );
        run(
            &mut f,
            "bash",
            json!({"command": "sleep 99"}),
            "(no output)\nError: timed out after 5 ms; the command and every process",
            true,
        );
        assert_eq!(
            f.files_changed,
            vec![
                FileChange {
                    path: "src/new.rs".into(),
                    created: true,
                    edits: 2
                },
                FileChange {
                    path: "lib.rs".into(),
                    created: false,
                    edits: 1
                },
            ]
        );
        assert_eq!(f.files_read, vec!["b.rs", "a.rs"]);
        let st: Vec<_> = f.commands.iter().map(|c| c.status.clone()).collect();
        assert_eq!(st[0], CommandStatus::Exit(101));
        assert_eq!(st[1], CommandStatus::Exit(0));
        assert!(
            matches!(&st[2], CommandStatus::Other(s) if s.starts_with("Error: timed out")),
            "{st:?}"
        );
    }

    #[test]
    fn requests_keep_the_latest_whole_and_cut_the_earlier() {
        let mut f = SessionFacts::default();
        let long = "é".repeat(2_000);
        f.record_request(&long);
        f.record_request(&long);
        assert_eq!(f.requests[1].text, long);
        assert_eq!(
            f.requests[0].text.chars().count(),
            EARLIER_REQUEST_CHARS + 1
        );
        for i in 0..30 {
            f.record_request(&format!("r{i}"));
        }
        assert_eq!(f.requests.len(), MAX_REQUESTS);
        assert_eq!(f.request_count, 32);
        assert_eq!(f.requests.last().unwrap().number, 32);
        f.forget_requests_from(31);
        assert_eq!(f.request_count, 30);
        assert_eq!(f.requests.last().unwrap().text, "r27");
    }

    #[test]
    fn lists_stay_bounded() {
        let mut f = SessionFacts::default();
        for i in 0..200 {
            run(
                &mut f,
                "read_file",
                json!({"path": format!("f{i}")}),
                "x",
                false,
            );
            run(
                &mut f,
                "bash",
                json!({"command": format!("echo {i}\nls")}),
                "exit code 0",
                false,
            );
        }
        assert_eq!(f.files_read.len(), MAX_FILES_READ);
        assert_eq!(f.files_read.last().unwrap(), "f199");
        assert_eq!(f.commands.len(), MAX_COMMANDS);
        assert_eq!(f.commands.last().unwrap().command, "echo 199 ⏎ ls");
    }
}

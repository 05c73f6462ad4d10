//! What tooloop itself knows about the session, recorded as it happens rather than asked
//! of the model: the user's requests, the files tools changed and read, the commands run
//! and how they ended (DESIGN.md §12). A compaction restates these facts in its state
//! block ([`super::state_block`]), so they survive however poor the model's summary is.
//!
//! The facts are read from the messages as they join history (tool_use, then its
//! tool_result) and from the prompts, so a resumed session rebuilds them from its
//! transcript with the same code. What a call tells, its tool states
//! ([`crate::tools::Tool::fact`],
//! beside the code that wrote the result): this module knows no tool's wording. Every list
//! is bounded: a session of any length keeps a few kilobytes here.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::message::{ContentBlock, Message, Role};
use crate::tools::ToolRegistry;
pub use crate::tools::fact::CommandStatus;
use crate::tools::fact::Fact;

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
        let fact = match tools.get(name) {
            Some(registered) => registered.tool.fact(input, output, is_error),
            // The plan tool joins the registry in plan mode only; its plan stays a fact.
            None if name == crate::tools::exit_plan_mode::EXIT_PLAN_MODE => {
                crate::tools::exit_plan_mode::plan_fact(input, output, is_error)
            }
            None => None,
        };
        match fact {
            Some(Fact::Changed { paths, created }) => {
                let created = created && paths.len() == 1;
                for p in paths {
                    self.changed(display_path(root, &p), created);
                }
            }
            Some(Fact::Read(path)) => self.read(display_path(root, &path)),
            Some(Fact::Command { command, status }) => {
                let status = match status {
                    CommandStatus::Other(line) => CommandStatus::Other(cut_chars(&line, 120)),
                    exit => exit,
                };
                self.command(&command, status)
            }
            Some(Fact::PlanApproved(plan)) => {
                self.approved_plan = Some(cut_chars(&plan, PLAN_CHARS))
            }
            None => {}
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
        let approved = crate::message::markers::tool_results::plan_approved("yolo");
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

    /// A tool tooloop has never heard of, with its own wording: its facts reach the state
    /// block through `Tool::fact`, live and when a saved history is read again.
    struct Deploy;

    #[async_trait::async_trait]
    impl crate::tools::Tool for Deploy {
        fn name(&self) -> &str {
            "deploy"
        }
        fn description(&self) -> &str {
            "ships a release"
        }
        fn input_schema(&self) -> Value {
            json!({"type": "object"})
        }
        fn effect(&self) -> crate::tools::Effect {
            crate::tools::Effect::Exec
        }
        async fn run(&self, _: Value, _: crate::tools::ToolContext) -> crate::tools::ToolOutput {
            unreachable!("only its results are read here")
        }
        fn fact(&self, input: &Value, output: &str, _is_error: bool) -> Option<Fact> {
            let target = input.get("target")?.as_str()?.to_string();
            if let Some(rc) = output.strip_prefix("shipped; rc=") {
                return Some(Fact::Command {
                    command: format!("deploy {target}"),
                    status: CommandStatus::Exit(rc.trim().parse().ok()?),
                });
            }
            output.starts_with("wrote manifest").then(|| Fact::Changed {
                paths: vec![format!("/ws/{target}.toml")],
                created: true,
            })
        }
    }

    #[test]
    fn a_tool_states_its_own_facts_for_the_state_block() {
        use super::super::state_block::{Latest, LiveState, build};
        let mut tools = ToolRegistry::new();
        tools.register(std::sync::Arc::new(Deploy));
        let root = Path::new("/ws");
        let history = vec![
            call("d1", "deploy", json!({"target": "prod"})),
            result("d1", "wrote manifest for prod", false),
            call("d2", "deploy", json!({"target": "prod"})),
            result("d2", "shipped; rc=7", true),
        ];
        let mut live = SessionFacts::default();
        for m in &history {
            live.observe(m, &tools, root);
        }
        let block = build(&live, &LiveState::default(), &|_| true, Latest::InTail).text;
        assert!(block.contains("- prod.toml: created (1 edit)"), "{block}");
        assert!(block.contains("- `deploy prod` → exit 7"), "{block}");
        // A resumed session reads the same facts from the saved messages.
        assert_eq!(SessionFacts::rebuild(&[], &history, &tools, root), live);
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

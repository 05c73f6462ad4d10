//! The state block a compaction appends after the model's summary: built here from what
//! tooloop recorded ([`SessionFacts`] and the session's live state), never from the
//! model's text, and rebuilt whole at every compaction, so it is never nested inside an
//! earlier one (DESIGN.md §12).

use crate::protocol::compaction::Kept;

use super::facts::{CommandStatus, SessionFacts, cut_chars};

/// One item of the todo list, as the todo tool keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TodoItem {
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
}

impl TodoItem {
    pub fn is_open(&self) -> bool {
        self.status != "completed"
    }
}

/// A background job of the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobItem {
    pub id: String,
    pub command: String,
    /// `running`, `exited with code N`, `killed`.
    pub state: String,
}

/// What the session holds besides the messages, read when the block is built: the todo
/// list and background jobs (owned by their tools), the approval mode and, in plan mode,
/// the approved plan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveState {
    pub todos: Vec<TodoItem>,
    pub jobs: Vec<JobItem>,
    pub approval_mode: String,
    pub plan: Option<String>,
}

/// The block's text (which `message::markers::summary` encloses in `<state>`) and what it kept.
#[derive(Clone, Debug, PartialEq)]
pub struct StateBlock {
    pub text: String,
    pub kept: Kept,
}

/// How the block quotes the latest request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latest {
    /// In full, up to this many characters (a request the size of the window would leave
    /// no room: its start and end are kept).
    Quote { max_chars: usize },
    /// It is in the messages kept verbatim after the summary: said, not repeated.
    InTail,
}

/// Builds the block. `exists` says whether a changed path is still there (a file that is
/// gone now is reported deleted).
pub fn build(
    facts: &SessionFacts,
    live: &LiveState,
    exists: &dyn Fn(&str) -> bool,
    latest: Latest,
) -> StateBlock {
    let latest_max_chars = match latest {
        Latest::Quote { max_chars } => max_chars,
        Latest::InTail => 2_000,
    };
    let mut out = String::from(
        "State of the session as tooloop recorded it (exact, not written by the model):\n",
    );
    let mut kept = Kept::default();

    if !facts.requests.is_empty() {
        let earlier = facts.request_count.saturating_sub(facts.requests.len());
        out.push_str("\n## The user's requests (oldest first; earlier ones cut at 500 characters");
        if earlier > 0 {
            out.push_str(&format!("; {earlier} older not shown"));
        }
        out.push_str(")\n");
        let last = facts.requests.len() - 1;
        for (i, r) in facts.requests.iter().enumerate() {
            let text = if i == last && latest == Latest::InTail {
                out.push_str(&format!(
                    "Request {} (latest): in full in the messages after this summary\n",
                    r.number
                ));
                continue;
            } else if i == last {
                out.push_str(&format!("Request {} (latest, in full):\n", r.number));
                head_and_tail(&r.text, latest_max_chars)
            } else {
                out.push_str(&format!("Request {}:\n", r.number));
                r.text.clone()
            };
            out.push_str(&format!("\"\"\"\n{text}\n\"\"\"\n"));
        }
        kept.requests = facts.requests.len();
    }

    if !facts.files_changed.is_empty() {
        out.push_str("\n## Files changed by tools since the session began\n");
        for f in &facts.files_changed {
            let edits = if f.edits == 1 {
                "1 edit".to_string()
            } else {
                format!("{} edits", f.edits)
            };
            let kind = if !exists(&f.path) {
                "deleted"
            } else if f.created {
                "created"
            } else {
                "edited"
            };
            out.push_str(&format!("- {}: {kind} ({edits})\n", f.path));
        }
        kept.files_changed = facts.files_changed.len();
    }

    if !facts.files_read.is_empty() {
        out.push_str("\n## Files read (most recent last)\n");
        out.push_str(&facts.files_read.join(", "));
        out.push('\n');
    }

    if !facts.commands.is_empty() {
        out.push_str("\n## Commands run (oldest first)\n");
        for c in &facts.commands {
            let status = match &c.status {
                CommandStatus::Exit(code) => format!("exit {code}"),
                CommandStatus::Other(s) => s.clone(),
            };
            out.push_str(&format!("- `{}` → {status}\n", c.command));
        }
        kept.commands = facts.commands.len();
    }

    if !live.todos.is_empty() {
        out.push_str("\n## Todo list (update it with todo_write)\n");
        for t in &live.todos {
            let mark = match t.status.as_str() {
                "completed" => "[x]",
                "in_progress" => "[>]",
                _ => "[ ]",
            };
            out.push_str(&format!("- {mark} {}\n", cut_chars(&t.content, 300)));
        }
        kept.todos = live.todos.iter().filter(|t| t.is_open()).count();
    }

    if !live.jobs.is_empty() {
        out.push_str("\n## Background jobs\n");
        for j in &live.jobs {
            out.push_str(&format!(
                "- {} `{}`: {}\n",
                j.id,
                cut_chars(&j.command, 200),
                j.state
            ));
        }
    }

    if !live.approval_mode.is_empty() {
        out.push_str(&format!("\n## Approval mode\n{}\n", live.approval_mode));
    }
    if let Some(plan) = live.plan.as_deref().filter(|p| !p.trim().is_empty()) {
        out.push_str(&format!(
            "\n## Approved plan\n{}\n",
            head_and_tail(plan, latest_max_chars)
        ));
    }
    StateBlock {
        text: out.trim_end().to_string(),
        kept,
    }
}

/// `text` whole if it has at most `max` characters, else its start and end with a note of
/// what was left out between them.
fn head_and_tail(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max / 2).collect();
    let tail: String = text.chars().skip(n - max / 2).collect();
    format!(
        "{head}\n[… {} characters left out …]\n{tail}",
        n - head.chars().count() - tail.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::context::facts::{CommandRun, FileChange};

    fn facts() -> SessionFacts {
        let mut f = SessionFacts::default();
        f.record_request(&format!("first {}", "a".repeat(600)));
        f.record_request("second\nwith two lines");
        f.files_changed = vec![
            FileChange {
                path: "src/a.rs".into(),
                created: false,
                edits: 3,
            },
            FileChange {
                path: "src/new.rs".into(),
                created: true,
                edits: 1,
            },
            FileChange {
                path: "old.txt".into(),
                created: false,
                edits: 1,
            },
        ];
        f.files_read = vec!["README.md".into()];
        f.commands = vec![
            CommandRun {
                command: "cargo test".into(),
                status: CommandStatus::Exit(101),
            },
            CommandRun {
                command: "cargo test".into(),
                status: CommandStatus::Exit(0),
            },
        ];
        f
    }

    #[test]
    fn the_block_states_every_fact() {
        let live = LiveState {
            todos: vec![
                TodoItem {
                    content: "write the parser".into(),
                    status: "completed".into(),
                },
                TodoItem {
                    content: "测试 the parser".into(),
                    status: "in_progress".into(),
                },
                TodoItem {
                    content: "docs".into(),
                    status: "pending".into(),
                },
            ],
            jobs: vec![JobItem {
                id: "b1".into(),
                command: "npm run dev".into(),
                state: "running".into(),
            }],
            approval_mode: "plan".into(),
            plan: Some("1. read\n2. write".into()),
        };
        let b = build(
            &facts(),
            &live,
            &|p| p != "old.txt",
            Latest::Quote { max_chars: 10_000 },
        );
        let t = &b.text;
        assert!(t.contains("Request 2 (latest, in full):\n\"\"\"\nsecond\nwith two lines\n"));
        assert!(t.contains(&format!("Request 1:\n\"\"\"\nfirst {}…", "a".repeat(494))));
        assert!(t.contains("- src/a.rs: edited (3 edits)"));
        assert!(t.contains("- src/new.rs: created (1 edit)"));
        assert!(t.contains("- old.txt: deleted (1 edit)"));
        assert!(t.contains("README.md"));
        assert!(t.contains("- `cargo test` → exit 101\n- `cargo test` → exit 0"));
        assert!(t.contains("- [x] write the parser\n- [>] 测试 the parser\n- [ ] docs"));
        assert!(t.contains("- b1 `npm run dev`: running"));
        assert!(t.contains("## Approval mode\nplan"));
        assert!(t.contains("## Approved plan\n1. read\n2. write"));
        assert_eq!(
            b.kept,
            Kept {
                requests: 2,
                files_changed: 3,
                commands: 2,
                todos: 2
            }
        );
    }

    #[test]
    fn empty_parts_are_left_out_and_a_huge_latest_request_is_bounded() {
        let mut f = SessionFacts::default();
        f.record_request(&"x".repeat(100_000));
        let b = build(
            &f,
            &LiveState::default(),
            &|_| true,
            Latest::Quote { max_chars: 1_000 },
        );
        assert!(b.text.len() < 1_300, "{}", b.text.len());
        assert!(b.text.contains("99000 characters left out"));
        let b = build(&f, &LiveState::default(), &|_| true, Latest::InTail);
        assert!(
            b.text
                .contains("Request 1 (latest): in full in the messages after")
        );
        assert!(!b.text.contains("xxx"));
        assert!(!b.text.contains("Files changed"));
        assert!(!b.text.contains("Todo"));
        assert_eq!(b.kept.requests, 1);
    }
}

//! Reading a transcript back: tolerate what a crash leaves behind, refuse what is damaged.

use std::path::Path;

use crate::message::{ContentBlock, Message, Role, validate_history};

use super::prompt_marks::PromptMark;
use super::transcript_line::{self, Header, Record};
use crate::message::markers::INTERRUPTED_TOOL;
use crate::protocol::session_error::SessionError;

/// A transcript as read from disk.
#[derive(Debug)]
pub struct Loaded {
    pub header: Header,
    pub messages: Vec<Message>,
    pub prompts: Vec<String>,
    /// Where each prompt in `prompts` began, for rewinds.
    pub marks: Vec<PromptMark>,
    pub turns: u32,
    /// Bytes of the file that hold complete records; a torn tail lies beyond.
    pub good_len: u64,
    /// The last record is complete but its newline never made it to disk.
    pub missing_newline: bool,
    /// What the user should hear about (a dropped partial line).
    pub notices: Vec<String>,
    /// The messages that compactions replaced, oldest first: no longer sent to the model,
    /// still in the file, shown dimmed above the "compacted" divider.
    pub earlier: Vec<Message>,
    /// How each tool call ran, by tool_use id (transcripts before this was kept have none).
    pub timings: std::collections::HashMap<String, crate::protocol::status::ToolTiming>,
    /// The background jobs it recorded, as last seen, in the order they started.
    pub jobs: Vec<crate::background::JobInfo>,
    /// The todo list as last recorded (empty when the session never had one).
    pub todos: Vec<crate::todo::TodoItem>,
    /// Each subagent's conversation, in the order they started.
    pub agents: Vec<ChildHistory>,
    /// The provider (None in older transcripts) and model of the last prompt.
    pub last_run: Option<(Option<String>, String)>,
    /// How the last prompt ended (`model_error`, `completed`…); None if it never ended.
    pub last_end: Option<String>,
}

/// A subagent's conversation as its transcript records kept it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChildHistory {
    pub agent_id: String,
    /// The `task` call of the parent that started it.
    pub parent_tool_use_id: String,
    pub agent: String,
    pub messages: Vec<Message>,
    /// How its calls ran, by its own tool_use ids (transcripts before this was kept have none).
    pub timings: std::collections::HashMap<String, crate::protocol::status::ToolTiming>,
    /// How it ended (None in older transcripts, or when it never ended).
    pub end: Option<crate::protocol::status::AgentEnded>,
}

/// Reads `path`. A torn last line (a crash mid-write) is dropped with a notice; a bad line
/// anywhere else, a missing header or messages out of order are errors.
pub fn read(path: &Path) -> Result<Loaded, SessionError> {
    let bytes = std::fs::read(path).map_err(|source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&bytes, path)
}

pub fn parse(bytes: &[u8], path: &Path) -> Result<Loaded, SessionError> {
    let shown = path.display();
    let bad = |line: usize, problem: String| SessionError::BadLine {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let mut header: Option<Header> = None;
    let mut messages = Vec::new();
    let mut earlier = Vec::new();
    let mut prompts = Vec::new();
    let mut marks: Vec<PromptMark> = Vec::new();
    let mut turns = 0u32;
    let mut notices = Vec::new();
    let mut good_len = 0u64;
    let mut missing_newline = false;
    let mut timings = std::collections::HashMap::new();
    let mut agents: Vec<ChildHistory> = Vec::new();
    let mut jobs: Vec<crate::background::JobInfo> = Vec::new();
    let mut todos = Vec::new();
    let mut last_run = None;
    let mut last_end = None;
    let mut offset = 0usize;
    let mut line_no = 0usize;
    while offset < bytes.len() {
        line_no += 1;
        let (line, next, complete) = match bytes[offset..].iter().position(|&b| b == b'\n') {
            Some(i) => (&bytes[offset..offset + i], offset + i + 1, true),
            None => (&bytes[offset..], bytes.len(), false),
        };
        let parsed = std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|s| serde_json::from_str::<Record>(s).map_err(|e| e.to_string()));
        let rec = match parsed {
            _ if line.iter().all(u8::is_ascii_whitespace) => None,
            Ok(rec) => Some(rec),
            Err(_) if !complete => {
                notices.push(format!(
                    "{shown}: dropped a partial line at the end (line {line_no}, {} bytes): \
                     tooloop stopped while writing it",
                    line.len()
                ));
                break;
            }
            Err(e) => return Err(bad(line_no, format!("not a transcript record: {e}"))),
        };
        match rec {
            None => {}
            Some(Record::Header(h)) if header.is_none() => header = Some(h),
            Some(_) if header.is_none() => {
                return Err(bad(line_no, "not a tooloop transcript (no header)".into()));
            }
            Some(Record::Header(_)) => {
                return Err(bad(line_no, "a second header".into()));
            }
            Some(Record::Message {
                index,
                message,
                tools,
            }) => {
                transcript_line::apply(&mut messages, index, message)
                    .map_err(|e| bad(line_no, e.to_string()))?;
                timings.extend(tools.into_iter().map(|t| (t.id.clone(), t)));
            }
            // Prompts before a compaction boundary keep their marks; a conversation rewind to
            // one of them is checked (and refused) when the cut would not be a valid history.
            Some(Record::Compaction {
                messages: after, ..
            }) => {
                // What the boundary replaced: everything before it but the kept tail, which
                // `after` repeats after its summary.
                let cut = replaced_count(&messages, &after);
                earlier.extend(messages.drain(..cut));
                messages = after;
            }
            Some(Record::PromptStart {
                prompt,
                time,
                model,
                provider,
            }) => {
                marks.push(PromptMark::new(&messages, time));
                prompts.push(prompt);
                last_end = None;
                last_run = Some((provider, model));
            }
            Some(Record::PromptEnd {
                turns: t, reason, ..
            }) => {
                last_end = Some(reason);
                turns = turns.saturating_add(t);
                if let Some(m) = marks.last_mut() {
                    m.turns = m.turns.saturating_add(t);
                }
            }
            Some(Record::AgentMessage {
                agent_id,
                parent_tool_use_id,
                agent,
                index,
                message,
                tools,
                end,
            }) => {
                let pos = match agents.iter().position(|a| a.agent_id == agent_id) {
                    Some(p) => p,
                    None => {
                        agents.push(ChildHistory {
                            agent_id,
                            parent_tool_use_id,
                            agent,
                            messages: Vec::new(),
                            timings: Default::default(),
                            end: None,
                        });
                        agents.len() - 1
                    }
                };
                let child = &mut agents[pos];
                transcript_line::apply(&mut child.messages, index, message)
                    .map_err(|e| bad(line_no, e.to_string()))?;
                child
                    .timings
                    .extend(tools.into_iter().map(|t| (t.id.clone(), t)));
                if end.is_some() {
                    child.end = end;
                }
            }
            Some(Record::Todos { todos: list, .. }) => todos = list,
            Some(Record::Rewind(r)) => {
                super::prompt_marks::replay(&r, &mut messages, &mut prompts, &mut marks)
                    .map_err(|e| bad(line_no, e.to_string()))?
            }
            Some(Record::Background { job, .. }) => {
                match jobs
                    .iter_mut()
                    .find(|j: &&mut crate::background::JobInfo| j.shell_id == job.shell_id)
                {
                    Some(seen) => *seen = job,
                    None => jobs.push(job),
                }
            }
        }
        good_len = next as u64;
        missing_newline = !complete;
        offset = next;
    }
    let header = header.ok_or_else(|| SessionError::Empty {
        path: path.to_path_buf(),
    })?;
    Ok(Loaded {
        last_end,
        header,
        messages,
        prompts,
        marks,
        turns,
        good_len,
        missing_newline,
        notices,
        earlier,
        timings,
        agents,
        jobs,
        todos,
        last_run,
    })
}

/// How many messages at the front of `before` a compaction that left `after` replaced:
/// all but the tail that `after` repeats after its summary. The TUI's `/export` splits the
/// same way, so it agrees with `tooloop export`.
pub fn replaced_count<A, B>(before: &[A], after: &[B]) -> usize
where
    A: std::borrow::Borrow<Message>,
    B: std::borrow::Borrow<Message>,
{
    let kept = after
        .iter()
        .rev()
        .zip(before.iter().rev())
        .take_while(|(a, b)| a.borrow() == b.borrow())
        .count();
    before.len() - kept
}

/// Makes a loaded history fit to continue: tool_uses left unanswered by a crash get an
/// is_error result. Returns the message it appended, if any, so the transcript records it
/// too; Err when the history breaks the invariants in a way no crash explains.
pub fn repair(messages: &mut Vec<Message>) -> Result<Option<Message>, SessionError> {
    let mut appended = None;
    if let Some(last) = messages.last()
        && last.role == Role::Assistant
    {
        let results: Vec<ContentBlock> = last
            .tool_uses()
            .map(|(id, _, _)| ContentBlock::tool_result(id, INTERRUPTED_TOOL, true))
            .collect();
        if !results.is_empty() {
            let answer = Message::user(results);
            messages.push(answer.clone());
            appended = Some(answer);
        }
    }
    validate_history(messages).map_err(SessionError::Damaged)?;
    Ok(appended)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn header() -> String {
        json!({"type":"header","id":"abcd1234","created":"2026-12-01T06:30:12Z",
               "workspace":"/w","tooloop_version":"0.1.0","format":1})
        .to_string()
    }

    fn msg(index: usize, m: Message) -> String {
        serde_json::to_string(&Record::Message {
            index,
            message: m,
            tools: Vec::new(),
        })
        .expect("serializes")
    }

    fn tool_use_reply() -> Message {
        Message::assistant(vec![
            ContentBlock::text("looking"),
            ContentBlock::ToolUse {
                id: "t1".into(),
                name: "list_dir".into(),
                input: json!({}),
            },
            ContentBlock::ToolUse {
                id: "t2".into(),
                name: "glob".into(),
                input: json!({"pattern": "*"}),
            },
        ])
    }

    #[test]
    fn an_extension_record_replaces_the_last_message() {
        let mut extended = Message::user_text("first");
        extended.content.push(ContentBlock::text("second"));
        let text = format!(
            "{}\n{}\n{}\n",
            header(),
            msg(0, Message::user_text("first")),
            msg(0, extended.clone())
        );
        let l = parse(text.as_bytes(), Path::new("t.jsonl")).expect("loads");
        assert_eq!(l.messages, vec![extended]);
        assert!(l.notices.is_empty());
        assert_eq!(l.good_len, text.len() as u64);
    }

    #[test]
    fn a_torn_last_line_is_dropped_with_a_notice() {
        let good = format!("{}\n{}\n", header(), msg(0, Message::user_text("hi")));
        let text = format!("{good}{{\"type\":\"message\",\"index\":1,\"mess");
        let l = parse(text.as_bytes(), Path::new("t.jsonl")).expect("loads");
        assert_eq!(l.messages, vec![Message::user_text("hi")]);
        assert_eq!(l.good_len, good.len() as u64);
        assert!(
            l.notices[0].contains("dropped a partial line"),
            "{:?}",
            l.notices
        );
    }

    #[test]
    fn a_complete_last_line_without_newline_is_kept() {
        let text = format!("{}\n{}", header(), msg(0, Message::user_text("hi")));
        let l = parse(text.as_bytes(), Path::new("t.jsonl")).expect("loads");
        assert_eq!(l.messages.len(), 1);
        assert!(l.missing_newline);
        assert!(l.notices.is_empty());
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error() {
        let text = format!(
            "{}\ngarbage\n{}\n",
            header(),
            msg(0, Message::user_text("x"))
        );
        let e = parse(text.as_bytes(), Path::new("t.jsonl"))
            .expect_err("damaged")
            .to_string();
        assert!(e.starts_with("t.jsonl:2: not a transcript record"), "{e}");
    }

    #[test]
    fn out_of_order_records_are_an_error() {
        let text = format!("{}\n{}\n", header(), msg(3, Message::user_text("x")));
        let e = parse(text.as_bytes(), Path::new("t.jsonl"))
            .expect_err("gap")
            .to_string();
        assert!(e.contains("index 3"), "{e}");
    }

    #[test]
    fn unanswered_tool_uses_are_answered_as_interrupted() {
        let mut history = vec![Message::user_text("list"), tool_use_reply()];
        let added = repair(&mut history).expect("repairs").expect("appends");
        assert_eq!(history.len(), 3);
        assert_eq!(
            added.content,
            vec![
                ContentBlock::tool_result("t1", INTERRUPTED_TOOL, true),
                ContentBlock::tool_result("t2", INTERRUPTED_TOOL, true),
            ]
        );
        validate_history(&history).expect("valid after repair");
    }

    #[test]
    fn a_history_ending_in_a_user_message_needs_nothing() {
        let mut history = vec![Message::user_text("hello")];
        assert_eq!(repair(&mut history).expect("valid"), None);
        assert_eq!(history.len(), 1);
    }

    #[test]
    fn damage_a_crash_cannot_explain_is_refused() {
        let mut history = vec![tool_use_reply()];
        let e = repair(&mut history)
            .expect_err("starts with assistant")
            .to_string();
        assert!(e.contains("damaged"), "{e}");
    }
}

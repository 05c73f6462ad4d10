//! The history's invariants (DESIGN.md §4): alternation from a user message, every tool_use
//! answered exactly once in the very next message with its results first, unique ids. The
//! whole-history check for loaded sessions and tests, and the per-message one the loop runs.

use std::borrow::Borrow;
use std::collections::HashSet;

use super::{ContentBlock, Message, Role};

/// A broken invariant, with the index of the message where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    #[error("messages[0] must be a user message")]
    FirstNotUser,
    #[error("messages[{0}]: roles must alternate (two {1:?} messages in a row)")]
    NotAlternating(usize, Role),
    #[error("messages[{0}]: content is empty")]
    EmptyContent(usize),
    #[error("messages[{0}]: tool_use id {1:?} is used more than once")]
    DuplicateToolUseId(usize, String),
    #[error("messages[{0}]: tool_use {1:?} has no tool_result in the next message")]
    UnansweredToolUse(usize, String),
    #[error(
        "messages[{0}]: tool_result for {1:?} has no matching tool_use in the previous message"
    )]
    OrphanToolResult(usize, String),
    #[error("messages[{0}]: tool_use {1:?} is answered more than once")]
    DuplicateToolResult(usize, String),
    #[error(
        "messages[{0}]: the tool_result for {1:?} follows other content; tool_result blocks come first"
    )]
    ResultAfterOtherContent(usize, String),
    #[error("messages[{0}]: a tool_result block must not appear in an assistant message")]
    ResultInAssistant(usize),
    #[error("messages[{0}]: a tool_use block must not appear in a user message")]
    ToolUseInUser(usize),
}

/// Checks DESIGN.md §4 (1–3): alternation starting with the user, every tool_use answered
/// exactly once in the very next message, unique ids, no orphan results.
///
/// A trailing assistant message whose tool_uses are not yet answered is an error too: the
/// history as sent to the API must never end that way.
///
/// This walks the whole history; the loop checks each new message with [`HistoryCheck`]
/// instead, and this stays for tests, loaded sessions and the scripted provider.
pub fn validate_history<M: Borrow<Message>>(messages: &[M]) -> Result<(), HistoryError> {
    let mut check = HistoryCheck::default();
    for i in 0..messages.len() {
        check.message(messages, i)?;
    }
    check_ready(messages)
}

/// The history may be sent as it is: it does not end with unanswered tool_uses.
pub fn check_ready<M: Borrow<Message>>(messages: &[M]) -> Result<(), HistoryError> {
    if let Some(last) = messages.last().map(Borrow::borrow)
        && last.role == Role::Assistant
        && let Some((id, _, _)) = last.tool_uses().next()
    {
        return Err(HistoryError::UnansweredToolUse(
            messages.len() - 1,
            id.to_string(),
        ));
    }
    Ok(())
}

/// Incremental validation: checks one message against the one before it, so a growing
/// history costs the size of its newest message, not its length. Remembers the tool_use ids
/// seen so far (they must be unique across the whole history).
#[derive(Clone, Debug, Default)]
pub struct HistoryCheck {
    ids: HashSet<String>,
}

impl HistoryCheck {
    /// Whether a tool_use with this id is already in the history.
    pub fn knows(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Checks the blocks from `from` on of assistant message `msg` (at `i`), which
    /// continue a paused reply: the blocks before them were checked already.
    pub fn continued(&mut self, msg: &Message, from: usize, i: usize) -> Result<(), HistoryError> {
        for block in msg.content.iter().skip(from) {
            match block {
                ContentBlock::ToolResult { .. } => return Err(HistoryError::ResultInAssistant(i)),
                ContentBlock::ToolUse { id, .. } if !self.ids.insert(id.clone()) => {
                    return Err(HistoryError::DuplicateToolUseId(i, id.clone()));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks `messages[i]` (just appended, or a user message just extended) against
    /// `messages[i - 1]`.
    pub fn message<M: Borrow<Message>>(
        &mut self,
        messages: &[M],
        i: usize,
    ) -> Result<(), HistoryError> {
        let Some(msg) = messages.get(i).map(Borrow::borrow) else {
            return Ok(());
        };
        let prev = i
            .checked_sub(1)
            .and_then(|p| messages.get(p))
            .map(Borrow::borrow);
        if i == 0 && msg.role != Role::User {
            return Err(HistoryError::FirstNotUser);
        }
        if prev.is_some_and(|p| p.role == msg.role) {
            return Err(HistoryError::NotAlternating(i, msg.role));
        }
        if msg.content.is_empty() {
            return Err(HistoryError::EmptyContent(i));
        }
        match msg.role {
            Role::Assistant => {
                if msg
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
                {
                    return Err(HistoryError::ResultInAssistant(i));
                }
                for (id, _, _) in msg.tool_uses() {
                    if !self.ids.insert(id.to_string()) {
                        return Err(HistoryError::DuplicateToolUseId(i, id.to_string()));
                    }
                }
                Ok(())
            }
            Role::User => check_answers(prev, msg, i),
        }
    }
}

/// A user message answers every tool_use of the message before it exactly once, and nothing
/// else.
fn check_answers(prev: Option<&Message>, msg: &Message, i: usize) -> Result<(), HistoryError> {
    if msg
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolUse { .. }))
    {
        return Err(HistoryError::ToolUseInUser(i));
    }
    let asked: Vec<&str> = prev
        .map(|p| p.tool_uses().map(|(id, _, _)| id).collect())
        .unwrap_or_default();
    let mut answered: HashSet<&str> = HashSet::new();
    // The API takes a result as answering only in the run of tool_result blocks that opens
    // the message; text before it leaves the tool_use unanswered (a 400).
    let mut other_before = false;
    for block in &msg.content {
        let ContentBlock::ToolResult { tool_use_id, .. } = block else {
            other_before = true;
            continue;
        };
        if !asked.contains(&tool_use_id.as_str()) {
            return Err(HistoryError::OrphanToolResult(i, tool_use_id.clone()));
        }
        if !answered.insert(tool_use_id) {
            return Err(HistoryError::DuplicateToolResult(i, tool_use_id.clone()));
        }
        if other_before {
            return Err(HistoryError::ResultAfterOtherContent(
                i,
                tool_use_id.clone(),
            ));
        }
    }
    if let Some(missing) = asked.iter().find(|id| !answered.contains(*id)) {
        return Err(HistoryError::UnansweredToolUse(i - 1, missing.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_use(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "read_file".into(),
            input: json!({"path": "a"}),
        }
    }

    #[test]
    fn valid_round_trip_passes() {
        let h = vec![
            Message::user_text("hi"),
            Message::assistant(vec![
                ContentBlock::text("ok"),
                tool_use("t1"),
                tool_use("t2"),
            ]),
            Message::user(vec![
                ContentBlock::tool_result("t1", "x", false),
                ContentBlock::tool_result("t2", "y", true),
            ]),
            Message::assistant(vec![ContentBlock::text("done")]),
        ];
        assert_eq!(validate_history(&h), Ok(()));
    }

    /// Text after the results is fine (the interrupt marker, a prompt sent along with them).
    #[test]
    fn text_after_the_results_passes() {
        let h = vec![
            Message::user_text("hi"),
            Message::assistant(vec![tool_use("t1")]),
            Message::user(vec![
                ContentBlock::tool_result("t1", "x", false),
                ContentBlock::text("[interrupted by user]"),
            ]),
        ];
        assert_eq!(validate_history(&h), Ok(()));
    }

    #[test]
    fn each_broken_rule_is_named() {
        let cases: Vec<(Vec<Message>, HistoryError)> = vec![
            (
                vec![Message::assistant(vec![ContentBlock::text("x")])],
                HistoryError::FirstNotUser,
            ),
            (
                vec![Message::user_text("a"), Message::user_text("b")],
                HistoryError::NotAlternating(1, Role::User),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user_text("b"),
                ],
                HistoryError::UnansweredToolUse(1, "t1".into()),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                ],
                HistoryError::UnansweredToolUse(1, "t1".into()),
            ),
            (
                vec![Message::user(vec![ContentBlock::tool_result(
                    "zz", "x", false,
                )])],
                HistoryError::OrphanToolResult(0, "zz".into()),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user(vec![
                        ContentBlock::tool_result("t1", "x", false),
                        ContentBlock::tool_result("t1", "x", false),
                    ]),
                ],
                HistoryError::DuplicateToolResult(2, "t1".into()),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user(vec![ContentBlock::tool_result("t1", "x", false)]),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user(vec![ContentBlock::tool_result("t1", "x", false)]),
                ],
                HistoryError::DuplicateToolUseId(3, "t1".into()),
            ),
            (
                vec![Message::user_text("a"), Message::assistant(vec![])],
                HistoryError::EmptyContent(1),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1"), tool_use("t2")]),
                    Message::user(vec![
                        ContentBlock::tool_result("t1", "x", false),
                        ContentBlock::text("typed while it ran"),
                        ContentBlock::tool_result("t2", "x", false),
                    ]),
                ],
                HistoryError::ResultAfterOtherContent(2, "t2".into()),
            ),
        ];
        for (history, want) in cases {
            assert_eq!(validate_history(&history), Err(want.clone()));
            // Checked one message at a time, the same break is found.
            let mut check = HistoryCheck::default();
            let found = (0..history.len())
                .try_for_each(|i| check.message(&history, i))
                .and_then(|()| check_ready(&history));
            assert_eq!(found, Err(want));
        }
    }
}

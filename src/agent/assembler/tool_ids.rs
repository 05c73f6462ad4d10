//! A tool_use id the history can hold: model output is untrusted, and an id already used
//! (earlier in the history or in this reply) or none at all would break the history (the
//! API refuses duplicates), so such a block gets a fresh id. The model never sees the
//! difference.

use super::Assembler;
use crate::provider::{BlockKind, StreamEvent};

impl Assembler {
    /// `event` with a tool_use id no earlier block has: `known` says whether the history
    /// before this reply already uses an id, the assembler knows this reply's own. Every
    /// other event passes unchanged. The loop calls this on each event before
    /// [`Assembler::push`].
    pub fn with_unique_tool_id(
        &self,
        event: StreamEvent,
        known: impl Fn(&str) -> bool,
    ) -> StreamEvent {
        let StreamEvent::BlockStart {
            index,
            kind: kind @ BlockKind::ToolUse,
            id,
            name,
        } = event
        else {
            return event;
        };
        let taken = |id: &str| id.is_empty() || known(id) || self.has_tool_id(id);
        let id = id.unwrap_or_default();
        let id = if taken(&id) {
            let base = if id.is_empty() { "toolu_tooloop" } else { &id };
            let fresh = (2..)
                .map(|n| format!("{base}_{n}"))
                .find(|c| !taken(c))
                .unwrap_or_default();
            tracing::warn!("the model reused tool_use id {id:?}; it is {fresh:?} in history");
            fresh
        } else {
            id
        };
        StreamEvent::BlockStart {
            index,
            kind,
            id: Some(id),
            name,
        }
    }
}

//! `delta.tool_calls` fragments → tool_use block start / input delta / stop events, each call
//! stopped the moment it is complete so the executor can start it while the stream goes on.
//!
//! Servers differ in how they cut a call into fragments. The rules, in order:
//! - Fragments are keyed by `index` (missing: the fragment's position in its array).
//! - One call is open at a time. A fragment for another index completes the open call, as
//!   does the end of the choice or of the stream. Servers that interleave two calls'
//!   fragments are not supported: a late fragment with arguments is a malformed stream.
//! - At the same index, a fragment starts a new call when it carries an `id` different
//!   from the open call's, or an `id` after the open call's arguments began without one, or
//!   a name plus arguments while the open call's arguments are already whole JSON (servers
//!   that send whole calls without ids), or a different name after the arguments began.
//! - A name fragment that equals or extends the name so far replaces it (servers that send
//!   the whole name in every fragment, or cumulatively); any other one is appended (servers
//!   that stream the name in pieces). Names always come before arguments, so the block
//!   starts (id and name announced, with the arguments so far) with the first arguments
//!   fragment once a name is known, or at completion.
//! - `arguments` strings are concatenated; an object (or any non-string JSON) is sent as
//!   one fragment. The assembler parses them once, at the block's stop (empty means `{}`,
//!   a JSON string holding an object is unwrapped, any other non-object is an invalid call).
//! - A missing id is filled as `call_N` (N counts calls across the conversation, so it is
//!   stable and unique); a server id already used earlier in the history gets a suffix,
//!   because canonical tool_use ids are unique across the whole conversation.

use std::collections::HashSet;

use serde_json::Value;

use crate::provider::{BlockKind, ProviderError, StreamEvent};

#[derive(Debug)]
struct OpenCall {
    wire_index: u64,
    block: usize,
    server_id: Option<String>,
    /// Fixed when the block starts; the server's id unless it is missing or taken.
    id: Option<String>,
    name: String,
    args: String,
}

#[derive(Debug, Default)]
pub struct ToolCalls {
    open: Option<OpenCall>,
    completed_indexes: HashSet<u64>,
    taken_ids: HashSet<String>,
    generated: usize,
    /// Calls completed so far in this reply (valid or not).
    pub seen: usize,
}

/// One fragment's fields, empty strings treated as absent.
struct Fragment<'a> {
    index: u64,
    id: Option<&'a str>,
    name: Option<&'a str>,
    args: Args<'a>,
}

enum Args<'a> {
    None,
    Piece(&'a str),
    Whole(&'a Value),
}

impl Args<'_> {
    fn is_some(&self) -> bool {
        !matches!(self, Args::None)
    }
}

impl ToolCalls {
    /// `taken_ids`: the tool_use ids already in the history, which new ids must avoid.
    pub fn new(taken_ids: HashSet<String>) -> Self {
        ToolCalls {
            generated: taken_ids.len(),
            taken_ids,
            ..Self::default()
        }
    }

    /// Feeds one element of `delta.tool_calls`. `next_block` hands out block indexes.
    pub fn fragment(
        &mut self,
        raw: &Value,
        position: usize,
        next_block: &mut usize,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let frag = parse_fragment(raw, position);
        let same_index = self.open.as_ref().map(|c| c.wire_index) == Some(frag.index);
        if same_index {
            if self
                .open
                .as_ref()
                .is_some_and(|c| starts_new_call(c, &frag))
            {
                self.complete(out)?;
                self.begin(&frag, next_block);
            }
        } else {
            if self.open.is_some() {
                self.complete(out)?;
            }
            if self.completed_indexes.contains(&frag.index)
                && frag.id.is_none()
                && frag.name.is_none()
            {
                if matches!(frag.args, Args::Piece(s) if !s.trim().is_empty())
                    || matches!(frag.args, Args::Whole(_))
                {
                    return Err(ProviderError::Malformed(format!(
                        "arguments for tool call index {} arrived after that call was complete",
                        frag.index
                    )));
                }
                return Ok(());
            }
            self.begin(&frag, next_block);
        }
        self.update(&frag, out);
        Ok(())
    }

    /// Completes the open call, if any: the choice or the stream finished.
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if self.open.is_some() {
            self.complete(out)?;
        }
        Ok(())
    }

    fn begin(&mut self, frag: &Fragment<'_>, next_block: &mut usize) {
        self.open = Some(OpenCall {
            wire_index: frag.index,
            block: *next_block,
            server_id: None,
            id: None,
            name: String::new(),
            args: String::new(),
        });
        *next_block += 1;
    }

    fn update(&mut self, frag: &Fragment<'_>, out: &mut Vec<StreamEvent>) {
        let Some(call) = self.open.as_mut() else {
            return;
        };
        if call.server_id.is_none()
            && let Some(id) = frag.id
        {
            call.server_id = Some(id.to_string());
        }
        if let Some(name) = frag.name {
            if name.starts_with(call.name.as_str()) {
                call.name = name.to_string();
            } else {
                call.name.push_str(name);
            }
        }
        let piece = match frag.args {
            Args::None => return,
            Args::Piece(s) => {
                call.args.push_str(s);
                s.to_string()
            }
            Args::Whole(v) => {
                call.args = v.to_string();
                call.args.clone()
            }
        };
        if call.args.is_empty() {
            return;
        }
        if call.id.is_some() {
            out.push(StreamEvent::ToolInputDelta {
                index: call.block,
                partial_json: piece,
            });
        } else if !call.name.is_empty() {
            // The block starts once its name is known, with the arguments so far.
            self.start(out);
        }
    }

    /// Announces the open call (once), with the arguments received so far: its id and
    /// name are fixed from here on.
    fn start(&mut self, out: &mut Vec<StreamEvent>) {
        let Some(call) = self.open.as_ref() else {
            return;
        };
        if call.id.is_some() {
            return;
        }
        let id = match call.server_id.clone() {
            Some(s) if !self.taken_ids.contains(&s) => s,
            Some(s) => self.fresh_id(&s),
            None => self.fresh_id("call"),
        };
        self.taken_ids.insert(id.clone());
        let Some(call) = self.open.as_mut() else {
            return;
        };
        call.id = Some(id.clone());
        out.push(StreamEvent::BlockStart {
            index: call.block,
            kind: BlockKind::ToolUse,
            id: Some(id),
            name: (!call.name.is_empty()).then(|| call.name.clone()),
        });
        if !call.args.is_empty() {
            out.push(StreamEvent::ToolInputDelta {
                index: call.block,
                partial_json: call.args.clone(),
            });
        }
    }

    fn fresh_id(&mut self, stem: &str) -> String {
        loop {
            self.generated += 1;
            let id = format!("{stem}_{}", self.generated);
            if !self.taken_ids.contains(&id) {
                return id;
            }
        }
    }

    fn complete(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        self.start(out);
        let Some(call) = self.open.take() else {
            return Ok(());
        };
        self.completed_indexes.insert(call.wire_index);
        self.seen += 1;
        if call.name.is_empty() {
            return Err(ProviderError::Malformed(format!(
                "tool call index {} has no function name",
                call.wire_index
            )));
        }
        out.push(StreamEvent::BlockStop { index: call.block });
        Ok(())
    }
}

fn parse_fragment(raw: &Value, position: usize) -> Fragment<'_> {
    let function = raw.get("function");
    let args = match function.and_then(|f| f.get("arguments")) {
        None | Some(Value::Null) => Args::None,
        Some(Value::String(s)) if s.is_empty() => Args::None,
        Some(Value::String(s)) => Args::Piece(s),
        Some(other) => Args::Whole(other),
    };
    Fragment {
        index: raw
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64),
        id: non_empty(raw.get("id")),
        name: non_empty(function.and_then(|f| f.get("name"))),
        args,
    }
}

fn non_empty(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn starts_new_call(call: &OpenCall, frag: &Fragment<'_>) -> bool {
    if let Some(id) = frag.id {
        return match &call.server_id {
            Some(known) => known != id,
            None => !call.args.is_empty(),
        };
    }
    let Some(name) = frag.name else {
        return false;
    };
    if call.args.is_empty() {
        return false;
    }
    (frag.args.is_some() && serde_json::from_str::<Value>(&call.args).is_ok())
        || (name != call.name && !name.starts_with(call.name.as_str()))
}

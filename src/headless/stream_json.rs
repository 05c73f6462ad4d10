//! stream-json's lines (CLI.md): each is an [`AgentEvent`]'s own serde form — the form
//! `--record` writes — renamed and trimmed to the contract by one table.

use serde_json::{Value, json};

use crate::agent::context::Trigger;
use crate::agent::protocol::AgentEvent;

/// Which tools' `tool_end` lines carry `sandbox`, and its value.
pub struct Sandboxed<'a> {
    pub label: &'a str,
    pub tools: Vec<String>,
}

/// The stream-json line for `event` (without `t_ms`), as this run prints it; `tooloop replay`
/// prints recorded events through the same function.
pub fn event_line(event: &AgentEvent, sandbox: &Sandboxed<'_>) -> Option<Value> {
    let mut line = stream_json(event)?;
    if let Value::Object(map) = &mut line
        && let (_, AgentEvent::ToolEnd { name, .. }) = event.unwrapped()
        && sandbox.tools.contains(name)
    {
        // Headless never re-runs outside the sandbox (nobody can approve it), so every
        // such call ran under the run's sandbox.
        map.insert("sandbox".into(), json!(sandbox.label));
    }
    Some(line)
}

/// The stream-json line for an event, if it has one: the event's own serde form (the one
/// `--record` writes), renamed and trimmed to CLI.md's contract by [`project`]. Events that
/// are for screens and recordings only have no line.
pub fn stream_json(event: &AgentEvent) -> Option<Value> {
    use crate::agent::protocol::status::ServerState;
    use AgentEvent as E;
    match event {
        // The subagent's own line, with whose it is (CLI.md).
        E::Subagent {
            agent_id,
            parent_tool_use_id,
            event,
        } => {
            let mut v = stream_json(event)?;
            merge(
                &mut v,
                json!({"agent_id": &**agent_id, "parent_tool_use_id": &**parent_tool_use_id}),
            );
            Some(v)
        }
        E::PromptStart { .. }
        | E::RequestFailed { .. }
        | E::ToolUseStreaming { .. }
        | E::PermissionRequest { .. }
        | E::RawSse { .. }
        | E::Usage(_)
        | E::HistoryReset { .. }
        | E::EarlierHistory { .. }
        | E::ToolTimings { .. }
        | E::Session { .. }
        | E::ModelChanged { .. }
        | E::Context(_)
        | E::HookStart { .. }
        | E::PlanReady { .. }
        | E::Done(_) => None,
        // Starting is the TUI's "starting…"; scripts get one line per server when it is
        // ready or failed (and again if it fails later).
        E::Mcp(s) if s.state == ServerState::Starting => None,
        // Micro-compaction is not a `compact` in CLI.md's sense (no summary, same messages).
        E::Compacted { info, .. } if info.trigger == Trigger::Micro => None,
        E::Background(e) => e.stream_json(),
        // The body stays out of the line: not serialized only to be dropped.
        E::RequestStart {
            turn,
            attempt,
            model,
            ..
        } => {
            Some(json!({"type": "request_start", "turn": turn, "attempt": attempt, "model": model}))
        }
        _ => project(serde_json::to_value(event).ok()?),
    }
}

/// How stream-json names and shapes an event's serde form: (its `type`, the line's `type`,
/// fields left out, the field whose object's fields take its place).
const PROJECTIONS: &[(&str, &str, &[&str], Option<&str>)] = &[
    ("tool_use", "tool_use", &["preview"], None),
    ("approval_changed", "approval", &[], None),
    ("server_block", "server_tool", &[], None),
    ("todos", "todo", &[], None),
    ("hook_end", "hook", &["id"], Some("report")),
    ("mcp", "mcp", &[], Some("status")),
    (
        "compacted",
        "compact",
        &["messages", "summary", "state"],
        Some("info"),
    ),
    ("agent_start", "agent_start", &[], Some("info")),
    ("agent_end", "agent_end", &[], Some("report")),
];

/// An event's serde form as its stream-json line; key order is kept (`type` first).
fn project(v: Value) -> Option<Value> {
    let Value::Object(fields) = v else {
        return None;
    };
    let kind = fields.get("type")?.as_str()?.to_string();
    let (name, drop, inline) = PROJECTIONS
        .iter()
        .find(|p| p.0 == kind)
        .map_or((kind.as_str(), &[][..], None), |p| (p.1, p.2, p.3));
    let mut out = serde_json::Map::with_capacity(fields.len() + 1);
    for (key, value) in fields {
        match key.as_str() {
            "type" => {
                out.insert(key, json!(name));
            }
            k if Some(k) == inline => {
                if let Value::Object(inner) = value {
                    out.extend(
                        inner
                            .into_iter()
                            .filter(|(k, _)| !drop.contains(&k.as_str())),
                    );
                }
            }
            k if drop.contains(&k) => {}
            // `permission`: allow|deny, and the deciding rule's two fields at the top.
            "allowed" if kind == "permission" => {
                let allowed = value.as_bool().unwrap_or(false);
                out.insert(
                    "decision".into(),
                    json!(if allowed { "allow" } else { "deny" }),
                );
            }
            "rule" if kind == "permission" => {
                if let Value::Object(rule) = value {
                    out.extend(rule);
                }
            }
            "output" if kind == "tool_end" => {
                out.insert(key, json!(shorten(value.as_str().unwrap_or(""), 2000)));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    Some(Value::Object(out))
}

/// `extra`'s fields added to the object `v`.
fn merge(v: &mut Value, extra: Value) {
    if let (Value::Object(map), Value::Object(more)) = (v, extra) {
        map.extend(more);
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let end = crate::text::floor_boundary(s, max);
    format!("{}… [{} more bytes]", &s[..end], s.len() - end)
}

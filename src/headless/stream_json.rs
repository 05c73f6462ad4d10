//! stream-json's lines (CLI.md): each is an [`AgentEvent`]'s own serde form — the form
//! `--record` writes — renamed and trimmed to the contract by one table.

use serde_json::{Value, json};

use crate::protocol::AgentEvent;
use crate::protocol::compaction::Trigger;

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
    use crate::protocol::status::ServerState;
    use crate::protocol::steer::SteerFate;
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
        | E::ResumedSubagents { .. }
        | E::ToolTimings { .. }
        | E::Session { .. }
        | E::ModelChanged { .. }
        | E::Context(_)
        | E::HookStart { .. }
        | E::PlanReady { .. }
        | E::RulesChanged { .. }
        | E::Done(_) => None,
        // Starting is the TUI's "starting…"; scripts get one line per server when it is
        // ready or failed (and again if it fails later).
        E::Mcp(s) if s.state == ServerState::Starting => None,
        // Micro-compaction is not a `compact` in CLI.md's sense (no summary, same messages).
        E::Compacted { info, .. } if info.trigger == Trigger::Micro => None,
        E::Background(e) => e.stream_json(),
        // CLI.md's `user` line: the words joined the turn. Words that missed the last tool
        // boundary say they go as the next prompt; after an abort, that they were not sent.
        E::Steer { text, fate } => Some(match fate {
            SteerFate::Joined => json!({"type": "user", "text": text}),
            SteerFate::NextPrompt => json!({"type": "user", "text": text, "next_prompt": true}),
            SteerFate::Returned => json!({"type": "user", "text": text, "sent": false}),
        }),
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
    // A request's own usage is for telemetry; `result.usage` is the contract's sum.
    ("stream_end", "stream_end", &["usage"], None),
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

#[cfg(test)]
mod tests {
    //! Each line byte for byte as CLI.md has it (key order included): the shapes the lines
    //! had when they were written out field by field, before they became a projection.

    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::hooks::{HookDecision, HookEvent, HookReport};
    use crate::message::Message;
    use crate::protocol::approval::RuleRef;
    use crate::protocol::compaction::Compaction;
    use crate::protocol::status::{ServerState, ServerStatus};
    use crate::protocol::subagent::{AgentInfo, AgentReport};
    use crate::protocol::{Terminal, ToolOutcome};

    fn line(e: AgentEvent) -> Option<String> {
        stream_json(&e).map(|v| v.to_string())
    }

    fn say(e: AgentEvent, want: &str) {
        assert_eq!(line(e).as_deref(), Some(want));
    }

    #[test]
    fn every_printed_line_keeps_its_shape() {
        say(
            AgentEvent::TurnStart { turn: 2 },
            r#"{"type":"turn_start","turn":2}"#,
        );
        say(
            AgentEvent::RequestStart {
                turn: 1,
                attempt: 2,
                model: "m".into(),
                body: Arc::new(json!({"big": "body"}).into()),
            },
            r#"{"type":"request_start","turn":1,"attempt":2,"model":"m"}"#,
        );
        say(
            AgentEvent::Retry {
                attempt: 2,
                max_attempts: 8,
                delay_ms: 30,
                error: "e".into(),
            },
            r#"{"type":"retry","attempt":2,"max_attempts":8,"delay_ms":30,"error":"e"}"#,
        );
        say(
            AgentEvent::ThinkingDelta { text: "t".into() },
            r#"{"type":"thinking_delta","text":"t"}"#,
        );
        say(
            AgentEvent::ToolUse {
                id: "t1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}),
                safe: false,
                summary: "ls".into(),
                preview: None,
            },
            r#"{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls"},"safe":false,"summary":"ls"}"#,
        );
        say(
            AgentEvent::ToolProgress {
                id: "t1".into(),
                chunk: "c".into(),
            },
            r#"{"type":"tool_progress","id":"t1","chunk":"c"}"#,
        );
        say(
            AgentEvent::Permission {
                id: "t1".into(),
                name: "bash".into(),
                allowed: false,
                rule: None,
            },
            r#"{"type":"permission","id":"t1","name":"bash","decision":"deny"}"#,
        );
        say(
            AgentEvent::Permission {
                id: "t1".into(),
                name: "bash".into(),
                allowed: true,
                rule: Some(RuleRef {
                    rule: "bash".into(),
                    source: "--allow-tool".into(),
                }),
            },
            r#"{"type":"permission","id":"t1","name":"bash","decision":"allow","rule":"bash","source":"--allow-tool"}"#,
        );
        say(
            AgentEvent::ApprovalChanged {
                mode: crate::protocol::approval_mode::ApprovalMode::AutoEdit,
            },
            r#"{"type":"approval","mode":"auto-edit"}"#,
        );
        say(
            AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: None,
                usage: None,
            },
            r#"{"type":"stream_end","turn":1,"stop_reason":null}"#,
        );
        say(
            AgentEvent::Message {
                index: 0,
                message: Arc::new(Message::user_text("hi")),
            },
            r#"{"type":"message","index":0,"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
        );
        say(
            AgentEvent::ServerBlock {
                block: json!({"type": "web_search_tool_result"}),
            },
            r#"{"type":"server_tool","block":{"type":"web_search_tool_result"}}"#,
        );
        say(
            AgentEvent::Discarded { reason: "r".into() },
            r#"{"type":"discarded","reason":"r"}"#,
        );
        say(
            AgentEvent::Error {
                message: "m".into(),
            },
            r#"{"type":"error","message":"m"}"#,
        );
        say(
            AgentEvent::HookEnd {
                id: "hook-1".into(),
                report: HookReport {
                    event: HookEvent::PreToolUse,
                    command: "c".into(),
                    exit: Some(2),
                    duration_ms: 3,
                    decision: HookDecision::Deny,
                    reason: None,
                    spent: None,
                },
            },
            r#"{"type":"hook","event":"pre_tool_use","command":"c","exit":2,"duration_ms":3,"decision":"deny","reason":null}"#,
        );
        say(
            AgentEvent::Mcp(ServerStatus {
                server: "s".into(),
                state: ServerState::Failed,
                tools: vec![],
                error: Some("boom".into()),
                prompts: vec![],
                resources: vec![],
            }),
            r#"{"type":"mcp","server":"s","state":"failed","tools":[],"error":"boom"}"#,
        );
        say(
            AgentEvent::Compacted {
                info: Compaction {
                    trigger: Trigger::Reactive,
                    pre_tokens: 10,
                    post_tokens: 4,
                    messages_before: 6,
                    messages_after: 2,
                    summary: "the summary".into(),
                    state: "the state".into(),
                    kept: Default::default(),
                },
                messages: vec![Message::user_text("x")],
            },
            r#"{"type":"compact","trigger":"reactive","pre_tokens":10,"post_tokens":4,"messages_before":6,"messages_after":2,"kept":{"requests":0,"files_changed":0,"commands":0,"todos":0}}"#,
        );
        let info = AgentInfo {
            agent_id: "a1".into(),
            parent_tool_use_id: "t1".into(),
            parent_agent_id: None,
            agent: "explore".into(),
            description: "d".into(),
            model: "m".into(),
        };
        say(
            AgentEvent::AgentStart(info),
            r#"{"type":"agent_start","agent_id":"a1","parent_tool_use_id":"t1","agent":"explore","description":"d","model":"m"}"#,
        );
        say(
            AgentEvent::AgentEnd(AgentReport {
                agent_id: "a1".into(),
                parent_tool_use_id: "t1".into(),
                agent: "explore".into(),
                reason: Terminal::Completed,
                turns: 2,
                tools: 1,
                usage: Default::default(),
                cost_usd: None,
                duration_ms: 9,
            }),
            r#"{"type":"agent_end","agent_id":"a1","parent_tool_use_id":"t1","agent":"explore","reason":"completed","turns":2,"tools":1,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"cost_usd":null,"duration_ms":9}"#,
        );
        say(
            AgentEvent::Subagent {
                agent_id: "a1".into(),
                parent_tool_use_id: "t1".into(),
                event: Box::new(AgentEvent::TextDelta { text: "x".into() }),
            },
            r#"{"type":"text_delta","text":"x","agent_id":"a1","parent_tool_use_id":"t1"}"#,
        );
    }

    #[test]
    fn long_output_is_shortened_and_screen_only_events_print_nothing() {
        let v = stream_json(&AgentEvent::ToolEnd {
            id: "t".into(),
            name: "bash".into(),
            is_error: false,
            outcome: ToolOutcome::Ok,
            duration_ms: 1,
            output: "x".repeat(5000),
        })
        .expect("a line");
        assert!(
            v["output"]
                .as_str()
                .unwrap()
                .ends_with("… [3000 more bytes]")
        );
        for quiet in [
            AgentEvent::PromptStart { text: "p".into() },
            AgentEvent::RawSse {
                event: "ping".into(),
                data: "{}".into(),
            },
            AgentEvent::Usage(Default::default()),
            AgentEvent::Session { id: "s".into() },
            AgentEvent::Mcp(ServerStatus {
                server: "s".into(),
                state: ServerState::Starting,
                tools: vec![],
                error: None,
                prompts: vec![],
                resources: vec![],
            }),
            AgentEvent::Compacted {
                info: Compaction {
                    trigger: Trigger::Micro,
                    pre_tokens: 1,
                    post_tokens: 1,
                    messages_before: 1,
                    messages_after: 1,
                    summary: String::new(),
                    state: String::new(),
                    kept: Default::default(),
                },
                messages: vec![],
            },
        ] {
            assert_eq!(line(quiet.clone()), None, "{quiet:?}");
        }
    }
}

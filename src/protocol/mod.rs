//! The only way in and out of the agent: commands from a front end, events back to it.
//! The TUI and headless mode are both front ends on this pair.

pub mod approval;
pub mod approval_mode;
pub mod compaction;
pub mod events;
pub mod history_observer;
pub mod session_error;
pub mod status;
pub mod steer;
pub mod subagent;
pub mod wire;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

// Every type an event or a command carries lives here (approval.rs, status.rs) or in a
// module below the agent (message, provider's usage, hooks, background job types, todo):
// nothing is re-exported; front ends import each type from where it lives.
use crate::background::types::JobEvent;
use crate::hooks::{HookEvent, HookReport};
use crate::message::Message;
use crate::protocol::approval::RuleRef;
use crate::provider::{RequestBody, Usage};
use approval::{AskWhy, Decision, Preview};
use status::ServerStatus;
use subagent::{AgentInfo, AgentReport};

/// What a front end asks of the agent.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentCommand {
    /// Run one prompt to the end of the loop.
    Submit { text: String },
    /// `!command`: run a shell command in the workspace for the user; its output joins
    /// the conversation for the model. Ends with Done like a prompt; Abort stops it.
    Shell { command: String },
    /// Words for the running turn (Enter while it runs): they join the next request after
    /// the current step's tool results, or become the next prompt if the model is giving its
    /// final answer. Answered with [`AgentEvent::Steer`]; when idle, a plain prompt.
    Steer { text: String },
    /// Stop the turn in progress (Ctrl+C). History stays valid.
    Abort,
    /// The user's answer to a [`AgentEvent::PermissionRequest`].
    PermissionReply { id: String, decision: Decision },
    /// Forget the conversation and start a new one.
    NewConversation,
    /// Go back to just before a prompt of this session (conversation, files or both).
    Rewind(RewindRequest),
    /// Go on in a new session holding a copy of this one.
    Fork,
    /// Go on in saved session `id` (`/sessions`), as `--resume ID` would: answered with
    /// HistoryReset and Session, or an Error that leaves everything as it was.
    Resume { id: String },
    /// Summarize the conversation now (`/compact [instructions]`).
    Compact { instructions: Option<String> },
    /// Use this model from the next request on (`/model NAME`); during a turn, from the
    /// next prompt. Answered with [`AgentEvent::ModelChanged`].
    SetModel { model: String },
    /// Take back an "allow for this session" given to this tool (`/permissions`).
    RevokeSessionGrant { tool: String },
    /// Switch the approval mode (Shift+Tab, `/approval MODE`); answered with
    /// [`AgentEvent::ApprovalChanged`]. Takes effect at the next decision, mid-turn too.
    SetApproval {
        mode: crate::protocol::approval_mode::ApprovalMode,
    },
    /// End a background job's process group (`/kill b1`); answered with its
    /// `AgentEvent::Background` end, or an Error for an unknown id.
    KillJob { id: String },
    /// `/hooks`: show a pending change of Claude Code's settings files (or the hooks in
    /// force), apply what was shown, or keep the old. Answered with notices.
    Hooks { action: HooksAction },
    /// End the agent task.
    Shutdown,
}

/// What `/hooks` asks (only the user types it: nothing the model writes gets here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HooksAction {
    Show,
    Accept,
    Keep,
}

/// Why a prompt's loop ended (DESIGN.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Terminal {
    Completed,
    AbortedStreaming,
    AbortedTools,
    MaxTurns,
    ModelError,
    PromptTooLong,
    MaxOutputTokens,
    /// `--max-budget-usd` / `--max-budget-tokens` would be passed by the next request.
    BudgetExceeded,
    /// Over the hard context limit with auto-compaction off.
    BlockingLimit,
    /// A hook answered `"decision": "stop"` (or blocked the prompt before it was sent).
    HookStopped,
    /// The stop hook sent the model back to work too many times in a row.
    StopHookPrevented,
    /// Headless plan mode: the model called `exit_plan_mode` (the plan is in `result.plan`).
    PlanReady,
    /// The prompt was not sent: what it needs could not be had (an MCP prompt's missing
    /// argument, a resource that did not read); the error says which.
    NotSent,
}

impl Terminal {
    pub fn as_str(self) -> &'static str {
        match self {
            Terminal::Completed => "completed",
            Terminal::AbortedStreaming => "aborted_streaming",
            Terminal::AbortedTools => "aborted_tools",
            Terminal::MaxTurns => "max_turns",
            Terminal::ModelError => "model_error",
            Terminal::PromptTooLong => "prompt_too_long",
            Terminal::MaxOutputTokens => "max_output_tokens",
            Terminal::BudgetExceeded => "budget_exceeded",
            Terminal::BlockingLimit => "blocking_limit",
            Terminal::HookStopped => "hook_stopped",
            Terminal::StopHookPrevented => "stop_hook_prevented",
            Terminal::PlanReady => "plan_ready",
            Terminal::NotSent => "not_sent",
        }
    }

    pub fn is_aborted(self) -> bool {
        matches!(self, Terminal::AbortedStreaming | Terminal::AbortedTools)
    }
}

/// Why the loop went round again (recorded so tests can assert which path ran).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    NextTurn,
    MaxTokensRecovery,
    Retry,
    FallbackModel,
    /// prompt_too_long → one compaction → the same request again.
    ReactiveCompact,
    /// A stop hook gave the model a reason to go on.
    StopHook,
    /// The API paused a long server-tool turn (`stop_reason: "pause_turn"`); the reply
    /// went back as it was so the model continues it.
    PauseTurn,
}

/// Everything the agent tells its front ends. Times are taken by the front end on receipt.
///
/// The one event vocabulary: the same type crosses the channel, is written line by line by
/// `--record` (src/recording, its serde form as it is, `"type"` first) and becomes
/// stream-json's lines (src/headless/stream_json.rs renames and trims the same form). A new
/// event is one variant here; [`wire`] keeps the written shape older recordings have.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A prompt was accepted and its loop begins.
    PromptStart {
        text: String,
    },
    /// One iteration of the loop (one model request and its tools).
    TurnStart {
        turn: u32,
    },
    /// A request is sent; `body` is what goes over the wire, minus credentials: the very
    /// bytes sent, shared (parse them with `body.json()` only to show them). Written as
    /// `request` with the body as JSON and its size.
    #[serde(rename = "request", with = "wire::request")]
    RequestStart {
        turn: u32,
        attempt: u32,
        model: String,
        body: Arc<RequestBody>,
    },
    /// The server refused the request in flight: its HTTP status and the error body as
    /// sent (an echoed key redacted). Comes before the Retry or Error that follows; for the
    /// JSON pane's request stepper and recordings (stream-json has no line for it).
    RequestFailed {
        status: u16,
        body: String,
    },
    /// Waiting before another attempt. `attempt` is the one about to be made (the first
    /// retry is attempt 2) of `max_attempts` in all, the first included; 0 in recordings
    /// made before it was written.
    Retry {
        attempt: u32,
        #[serde(default, skip_serializing_if = "unknown")]
        max_attempts: u32,
        delay_ms: u64,
        error: String,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    /// The model began writing a tool_use block (its input is still streaming).
    ToolUseStreaming {
        id: String,
        name: String,
    },
    /// A tool_use block is complete and handed to the executor.
    ToolUse {
        id: String,
        name: String,
        input: Value,
        safe: bool,
        /// One line about the input, phrased by the tool ("src/main.rs", "ls -la").
        summary: String,
        /// What the call would change, if the tool can show it.
        #[serde(default)]
        preview: Option<Preview>,
    },
    /// The tool waits for the user's consent.
    PermissionRequest {
        id: String,
        tool: String,
        input: Value,
        summary: String,
        #[serde(default)]
        preview: Option<Preview>,
        /// Why it asks, and what "always allow" would write.
        #[serde(default)]
        why: AskWhy,
    },
    /// Consent was decided (by the user, a mode or a rule).
    Permission {
        id: String,
        name: String,
        allowed: bool,
        /// The rule (and its file) that decided, when one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<RuleRef>,
    },
    ToolStart {
        id: String,
        name: String,
    },
    /// Live output of a running tool (e.g. bash).
    ToolProgress {
        id: String,
        chunk: String,
    },
    ToolEnd {
        id: String,
        name: String,
        is_error: bool,
        /// Decided by the executor from its cancellation tokens, not from the output text.
        outcome: ToolOutcome,
        duration_ms: u64,
        output: String,
    },
    /// The model's stream for this turn ended.
    StreamEnd {
        turn: u32,
        stop_reason: Option<String>,
        /// This response's own tokens (its subagents' not included): what telemetry puts on
        /// the request's span. None in recordings from before it was carried.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// A raw SSE event of the current response (for the JSON pane). A recording adds its
    /// time since the request started (`req_ms`).
    #[serde(rename = "sse")]
    RawSse {
        event: std::borrow::Cow<'static, str>,
        data: String,
    },
    /// Token counts for the whole prompt so far.
    #[serde(with = "wire::usage")]
    Usage(Usage),
    /// history[index] is now `message`, exactly as it will be sent: an append when index is
    /// the old length, else the last message was extended (a prompt after an interruption).
    Message {
        index: usize,
        #[serde(with = "wire::arc")]
        message: Arc<Message>,
    },
    /// What became of a [`AgentCommand::Steer`]'s text: joined the request after a tool
    /// step (stream-json's `user` line), waits to be the next prompt, or came back unsent
    /// after an abort (front ends put it back in the input).
    Steer {
        text: String,
        fate: steer::SteerFate,
    },
    /// Something the user should know (max_turns reached, a fallback model, …).
    Notice {
        text: String,
    },
    /// A resumed session's last prompt was never sent (its request failed): it is not in
    /// the history; front ends offer it again (the TUI puts it back in the input).
    PromptNotSent {
        text: String,
    },
    /// A block the API's server tools produced arrived complete (a web search and its
    /// results, a code execution), verbatim; it stays in the reply's message.
    ServerBlock {
        block: serde_json::Value,
    },
    /// The partial output streamed since the last appended message was thrown away (a
    /// failed attempt before a model switch); front ends strike it out.
    Discarded {
        reason: String,
    },
    /// A recoverable problem (a failed attempt, a dropped stream) shown to the user.
    Error {
        message: String,
    },
    /// The history was replaced (new conversation or resumed session).
    HistoryReset {
        #[serde(with = "wire::arc_vec")]
        messages: Vec<Arc<Message>>,
        /// tool_use id → the tool's one-line summary of its input, for redrawing the calls.
        summaries: std::collections::HashMap<String, String>,
    },
    /// Sent just before the [`AgentEvent::HistoryReset`] of a resumed session that was
    /// compacted: the messages the compactions replaced, for front ends to show dimmed above
    /// the divider (they are no longer sent to the model).
    EarlierHistory {
        messages: Vec<Message>,
        /// tool_use id → summary for the calls in `messages` (absent in older recordings).
        #[serde(default, skip_serializing_if = "std::collections::HashMap::is_empty")]
        summaries: std::collections::HashMap<String, String>,
    },
    /// Sent just before the [`AgentEvent::HistoryReset`] of a resumed session: how its tool
    /// calls ran (by tool_use id), so front ends show their recorded durations.
    ToolTimings {
        timings: std::collections::HashMap<String, status::ToolTiming>,
    },
    /// Sent just before the [`AgentEvent::HistoryReset`] of a resumed or rewound session
    /// whose `task` calls ran subagents: each one as its transcript kept it, so front ends
    /// list it under its `task` call as they did live.
    ResumedSubagents {
        agents: Vec<status::ResumedSubagent>,
    },
    /// The transcript now being written (after a new conversation or a resume).
    Session {
        id: String,
    },
    /// Requests use this model from now on (after a SetModel).
    ModelChanged {
        model: String,
    },
    /// The history was compacted; `messages` is what is sent from now on.
    Compacted {
        info: crate::protocol::compaction::Compaction,
        messages: Vec<Message>,
    },
    /// Context use and cost, before each request and after each response.
    #[serde(with = "wire::status")]
    Context(crate::protocol::compaction::ContextStatus),
    /// A hook started (`id` is made up for the timeline: `hook-N`).
    HookStart {
        id: String,
        event: HookEvent,
        command: String,
    },
    /// A hook ended (stream-json's `hook` line).
    HookEnd {
        id: String,
        report: HookReport,
    },
    /// The session's todo list changed (`todo_write`, a resume, `/new`): the whole list.
    Todos {
        todos: Vec<crate::todo::TodoItem>,
    },
    /// An MCP server's state changed (stream-json's `mcp` line once it is ready or failed).
    #[serde(with = "wire::status")]
    Mcp(ServerStatus),
    /// The approval mode changed (Shift+Tab, `/approval`, an approved plan).
    ApprovalChanged {
        mode: crate::protocol::approval_mode::ApprovalMode,
    },
    /// The permission rules in force changed (`/hooks accept` of a settings file): all of
    /// them, and those read but not applied, for `/permissions`.
    RulesChanged {
        rules: Vec<crate::protocol::approval::RuleLine>,
        unused: Vec<String>,
    },
    /// Headless plan mode: the model handed this plan over; the run ends with `plan_ready`.
    PlanReady {
        plan: String,
    },
    /// A background job started, wrote output (at most twice a second), ended, or was
    /// listed from a resumed transcript.
    #[serde(with = "wire::event")]
    Background(JobEvent),
    /// The prompt's loop ended.
    #[serde(with = "wire::summary")]
    Done(TurnSummary),
    /// A `task` call started a subagent (DESIGN.md §12).
    #[serde(with = "wire::info")]
    AgentStart(AgentInfo),
    /// A subagent's loop ended.
    #[serde(with = "wire::report")]
    AgentEnd(AgentReport),
    /// An event of a subagent's loop, as the subagent sent it: front ends tell its lane by
    /// `agent_id`. Tool and permission ids inside are the subagent's own; a permission
    /// reply names [`scoped_id`]`(agent_id, id)`.
    Subagent {
        #[serde(with = "wire::arc_str")]
        agent_id: Arc<str>,
        #[serde(with = "wire::arc_str")]
        parent_tool_use_id: Arc<str>,
        event: Box<AgentEvent>,
    },
}

impl AgentEvent {
    /// The event with every `Subagent` wrapper taken off, and the innermost agent's id.
    pub fn unwrapped(&self) -> (Option<(&str, &str)>, &AgentEvent) {
        match self {
            AgentEvent::Subagent {
                agent_id,
                parent_tool_use_id,
                event,
            } => (Some((agent_id, parent_tool_use_id)), event),
            other => (None, other),
        }
    }
}

/// The end of one prompt's loop: what `result` prints in headless mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnSummary {
    pub reason: Terminal,
    pub turns: u32,
    pub usage: Usage,
    pub text: String,
    #[serde(default)]
    pub transitions: Vec<Transition>,
    pub error: Option<String>,
    /// The session's cost so far in USD; None when the model's prices are unknown.
    pub cost_usd: Option<f64>,
    /// Estimated tokens of the history as it would be sent now.
    pub context_tokens: u64,
}

/// How a tool call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    Ok,
    /// Stopped by the user (Ctrl+C) or by a failing sibling call before it could finish.
    Cancelled,
    /// Consent was refused (the user, a mode or a rule): an error to the model. Transcripts
    /// keep it apart (a resumed call still reads "denied"); `tool_end` events carry `error`
    /// for it, their contract has three values.
    Denied,
    /// The tool failed, timed out or its input was invalid (or, on the wire, was refused).
    /// Also what an outcome written by a newer tooloop reads as (last: serde wants it so).
    #[serde(other)]
    Error,
}

impl ToolOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolOutcome::Ok => "ok",
            ToolOutcome::Error => "error",
            ToolOutcome::Cancelled => "cancelled",
            ToolOutcome::Denied => "denied",
        }
    }

    pub fn is_error(self) -> bool {
        self != ToolOutcome::Ok
    }
}

/// What to rewind. Neither `files` nor `conversation` means both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RewindRequest {
    /// Go back to just before this prompt (from 1).
    pub to: usize,
    pub files: bool,
    pub conversation: bool,
    /// Also put back files changed by hand since the tool changed them.
    pub overwrite_conflicts: bool,
}

/// A count an older recording did not write (0): left out again when written back.
fn unknown(n: &u32) -> bool {
    *n == 0
}

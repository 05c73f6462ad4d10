//! Every user-facing string of the TUI in one place.

pub const APP: &str = "tooloop";
pub const INTERRUPTED: &str = "⏹ interrupted — the next prompt continues this conversation";
pub const DISCARDED: &str = "discarded: this attempt failed and the model was switched";
pub const COMPACTED: &str = "compacted";
pub const COMPACTING: &str = "compacting the conversation…";
/// On a conversation scrolled up while output arrived below (PgDn / End go back down).
pub const NEW_OUTPUT: &str = " ↓ new output ";
pub const EXPORT_NOTHING: &str = "nothing to export yet: the conversation is empty";
pub const NOTHING_TO_COPY: &str = "nothing to copy: Tab selects a message";
pub const QUIT_CONFIRM: &str = "press Ctrl+C again to quit";
pub const INPUT_PLACEHOLDER: &str =
    "Ask something — try: list files, read Cargo.toml and tell me the time";
pub const DEMO_NOTE: &str =
    "offline demo model: no API key set (ANTHROPIC_API_KEY / OPENAI_API_KEY)";
pub const NEW_CONVERSATION: &str = "new conversation";
pub const NO_SESSIONS: &str = "no saved sessions in this workspace yet";
pub const READING_SESSIONS: &str = "reading the saved sessions…";
pub const NO_SESSIONS_KEPT: &str =
    "this run keeps no transcript (--no-session), so there are no sessions to resume";
pub const NOT_WHILE_BUSY_RESUME: &str =
    "wait for the turn to end (or Ctrl+C) before resuming a session";
pub const NOT_WHILE_BUSY: &str =
    "wait for the turn to end (or Ctrl+C) before starting a new conversation";
pub const HELP_TITLE: &str = " keys — ↑/↓ PgUp/PgDn scroll · any other key closes ";
pub const TOOLS_TITLE: &str = " tools ";
pub const TIMELINE_TITLE: &str = "── timeline ──";
pub const CONVERSATION_TITLE: &str = " conversation ";
pub const NO_TOOLS: &str = "no tool calls yet";
pub const JSON_EMPTY: &str = "nothing yet";
pub const THINKING: &str = "thinking";
pub const STATE_IDLE: &str = "idle";
pub const STATE_STREAMING: &str = "streaming";
pub const STATE_WORKING: &str = "working";
pub const STATE_APPROVAL: &str = "waiting for approval";
pub const DENY_REASON: &str = "what to do differently (Enter deny · Esc back): ";
pub const PLAN_FEEDBACK: &str = "what to change (Enter: keep planning · Esc back): ";
pub const PLAN_TITLE: &str = " the plan: approve? ";
pub const CHOICE_YES: &str = "Yes";
pub const CHOICE_NO: &str = "No, tell the model what to do differently";
pub const PLAN_YES_AUTO_EDIT: &str = "Yes, and go on in auto-edit";
pub const PLAN_YES_ASK: &str = "Yes, and go on asking before each change";
pub const PLAN_NO: &str = "No, keep planning: tell the model what to change";

/// The approval box's key line in a replay: nothing here answers a recorded question.
pub const REPLAY_APPROVAL: &str =
    "recorded question: the recorded answer closes it (--step: Space plays on)";

pub fn choice_session(tool: &str) -> String {
    format!("Yes, and don't ask again for {tool} this session")
}

/// `rules`: the proposed list (`bash(sleep:*), bash(ls:*)`).
pub fn choice_rule(rules: &str) -> String {
    format!("Yes, and always allow {rules} in this project")
}

/// The keys under the answers (`n` answers are numbered 1…n).
pub fn choice_keys(n: usize) -> String {
    format!("↑/↓ or 1–{n} choose · Enter confirm · Esc deny · PgUp/PgDn scroll")
}

/// Enter after letters typed while the box was open: those went to the input, so Enter does
/// not confirm until a deliberate choice.
pub fn must_choose(n: usize) -> String {
    format!("Letters went to the input: choose with ↑/↓ or 1–{n}, then Enter")
}

pub const RULE_EDIT: &str = "always allow in this project (Enter save · Esc back): ";

pub fn asked_by_rule(rule: &str, source: &str) -> String {
    format!("asks because of the rule ask `{rule}` in {source}")
}

pub fn guarded_delete(target: &str) -> String {
    format!(
        "recursive delete of {target}: outside the workspace or the workspace itself — asked \
         in every mode"
    )
}

/// `keys`: the keys that scroll this box, and only those (issue 41, item 12: the approval
/// and plan boxes said ↑/↓ scroll, where they choose an answer).
pub fn more_lines(above: usize, below: usize, keys: &str) -> String {
    match (above, below) {
        (0, b) => format!("↓ {b} more lines ({keys} scroll)"),
        (a, 0) => format!("↑ {a} lines above"),
        (a, b) => format!("↑ {a} above · ↓ {b} more lines"),
    }
}

/// The tools list's first line when rows are hidden above it.
pub fn more_above(n: usize) -> String {
    format!("↑ {n} more")
}

/// The tools list's mark when running rows are kept in sight over newer finished ones.
pub fn more_around(above: usize, below: usize) -> String {
    match (above, below) {
        (0, b) => format!("↓ {b} more"),
        (a, 0) => more_above(a),
        (a, b) => format!("↑ {a} more · ↓ {b} more"),
    }
}

/// The timeline's last row when some calls have no row: how many.
pub fn timeline_more(n: usize) -> String {
    format!("… {n} more")
}

pub fn queued(n: usize) -> String {
    if n == 1 {
        " queued: 1 prompt — sends when this turn ends · ↑ edits it ".to_string()
    } else {
        format!(" queued: {n} prompts — they send when this turn ends · ↑ edits the last ")
    }
}

pub fn running_tools(n: usize) -> String {
    if n == 1 {
        "running 1 tool".into()
    } else {
        format!("running {n} tools")
    }
}

pub fn no_data_for(secs: u64) -> String {
    format!("no data for {secs}s · Ctrl+C to stop")
}

pub fn retrying_in(secs: u64) -> String {
    format!("retrying in {secs}s")
}

/// Columns of the error a retry note keeps: the note stays one line at 80 columns (the
/// final error, if it comes to that, is shown whole once).
const RETRY_ERROR_COLS: usize = 52;

/// `attempt` is the attempt about to be made of `max_attempts` in all, so the first retry
/// is attempt 2: retries are numbered from 1 here, "retry 3 of 7". `max_attempts` 0 (a
/// recording older than the field) leaves out the "of".
pub fn retry_note(attempt: u32, max_attempts: u32, delay_ms: u64, error: &str) -> String {
    let first_line = error.lines().next().unwrap_or("");
    // "connection error: error sending …: tcp connect error: Connection refused" → its kind
    // and its root cause, the two parts worth a glance.
    let parts: Vec<&str> = first_line.split(": ").collect();
    let short = if parts.len() > 2 && !first_line.starts_with("HTTP ") {
        format!("{}: {}", parts[0], parts[parts.len() - 1])
    } else {
        first_line.to_string()
    };
    let retry = attempt.saturating_sub(1).max(1);
    let of = match max_attempts.saturating_sub(1) {
        0 => String::new(),
        retries => format!(" of {}", retries.max(retry)),
    };
    format!(
        "retry {retry}{of} in {:.1}s · {}",
        delay_ms as f64 / 1000.0,
        super::text::fit::fit(&short, RETRY_ERROR_COLS)
    )
}

pub fn saved_json(view: &str, path: &std::path::Path) -> String {
    format!("wrote the {view} JSON to {}", path.display())
}

pub fn save_failed(path: &std::path::Path, err: &std::io::Error) -> String {
    format!("could not write {}: {err}", path.display())
}

pub fn approval_title(tool: &str) -> String {
    format!(" allow {tool}? ")
}

/// A subagent's question: ` explore #2 wants to run bash `.
pub fn subagent_approval_title(agent: &str, tool: &str) -> String {
    format!(" {agent} wants to run {tool} ")
}

/// What a subagent is doing, from its latest tool call: `read_file src/main.rs`.
pub fn subagent_doing(tool: &str, summary: &str) -> String {
    format!("{tool} {summary}")
}

pub fn sandbox_status(mode: &str) -> String {
    format!("sandbox {mode}")
}

/// The end of a prompt that did not complete. `error` is None when it was already shown.
/// When the model never answered, the prompt still stays in the conversation (the next
/// prompt is sent after it), and the user is told so.
pub fn ended(reason: &str, error: Option<&str>, unanswered: bool) -> String {
    let mut s = match error {
        Some(e) => format!("turn ended: {reason} — {e}"),
        None => format!("turn ended: {reason}"),
    };
    if unanswered {
        s.push_str(PROMPT_KEPT);
    }
    s
}

/// A resumed session's last prompt, whose request had failed.
pub fn resumed_not_sent(prompt: &str) -> String {
    let first = prompt.lines().next().unwrap_or("");
    format!(
        "not sent: the last prompt ({}) failed before it reached the model; it is back in the \
         input (Enter sends it)",
        crate::text::ellipsize(first, 40)
    )
}

pub const PROMPT_KEPT: &str = " · not sent: the prompt is back in the input (Enter sends it \
     again; a new prompt replaces it)";

pub const PERMISSIONS_USAGE: &str =
    "usage: /permissions (list) · /permissions revoke TOOL · /permissions revoke all";

pub const HOOKS_USAGE: &str = "usage: /hooks (hooks in force, or a pending settings change) · \
     /hooks accept (apply the change shown) · /hooks keep (keep those in force)";

pub fn unknown_command(word: &str, known: &str) -> String {
    format!("unknown command /{word} (not sent to the model); commands: {known}")
}

/// What the approval mode does to a tool that changes things, for `/permissions` (issue 41,
/// item 13: in yolo it said "tools that change things ask first").
pub fn mode_effect(mode: crate::protocol::approval_mode::ApprovalMode) -> &'static str {
    use crate::protocol::approval_mode::ApprovalMode as M;
    match mode {
        M::Ask => "tools that change things ask first",
        M::AutoEdit => "file edits in the workspace run unasked; other changes ask first",
        M::Plan => "plan mode: only read-only tools run until the plan is approved",
        M::Yolo => {
            "yolo: every tool runs unasked (ask/deny rules and the delete guard still apply)"
        }
        M::ReadOnly => "read-only: tools that change things are refused without asking",
    }
}

pub fn session_grants(
    tools: &std::collections::BTreeSet<String>,
    mode: crate::protocol::approval_mode::ApprovalMode,
) -> String {
    if tools.is_empty() {
        format!("no tool is allowed for this session; {}", mode_effect(mode))
    } else {
        let list: Vec<&str> = tools.iter().map(String::as_str).collect();
        format!(
            "allowed for this session without asking: {} — /permissions revoke TOOL (or all)",
            list.join(", ")
        )
    }
}

pub const MODEL_USAGE: &str = "usage: /model (list the models) · /model NAME (switch)";

pub fn model_switch_pending(model: &str) -> String {
    format!("model {model} from the next prompt (this turn keeps its model)")
}

pub fn model_switched(model: &str) -> String {
    format!("model: {model} (used from the next request)")
}

pub fn model_list(table: &str) -> String {
    format!("models (/model NAME switches; prices in USD per million tokens):\n{table}")
}

pub fn revoked(tools: &[String]) -> String {
    if tools.is_empty() {
        "nothing to revoke".into()
    } else {
        format!("{} will ask again", tools.join(", "))
    }
}

pub fn not_granted(tool: &str) -> String {
    format!("{tool} is not allowed for this session (nothing to revoke)")
}

pub fn allowed_status(tools: &std::collections::BTreeSet<String>) -> Option<String> {
    let list: Vec<&str> = tools.iter().map(String::as_str).collect();
    (!list.is_empty()).then(|| format!("allowed: {}", list.join(",")))
}

pub fn resume_hint(session: &str) -> String {
    format!("to continue this conversation: tooloop --resume {session}")
}

pub fn exported(messages: usize, path: &std::path::Path) -> String {
    format!(
        "exported {messages} messages as Markdown to {}",
        path.display()
    )
}

/// The first screen's orientation: workspace, provider/model and approval mode.
pub fn welcome(workspace: &std::path::Path, provider: &str, model: &str, approval: &str) -> String {
    format!(
        "{APP} in {} · {provider}/{model} · approval {approval}",
        workspace.display(),
    )
}

/// Appended to the first screen's line when the base URL is not the provider's own (a wrong
/// `--base-url` is then visible before the first request fails).
pub fn welcome_base_url(url: &str) -> String {
    format!(" · base URL {url}")
}

/// The first screen's hint line.
pub const WELCOME_HINTS: &str = "Enter send · / commands · ? keys · Tab panes · Ctrl+C twice quits";

/// A long paste, collapsed in the input; the n-th one of a prompt gets a number.
pub fn pasted(lines: usize, n: usize) -> String {
    if n == 1 {
        format!("[Pasted {lines} lines]")
    } else {
        format!("[Pasted {lines} lines #{n}]")
    }
}

/// The input's title during Ctrl+R.
pub fn history_search(query: &str, found: bool) -> String {
    let state = if found || query.is_empty() {
        ""
    } else {
        " (no match)"
    };
    format!(" search prompts: {query}{state} · Ctrl+R older · Enter keep · Esc cancel ")
}

pub fn copied(chars: usize) -> String {
    format!("copied {chars} chars")
}

pub fn approval_changed(mode: crate::protocol::approval_mode::ApprovalMode) -> String {
    use crate::protocol::approval_mode::ApprovalMode as M;
    let what = match mode {
        M::Ask => "changes ask first",
        M::AutoEdit => "edits in the workspace run unasked",
        M::Plan => "only read-only tools run until you approve a plan",
        M::Yolo => "everything runs unasked",
        M::ReadOnly => "changes are refused",
    };
    format!("approval {}: {what} (Shift+Tab cycles)", mode.as_str())
}

pub const APPROVAL_USAGE: &str = "usage: /approval ask|auto-edit|plan|yolo|read-only";

/// A token count on the compaction divider: `61.2k`, `980`.
fn tokens_k(n: u64) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// The compaction divider's title: `compacted (auto): 61.2k → 9.8k tokens`.
pub fn compacted(trigger: &str, pre_tokens: u64, post_tokens: u64) -> String {
    if pre_tokens == 0 {
        return format!("{COMPACTED} ({trigger})");
    }
    format!(
        "{COMPACTED} ({trigger}): {} → {} tokens",
        tokens_k(pre_tokens),
        tokens_k(post_tokens)
    )
}

/// What the state block carried: `kept 4 requests, 12 files, todo 3 open`; None when it
/// carried nothing (a summary from before state blocks).
pub fn compacted_kept(kept: &crate::protocol::compaction::Kept) -> Option<String> {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    let mut parts = Vec::new();
    if kept.requests > 0 {
        parts.push(format!("{} request{}", kept.requests, s(kept.requests)));
    }
    if kept.files_changed > 0 {
        parts.push(format!(
            "{} file{}",
            kept.files_changed,
            s(kept.files_changed)
        ));
    }
    if kept.commands > 0 {
        parts.push(format!("{} command{}", kept.commands, s(kept.commands)));
    }
    if kept.todos > 0 {
        parts.push(format!("todo {} open", kept.todos));
    }
    (!parts.is_empty()).then(|| format!("kept {}", parts.join(", ")))
}

/// Above the state block when a compaction divider is opened.
pub const COMPACTED_STATE: &str = "── state block (built by tooloop, appended to the summary) ──";

/// `/agents N` for an agent this session has not started.
pub fn no_such_subagent(n: &str) -> String {
    format!("no subagent #{n} in this session (/agents lists them)")
}

/// ↑ took a queued prompt back into the input.
pub const QUEUED_EDITING: &str = " queued prompt back in the input: Enter queues it, Esc drops it ";
pub const QUEUED_REMOVED: &str = " queued prompt removed ";

/// Tab after `@` found nothing.
pub fn no_resource_matches(partial: &str) -> String {
    let server = partial.split(':').next().unwrap_or(partial);
    format!(" MCP server {server} lists no resource that starts with {partial:?} ")
}

pub fn no_path_matches(partial: &str) -> String {
    format!(" no file in the workspace starts with {partial:?} ")
}

/// A command file with nothing in it.
pub fn empty_command_file(name: &str, path: &str) -> String {
    format!("/{name}: {path} holds no prompt")
}

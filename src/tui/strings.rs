//! Every user-facing string of the TUI in one place.

pub const APP: &str = "tooloop";
pub const INTERRUPTED: &str = "⏹ interrupted — the next prompt continues this conversation";
pub const DISCARDED: &str = "discarded: this attempt failed and the model was switched";
pub const NEW_COMMAND: &str = "/new";
pub const MODEL_COMMAND: &str = "/model";
/// `/compact [instructions]`: summarize the conversation now.
pub const COMPACT_COMMAND: &str = "/compact";
pub const COMPACTED: &str = "compacted";
pub const COMPACTING: &str = "compacting the conversation…";
pub const QUIT_CONFIRM: &str = "press Ctrl+C again to quit";
pub const INPUT_PLACEHOLDER: &str =
    "Ask something — try: list files, read Cargo.toml and tell me the time";
pub const DEMO_NOTE: &str =
    "offline demo model: no API key set (ANTHROPIC_API_KEY / OPENAI_API_KEY)";
pub const NEW_CONVERSATION: &str = "new conversation";
pub const NOT_WHILE_BUSY: &str =
    "wait for the turn to end (or Ctrl+C) before starting a new conversation";
pub const HELP_TITLE: &str = " keys — any key closes ";
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
pub const APPROVAL_KEYS: &str = "y allow once · a allow for this session · n / Esc deny";

pub fn queued(n: usize) -> String {
    if n == 1 {
        " queued: 1 prompt — sends when this turn ends ".to_string()
    } else {
        format!(" queued: {n} prompts — they send when this turn ends ")
    }
}

pub fn running_tools(n: usize) -> String {
    if n == 1 {
        "running 1 tool".into()
    } else {
        format!("running {n} tools")
    }
}

pub fn retrying_in(secs: u64) -> String {
    format!("retrying in {secs}s")
}

pub fn retry_note(attempt: u32, delay_ms: u64, error: &str) -> String {
    format!(
        "attempt {attempt} failed ({error}); retrying in {:.1}s",
        delay_ms as f64 / 1000.0
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

pub fn sandbox_status(mode: &str) -> String {
    format!("sandbox {mode}")
}

pub fn ended(reason: &str, error: Option<&str>) -> String {
    match error {
        Some(e) => format!("turn ended: {reason} — {e}"),
        None => format!("turn ended: {reason}"),
    }
}

pub fn model_switch_pending(model: &str) -> String {
    format!("model {model} from the next prompt (this turn keeps its model)")
}

pub fn model_switched(model: &str) -> String {
    format!("model: {model} (used from the next request)")
}

pub fn model_list(table: &str) -> String {
    format!("models (/model NAME switches; prices in USD per million tokens):\n{table}")
}

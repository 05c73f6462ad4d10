//! Claude Code's settings files: `.claude/settings.json`, `.claude/settings.local.json` of
//! the workspace and `~/.claude/settings.json`, read beside tooloop's own files (which win on
//! a conflict). Only `permissions`, `hooks` and `statusLine` mean something here; other keys
//! (`env`, `model`, …) are Claude Code's business and left alone.
//!
//! The files are read once, when the session starts: nothing written to them during the
//! session (by the model or anyone) changes a rule or a hook of the running session.
//!
//! A bad piece (a file that is not JSON, an unknown event, a matcher that is not a regex) is
//! one notice naming the file and the key path (or line), and only that piece is skipped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::rules::{Mapped, map};
use crate::hooks::HookEvent;

/// The sources, lowest precedence first (for the status line: the last one wins).
pub const PROJECT: &str = ".claude/settings.json";
pub const LOCAL: &str = ".claude/settings.local.json";
pub const USER: &str = "~/.claude/settings.json";

/// One file's `permissions` lists, already in tooloop's rule syntax.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleLists {
    pub source: String,
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
}

/// One `{"type": "command", …}` or `{"type": "prompt", …}` entry of a `hooks` event.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaudeHook {
    pub event: HookEvent,
    pub matcher: Option<String>,
    /// The command, or the prompt of a prompt hook.
    pub command: String,
    pub kind: crate::hooks::HookKind,
    pub timeout_secs: Option<u64>,
    /// `PATH: hooks.EVENT[i].hooks[j]`, for notices.
    pub source: String,
}

/// `statusLine {"type": "command", "command": …, "padding": N}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusLineSpec {
    pub command: String,
    pub padding: u16,
    pub source: String,
}

/// Everything the three files say that tooloop uses.
#[derive(Clone, Debug, Default)]
pub struct ClaudeSettings {
    pub rules: Vec<RuleLists>,
    /// Rules not applied: `SOURCE: RULE (why)`.
    pub unused: Vec<String>,
    pub hooks: Vec<ClaudeHook>,
    pub status_line: Option<StatusLineSpec>,
    /// One per bad piece, each naming its file and key path or line.
    pub notices: Vec<String>,
    /// The home directory the user's file was read from (None: no user file).
    pub home: Option<PathBuf>,
}

impl ClaudeSettings {
    /// Adds the files' hooks after tooloop's own `[[hooks.*]]` (their matchers were
    /// checked when the files were read).
    pub fn add_hooks(&self, hooks: &mut crate::hooks::Hooks) {
        use crate::hooks::{Dialect, Hook, HookKind, config, prompt};
        for h in &self.hooks {
            let Ok(matcher) = config::compile_matcher(h.matcher.as_deref().unwrap_or("")) else {
                continue;
            };
            hooks.add(
                h.event,
                Hook {
                    matcher,
                    command: h.command.clone(),
                    kind: h.kind.clone(),
                    timeout: h
                        .timeout_secs
                        .map(std::time::Duration::from_secs)
                        .unwrap_or(match h.kind {
                            HookKind::Command => config::DEFAULT_HOOK_TIMEOUT,
                            HookKind::Prompt { .. } => prompt::DEFAULT_PROMPT_TIMEOUT,
                        }),
                    dialect: Dialect::Claude,
                    source: h.source.clone(),
                },
            );
        }
    }

    /// Adds the files' rules after tooloop's own (deny beats ask beats allow wherever a
    /// rule stands, so a tooloop deny is never lifted by a Claude Code allow).
    pub fn apply_rules(&self, set: &mut crate::permission::rules::RuleSet) {
        for l in &self.rules {
            // Every rule was parsed when the file was read: none fails here.
            let _ = set.add_lists(&l.source, &l.allow, &l.ask, &l.deny);
        }
        for u in &self.unused {
            set.note_unused(u.clone());
        }
    }
}

/// What `tooloop config path` says about the files: each piece and where it came from.
pub fn summary(s: &ClaudeSettings) -> String {
    let mut out = String::new();
    for l in &s.rules {
        out.push_str(&format!(
            "claude rules: {} (allow {}, ask {}, deny {} as tooloop rules)\n",
            l.source,
            l.allow.len(),
            l.ask.len(),
            l.deny.len()
        ));
    }
    for u in &s.unused {
        out.push_str(&format!("claude rule unused: {u}\n"));
    }
    for h in &s.hooks {
        out.push_str(&format!(
            "claude hook: {} {}\n",
            h.event.claude_name(),
            h.source
        ));
    }
    if let Some(sl) = &s.status_line {
        out.push_str(&format!(
            "claude statusLine: {} ({})\n",
            sl.command, sl.source
        ));
    }
    for n in &s.notices {
        out.push_str(&format!("claude settings skipped: {n}\n"));
    }
    out
}

/// The files of `workspace` and of `home` (None: no user file).
pub fn load(workspace: &Path, home: Option<&Path>) -> ClaudeSettings {
    let mut out = ClaudeSettings {
        home: home.map(Path::to_path_buf),
        ..ClaudeSettings::default()
    };
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    if let Some(h) = home {
        files.push((USER.into(), h.join(".claude/settings.json")));
    }
    files.push((PROJECT.into(), workspace.join(PROJECT)));
    files.push((LOCAL.into(), workspace.join(LOCAL)));
    for (source, path) in files {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                out.notices
                    .push(format!("{}: {e}; file skipped", path.display()));
                continue;
            }
        };
        read_text(&mut out, &source, &path, &text, home);
    }
    out
}

/// One file's text into `out` (the fuzz target's entry point).
pub fn read_text(
    out: &mut ClaudeSettings,
    source: &str,
    path: &Path,
    text: &str,
    home: Option<&Path>,
) {
    let shown = path.display();
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            out.notices.push(format!(
                "{shown}:{}:{}: not JSON ({e}); file skipped",
                e.line(),
                e.column()
            ));
            return;
        }
    };
    let Value::Object(root) = root else {
        out.notices
            .push(format!("{shown}: expected a JSON object; file skipped"));
        return;
    };
    if let Some(p) = root.get("permissions") {
        read_permissions(out, source, &shown.to_string(), p, home);
    }
    if let Some(h) = root.get("hooks") {
        read_hooks(out, &shown.to_string(), h);
    }
    if let Some(s) = root.get("statusLine") {
        match status_line(s, source) {
            Ok(spec) => out.status_line = Some(spec),
            Err(why) => out
                .notices
                .push(format!("{shown}: statusLine: {why}; skipped")),
        }
    }
}

fn read_permissions(
    out: &mut ClaudeSettings,
    source: &str,
    shown: &str,
    p: &Value,
    home: Option<&Path>,
) {
    let mut lists = RuleLists {
        source: source.to_string(),
        ..RuleLists::default()
    };
    for key in ["allow", "ask", "deny"] {
        let Some(v) = p.get(key) else { continue };
        let Some(items) = v.as_array() else {
            out.notices.push(format!(
                "{shown}: permissions.{key}: expected a list of rules; skipped"
            ));
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let Some(text) = item.as_str() else {
                out.notices.push(format!(
                    "{shown}: permissions.{key}[{i}]: expected a string; skipped"
                ));
                continue;
            };
            match map(text, key == "deny", home) {
                Mapped::Rules(rules) => {
                    for r in rules {
                        // Checked here, so the rule set never meets a bad rule.
                        if let Err(e) = crate::permission::rules::Rule::parse(&r) {
                            out.unused.push(format!("{source}: {key} {text} ({e})"));
                            continue;
                        }
                        match key {
                            "allow" => lists.allow.push(r),
                            "ask" => lists.ask.push(r),
                            _ => lists.deny.push(r),
                        }
                    }
                }
                Mapped::Unused(why) => out.unused.push(format!("{source}: {key} {text} ({why})")),
            }
        }
    }
    if !(lists.allow.is_empty() && lists.ask.is_empty() && lists.deny.is_empty()) {
        out.rules.push(lists);
    }
}

fn read_hooks(out: &mut ClaudeSettings, shown: &str, hooks: &Value) {
    let Some(events) = hooks.as_object() else {
        out.notices.push(format!(
            "{shown}: hooks: expected an object of events; skipped"
        ));
        return;
    };
    for (name, groups) in events {
        let Some(event) = HookEvent::from_claude(name) else {
            out.notices.push(format!(
                "{shown}: hooks.{name}: unknown event (expected one of {}); skipped",
                HookEvent::ALL
                    .iter()
                    .map(|e| e.claude_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            out.notices.push(format!(
                "{shown}: hooks.{name}: expected a list of matcher groups; skipped"
            ));
            continue;
        };
        for (i, group) in groups.iter().enumerate() {
            let at = format!("{shown}: hooks.{name}[{i}]");
            let matcher = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(m)) => Some(m.clone()),
                Some(_) => {
                    out.notices
                        .push(format!("{at}.matcher: expected a string; group skipped"));
                    continue;
                }
            };
            if let Some(m) = &matcher
                && let Err(e) = crate::hooks::config::compile_matcher(m)
            {
                out.notices.push(format!(
                    "{at}.matcher: {m:?} is not a valid regex ({}); group skipped",
                    first_line(&e.to_string())
                ));
                continue;
            }
            let Some(list) = group.get("hooks").and_then(Value::as_array) else {
                out.notices.push(format!(
                    "{at}.hooks: expected a list of hooks; group skipped"
                ));
                continue;
            };
            for (j, h) in list.iter().enumerate() {
                let here = format!("{at}.hooks[{j}]");
                match hook(h, event) {
                    Ok((command, kind, timeout_secs)) => out.hooks.push(ClaudeHook {
                        event,
                        matcher: matcher.clone(),
                        command,
                        kind,
                        timeout_secs,
                        source: here,
                    }),
                    Err(why) => out.notices.push(format!("{here}: {why}; skipped")),
                }
            }
        }
    }
}

/// Why one piece of a settings file is skipped (the notice adds the file and key path).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PieceError(String);

impl From<&str> for PieceError {
    fn from(s: &str) -> PieceError {
        PieceError(s.to_string())
    }
}

impl From<String> for PieceError {
    fn from(s: String) -> PieceError {
        PieceError(s)
    }
}

/// `{"type": "command", "command": "…", "timeout": 30}` or `{"type": "prompt", "prompt":
/// "…", "model": "…", "timeout": 30}` (on the events whose hooks decide something).
fn hook(
    h: &Value,
    event: HookEvent,
) -> Result<(String, crate::hooks::HookKind, Option<u64>), PieceError> {
    use crate::hooks::{HookKind, prompt::PROMPT_EVENTS};
    let (key, kind) = match h.get("type").and_then(Value::as_str) {
        Some("command") => ("command", HookKind::Command),
        Some("prompt") if !PROMPT_EVENTS.contains(&event) => {
            return Err(format!(
                "prompt hooks run only for {}",
                PROMPT_EVENTS
                    .iter()
                    .map(|e| e.claude_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
            .into());
        }
        Some("prompt") => {
            let model = match h.get("model") {
                None | Some(Value::Null) => None,
                Some(Value::String(m)) if !m.trim().is_empty() => Some(m.clone()),
                Some(_) => return Err("\"model\" must be a model name".into()),
            };
            ("prompt", HookKind::Prompt { model })
        }
        Some(other) => {
            return Err(format!(
                "type {other:?} is not supported (only \"command\" and \"prompt\")"
            )
            .into());
        }
        None => return Err("no \"type\": \"command\" or \"prompt\"".into()),
    };
    let text = h
        .get(key)
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .ok_or(format!("no \"{key}\" string"))?;
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => None,
        Some(t) => Some(
            t.as_u64()
                .filter(|t| *t > 0)
                .ok_or("\"timeout\" must be a whole number of seconds above 0")?,
        ),
    };
    Ok((text.to_string(), kind, timeout))
}

fn status_line(s: &Value, source: &str) -> Result<StatusLineSpec, PieceError> {
    match s.get("type").and_then(Value::as_str) {
        Some("command") => {}
        _ => return Err("expected \"type\": \"command\"".into()),
    }
    let command = s
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .ok_or("no \"command\" string")?;
    let padding = match s.get("padding") {
        None | Some(Value::Null) => 0,
        Some(p) => p
            .as_u64()
            .filter(|p| *p <= 20)
            .ok_or("\"padding\" must be a whole number from 0 to 20")? as u16,
    };
    Ok(StatusLineSpec {
        command: command.to_string(),
        padding,
        source: source.to_string(),
    })
}

fn first_line(s: &str) -> &str {
    s.lines().last().unwrap_or(s).trim()
}

//! The `[[hooks.EVENT]]` tables of config.toml, exactly as the README documents them:
//! `matcher` (a regex on the tool name; absent = every tool), `command` (run with `bash -c`
//! in the workspace) and `timeout_secs` (default 60).

use std::time::Duration;

use regex::Regex;
use serde::Deserialize;

use super::HookEvent;

/// A hook gets this long unless its table says otherwise.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// One `[[hooks.EVENT]]` table as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_secs: Option<u64>,
}

/// The `[hooks]` section: one list per event.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HooksSection {
    #[serde(default)]
    pub pre_tool_use: Vec<HookSpec>,
    #[serde(default)]
    pub post_tool_use: Vec<HookSpec>,
    #[serde(default)]
    pub user_prompt_submit: Vec<HookSpec>,
    #[serde(default)]
    pub stop: Vec<HookSpec>,
    #[serde(default)]
    pub pre_compact: Vec<HookSpec>,
    #[serde(default)]
    pub session_start: Vec<HookSpec>,
    #[serde(default)]
    pub session_end: Vec<HookSpec>,
    #[serde(default)]
    pub post_tool_use_failure: Vec<HookSpec>,
    #[serde(default)]
    pub subagent_start: Vec<HookSpec>,
    #[serde(default)]
    pub subagent_stop: Vec<HookSpec>,
    #[serde(default)]
    pub notification: Vec<HookSpec>,
    #[serde(default)]
    pub post_compact: Vec<HookSpec>,
    #[serde(default)]
    pub permission_request: Vec<HookSpec>,
}

impl HooksSection {
    pub fn is_empty(&self) -> bool {
        self.lists().iter().all(|(_, l)| l.is_empty())
    }

    /// Each event's list, in [`HookEvent::ALL`]'s order.
    pub fn lists(&self) -> [(HookEvent, &[HookSpec]); 13] {
        [
            (HookEvent::PreToolUse, &self.pre_tool_use),
            (HookEvent::PostToolUse, &self.post_tool_use),
            (HookEvent::UserPromptSubmit, &self.user_prompt_submit),
            (HookEvent::Stop, &self.stop),
            (HookEvent::PreCompact, &self.pre_compact),
            (HookEvent::SessionStart, &self.session_start),
            (HookEvent::SessionEnd, &self.session_end),
            (HookEvent::PostToolUseFailure, &self.post_tool_use_failure),
            (HookEvent::SubagentStart, &self.subagent_start),
            (HookEvent::SubagentStop, &self.subagent_stop),
            (HookEvent::Notification, &self.notification),
            (HookEvent::PostCompact, &self.post_compact),
            (HookEvent::PermissionRequest, &self.permission_request),
        ]
    }
}

/// Whose format a hook was written for: what it reads on stdin and how its matcher names
/// tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// `[[hooks.*]]` in config.toml: tooloop's names.
    #[default]
    Tooloop,
    /// Claude Code's settings.json: its event and tool names, `hook_event_name`, …
    Claude,
}

/// What a hook is: a command run with `bash -c`, or (Claude Code's `"type": "prompt"`) a
/// prompt a small model answers with `{"ok": …}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum HookKind {
    #[default]
    Command,
    /// `model`: the entry's own model; None is the `small` route.
    Prompt { model: Option<String> },
}

/// A hook ready to run: its matcher compiled once, at start.
#[derive(Clone, Debug)]
pub struct Hook {
    pub matcher: Option<Regex>,
    /// The command, or for a prompt hook the prompt (`$ARGUMENTS` is the event's JSON).
    pub command: String,
    pub kind: HookKind,
    pub timeout: Duration,
    pub dialect: Dialect,
    /// Where it was written (`config.toml`, `.claude/settings.json: hooks.PreToolUse[0]…`).
    pub source: String,
}

/// A matcher as a regex anchored on both ends (`bash` must not also match
/// `mcp__x__bash_like`); None for "every tool" (absent, empty or `*`).
pub fn compile_matcher(m: &str) -> Result<Option<Regex>, regex::Error> {
    match m.trim() {
        "" | "*" => Ok(None),
        m => Regex::new(&format!("^(?:{m})$")).map(Some),
    }
}

/// A matcher that does not compile is a config error, said at start, never a hook that
/// silently matches nothing.
#[derive(Debug, thiserror::Error)]
#[error("hooks.{event}: matcher {matcher:?} is not a valid regex: {source}")]
pub struct MatcherError {
    pub event: &'static str,
    pub matcher: String,
    #[source]
    pub source: regex::Error,
}

impl Hook {
    pub fn compile(event: &'static str, spec: &HookSpec) -> Result<Hook, MatcherError> {
        let matcher = match &spec.matcher {
            None => None,
            Some(m) => compile_matcher(m).map_err(|source| MatcherError {
                event,
                matcher: m.trim().to_string(),
                source,
            })?,
        };
        Ok(Hook {
            matcher,
            command: spec.command.clone(),
            kind: HookKind::Command,
            timeout: spec
                .timeout_secs
                .map(Duration::from_secs)
                .unwrap_or(DEFAULT_HOOK_TIMEOUT),
            dialect: Dialect::Tooloop,
            source: "config.toml".into(),
        })
    }

    /// Whether this hook runs for `subject`: the tool's name (Claude Code's name for its
    /// hooks) or the event's subject (SessionStart's source, PreCompact's trigger).
    /// Events without a subject always match.
    pub fn matches(&self, event: HookEvent, subject: Option<&str>) -> bool {
        match (&self.matcher, subject) {
            (Some(re), Some(name)) if event.is_tool_event() && self.dialect == Dialect::Claude => {
                re.is_match(super::claude_tools::to_claude(name))
            }
            (Some(re), Some(name)) => re.is_match(name),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(matcher: Option<&str>) -> HookSpec {
        HookSpec {
            matcher: matcher.map(str::to_string),
            command: "true".into(),
            timeout_secs: None,
        }
    }

    #[test]
    fn matcher_is_an_anchored_regex_on_the_tool_name() {
        let pre = HookEvent::PreToolUse;
        let h = Hook::compile("pre_tool_use", &spec(Some("bash|write_file"))).unwrap();
        assert!(h.matches(pre, Some("bash")));
        assert!(h.matches(pre, Some("write_file")));
        assert!(!h.matches(pre, Some("mcp__x__bash_like")));
        assert!(!h.matches(pre, Some("read_file")));
        let all = Hook::compile("pre_tool_use", &spec(None)).unwrap();
        assert!(all.matches(pre, Some("anything")));
        let prefix = Hook::compile("pre_tool_use", &spec(Some("mcp__srv__.*"))).unwrap();
        assert!(prefix.matches(pre, Some("mcp__srv__echo")));
        let claude = Hook {
            dialect: Dialect::Claude,
            ..Hook::compile("pre_tool_use", &spec(Some("Bash|Edit"))).unwrap()
        };
        assert!(claude.matches(pre, Some("bash")));
        assert!(claude.matches(pre, Some("edit_file")));
        assert!(!claude.matches(pre, Some("read_file")));
        assert_eq!(h.timeout, DEFAULT_HOOK_TIMEOUT);
    }

    #[test]
    fn a_bad_matcher_is_an_error_naming_the_event() {
        let err = Hook::compile("post_tool_use", &spec(Some("("))).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("hooks.post_tool_use: matcher \"(\"")
        );
    }

    #[test]
    fn the_documented_toml_shape_parses() {
        let text = r#"
            [[pre_tool_use]]
            matcher = "bash|write_file"
            command = "./check.sh"
            timeout_secs = 30

            [[stop]]
            command = "./stop.sh"
        "#;
        let s: HooksSection = toml::from_str(text).unwrap();
        assert_eq!(s.pre_tool_use.len(), 1);
        assert_eq!(s.pre_tool_use[0].timeout_secs, Some(30));
        assert_eq!(s.stop[0].command, "./stop.sh");
        assert!(toml::from_str::<HooksSection>("[[pre_tool_use]]\ncommand='x'\nbogus=1").is_err());
    }
}

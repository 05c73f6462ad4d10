//! What `/hooks` shows: a settings file's pending change as the hooks and rules it adds and
//! removes, or (nothing pending) the hooks in force by event with where each was written.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::hooks::{HookEvent, HookKind, Hooks};

/// The change of one file, a line per hook or rule added (`+`) or removed (`-`).
pub fn diff(label: &str, path: &Path, before: &Value, after: &Value) -> String {
    let (old, new) = (entries(before), entries(after));
    let mut out = format!(
        "{label} ({}) changed during the session, not applied yet:\n",
        path.display()
    );
    let mut any = false;
    for e in new.difference(&old) {
        out.push_str(&format!("  + {e}\n"));
        any = true;
    }
    for e in old.difference(&new) {
        out.push_str(&format!("  - {e}\n"));
        any = true;
    }
    if !any {
        out.push_str("  ~ other keys of hooks or permissions (no hook or rule added or removed)\n");
    }
    out
}

/// Each hook and rule of a file's sections as one line: `hook EVENT [MATCHER]: COMMAND`,
/// `hook EVENT: prompt "…"`, `rule deny Bash(rm:*)`.
fn entries(sections: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(events) = sections.get("hooks").and_then(Value::as_object) {
        for (event, groups) in events {
            for group in groups.as_array().into_iter().flatten() {
                let matcher = match group.get("matcher").and_then(Value::as_str) {
                    Some(m) if !m.is_empty() && m != "*" => format!(" [{m}]"),
                    _ => String::new(),
                };
                let hooks = group.get("hooks").and_then(Value::as_array);
                for h in hooks.into_iter().flatten() {
                    let what = match h.get("type").and_then(Value::as_str) {
                        Some("prompt") => format!(
                            "prompt {:?}",
                            h.get("prompt").and_then(Value::as_str).unwrap_or("")
                        ),
                        _ => h
                            .get("command")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    };
                    out.insert(format!("hook {event}{matcher}: {what}"));
                }
            }
        }
    }
    if let Some(p) = sections.get("permissions") {
        for kind in ["allow", "ask", "deny"] {
            for rule in p.get(kind).and_then(Value::as_array).into_iter().flatten() {
                out.insert(format!(
                    "rule {kind} {}",
                    rule.as_str()
                        .map_or_else(|| rule.to_string(), str::to_string)
                ));
            }
        }
    }
    out
}

/// The hooks in force, by event: matcher, command (or prompt) and where it was written.
pub fn active(hooks: &Hooks) -> String {
    let all = hooks.all();
    if all.is_empty() {
        return "no hooks in force (Claude Code's settings.json `hooks`, or [[hooks.EVENT]] in \
                config.toml)"
            .into();
    }
    let mut out = String::from("hooks in force:\n");
    let mut last: Option<HookEvent> = None;
    for (event, h) in all {
        if last != Some(event) {
            out.push_str(&format!("{}\n", event.claude_name()));
            last = Some(event);
        }
        let matcher = h
            .matcher
            .as_ref()
            .map(|m| {
                let s = m.as_str();
                let s = s.strip_prefix("^(?:").unwrap_or(s);
                format!("[{}] ", s.strip_suffix(")$").unwrap_or(s))
            })
            .unwrap_or_default();
        let what = match &h.kind {
            HookKind::Command => h.command.clone(),
            HookKind::Prompt { .. } => format!("prompt {:?}", h.command),
        };
        out.push_str(&format!("  {matcher}{what}  ({})\n", h.source));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_names_hooks_and_rules_added_and_removed() {
        let before = serde_json::json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "./old.sh"}]}]}, "permissions": null});
        let after = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": "safe? $ARGUMENTS"}]}]},
            "permissions": {"deny": ["Bash(rm:*)"]}});
        let d = diff("L", Path::new("/w/L"), &before, &after);
        assert!(d.starts_with("L (/w/L) changed during the session"), "{d}");
        assert!(
            d.contains("  + hook PreToolUse [Bash]: prompt \"safe? $ARGUMENTS\"\n"),
            "{d}"
        );
        assert!(d.contains("  + rule deny Bash(rm:*)\n"), "{d}");
        assert!(d.contains("  - hook Stop: ./old.sh\n"), "{d}");
    }
}

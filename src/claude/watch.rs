//! Claude Code's settings files are files the model can write (`~/.claude/settings.json`
//! too, when the sandbox lets it). Their `hooks` and `permissions` were read when the
//! session started ([`super::settings`]); a change is never applied silently. Before each
//! request the sections are compared with those in force; a change is said once (per new
//! content) in a notice, and the hooks and rules in force stay. `/hooks` shows the change
//! ([`SettingsWatch::review`]); only the user's accept applies it, exactly as shown
//! ([`SettingsWatch::accept`]); keep declines it ([`SettingsWatch::keep`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::settings::{self, ClaudeSettings};

/// The sections that decide what runs without asking.
const WATCHED: [&str; 2] = ["hooks", "permissions"];

pub struct SettingsWatch {
    /// In [`settings::load`]'s order: user, project, local.
    files: Vec<Watched>,
    home: Option<PathBuf>,
}

struct Watched {
    label: &'static str,
    path: PathBuf,
    /// The sections in force (read at start, or accepted since).
    applied: Value,
    /// The sections last told about in a notice.
    told: Value,
    /// The sections `/hooks` last showed as a pending change (what accept applies).
    shown: Option<Value>,
    /// Sections the user kept the old ones over (not shown or said again).
    declined: Option<Value>,
}

impl SettingsWatch {
    /// The files of `workspace` and `home` as they are now (the session's start).
    pub fn start(workspace: &Path, home: Option<&Path>) -> SettingsWatch {
        let mut files: Vec<(&'static str, PathBuf)> = Vec::new();
        if let Some(h) = home {
            files.push((settings::USER, h.join(".claude/settings.json")));
        }
        files.push((settings::PROJECT, workspace.join(settings::PROJECT)));
        files.push((settings::LOCAL, workspace.join(settings::LOCAL)));
        let files = files
            .into_iter()
            .map(|(label, path)| {
                let now = sections(&path);
                Watched {
                    label,
                    path,
                    applied: now.clone(),
                    told: now,
                    shown: None,
                    declined: None,
                }
            })
            .collect();
        SettingsWatch {
            files,
            home: home.map(Path::to_path_buf),
        }
    }

    /// One notice per file whose `hooks` or `permissions` differ from those in force and
    /// from what was last told (so an unchanged edit is not said again).
    pub fn check(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &mut self.files {
            let now = sections(&f.path);
            if now == f.told {
                continue;
            }
            f.told = now.clone();
            if now == f.applied || f.declined.as_ref() == Some(&now) {
                continue;
            }
            out.push(format!(
                "{} changed during the session ({}): not applied; the hooks and permission \
                 rules in force still hold (review the change with /hooks in the TUI)",
                f.label,
                changed_keys(&f.applied, &now)
            ));
        }
        out
    }

    /// The pending changes as they are now, each file's added and removed hooks and rules;
    /// remembered as what [`SettingsWatch::accept`] would apply. None: nothing pending.
    pub fn review(&mut self) -> Option<String> {
        let mut out = String::new();
        for f in &mut self.files {
            let now = sections(&f.path);
            f.told = now.clone();
            if now == f.applied || f.declined.as_ref() == Some(&now) {
                f.shown = None;
                continue;
            }
            out.push_str(&super::review::diff(f.label, &f.path, &f.applied, &now));
            f.shown = Some(now);
        }
        (!out.is_empty()).then_some(out)
    }

    /// Applies what [`SettingsWatch::review`] last showed: the files it named and the
    /// settings of all files as now in force (to rebuild hooks and rules from). None when
    /// nothing was shown.
    pub fn accept(&mut self) -> Option<(Vec<&'static str>, ClaudeSettings)> {
        let mut labels = Vec::new();
        for f in &mut self.files {
            if let Some(shown) = f.shown.take() {
                f.applied = shown;
                f.declined = None;
                labels.push(f.label);
            }
        }
        if labels.is_empty() {
            return None;
        }
        Some((labels, self.in_force()))
    }

    /// Declines what [`SettingsWatch::review`] last showed: the files it named.
    pub fn keep(&mut self) -> Vec<&'static str> {
        let mut labels = Vec::new();
        for f in &mut self.files {
            if let Some(shown) = f.shown.take() {
                f.declined = Some(shown);
                labels.push(f.label);
            }
        }
        labels
    }

    /// The sections in force of every file, read as [`settings::load`] reads files.
    fn in_force(&self) -> ClaudeSettings {
        let mut out = ClaudeSettings {
            home: self.home.clone(),
            ..ClaudeSettings::default()
        };
        for f in &self.files {
            let Value::Object(map) = &f.applied else {
                continue;
            };
            let present: serde_json::Map<String, Value> = map
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if present.is_empty() {
                continue;
            }
            let text = Value::Object(present).to_string();
            settings::read_text(&mut out, f.label, &f.path, &text, self.home.as_deref());
        }
        out
    }
}

/// "hooks", "permissions" or "hooks and permissions": the sections that differ.
fn changed_keys(before: &Value, after: &Value) -> String {
    WATCHED
        .iter()
        .copied()
        .filter(|k| after.get(k) != before.get(k))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// `{"hooks": …, "permissions": …}` of a file; Null for a missing key, and for a file that
/// is missing or not JSON (its bad content is a notice at the next start, not here).
fn sections(path: &Path) -> Value {
    let parsed: Option<Value> = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let mut out = serde_json::Map::new();
    for k in WATCHED {
        out.insert(
            k.to_string(),
            parsed
                .as_ref()
                .and_then(|v| v.get(k))
                .cloned()
                .unwrap_or(Value::Null),
        );
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_hooks_section_is_said_once_and_other_keys_are_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        let file = dir.path().join(".claude/settings.json");
        std::fs::write(&file, r#"{"hooks": {}, "model": "a"}"#).unwrap();
        let mut w = SettingsWatch::start(dir.path(), None);
        assert!(w.check().is_empty());
        std::fs::write(&file, r#"{"hooks": {}, "model": "b"}"#).unwrap();
        assert!(w.check().is_empty(), "only hooks and permissions count");
        std::fs::write(
            &file,
            r#"{"hooks": {"Stop": []}, "permissions": {"allow": ["Bash"]}}"#,
        )
        .unwrap();
        let told = w.check();
        assert_eq!(told.len(), 1);
        assert!(
            told[0].contains(
                ".claude/settings.json changed during the session (hooks and permissions)"
            )
        );
        assert!(w.check().is_empty(), "said once");
        // A new local file counts too.
        std::fs::write(
            dir.path().join(".claude/settings.local.json"),
            r#"{"permissions": {"allow": ["Bash"]}}"#,
        )
        .unwrap();
        assert!(w.check()[0].contains(".claude/settings.local.json changed"));
    }

    #[test]
    fn accept_applies_what_was_shown_and_keep_declines_it() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let user = home.join(".claude/settings.json");
        std::fs::write(&user, r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#).unwrap();
        let mut w = SettingsWatch::start(dir.path(), Some(&home));
        assert!(w.review().is_none(), "nothing pending at start");
        assert!(w.accept().is_none(), "nothing shown, nothing applied");
        let guard = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./guard.sh"}]}]},
            "permissions": {"deny": ["Bash(rm:*)"]}}"#;
        std::fs::write(&user, guard).unwrap();
        assert!(w.check()[0].starts_with("~/.claude/settings.json changed"));
        let shown = w.review().expect("a change is pending");
        assert!(
            shown.contains("+ hook PreToolUse [Bash]: ./guard.sh"),
            "{shown}"
        );
        // Written again after it was shown: accept applies what the user saw.
        std::fs::write(&user, r#"{"hooks": {"Stop": []}}"#).unwrap();
        let (labels, s) = w.accept().expect("applied");
        assert_eq!(labels, vec![settings::USER]);
        assert_eq!(s.hooks.len(), 1);
        assert_eq!(s.hooks[0].command, "./guard.sh");
        assert_eq!(s.rules[0].deny, vec!["bash(rm:*)".to_string()]);
        // The later write is still pending; keep declines it and it is not said again.
        assert!(w.review().unwrap().contains("- hook PreToolUse"));
        assert_eq!(w.keep(), vec![settings::USER]);
        assert!(w.review().is_none());
        assert!(w.check().is_empty());
    }
}

//! The workspace's `.claude/settings.json` and `.claude/settings.local.json` are files the
//! model can write. Their `hooks` and `permissions` were read when the session started
//! ([`super::settings`]) and hold for the whole session: a change is never applied
//! silently. Before each request the two sections are compared with what was read; a
//! change is said once (per new content) in a notice, and the hooks and rules of the start
//! stay in force.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The sections that decide what runs without asking.
const WATCHED: [&str; 2] = ["hooks", "permissions"];

pub struct SettingsWatch {
    /// (label, file, the sections as read at start, the sections last told about).
    files: Vec<Watched>,
}

struct Watched {
    label: &'static str,
    path: PathBuf,
    at_start: Value,
    told: Value,
}

impl SettingsWatch {
    /// The two files of `workspace` as they are now (the session's start).
    pub fn start(workspace: &Path) -> SettingsWatch {
        let files = [super::settings::PROJECT, super::settings::LOCAL]
            .into_iter()
            .map(|label| {
                let path = workspace.join(label);
                let now = sections(&path);
                Watched {
                    label,
                    path,
                    at_start: now.clone(),
                    told: now,
                }
            })
            .collect();
        SettingsWatch { files }
    }

    /// One notice per file whose `hooks` or `permissions` differ from the start and from
    /// what was last told (so an unchanged edit is not said again).
    pub fn check(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &mut self.files {
            let now = sections(&f.path);
            if now == f.told {
                continue;
            }
            f.told = now.clone();
            if now == f.at_start {
                continue;
            }
            let changed: Vec<&str> = WATCHED
                .iter()
                .copied()
                .filter(|k| now.get(k) != f.at_start.get(k))
                .collect();
            out.push(format!(
                "{} changed during the session ({}): not applied; the hooks and permission \
                 rules read at start still hold (restart tooloop to use the new ones)",
                f.label,
                changed.join(" and ")
            ));
        }
        out
    }
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
        let mut w = SettingsWatch::start(dir.path());
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
}

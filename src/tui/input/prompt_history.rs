//! Prompts typed in the TUI survive restarts: one file per workspace in the data directory
//! (`history/NAME-HASH.jsonl`, one JSON string per line, owner-only), so Up and Ctrl+R find
//! what was asked in this project yesterday. A file that cannot be read or written only
//! costs the history, never the session.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Prompts loaded at start (the newest).
const KEEP: usize = 1000;

/// The history file of `workspace`, if there is a data directory.
pub fn file_for(workspace: &Path) -> Option<PathBuf> {
    let sessions = crate::paths::sessions_dir().ok()?;
    let name = workspace
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let hash = fnv1a(workspace.to_string_lossy().as_bytes());
    Some(
        sessions
            .parent()?
            .join("history")
            .join(format!("{name}-{hash:016x}.jsonl")),
    )
}

/// The newest prompts of `path`, oldest first; lines that do not parse are skipped.
pub fn load(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut out: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<String>(l).ok())
        .collect();
    let cut = out.len().saturating_sub(KEEP);
    out.drain(..cut);
    out
}

/// Adds one prompt at the end of `path`.
pub fn append(path: &Path, prompt: &str) {
    if let Err(e) = try_append(path, prompt) {
        tracing::warn!("prompt history {}: {e}", path.display());
    }
}

fn try_append(path: &Path, prompt: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        let owned_from = crate::paths::tooloop_root(dir).to_path_buf();
        crate::paths::create_private_dir(dir, &owned_from)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    crate::paths::set_mode(path, 0o600)?;
    let line = serde_json::to_string(prompt).map_err(std::io::Error::other)?;
    writeln!(f, "{line}")
}

/// FNV-1a: a stable name for a path (std's hasher may change between Rust versions).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_round_trip_with_newlines_and_chinese() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("tooloop/history/ws-1.jsonl");
        append(&path, "first\nwith a second line");
        append(&path, "用中文回答");
        assert_eq!(load(&path), vec!["first\nwith a second line", "用中文回答"]);
        assert!(load(&dir.path().join("missing.jsonl")).is_empty());
        assert_ne!(fnv1a(b"/a"), fnv1a(b"/b"));
    }
}

//! The sessions directory: listing, --continue and --resume lookups, `tooloop sessions`.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::load;
use crate::protocol::session_error::SessionError;

/// One saved session, as `tooloop sessions` shows it.
#[derive(Clone, Debug)]
pub struct SessionSummary {
    pub id: String,
    pub path: PathBuf,
    pub created: String,
    /// Last write (the file's modification time): --continue takes the latest.
    pub updated: SystemTime,
    pub workspace: String,
    pub first_prompt: Option<String>,
    pub prompts: usize,
    pub turns: u32,
    /// The session this one was forked from.
    pub forked_from: Option<String>,
}

/// Every readable session in `dir`, most recently used first. Files that are not
/// transcripts are skipped (and logged), so one bad file never hides the others.
pub fn list(dir: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(SessionError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let loaded = match load::read(&path) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!("skipping {}: {e}", path.display());
                continue;
            }
        };
        let updated = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        out.push(SessionSummary {
            id: loaded.header.id,
            path,
            created: loaded.header.created,
            updated,
            workspace: loaded.header.workspace,
            first_prompt: loaded.prompts.first().cloned(),
            prompts: loaded.prompts.len(),
            // Prompts cut by a rewind no longer count.
            turns: loaded.marks.iter().map(|m| m.turns).sum(),
            forked_from: loaded.header.forked_from,
        });
    }
    // File names start with the creation time, so they break ties between equal mtimes.
    out.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| b.path.cmp(&a.path)));
    Ok(out)
}

/// The most recently used session of `workspace` (a canonical path).
pub fn latest_for(dir: &Path, workspace: &str) -> Result<SessionSummary, SessionError> {
    list(dir)?
        .into_iter()
        .find(|s| s.workspace == workspace)
        .ok_or_else(|| SessionError::NoneForWorkspace(workspace.to_string()))
}

/// The session `id` names: its id, its file name (with or without .jsonl), or a prefix of
/// its id that fits only one.
pub fn find(dir: &Path, id: &str) -> Result<SessionSummary, SessionError> {
    let id = id.trim();
    let sessions = list(dir)?;
    let stem = |s: &SessionSummary| {
        s.path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if let Some(s) = sessions
        .iter()
        .find(|s| s.id == id || stem(s) == id || stem(s) + ".jsonl" == id)
    {
        return Ok(s.clone());
    }
    let matches: Vec<&SessionSummary> = if id.is_empty() {
        Vec::new()
    } else {
        sessions.iter().filter(|s| s.id.starts_with(id)).collect()
    };
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(SessionError::NotFound(id.to_string())),
        many => Err(SessionError::Ambiguous {
            id: id.to_string(),
            ids: many.iter().map(|s| s.id.clone()).collect(),
        }),
    }
}

/// `tooloop sessions`: a table, newest first.
pub fn format_table(sessions: &[SessionSummary]) -> String {
    if sessions.is_empty() {
        return "no saved sessions\n".to_string();
    }
    let mut out = format!(
        "{:<8}  {:<20}  {:>7}  {:>5}  {:<30}  {}\n",
        "ID", "UPDATED (UTC)", "PROMPTS", "TURNS", "WORKSPACE", "FIRST PROMPT"
    );
    for s in sessions {
        let updated = jiff::Timestamp::try_from(s.updated)
            .map(|t| t.strftime("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|_| s.created.clone());
        let mut prompt = s
            .first_prompt
            .as_deref()
            .map(|p| one_line(p, 60))
            .unwrap_or_default();
        if let Some(parent) = &s.forked_from {
            prompt = format!("(fork of {}) {prompt}", one_line(parent, 16));
        }
        out.push_str(&format!(
            "{:<8}  {:<20}  {:>7}  {:>5}  {:<30}  {}\n",
            s.id,
            updated,
            s.prompts,
            s.turns,
            tail(&s.workspace, 30),
            prompt
        ));
    }
    out
}

/// `s` on one line, control characters neutralized, cut to `max` characters with "…".
fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The end of `s` (a path's most telling part), cut to `max` characters with "…".
fn tail(s: &str, max: usize) -> String {
    let flat = one_line(s, usize::MAX);
    let n = flat.chars().count();
    if n <= max {
        return flat;
    }
    let mut cut = String::from("…");
    cut.extend(flat.chars().skip(n - max.saturating_sub(1)));
    cut
}

/// A fresh id and a file name that sorts by creation time: `20261201T063012Z-1a2b3c4d.jsonl`.
pub(super) fn new_name(dir: &Path) -> (String, PathBuf) {
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    loop {
        let id = format!("{:08x}", fastrand::u32(..));
        let path = dir.join(format!("{stamp}-{id}.jsonl"));
        if !path.exists() {
            return (id, path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("a\nb\x1b[31m  c", 20), "a b [31m c");
        assert_eq!(one_line("abcdefgh", 5), "abcd…");
        assert_eq!(tail("/home/u/projects/x", 8), "…jects/x");
    }
}

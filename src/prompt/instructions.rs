//! Project instructions: the AGENTS.md files a user and a project keep for agents.
//!
//! Order, most general first (a later file wins where they disagree):
//! 1. `AGENTS.md` in tooloop's config directory (the user's own, for every project);
//! 2. one file per directory from the git root down to the workspace: `AGENTS.md`, or
//!    `CLAUDE.md` where that directory has no AGENTS.md (outside a git repository: the
//!    workspace only).
//!
//! The file contents together are capped at [`INSTRUCTIONS_CAP`]; the nearest files are kept
//! first, so what gets cut is the most general text. A cut says so, in the prompt and to the
//! user.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Most bytes of instruction text in one prompt (32 KiB, about 8k tokens).
pub const INSTRUCTIONS_CAP: usize = 32 * 1024;

pub const AGENTS_FILE: &str = "AGENTS.md";
pub const CLAUDE_FILE: &str = "CLAUDE.md";

/// One instruction file as it goes into the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstructionFile {
    pub path: PathBuf,
    /// The user-level file in the config directory.
    pub user_level: bool,
    /// What fits under the cap (may be empty when the file was left out).
    pub text: String,
    /// Bytes of the file that did not fit.
    pub cut_bytes: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instructions {
    /// In prompt order (most general first).
    pub files: Vec<InstructionFile>,
    pub cap: usize,
    /// For the user: cuts and files that could not be read.
    pub notices: Vec<String>,
}

impl Instructions {
    /// Finds and reads the files for `workspace` (see the module docs).
    pub fn collect(
        workspace: &Path,
        git_root: Option<&Path>,
        user_dir: Option<&Path>,
        cap: usize,
    ) -> Self {
        let mut found: Vec<(PathBuf, bool)> = Vec::new();
        if let Some(dir) = user_dir {
            let p = dir.join(AGENTS_FILE);
            if p.is_file() {
                found.push((p, true));
            }
        }
        for dir in project_dirs(workspace, git_root) {
            let agents = dir.join(AGENTS_FILE);
            let claude = dir.join(CLAUDE_FILE);
            let pick = if agents.is_file() {
                agents
            } else if claude.is_file() {
                claude
            } else {
                continue;
            };
            if !found.iter().any(|(p, _)| same_file(p, &pick)) {
                found.push((pick, false));
            }
        }
        let mut notices = Vec::new();
        let mut read: Vec<(PathBuf, bool, String)> = Vec::new();
        for (path, user_level) in found {
            match read_capped(&path, cap.saturating_add(1)) {
                Ok(text) if text.trim().is_empty() => {}
                Ok(text) => read.push((path, user_level, text)),
                Err(e) => notices.push(format!("cannot read {}: {e}", path.display())),
            }
        }
        // The nearest file is the most specific: it gets its share of the cap first.
        let mut room = cap;
        let mut files: Vec<InstructionFile> = Vec::with_capacity(read.len());
        for (path, user_level, text) in read.into_iter().rev() {
            let full = file_len(&path).max(text.len());
            let keep = crate::text::floor_boundary(&text, room);
            room -= keep;
            let mut text = text;
            text.truncate(keep);
            files.push(InstructionFile {
                path,
                user_level,
                text,
                cut_bytes: full - keep,
            });
        }
        files.reverse();
        for f in files.iter().filter(|f| f.cut_bytes > 0) {
            notices.push(format!(
                "project instructions are capped at {}: {} bytes of {} were left out",
                human_cap(cap),
                f.cut_bytes,
                f.path.display()
            ));
        }
        Instructions {
            files,
            cap,
            notices,
        }
    }

    /// The prompt part, or None when there are no files.
    pub fn render(&self) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let mut out = String::from(
            "# Project instructions\n\nThe user and the project keep these instructions for \
             you. The most general file comes first; where files disagree, the later (nearer) \
             one wins.",
        );
        for f in &self.files {
            let scope = if f.user_level { " (user-level)" } else { "" };
            out.push_str(&format!("\n\n## {}{scope}\n\n", f.path.display()));
            out.push_str(f.text.trim_end());
            if f.cut_bytes > 0 {
                let what = if f.text.is_empty() {
                    "this file was left out".to_string()
                } else {
                    format!("the last {} bytes of this file were left out", f.cut_bytes)
                };
                out.push_str(&format!(
                    "\n[cut: project instructions are capped at {}; {what}]",
                    human_cap(self.cap)
                ));
            }
        }
        Some(out)
    }
}

/// The directories from the git root down to the workspace, root first. Outside a
/// repository (or when the workspace is not under the root), the workspace alone.
fn project_dirs(workspace: &Path, git_root: Option<&Path>) -> Vec<PathBuf> {
    let ws = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    let Some(root) = git_root.filter(|r| ws.starts_with(r)) else {
        return vec![ws];
    };
    let mut dirs: Vec<PathBuf> = ws
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

fn file_len(path: &Path) -> usize {
    std::fs::metadata(path).map_or(0, |m| m.len() as usize)
}

/// At most `limit` bytes of the file, lossily decoded (a huge or binary file cannot stall
/// start-up or break the prompt).
fn read_capped(path: &Path, limit: usize) -> std::io::Result<String> {
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(limit as u64)
        .read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

fn human_cap(cap: usize) -> String {
    if cap >= 1024 && cap.is_multiple_of(1024) {
        format!("{} KiB", cap / 1024)
    } else {
        format!("{cap} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn root_to_workspace_with_claude_md_fallback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        write(&root.join("AGENTS.md"), "root rules");
        write(&root.join("CLAUDE.md"), "ignored: AGENTS.md wins here");
        write(&root.join("a/CLAUDE.md"), "a rules");
        write(&root.join("a/b/AGENTS.md"), "b rules");
        write(&root.join("user/AGENTS.md"), "user rules");
        let got = Instructions::collect(
            &root.join("a/b"),
            Some(&root),
            Some(&root.join("user")),
            INSTRUCTIONS_CAP,
        );
        let names: Vec<PathBuf> = got.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(
            names,
            [
                root.join("user/AGENTS.md"),
                root.join("AGENTS.md"),
                root.join("a/CLAUDE.md"),
                root.join("a/b/AGENTS.md"),
            ]
        );
        assert!(got.files[0].user_level);
        let text = got.render().expect("text");
        let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
        assert!(at("user rules") < at("root rules"));
        assert!(at("root rules") < at("a rules"));
        assert!(at("a rules") < at("b rules"));
        assert!(!text.contains("ignored"));
        assert!(got.notices.is_empty());
    }

    #[test]
    fn outside_git_only_the_workspace_counts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        write(&root.join("AGENTS.md"), "parent");
        write(&root.join("ws/AGENTS.md"), "here");
        let got = Instructions::collect(&root.join("ws"), None, None, INSTRUCTIONS_CAP);
        assert_eq!(got.files.len(), 1);
        assert_eq!(got.files[0].text, "here");
    }

    #[test]
    fn the_cap_keeps_the_nearest_file_and_says_what_was_cut() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        write(&root.join("AGENTS.md"), &"r".repeat(80));
        write(&root.join("x/AGENTS.md"), &"é".repeat(30)); // 60 bytes
        let got = Instructions::collect(&root.join("x"), Some(&root), None, 100);
        assert_eq!(got.files[1].text.len(), 60);
        assert_eq!(got.files[0].text, "r".repeat(40));
        assert_eq!(got.files[0].cut_bytes, 40);
        let total: usize = got.files.iter().map(|f| f.text.len()).sum();
        assert!(total <= 100);
        let text = got.render().expect("text");
        assert!(
            text.contains("[cut: project instructions are capped at 100 bytes; the last 40 bytes"),
            "{text}"
        );
        assert_eq!(got.notices.len(), 1, "{:?}", got.notices);
        // A cut never splits a character.
        let got = Instructions::collect(&root.join("x"), Some(&root), None, 31);
        assert_eq!(got.files[1].text, "é".repeat(15));
        assert_eq!(got.files[0].text, "r");
        let got = Instructions::collect(&root.join("x"), Some(&root), None, 30);
        assert!(got.files[0].text.is_empty());
        assert!(
            got.render()
                .expect("text")
                .contains("this file was left out")
        );
    }
}

//! Approval previews of file changes shown against what is on disk: write_file over an
//! existing file shows the diff, not only the new content, and edit_file shows its change in
//! the file with a few lines of context around it (line numbers come from the hunk headers,
//! indentation from the file's own lines, not from an old_string that starts mid-line).

use std::path::Path;

use similar::TextDiff;

use super::Workspace;
use super::replacement::Replacement;
use super::text::as_text;
use crate::protocol::approval::Preview;

/// Files larger than this are not read for a preview (the question must open at once).
const MAX_PREVIEW_BYTES: u64 = 1 << 20;
/// Lines of context around each change, as `diff -u` and the peers show.
pub const CONTEXT_LINES: usize = 3;

/// A unified diff of `old` → `new` with three lines of context around each change.
pub fn context_diff(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .missing_newline_hint(false)
        .to_string()
}

/// The text of the existing regular file at `path`, if it is one, small enough and text.
fn current_text(workspace: &Workspace, path: &str) -> Option<String> {
    let resolved = workspace.resolve(path).ok()?;
    read_small_text(&resolved)
}

fn read_small_text(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_PREVIEW_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    as_text(&bytes, "").ok().map(str::to_string)
}

/// write_file over an existing file: `overwrites PATH (N lines)` and the diff against it.
/// None when nothing is there yet (the preview is then the new content).
pub fn overwrite(workspace: &Workspace, path: &str, content: &str) -> Option<Preview> {
    let old = current_text(workspace, path)?;
    Some(Preview::Diff {
        path: path.to_string(),
        unified_diff: context_diff(&old, content),
        note: Some(overwrites_note(path, &old)),
    })
}

fn overwrites_note(path: &str, old: &str) -> String {
    let n = old.lines().count();
    let lines = if n == 1 { "line" } else { "lines" };
    format!("overwrites {path} ({n} {lines})")
}

/// edit_file's change inside the file, or None when the file cannot be read or old_string
/// is not in it (the preview then shows the strings alone).
pub fn edit(
    workspace: &Workspace,
    path: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Option<String> {
    if old.is_empty() {
        return None;
    }
    let text = current_text(workspace, path)?;
    let plan = Replacement::plan(&text, old, new);
    if !plan.content.contains(plan.old.as_str()) {
        return None;
    }
    let replaced = if replace_all {
        plan.content.replace(plan.old.as_str(), &plan.new)
    } else {
        plan.content.replacen(plan.old.as_str(), &plan.new, 1)
    };
    Some(context_diff(&plan.content, &replaced))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let ws = Workspace::new(dir.path(), false).expect("workspace");
        (dir, ws)
    }

    #[test]
    fn overwriting_says_so_and_diffs_against_the_file() {
        let (_d, ws) = workspace(&[("notes.md", "one\ntwo\nthree\nfour\n")]);
        let Some(Preview::Diff {
            unified_diff, note, ..
        }) = overwrite(&ws, "notes.md", "one\n2\nthree\nfour\n")
        else {
            panic!("a diff");
        };
        assert_eq!(note.as_deref(), Some("overwrites notes.md (4 lines)"));
        assert!(unified_diff.contains("-two\n+2\n"), "{unified_diff}");
        assert!(
            overwrite(&ws, "new.md", "x").is_none(),
            "a new file is no overwrite"
        );
    }

    #[test]
    fn an_edit_shows_three_lines_of_context_with_the_file_indentation() {
        let body: String = (1..=20).map(|i| format!("    line {i}\n")).collect();
        let (_d, ws) = workspace(&[("a.rs", &body)]);
        let diff = edit(&ws, "a.rs", "line 10", "line ten", false).expect("a diff");
        assert!(diff.starts_with("@@ -7,7 +7,7 @@"), "{diff}");
        assert!(diff.contains("\n-    line 10\n+    line ten\n"), "{diff}");
        assert!(
            diff.contains("\n     line 9\n") && diff.contains("\n     line 13"),
            "{diff}"
        );
        assert!(
            !diff.contains("line 6\n") && !diff.contains("line 14"),
            "{diff}"
        );
        assert!(edit(&ws, "a.rs", "absent", "x", false).is_none());
    }
}

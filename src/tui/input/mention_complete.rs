//! Tab after `@`: the paths of the workspace that complete the word being typed. A leaf
//! that only lists; `update/compose.rs` puts the choice in the input.

use std::path::Path;

/// Candidates listed at most (a huge directory is narrowed by typing more).
const MAX_CANDIDATES: usize = 200;

/// The `@word` that ends `before_caret`: the partial path after the `@` (empty right after
/// typing `@`). None when the caret is not in such a word.
pub fn partial(before_caret: &str) -> Option<&str> {
    let start = before_caret
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    before_caret[start..].strip_prefix('@')
}

/// Workspace-relative paths that start with `partial`, directories ending in `/`, sorted.
/// Hidden entries only when the typed name starts with a dot; nothing above the root.
pub fn candidates(root: &Path, partial: &str) -> Vec<String> {
    if partial.split('/').any(|part| part == "..") || partial.starts_with('/') {
        return Vec::new();
    }
    let (dir, prefix) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            // Through a symlink: what it points at decides.
            let is_dir = std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
            Some(format!("{dir}{name}{}", if is_dir { "/" } else { "" }))
        })
        .collect();
    out.sort();
    out.truncate(MAX_CANDIDATES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partial_is_the_at_word_before_the_caret() {
        assert_eq!(partial("read @src/ma"), Some("src/ma"));
        assert_eq!(partial("read @"), Some(""));
        assert_eq!(partial("看看 @文档/"), Some("文档/"));
        assert_eq!(partial("mail me@host"), None);
        assert_eq!(partial("read @a b"), None);
    }

    #[test]
    fn candidates_complete_inside_the_workspace() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/文档")).expect("dir");
        std::fs::write(root.join("src/main.rs"), "").expect("w");
        std::fs::write(root.join("src/mod.rs"), "").expect("w");
        std::fs::write(root.join(".env"), "").expect("w");
        std::fs::write(root.join("notes.txt"), "").expect("w");
        assert_eq!(candidates(root, "src/m"), ["src/main.rs", "src/mod.rs"]);
        assert_eq!(candidates(root, "src/文"), ["src/文档/"]);
        assert_eq!(candidates(root, ""), ["notes.txt", "src/"]);
        assert_eq!(candidates(root, "."), [".env"]);
        assert!(candidates(root, "../").is_empty());
        assert!(candidates(root, "/etc/").is_empty());
        assert!(candidates(root, "nope/").is_empty());
    }
}

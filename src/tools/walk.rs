//! The file walk shared by glob and grep: the `ignore` crate, so .gitignore, .ignore and
//! .git/info/exclude are honoured as ripgrep does — also outside a git repository, since a
//! workspace need not be one. Hidden files are included (models look for .github/, .env.example),
//! but the .git directory itself never is. Symlinks are not followed, so the walk cannot leave
//! the workspace.

use std::path::Path;

use ignore::{Walk, WalkBuilder};

pub fn walk(base: &Path) -> Walk {
    WalkBuilder::new(base)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| e.file_name() != ".git")
        .build()
}

/// `path` relative to `base`, with `/` separators, for glob matching.
pub fn relative(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

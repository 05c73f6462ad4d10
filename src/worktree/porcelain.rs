//! Git's porcelain formats, parsed in one place: `git worktree list --porcelain` and
//! `git status --porcelain=v1 -z`. Both come from a git process, but a repository's paths
//! and branch names are the user's (or a model's) bytes: nothing here panics, and a line
//! that does not parse is skipped rather than guessed at (the `git_porcelain` fuzz target).

use std::path::PathBuf;

/// One record of `git worktree list --porcelain`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorktreeEntry {
    pub path: PathBuf,
    /// The commit checked out (None for a bare repository).
    pub head: Option<String>,
    /// The branch without `refs/heads/` (None when detached or bare).
    pub branch: Option<String>,
    pub bare: bool,
    pub detached: bool,
    /// `locked` (with its reason, possibly empty).
    pub locked: Option<String>,
    /// `prunable` (its folder is gone): `git worktree prune` would remove it.
    pub prunable: Option<String>,
}

/// Records are separated by a blank line; each starts with `worktree PATH`. Lines outside
/// a record, and attributes this version does not know, are ignored.
pub fn parse_worktree_list(text: &str) -> Vec<WorktreeEntry> {
    let mut out = Vec::new();
    let mut current: Option<WorktreeEntry> = None;
    for line in text.split('\n') {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            out.extend(current.take());
            continue;
        }
        let (key, value) = match line.split_once(' ') {
            Some((k, v)) => (k, Some(v)),
            None => (line, None),
        };
        if key == "worktree" {
            out.extend(current.take());
            current = value.filter(|v| !v.is_empty()).map(|v| WorktreeEntry {
                path: PathBuf::from(v),
                ..WorktreeEntry::default()
            });
            continue;
        }
        let Some(entry) = current.as_mut() else {
            continue;
        };
        match (key, value) {
            ("HEAD", Some(v)) => entry.head = Some(v.to_string()),
            ("branch", Some(v)) => {
                entry.branch = Some(v.strip_prefix("refs/heads/").unwrap_or(v).to_string())
            }
            ("bare", _) => entry.bare = true,
            ("detached", _) => entry.detached = true,
            ("locked", v) => entry.locked = Some(v.unwrap_or("").to_string()),
            ("prunable", v) => entry.prunable = Some(v.unwrap_or("").to_string()),
            _ => {}
        }
    }
    out.extend(current);
    out
}

/// One entry of `git status --porcelain=v1 -z`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusEntry {
    /// The index's column (`M`, `A`, `D`, `R`, `C`, `U`, `?`, `!` or space).
    pub index: char,
    /// The work tree's column.
    pub worktree: char,
    pub path: String,
    /// A rename's or copy's source.
    pub from: Option<String>,
}

impl StatusEntry {
    pub fn untracked(&self) -> bool {
        self.index == '?' && self.worktree == '?'
    }

    /// Both sides changed it in a merge that stopped: an index that cannot be carried over.
    pub fn unmerged(&self) -> bool {
        matches!(
            (self.index, self.worktree),
            ('U', _) | (_, 'U') | ('A', 'A') | ('D', 'D')
        )
    }
}

/// `XY PATH\0`, and after a rename or copy (`R` or `C` in either column) the source as the
/// next NUL-terminated field. An entry too short to hold `XY ` and a path is skipped.
pub fn parse_status(bytes: &[u8]) -> Vec<StatusEntry> {
    let mut out = Vec::new();
    let mut fields = bytes.split(|b| *b == 0);
    while let Some(field) = fields.next() {
        let text = String::from_utf8_lossy(field);
        let mut chars = text.chars();
        let (Some(x), Some(y), Some(' ')) = (chars.next(), chars.next(), chars.next()) else {
            continue;
        };
        let path = chars.as_str();
        if path.is_empty() {
            continue;
        }
        let from = if matches!(x, 'R' | 'C') || matches!(y, 'R' | 'C') {
            // The empty field after the last NUL is no source.
            fields
                .next()
                .filter(|f| !f.is_empty())
                .map(|f| String::from_utf8_lossy(f).into_owned())
        } else {
            None
        };
        out.push(StatusEntry {
            index: x,
            worktree: y,
            path: path.to_string(),
            from,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_list_as_git_prints_it() {
        let text = "worktree /r\nHEAD 1111\nbranch refs/heads/main\n\n\
                    worktree /r/.tooloop/worktrees/a b\nHEAD 2222\nbranch refs/heads/tooloop/a\n\
                    locked initializing\n\nworktree /gone\nHEAD 3333\ndetached\nprunable gitdir file points to non-existent location\n\n\
                    worktree /bare\nbare\n";
        let list = parse_worktree_list(text);
        assert_eq!(list.len(), 4);
        assert_eq!(list[0].branch.as_deref(), Some("main"));
        assert_eq!(list[1].path, PathBuf::from("/r/.tooloop/worktrees/a b"));
        assert_eq!(list[1].branch.as_deref(), Some("tooloop/a"));
        assert_eq!(list[1].locked.as_deref(), Some("initializing"));
        assert!(list[2].detached && list[2].prunable.is_some() && list[2].branch.is_none());
        assert!(list[3].bare && list[3].head.is_none());
    }

    #[test]
    fn lines_outside_a_record_are_ignored() {
        assert!(parse_worktree_list("HEAD 1\nbranch x\n\n").is_empty());
        assert!(parse_worktree_list("worktree\n").is_empty());
        assert_eq!(parse_worktree_list("worktree /a\nlocked").len(), 1);
    }

    #[test]
    fn status_with_renames_untracked_and_conflicts() {
        let bytes = b" M src/a.rs\0R  new name.rs\0old name.rs\0?? n\xffew.txt\0UU both.rs\0AA x\0";
        let s = parse_status(bytes);
        assert_eq!(s.len(), 5);
        assert_eq!(
            (s[0].index, s[0].worktree, s[0].path.as_str()),
            (' ', 'M', "src/a.rs")
        );
        assert_eq!(s[1].from.as_deref(), Some("old name.rs"));
        assert_eq!(s[1].path, "new name.rs");
        assert!(s[2].untracked());
        assert!(s[3].unmerged() && s[4].unmerged() && !s[0].unmerged());
    }

    #[test]
    fn short_or_broken_status_fields_are_skipped() {
        assert!(parse_status(b"").is_empty());
        assert!(parse_status(b"M\0 M\0XY\0").is_empty());
        // A rename whose source field is missing still yields its entry.
        assert_eq!(parse_status(b"R  a").len(), 1);
    }
}

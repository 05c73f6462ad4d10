//! `git_porcelain`: tooloop's reader of `git worktree list --porcelain` and
//! `git status --porcelain=v1 -z` (src/worktree/porcelain.rs).

use tooloop::worktree::porcelain::{StatusEntry, WorktreeEntry, parse_status, parse_worktree_list};

/// Byte 0 even: the rest as a worktree list; odd: as status entries. Never a panic; what
/// was read, written back in git's format, reads back the same; no entry without a path.
pub fn git_porcelain(data: &[u8]) {
    if data.len() > super::MAX_INPUT {
        return;
    }
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        let list = parse_worktree_list(&String::from_utf8_lossy(rest));
        for e in &list {
            assert!(!e.path.as_os_str().is_empty(), "{e:?}");
        }
        assert_eq!(parse_worktree_list(&write_list(&list)), list);
    } else {
        let entries = parse_status(rest);
        let fields = rest.split(|b| *b == 0).count();
        assert!(entries.len() <= fields);
        for e in &entries {
            assert!(!e.path.is_empty(), "{e:?}");
        }
        assert_eq!(parse_status(&write_status(&entries)), entries);
    }
}

fn write_list(list: &[WorktreeEntry]) -> String {
    let mut out = String::new();
    for e in list {
        out.push_str(&format!("worktree {}\n", e.path.display()));
        if let Some(h) = &e.head {
            out.push_str(&format!("HEAD {h}\n"));
        }
        if let Some(b) = &e.branch {
            out.push_str(&format!("branch refs/heads/{b}\n"));
        }
        if e.bare {
            out.push_str("bare\n");
        }
        if e.detached {
            out.push_str("detached\n");
        }
        for (key, value) in [("locked", &e.locked), ("prunable", &e.prunable)] {
            match value.as_deref() {
                Some("") => out.push_str(&format!("{key}\n")),
                Some(v) => out.push_str(&format!("{key} {v}\n")),
                None => {}
            }
        }
        out.push('\n');
    }
    out
}

fn write_status(entries: &[StatusEntry]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        out.extend(format!("{}{} {}", e.index, e.worktree, e.path).bytes());
        out.push(0);
        // A rename or copy always has its source field after it; one read without a
        // source (an empty or missing field) is written back with an empty one, or the
        // next entry would be read as its source.
        if let Some(from) = &e.from {
            out.extend(from.bytes());
            out.push(0);
        } else if matches!(e.index, 'R' | 'C') || matches!(e.worktree, 'R' | 'C') {
            out.push(0);
        }
    }
    out
}

//! Telling a sandbox denial from any other failure, from what the command printed.
//!
//! The kernel answers a blocked write or connect with EACCES / EPERM, which programs print
//! as "Permission denied" / "Operation not permitted" next to the path. A line like that
//! counts as a sandbox denial only when its path is outside what the sandbox lets the
//! command write AND tooloop itself (unsandboxed) could write it — so a plain permission
//! problem is never blamed on the sandbox.

use std::path::{Component, Path, PathBuf};

use super::SandboxPolicy;
use super::rules::{Writable, writable};

/// Lines looked at: the head and the tail of a long output are enough.
const MAX_LINES: usize = 400;

/// The note for a failed sandboxed command ("blocked by the sandbox: write to /etc/x"),
/// or None when nothing in `output` looks like the sandbox's doing.
pub fn explain(policy: &SandboxPolicy, tmp: Option<&Path>, output: &str) -> Option<String> {
    let grants = writable(policy, tmp);
    let lines: Vec<&str> = output.lines().collect();
    let picked = if lines.len() > MAX_LINES {
        let mut v = lines[..MAX_LINES / 2].to_vec();
        v.extend_from_slice(&lines[lines.len() - MAX_LINES / 2..]);
        v
    } else {
        lines
    };
    for line in picked {
        let lower = line.to_ascii_lowercase();
        let denied = lower.contains("permission denied")
            || lower.contains("operation not permitted")
            || lower.contains("read-only file system");
        if !policy.network && is_connect_failure(&lower, denied) {
            return Some(
                "blocked by the sandbox: network connection (commands may not connect; the \
                 user can allow it with --sandbox-network)"
                    .into(),
            );
        }
        if !denied {
            continue;
        }
        for candidate in path_candidates(line) {
            let path = absolute(&policy.workspace, &candidate);
            if !is_granted(&grants, &path) && tooloop_could_write(&path) {
                return Some(format!(
                    "blocked by the sandbox: write to {}",
                    path.display()
                ));
            }
        }
    }
    None
}

fn is_connect_failure(lower: &str, denied: bool) -> bool {
    let about_network = ["connect", "socket", "network", "bind"]
        .iter()
        .any(|w| lower.contains(w));
    (denied && about_network)
        // curl hides the errno: "Failed to connect to 127.0.0.1 port 80 …".
        || (lower.contains("failed to connect to") && lower.contains("port"))
}

/// Strings on a denial line that may name the path: quoted parts first, then the
/// colon-separated fields before the error text (`bash: /etc/x: Permission denied`).
fn path_candidates(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '\''), ('‘', '’')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let inner = &after[..end];
            if !inner.is_empty() {
                out.push(inner.to_string());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    const PREFIXES: &[&str] = &[
        "cannot create regular file ",
        "cannot create directory ",
        "cannot create ",
        "can't create ",
        "cannot touch ",
        "cannot remove ",
        "cannot open ",
        "cannot overwrite ",
        "cannot move ",
    ];
    let fields: Vec<&str> = line.split(": ").collect();
    for (i, field) in fields.iter().enumerate() {
        let mut f = field.trim();
        for p in PREFIXES {
            if let Some(rest) = f.strip_prefix(p) {
                f = rest;
            }
        }
        let f = f.trim_matches(|c| c == '\'' || c == '"' || c == '`');
        let path_like =
            f.starts_with('/') || f.starts_with("./") || f.starts_with("../") || f.starts_with('~');
        // `bash: line 1: new.txt: Permission denied`: the field before the error is the
        // path, whatever it looks like.
        let before_error = fields.get(i + 1).is_some_and(|next| {
            let next = next.to_ascii_lowercase();
            next.contains("denied") || next.contains("not permitted") || next.contains("read-only")
        });
        if !f.is_empty() && (path_like || (before_error && !f.starts_with("line "))) {
            out.push(f.to_string());
        }
    }
    out
}

/// `p` made absolute against the workspace, with `.` and `..` resolved lexically and `~`
/// as HOME.
fn absolute(workspace: &Path, p: &str) -> PathBuf {
    let joined = if let Some(rest) = p.strip_prefix("~/") {
        std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(rest))
            .unwrap_or_else(|| workspace.join(p))
    } else {
        workspace.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    // Canonical where it exists, so a symlinked /tmp or workspace compares equal.
    out.canonicalize()
        .or_else(|_| {
            let name = out.file_name().map(|n| n.to_os_string());
            match (out.parent().map(Path::canonicalize), name) {
                (Some(Ok(parent)), Some(name)) => Ok(parent.join(name)),
                _ => Err(()),
            }
        })
        .unwrap_or(out)
}

fn is_granted(grants: &[Writable], path: &Path) -> bool {
    grants.iter().any(|g| {
        if g.tree {
            path.starts_with(&g.path)
        } else {
            path == g.path
        }
    })
}

/// Whether tooloop, outside the sandbox, may write `path` (or create it in its parent).
fn tooloop_could_write(path: &Path) -> bool {
    let target = if path.exists() {
        path
    } else {
        match path.parent() {
            Some(p) if p.exists() => p,
            _ => return false,
        }
    };
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(target.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path; access(2) only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxMode;

    fn policy(workspace: &Path) -> SandboxPolicy {
        SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            network: false,
            workspace: workspace.to_path_buf(),
            protected: vec![],
            abi: 7,
        }
    }

    #[test]
    fn finds_paths_in_the_usual_messages() {
        let c = path_candidates("touch: cannot touch '../outside': Permission denied");
        assert!(c.contains(&"../outside".to_string()));
        let c = path_candidates("bash: line 1: /etc/x: Permission denied");
        assert!(c.contains(&"/etc/x".to_string()));
        let c = path_candidates("bash: line 1: new.txt: Permission denied");
        assert_eq!(c, vec!["new.txt".to_string()]);
        let c = path_candidates("sh: 1: cannot create /etc/x: Permission denied");
        assert!(c.contains(&"/etc/x".to_string()));
        let c = path_candidates("PermissionError: [Errno 13] Permission denied: '/etc/x'");
        assert!(c.contains(&"/etc/x".to_string()));
    }

    #[test]
    fn a_write_outside_is_a_denial_and_one_inside_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().canonicalize().unwrap();
        let outside = w.parent().unwrap().join("outside");
        let p = policy(&w);
        let note = explain(
            &p,
            None,
            "touch: cannot touch '../outside': Permission denied",
        );
        assert_eq!(
            note,
            Some(format!(
                "blocked by the sandbox: write to {}",
                outside.display()
            ))
        );
        // Inside the workspace the sandbox allows it: some other cause.
        assert_eq!(
            explain(&p, None, "touch: cannot touch 'inside': Permission denied"),
            None
        );
        assert_eq!(explain(&p, None, "exit code 1"), None);
    }

    #[test]
    fn a_refused_connect_is_a_network_denial_only_with_network_off() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = policy(dir.path());
        let line = "bash: connect: Permission denied";
        assert!(explain(&p, None, line).unwrap().contains("network"));
        p.network = true;
        assert_eq!(explain(&p, None, line), None);
    }
}

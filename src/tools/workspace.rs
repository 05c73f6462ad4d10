//! Path confinement (DESIGN.md §9): every path argument is resolved against the workspace
//! root and canonicalized; paths that leave the root are refused unless the user allowed it.

use std::io;
use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    allow_outside: bool,
}

impl Workspace {
    pub fn new(root: &Path, allow_outside: bool) -> io::Result<Self> {
        Ok(Workspace {
            root: root.canonicalize()?,
            allow_outside,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn allows_outside(&self) -> bool {
        self.allow_outside
    }

    /// Resolves a path argument for reading or writing. Relative paths are taken from the
    /// root; the result is canonical (for a path that does not exist yet, its nearest
    /// existing ancestor is). Err is a message for the model that names the rule.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let resolved = self.canonical(path)?;
        if self.allow_outside || resolved.starts_with(&self.root) {
            return Ok(resolved);
        }
        let via_link = {
            let lexical = lexical_join(&self.root, path);
            lexical.starts_with(&self.root)
        };
        Err(if via_link {
            format!(
                "Error: refused: {path} leads through a symlink to {}, outside the workspace \
                 root {}. File tools are confined to the workspace (the user can lift this \
                 with --allow-outside-workspace).",
                resolved.display(),
                self.root.display()
            )
        } else {
            format!(
                "Error: refused: {path} resolves to {}, outside the workspace root {}. File \
                 tools are confined to the workspace (the user can lift this with \
                 --allow-outside-workspace).",
                resolved.display(),
                self.root.display()
            )
        })
    }

    /// Whether the path stays inside the root, whatever --allow-outside-workspace says.
    pub fn is_inside(&self, path: &str) -> bool {
        self.canonical(path)
            .map(|p| p.starts_with(&self.root))
            .unwrap_or(false)
    }

    /// A path for display: relative to the root when inside it.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    fn canonical(&self, path: &str) -> Result<PathBuf, String> {
        if path.contains('\0') {
            return Err("Error: the path contains a NUL byte".to_string());
        }
        let joined = if path.is_empty() {
            self.root.clone()
        } else {
            self.root.join(path)
        };
        // Walk up to the nearest ancestor that exists; the rest is the tail still to create.
        let mut existing = joined.as_path();
        let mut tail: Vec<Component> = Vec::new();
        loop {
            match existing.symlink_metadata() {
                Ok(meta) => {
                    if meta.file_type().is_symlink() && !existing.exists() {
                        return Err(format!(
                            "Error: refused: {} is a symlink whose target does not exist",
                            existing.display()
                        ));
                    }
                    break;
                }
                Err(_) => {
                    let (Some(parent), Some(last)) =
                        (existing.parent(), existing.components().next_back())
                    else {
                        return Err(format!("Error: cannot resolve {path}"));
                    };
                    tail.push(last);
                    existing = parent;
                }
            }
        }
        let mut out = existing
            .canonicalize()
            .map_err(|e| format!("Error: cannot resolve {path}: {e}"))?;
        for c in tail.into_iter().rev() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        Ok(out)
    }
}

/// Joins and removes `.`/`..` without touching the filesystem.
fn lexical_join(root: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in root.join(path).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::fs::write(dir.path().join("sub/a.txt"), "a").expect("write");
        let w = Workspace::new(dir.path(), false).expect("workspace");
        (dir, w)
    }

    #[test]
    fn inside_paths_resolve() {
        let (_d, w) = ws();
        assert_eq!(w.resolve("sub/a.txt"), Ok(w.root().join("sub/a.txt")));
        assert_eq!(
            w.resolve("sub/new/b.txt"),
            Ok(w.root().join("sub/new/b.txt"))
        );
        assert_eq!(
            w.resolve("sub/../sub/a.txt"),
            Ok(w.root().join("sub/a.txt"))
        );
        assert_eq!(w.resolve(""), Ok(w.root().to_path_buf()));
        let abs = w.root().join("sub/a.txt");
        assert_eq!(w.resolve(abs.to_str().expect("utf8")), Ok(abs.clone()));
    }

    #[test]
    fn escapes_are_refused_with_the_rule() {
        let (d, w) = ws();
        for p in ["../x", "/etc/passwd", "sub/../../x", "new/../../y"] {
            let e = w.resolve(p).expect_err(p);
            assert!(e.contains("outside the workspace root"), "{p}: {e}");
        }
        std::os::unix::fs::symlink("/etc", d.path().join("etc_link")).expect("symlink");
        let e = w.resolve("etc_link/passwd").expect_err("symlinked dir");
        assert!(e.contains("symlink"), "{e}");
        std::os::unix::fs::symlink("/nonexistent/zz", d.path().join("dangling")).expect("ln");
        assert!(w.resolve("dangling").is_err());
        assert!(!w.is_inside("/etc/passwd"));
        let open = Workspace::new(d.path(), true).expect("workspace");
        assert_eq!(open.resolve("/etc"), Ok(PathBuf::from("/etc")));
        assert!(!open.is_inside("/etc"));
    }
}

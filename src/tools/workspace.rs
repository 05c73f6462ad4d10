//! Path confinement (DESIGN.md §9): every path argument is resolved against the workspace
//! root and canonicalized; paths that leave the root are refused unless the user allowed it.

use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a path argument was refused. The Display text is written for the model: it names the
/// rule and how the user can lift it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("Error: the path contains a NUL byte")]
    NulByte,
    #[error("Error: refused: {path} is a symlink whose target does not exist")]
    DanglingSymlink { path: String },
    #[error("Error: cannot resolve {path}{}", reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    Unresolvable {
        path: String,
        reason: Option<String>,
    },
    #[error(
        "Error: refused: {path} {how} {}, outside the workspace root {}. File tools are \
         confined to the workspace (the user can lift this with --allow-outside-workspace).",
        resolved.display(),
        root.display(),
        how = if *via_symlink { "leads through a symlink to" } else { "resolves to" }
    )]
    Outside {
        path: String,
        resolved: PathBuf,
        root: PathBuf,
        via_symlink: bool,
    },
}

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
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let resolved = self.canonical(path)?;
        if self.allow_outside || resolved.starts_with(&self.root) {
            return Ok(resolved);
        }
        let via_symlink = lexical_join(&self.root, path).starts_with(&self.root);
        Err(PathError::Outside {
            path: path.to_string(),
            resolved,
            root: self.root.clone(),
            via_symlink,
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

    /// The path the OS would reach, walked one component at a time as the kernel does:
    /// every component that exists is resolved (a symlink followed to its canonical target),
    /// `..` steps back from what the path resolved to so far, and only components that do
    /// not exist yet are taken as written. So no symlink can hide behind a `..`: checking only
    /// the nearest existing ancestor let `nope/../link_out/secret` through as
    /// `ROOT/link_out/secret`, which the OS then opened through the symlink, outside the
    /// root (found by the `tool_input` fuzz target, FUZZING.md).
    fn canonical(&self, path: &str) -> Result<PathBuf, PathError> {
        if path.contains('\0') {
            return Err(PathError::NulByte);
        }
        let joined = if path.is_empty() {
            self.root.clone()
        } else {
            self.root.join(path)
        };
        let mut out = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::CurDir => {}
                // `out` holds no symlink, so stepping back is what the kernel does too.
                Component::ParentDir => {
                    out.pop();
                }
                Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
                Component::Normal(name) => {
                    out.push(name);
                    let Ok(meta) = out.symlink_metadata() else {
                        continue; // not there (yet): taken as written
                    };
                    if !meta.file_type().is_symlink() {
                        continue;
                    }
                    if !out.exists() {
                        return Err(PathError::DanglingSymlink {
                            path: out.display().to_string(),
                        });
                    }
                    out = out.canonicalize().map_err(|e| PathError::Unresolvable {
                        path: path.to_string(),
                        reason: Some(e.to_string()),
                    })?;
                }
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
            let e = w.resolve(p).expect_err(p).to_string();
            assert!(e.contains("outside the workspace root"), "{p}: {e}");
        }
        std::os::unix::fs::symlink("/etc", d.path().join("etc_link")).expect("symlink");
        let e = w.resolve("etc_link/passwd").expect_err("symlinked dir");
        assert!(
            matches!(
                e,
                PathError::Outside {
                    via_symlink: true,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("symlink"), "{e}");
        std::os::unix::fs::symlink("/nonexistent/zz", d.path().join("dangling")).expect("ln");
        assert!(matches!(
            w.resolve("dangling"),
            Err(PathError::DanglingSymlink { .. })
        ));
        assert_eq!(w.resolve("a\0b"), Err(PathError::NulByte));
        assert!(!w.is_inside("/etc/passwd"));
        let open = Workspace::new(d.path(), true).expect("workspace");
        assert_eq!(open.resolve("/etc"), Ok(PathBuf::from("/etc")));
        assert!(!open.is_inside("/etc"));
    }

    /// Found while writing the `tool_input` fuzz check (FUZZING.md): a `..` after a
    /// component that does not exist hid a symlink from the check, and the OS then followed
    /// it out of the workspace.
    #[test]
    fn a_symlink_behind_a_missing_dir_and_dotdot_is_still_followed() {
        let (d, w) = ws();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret"), "s").expect("write");
        std::os::unix::fs::symlink(outside.path(), d.path().join("link_out")).expect("ln");
        std::os::unix::fs::symlink(outside.path().join("none"), d.path().join("dangling"))
            .expect("ln");
        for p in [
            "nope/../link_out/secret",
            "sub/nope/../../link_out/secret",
            "nope/./../link_out",
            "sub/a.txt/../../link_out/secret",
        ] {
            let e = w.resolve(p).expect_err(p);
            assert!(matches!(e, PathError::Outside { .. }), "{p}: {e:?}");
            assert!(!w.is_inside(p), "{p}");
        }
        assert!(matches!(
            w.resolve("nope/../dangling"),
            Err(PathError::DanglingSymlink { .. })
        ));
        // Inside stays inside, the not-yet-existing tail as written.
        assert_eq!(
            w.resolve("nope/../sub/new/x"),
            Ok(w.root().join("sub/new/x"))
        );
    }
}

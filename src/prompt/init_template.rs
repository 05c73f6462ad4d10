//! `/init`: a starting AGENTS.md for a workspace, built from what is on disk (the build
//! files it finds, their commands, the top-level layout). Offline and deterministic: the
//! user edits it, the model reads it at the start of the next session. An existing
//! AGENTS.md is never overwritten.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::instructions::AGENTS_FILE;

/// Entries of the top-level listing at most (a huge directory is not listed whole).
const MAX_ENTRIES: usize = 40;

/// Why `/init` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{} already exists; /init never overwrites it", .0.display())]
    Exists(PathBuf),
    #[error("could not write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Writes `workspace/AGENTS.md` (refusing to replace one); returns its path and line count.
pub fn write(workspace: &Path) -> Result<(PathBuf, usize), InitError> {
    let path = workspace.join(AGENTS_FILE);
    let text = starting_text(workspace);
    // create_new: a file that appeared since the check is not overwritten either.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path);
    let result = file.and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    match result {
        Ok(()) => Ok((path, text.lines().count())),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(InitError::Exists(path)),
        Err(source) => Err(InitError::Write { path, source }),
    }
}

/// The starting AGENTS.md for `workspace`.
pub fn starting_text(workspace: &Path) -> String {
    let name = workspace
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "this project".into());
    let has = |f: &str| workspace.join(f).exists();
    let mut out =
        format!("# {name}\n\nInstructions for coding agents working in this repository.\n");
    let kinds: Vec<&Kind> = KINDS.iter().filter(|k| has(k.marker)).collect();
    if !kinds.is_empty() {
        out.push_str("\n## Build and test\n\n");
        for k in &kinds {
            let _ = writeln!(out, "{} (`{}`):", k.name, k.marker);
            for c in k.commands {
                let _ = writeln!(out, "- `{c}`");
            }
            out.push('\n');
        }
    }
    if let Some(targets) = make_targets(&workspace.join("Makefile")) {
        out.push_str(if kinds.is_empty() {
            "\n## Build and test\n\n"
        } else {
            ""
        });
        let _ = writeln!(out, "Makefile targets: {}\n", targets.join(", "));
    }
    let listing = top_level(workspace);
    if !listing.is_empty() {
        out.push_str("\n## Layout\n\n");
        for entry in listing {
            let _ = writeln!(out, "- `{entry}`");
        }
    }
    out.push_str(
        "\n## Conventions\n\n\
         - (How code here is written: style, naming, error handling, tests.)\n\
         - (What to check before a change is done.)\n",
    );
    out
}

struct Kind {
    marker: &'static str,
    name: &'static str,
    commands: &'static [&'static str],
}

const KINDS: &[Kind] = &[
    Kind {
        marker: "Cargo.toml",
        name: "Rust",
        commands: &[
            "cargo build",
            "cargo test",
            "cargo clippy --all-targets -- -D warnings",
            "cargo fmt",
        ],
    },
    Kind {
        marker: "package.json",
        name: "Node",
        commands: &["npm install", "npm test"],
    },
    Kind {
        marker: "pyproject.toml",
        name: "Python",
        commands: &["pip install -e .", "pytest"],
    },
    Kind {
        marker: "go.mod",
        name: "Go",
        commands: &["go build ./...", "go test ./..."],
    },
    Kind {
        marker: "CMakeLists.txt",
        name: "CMake",
        commands: &[
            "cmake -B build",
            "cmake --build build",
            "ctest --test-dir build",
        ],
    },
];

/// The Makefile's plain targets (`name:` at the start of a line), if it has any.
fn make_targets(path: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let targets: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_once(':').map(|(t, _)| t))
        .filter(|t| {
            !t.is_empty()
                && !t.starts_with('.')
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
        .map(str::to_string)
        .take(12)
        .collect();
    (!targets.is_empty()).then_some(targets)
}

/// The workspace's top level, sorted, directories with a slash; hidden entries and build
/// output left out.
fn top_level(workspace: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(workspace) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let skip = name.starts_with('.')
                || matches!(name.as_str(), "target" | "node_modules" | "build" | "dist");
            if skip || name.chars().any(char::is_control) {
                return None;
            }
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            Some(if dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    names.truncate(MAX_ENTRIES);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rust_workspace_gets_its_commands_and_layout() {
        let dir = tempfile::tempdir().expect("tmp");
        let ws = dir.path().join("parser");
        std::fs::create_dir_all(ws.join("src")).expect("mkdir");
        std::fs::create_dir_all(ws.join("target")).expect("mkdir");
        std::fs::write(ws.join("Cargo.toml"), "[package]\n").expect("write");
        std::fs::write(
            ws.join("Makefile"),
            "all: build\n.PHONY: all\nbuild:\n\tcargo build\n",
        )
        .expect("write");
        let text = starting_text(&ws);
        assert!(text.starts_with("# parser\n"), "{text}");
        assert!(text.contains("- `cargo test`"), "{text}");
        assert!(text.contains("Makefile targets: all, build"), "{text}");
        assert!(text.contains("- `src/`"), "{text}");
        assert!(!text.contains("target/"), "{text}");
    }

    #[test]
    fn an_existing_agents_md_is_never_overwritten() {
        let dir = tempfile::tempdir().expect("tmp");
        let (path, lines) = write(dir.path()).expect("written");
        assert!(lines > 3);
        std::fs::write(&path, "my own rules").expect("write");
        let err = write(dir.path()).expect_err("refused");
        assert!(matches!(err, InitError::Exists(_)), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "my own rules"
        );
    }
}

//! Ctrl+G: the input's text in the user's editor ($EDITOR, else $VISUAL, else vi). The
//! terminal is handed over (raw mode and the alternate screen left) while it runs and taken
//! back after; the edited file becomes the input.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why the editor's text did not come back; the input stays as it was.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error("{editor} exited with {status}: the input is unchanged")]
    Failed { editor: String, status: String },
    #[error("cannot run {editor}: {source}")]
    Spawn { editor: String, source: io::Error },
    #[error("cannot open the editor: {0}")]
    Io(#[from] io::Error),
}

/// The editor command line: `$EDITOR`, then `$VISUAL`, then `vi` (empty values skipped).
pub fn editor_command(var: impl Fn(&str) -> Option<String>) -> String {
    ["EDITOR", "VISUAL"]
        .into_iter()
        .filter_map(var)
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// A new owner-only file holding `text`.
fn temp_file(text: &str) -> io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("tooloop-prompt-{}-{n}.md", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(&path)?.write_all(text.as_bytes())?;
    Ok(path)
}

/// Runs the editor on `text` in the foreground (the terminal must be the editor's: the
/// caller suspends the full screen around this) and returns the saved text.
pub fn run(text: &str) -> Result<String, EditorError> {
    let path = temp_file(text)?;
    let editor = editor_command(|k| std::env::var(k).ok());
    // Through the shell, so `EDITOR="code --wait"` works; the file is an argument, never
    // pasted into the command line.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("tooloop-editor")
        .arg(&path)
        .status();
    let edited = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    match status {
        Ok(s) if s.success() => {
            let edited = edited?;
            // Editors end a file with a newline the user did not type.
            Ok(edited.strip_suffix('\n').unwrap_or(&edited).to_string())
        }
        Ok(s) => Err(EditorError::Failed {
            editor,
            status: s.to_string(),
        }),
        Err(source) => Err(EditorError::Spawn { editor, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_then_visual_then_vi() {
        let env = |pairs: &'static [(&str, &str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            editor_command(env(&[("EDITOR", "nano"), ("VISUAL", "code")])),
            "nano"
        );
        assert_eq!(
            editor_command(env(&[("EDITOR", " "), ("VISUAL", "code -w")])),
            "code -w"
        );
        assert_eq!(editor_command(env(&[])), "vi");
    }
}

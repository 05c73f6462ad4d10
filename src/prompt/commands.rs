//! Commands from files: `NAME.md` in `.tooloop/commands/` or `.claude/commands/` of the
//! workspace, or `commands/` in the user's config directory (and `~/.claude/commands/`),
//! becomes `/NAME ARGS`. The file is a prompt template: `$ARGUMENTS` is replaced by ARGS.
//! Its first line (or a `description:` in a `---` front matter, as Claude Code writes
//! them) is what the `/` menu shows.
//!
//! A workspace file wins over a user file of the same name, `.tooloop` over `.claude`; a
//! built-in command's name is never taken by a file.

use std::path::{Path, PathBuf};

/// Files larger than this are not commands (a prompt template is a few KB).
const MAX_FILE_BYTES: u64 = 64 * 1024;
/// The menu's description is cut to this many characters.
const MAX_DESCRIPTION_CHARS: usize = 120;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCommand {
    /// Without the slash.
    pub name: String,
    /// One line for the menu.
    pub description: String,
    /// The template, front matter removed.
    pub body: String,
    pub path: PathBuf,
    /// A skill's `/NAME`: sent as typed, the agent expands it (as it does for `-p "/NAME"`)
    /// so it is used the same way as the model's `skill` call, grants and model included.
    pub skill: bool,
}

impl FileCommand {
    /// Whether the template takes arguments (the menu waits for them before sending).
    pub fn takes_arguments(&self) -> bool {
        self.body.contains("$ARGUMENTS")
    }

    /// The prompt `/NAME ARGS` sends: `$ARGUMENTS` replaced by ARGS. A template without
    /// the placeholder gets the arguments appended, so nothing typed is dropped.
    pub fn expand(&self, args: &str) -> String {
        let args = args.trim();
        if self.skill {
            return format!("/{} {args}", self.name).trim_end().to_string();
        }
        let body = self.body.trim();
        if self.takes_arguments() {
            body.replace("$ARGUMENTS", args)
        } else if args.is_empty() {
            body.to_string()
        } else {
            format!("{body}\n\nArguments: {args}")
        }
    }
}

/// The directories searched, highest precedence first.
pub fn dirs(workspace: &Path, user_config: Option<&Path>, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = vec![
        workspace.join(".tooloop/commands"),
        workspace.join(".claude/commands"),
    ];
    if let Some(dir) = user_config {
        out.push(dir.join("commands"));
    }
    if let Some(home) = home {
        out.push(home.join(".claude/commands"));
    }
    out
}

/// The user's directories as the rest of tooloop finds them (the config directory of
/// `config.toml`, and HOME).
pub fn load_for(workspace: &Path, builtin: &[&str]) -> Vec<FileCommand> {
    let config = crate::paths::config_file()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    load(
        &dirs(workspace, config.as_deref(), home.as_deref()),
        builtin,
    )
}

/// Every command of `dirs` (precedence in order), sorted by name, none named like a
/// built-in. Unreadable files and odd names are skipped.
pub fn load(dirs: &[PathBuf], builtin: &[&str]) -> Vec<FileCommand> {
    let mut found: Vec<FileCommand> = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let Some(name) = command_name(&path) else {
                continue;
            };
            if builtin.contains(&name.as_str()) || found.iter().any(|c| c.name == name) {
                continue;
            }
            if let Some(cmd) = read(&path, name) {
                found.push(cmd);
            }
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// `review.md` → `review`; names are what a slash word may hold (letters, digits, `-`, `_`).
fn command_name(path: &Path) -> Option<String> {
    if path.extension()? != "md" {
        return None;
    }
    let stem = path.file_stem()?.to_str()?;
    let ok = !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| stem.to_string())
}

fn read(path: &Path, name: String) -> Option<FileCommand> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let (front, body) = split_front_matter(&text);
    let description = front
        .and_then(|f| {
            f.lines()
                .find_map(|l| l.trim().strip_prefix("description:"))
                .map(|d| d.trim().trim_matches(['"', '\'']).to_string())
        })
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| first_line(body));
    Some(FileCommand {
        name,
        description: one_line(&description),
        body: body.to_string(),
        path: path.to_path_buf(),
        skill: false,
    })
}

/// `---\n…\n---\n` at the very start: (front matter, the rest).
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            let body = after.split_once('\n').map_or("", |(_, b)| b);
            (Some(&rest[..end]), body)
        }
        None => (None, text),
    }
}

/// The first non-empty line, without a Markdown heading's `#`s.
fn first_line(body: &str) -> String {
    body.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .unwrap_or_default()
}

/// Control characters out (the file is anyone's), cut to the menu's length.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_DESCRIPTION_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn files_become_commands_with_their_first_line() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (ws, user) = (tmp.path().join("ws"), tmp.path().join("user"));
        write(
            &ws,
            ".tooloop/commands/review.md",
            "\n# Review a file\nReview $ARGUMENTS carefully.\n",
        );
        write(&ws, ".claude/commands/review.md", "the .claude one loses\n");
        write(
            &ws,
            ".claude/commands/fix-issue.md",
            "---\ndescription: \"Fix an issue\"\nmodel: x\n---\nFix issue #$ARGUMENTS.\n",
        );
        write(&ws, ".claude/commands/help.md", "never shadows /help\n");
        write(&ws, ".claude/commands/bad name.md", "skipped\n");
        write(&ws, ".claude/commands/notes.txt", "not markdown\n");
        write(&user, "commands/hello.md", "说你好\u{1b}[2J 再见\n");
        write(&user, "commands/review.md", "the user's one loses too\n");
        let dirs = dirs(&ws, Some(&user), None);
        let cmds = load(&dirs, &["help", "new"]);
        let names: Vec<&str> = cmds.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["fix-issue", "hello", "review"]);
        assert_eq!(cmds[0].description, "Fix an issue");
        assert_eq!(cmds[0].expand(" 42 "), "Fix issue #42.");
        assert_eq!(cmds[1].description, "说你好 [2J 再见", "no escape survives");
        assert_eq!(cmds[2].description, "Review a file");
        assert!(cmds[2].body.contains("Review $ARGUMENTS"));
        assert_eq!(
            cmds[2].expand("src/main.rs"),
            "# Review a file\nReview src/main.rs carefully."
        );
    }

    #[test]
    fn arguments_without_a_placeholder_are_appended() {
        let cmd = FileCommand {
            name: "t".into(),
            description: String::new(),
            body: "Run the tests.\n".into(),
            path: PathBuf::new(),
            skill: false,
        };
        assert!(!cmd.takes_arguments());
        assert_eq!(cmd.expand(""), "Run the tests.");
        assert_eq!(cmd.expand("fast"), "Run the tests.\n\nArguments: fast");
    }

    #[test]
    fn front_matter_needs_its_closing_line() {
        assert_eq!(
            split_front_matter("---\na: b\n---\nbody\n"),
            (Some("a: b"), "body\n")
        );
        assert_eq!(split_front_matter("---\nno end"), (None, "---\nno end"));
        assert_eq!(first_line("---\nno end"), "---");
    }
}

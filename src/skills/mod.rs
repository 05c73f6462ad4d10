//! Skills (issue 38): a folder with a `SKILL.md` (YAML front matter + Markdown body) and any
//! files beside it, in the shape Claude Code and the public skill repositories use.
//!
//! Lazy: only each skill's name and description reach the request (the `skill` tool's
//! description, capped at 2 % of the context window, see [`listing`]); the body is read when
//! the model calls the tool or the user types `/NAME args`. A file that changes or appears
//! is used from the next request on ([`Catalog::changed`]). A bad file is one notice naming
//! its line, and is skipped.

pub mod active;
pub mod front_matter;
pub mod listing;
pub mod table;
pub mod tool;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One skill as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The SKILL.md file and its folder (the model reads or runs the files beside it).
    pub path: PathBuf,
    pub dir: PathBuf,
    /// Where it was found, as the user would name it (`.claude/skills`, `~/.claude/skills`).
    pub source: String,
    pub body_bytes: usize,
    pub allowed_tools: Vec<String>,
    /// In the model's list (`disable-model-invocation: false`).
    pub model_invocable: bool,
    /// Offered as `/NAME` (`user-invocable: true`).
    pub user_invocable: bool,
    pub argument_hint: Option<String>,
    /// The model the turns use while the skill is active (`model:`; `inherit` is None).
    pub model: Option<String>,
}

impl Skill {
    /// "model and user", "user only", "model only".
    pub fn invocable_by(&self) -> &'static str {
        match (self.model_invocable, self.user_invocable) {
            (true, true) => "model and user",
            (false, true) => "user only",
            (true, false) => "model only",
            (false, false) => "nobody",
        }
    }

    /// The body now on disk (it may have changed since the listing), front matter removed.
    pub fn read_body(&self) -> Result<String, SkillError> {
        let text = read_capped(&self.path)?;
        front_matter::parse(&text)
            .map(|(_, body)| body)
            .map_err(|e| SkillError::at(&self.path, e.line, e.message))
    }

    /// What the history gets when the skill is used: its folder and its body, with
    /// `$ARGUMENTS` replaced (or the arguments appended when the body has no placeholder).
    pub fn expand(&self, body: &str, args: &str) -> String {
        let args = args.trim();
        let body = body.trim();
        let body = if body.contains("$ARGUMENTS") {
            body.replace("$ARGUMENTS", args)
        } else if args.is_empty() {
            body.to_string()
        } else {
            format!("{body}\n\nArguments: {args}")
        };
        format!(
            "Skill {} (its folder: {}; read or run the files there as the instructions say)\n\n{body}",
            self.name,
            self.dir.display()
        )
    }
}

/// What the loop keeps to offer skills and notice changes: the folders, the catalog
/// in force, and the window the listing is capped for.
pub struct SkillState {
    pub dirs: Vec<(PathBuf, String)>,
    pub catalog: std::sync::Arc<Catalog>,
    pub window_tokens: u64,
    pub policy: Option<std::sync::Arc<crate::permission::PermissionPolicy>>,
    /// The skill in use this prompt (its model), shared with the `skill` tool.
    pub active: std::sync::Arc<active::Active>,
}

impl SkillState {
    /// The `skill` tool for the catalog in force; None when there is no skill to offer
    /// (the request then carries no tool for it at all).
    pub fn tool(&self) -> Option<std::sync::Arc<dyn crate::tools::Tool>> {
        self.catalog
            .skills
            .iter()
            .any(|s| s.model_invocable)
            .then(|| {
                std::sync::Arc::new(tool::SkillTool::new(
                    self.catalog.clone(),
                    self.window_tokens,
                    self.policy.clone(),
                    self.active.clone(),
                )) as std::sync::Arc<dyn crate::tools::Tool>
            })
    }

    /// Reads the folders again if a SKILL.md changed, appeared or went: the new catalog's
    /// notices when it did, None when nothing changed.
    pub fn refresh(&mut self) -> Option<Vec<String>> {
        if !self.catalog.changed(&self.dirs) {
            return None;
        }
        let next = Catalog::load(&self.dirs);
        let fresh: Vec<String> = next
            .notices
            .iter()
            .filter(|n| !self.catalog.notices.contains(n))
            .cloned()
            .collect();
        self.catalog = std::sync::Arc::new(next);
        Some(fresh)
    }
}

/// The user-invocable skills as `/NAME ARGS` commands for the `/` menu. They are sent as
/// typed and the agent uses the skill ([`active::Active::invoke`]), so a typed skill and the
/// model's `skill` call go the same way. A name a built-in command or a command file
/// already has is not taken (`/skills` says so).
pub fn commands(catalog: &Catalog, taken: &[&str]) -> Vec<crate::prompt::commands::FileCommand> {
    catalog
        .skills
        .iter()
        .filter(|s| s.user_invocable && !taken.contains(&s.name.as_str()))
        .filter_map(|s| {
            let body = s.read_body().ok()?;
            Some(crate::prompt::commands::FileCommand {
                name: s.name.clone(),
                description: format!("skill: {}", s.description),
                // Only what the menu asks of it: whether it waits for arguments.
                body,
                path: s.path.clone(),
                skill: true,
            })
        })
        .collect()
}

/// The folders searched, highest precedence first: the project's over the user's,
/// tooloop's over Claude Code's. (folder, label).
pub fn dirs(
    workspace: &Path,
    user_config: Option<&Path>,
    home: Option<&Path>,
) -> Vec<(PathBuf, String)> {
    let mut out = vec![
        (
            workspace.join(".tooloop/skills"),
            ".tooloop/skills".to_string(),
        ),
        (
            workspace.join(".claude/skills"),
            ".claude/skills".to_string(),
        ),
        (
            workspace.join(".agents/skills"),
            ".agents/skills".to_string(),
        ),
    ];
    if let Some(dir) = user_config {
        out.push((
            dir.join("skills"),
            format!("{}", dir.join("skills").display()),
        ));
    }
    if let Some(home) = home {
        out.push((home.join(".claude/skills"), "~/.claude/skills".to_string()));
    }
    out
}

/// The folders as the rest of tooloop finds the user's (config.toml's directory, HOME).
pub fn dirs_for(workspace: &Path) -> Vec<(PathBuf, String)> {
    let config = crate::paths::config_file()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    dirs(workspace, config.as_deref(), home.as_deref())
}

/// Every skill of some folders, and the notices for files skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalog {
    pub skills: Vec<Skill>,
    pub notices: Vec<String>,
    /// (file, modified, size) of every SKILL.md seen: what [`Catalog::changed`] compares.
    stamp: Vec<(PathBuf, Option<SystemTime>, u64)>,
}

impl Catalog {
    /// Reads every `*/SKILL.md` of `dirs` (symlinked folders followed). The first folder
    /// holding a name wins it; the list is sorted by name.
    pub fn load(dirs: &[(PathBuf, String)]) -> Catalog {
        let mut c = Catalog::default();
        for (dir, label) in dirs {
            for path in skill_files(dir) {
                c.stamp.push(stamp(&path));
                match read_skill(&path, label) {
                    Ok(s) if c.skills.iter().any(|k| k.name == s.name) => {}
                    Ok(s) => c.skills.push(s),
                    Err(e) => c.notices.push(format!("{e}; skill skipped")),
                }
            }
        }
        c.skills.sort_by(|a, b| a.name.cmp(&b.name));
        c
    }

    /// Whether the files on disk differ from what this catalog read (a skill added,
    /// removed or edited).
    pub fn changed(&self, dirs: &[(PathBuf, String)]) -> bool {
        let now: Vec<_> = dirs
            .iter()
            .flat_map(|(d, _)| skill_files(d))
            .map(|p| stamp(&p))
            .collect();
        now != self.stamp
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

/// What tells an edited SKILL.md from the one read: its path, modification time and size.
fn stamp(path: &Path) -> (PathBuf, Option<SystemTime>, u64) {
    let meta = std::fs::metadata(path).ok();
    (
        path.to_path_buf(),
        meta.as_ref().and_then(|m| m.modified().ok()),
        meta.map_or(0, |m| m.len()),
    )
}

/// `DIR/*/SKILL.md`, sorted (a symlinked folder counts: metadata follows links).
fn skill_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path().join("SKILL.md"))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// A SKILL.md that cannot be used: the file, the line (from 1) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {message}", path.display())]
pub struct SkillError {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl SkillError {
    fn at(path: &Path, line: usize, message: impl Into<String>) -> SkillError {
        SkillError {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

fn read_capped(path: &Path) -> Result<String, SkillError> {
    let meta = std::fs::metadata(path).map_err(|e| SkillError::at(path, 1, e.to_string()))?;
    if meta.len() > front_matter::MAX_FILE_BYTES as u64 {
        return Err(SkillError::at(
            path,
            1,
            format!(
                "{} bytes, more than a SKILL.md may hold ({} KiB)",
                meta.len(),
                front_matter::MAX_FILE_BYTES / 1024
            ),
        ));
    }
    std::fs::read_to_string(path).map_err(|e| SkillError::at(path, 1, e.to_string()))
}

/// One SKILL.md; Err is why it is skipped (file and line).
fn read_skill(path: &Path, label: &str) -> Result<Skill, SkillError> {
    let skipped = |line: usize, msg: &str| SkillError::at(path, line, msg);
    let text = read_capped(path)?;
    let (fm, body) = front_matter::parse(&text).map_err(|e| skipped(e.line, &e.message))?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = fm.name.unwrap_or(folder);
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok {
        return Err(skipped(
            2,
            &format!("name {name:?}: use up to 64 letters, digits, `-` and `_`"),
        ));
    }
    let description = one_line(&fm.description);
    if description.is_empty() {
        return Err(skipped(2, "the front matter has no `description`"));
    }
    Ok(Skill {
        name,
        description,
        path: path.to_path_buf(),
        dir,
        source: label.to_string(),
        body_bytes: body.len(),
        allowed_tools: fm.allowed_tools,
        model_invocable: !fm.disable_model_invocation,
        user_invocable: fm.user_invocable,
        argument_hint: fm.argument_hint,
        model: fm
            .model
            .map(|m| one_line(&m))
            .filter(|m| !m.is_empty() && m != "inherit"),
    })
}

/// Control characters and line breaks out (the file is anyone's).
fn one_line(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

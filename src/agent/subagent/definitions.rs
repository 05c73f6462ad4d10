//! Agent definitions: the built-in `general` and `explore`, and `*.md` files with a front
//! matter block (the shape Claude Code's `.claude/agents/` files have). A file that cannot
//! be read is a notice naming its line and is skipped; it never stops the session.

use std::path::{Path, PathBuf};

/// Which of the parent's tools an agent gets (never `task`, unless the depth allows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolChoice {
    /// Every tool the parent has.
    All,
    /// Only tools that change nothing.
    ReadOnly,
    /// These names (tooloop's, or Claude Code's `Read`, `Grep`, … mapped to them).
    Named(Vec<String>),
}

/// One agent the `task` tool can start.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentDefinition {
    pub name: String,
    pub description: String,
    pub tools: ToolChoice,
    /// None: the parent's model.
    pub model: Option<String>,
    /// None: `[agents] max_turns`.
    pub max_turns: Option<u32>,
    /// The agent's system prompt (its base part).
    pub prompt: String,
    /// The file it came from (None: built in).
    pub source: Option<PathBuf>,
    /// `isolation: worktree`: every run works in its own git worktree.
    pub worktree: bool,
}

const GENERAL_PROMPT: &str = "You are a subagent of tooloop, a coding agent in the user's \
terminal. The main agent gave you one task; do it completely with the tools you have, calling \
several independent tools in one reply when you can. Nobody reads your work but the main \
agent, and it sees only your final message: end with a concise report of what you found or \
changed, naming files and line numbers where they matter.";

const EXPLORE_PROMPT: &str = "You are an explore subagent of tooloop: you search and read the \
workspace for the main agent, and change nothing (your tools are read-only). Search broadly \
first (glob, grep), then read what matters; call several tools in one reply. The main agent \
sees only your final message: answer with a short report (at most about 15 lines) that names \
the relevant file paths (path:line where useful) and what each holds. No preamble.";

/// `general` and `explore`.
pub fn builtin() -> Vec<AgentDefinition> {
    vec![
        AgentDefinition {
            name: "general".into(),
            description: "General-purpose agent for multi-step work: researching, searching \
                          and changing code. Give it an independent piece of work."
                .into(),
            tools: ToolChoice::All,
            model: None,
            max_turns: None,
            prompt: GENERAL_PROMPT.into(),
            source: None,
            worktree: false,
        },
        AgentDefinition {
            name: "explore".into(),
            description: "Fast read-only search of the workspace: finds files, reads them and \
                          reports paths with what they hold. Use it to look around without \
                          filling your own context."
                .into(),
            tools: ToolChoice::ReadOnly,
            model: None,
            max_turns: None,
            prompt: EXPLORE_PROMPT.into(),
            source: None,
            worktree: false,
        },
    ]
}

/// A definition file that was skipped, and why (shown as a notice).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {message}; agent file skipped", path.display())]
pub struct DefinitionError {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

/// Every definition: files in `dirs` (the first directory wins a name), then the built-ins
/// that no file replaced. Also the notices for skipped files.
pub fn load(dirs: &[PathBuf]) -> (Vec<AgentDefinition>, Vec<DefinitionError>) {
    let mut found: Vec<AgentDefinition> = Vec::new();
    let mut errors = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
            .collect();
        files.sort();
        for path in files {
            match std::fs::read_to_string(&path)
                .map_err(|e| DefinitionError {
                    path: path.clone(),
                    line: 1,
                    message: e.to_string(),
                })
                .and_then(|text| parse(&path, &text))
            {
                Ok(def) if found.iter().any(|d| d.name == def.name) => {}
                Ok(def) => found.push(def),
                Err(e) => errors.push(e),
            }
        }
    }
    for b in builtin() {
        if !found.iter().any(|d| d.name == b.name) {
            found.push(b);
        }
    }
    // Built-ins first, then files by name: a stable order for the tool's description (the
    // request prefix must not change between runs that read the same files).
    found.sort_by_key(|d| (d.source.is_some(), d.name.clone()));
    (found, errors)
}

/// The directories of a workspace, in precedence order: the project's `.tooloop/agents`,
/// its `.claude/agents`, then the user's `agents` beside config.toml.
pub fn dirs(workspace: &Path, user_config_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = vec![
        workspace.join(".tooloop").join("agents"),
        workspace.join(".claude").join("agents"),
    ];
    if let Some(user) = user_config_dir {
        dirs.push(user.join("agents"));
    }
    dirs
}

/// One file: `---`, `key: value` lines, `---`, then the system prompt.
pub fn parse(path: &Path, text: &str) -> Result<AgentDefinition, DefinitionError> {
    let err = |line: usize, message: String| DefinitionError {
        path: path.to_path_buf(),
        line,
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, l)) if l.trim_end() == "---" => {}
        _ => {
            return Err(err(
                1,
                "expected a front matter block starting with `---`".into(),
            ));
        }
    }
    let mut name = None;
    let mut description = None;
    let mut tools = None;
    let mut model = None;
    let mut max_turns = None;
    let mut worktree = false;
    let mut closed = None;
    // `tools:` may continue as YAML list items (`  - read_file`).
    let mut in_tools_list = false;
    for (n, raw) in lines.by_ref() {
        if raw.trim_end() == "---" {
            closed = Some(n);
            break;
        }
        let line = strip_comment(raw);
        if line.trim().is_empty() {
            continue;
        }
        if in_tools_list && let Some(item) = line.trim().strip_prefix("- ") {
            if let Some(ToolChoice::Named(list)) = &mut tools {
                list.push(tool_name(unquote(item.trim())));
            }
            continue;
        }
        in_tools_list = false;
        let Some((key, value)) = line.split_once(':') else {
            return Err(err(
                n,
                format!("expected `key: value`, found {:?}", line.trim()),
            ));
        };
        let value = unquote(value.trim());
        match key.trim() {
            "name" => {
                if value.is_empty()
                    || !value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                {
                    return Err(err(
                        n,
                        format!("name {value:?}: use letters, digits, `-` and `_`"),
                    ));
                }
                name = Some(value.to_string());
            }
            "description" => description = Some(value.to_string()),
            "tools" => {
                let list = value.trim_start_matches('[').trim_end_matches(']');
                let names: Vec<String> = list
                    .split(',')
                    .map(|t| unquote(t.trim()))
                    .filter(|t| !t.is_empty())
                    .map(tool_name)
                    .collect();
                in_tools_list = names.is_empty();
                tools = Some(ToolChoice::Named(names));
            }
            "model" => model = (!value.is_empty() && value != "inherit").then(|| value.to_string()),
            "max_turns" | "maxTurns" => match value.parse::<u32>() {
                Ok(v) if v > 0 => max_turns = Some(v),
                _ => {
                    return Err(err(
                        n,
                        format!("max_turns {value:?}: expected a whole number above 0"),
                    ));
                }
            },
            "isolation" => match value {
                "worktree" => worktree = true,
                "" | "none" => worktree = false,
                other => {
                    return Err(err(
                        n,
                        format!("isolation {other:?}: expected `worktree` (or `none`)"),
                    ));
                }
            },
            // Claude Code keys that mean nothing here.
            "color" | "permissionMode" | "hooks" | "skills" => {}
            other => {
                return Err(err(
                    n,
                    format!(
                        "unknown key `{other}` (expected name, description, tools, model, \
                         max_turns, isolation)"
                    ),
                ));
            }
        }
    }
    let Some(end) = closed else {
        return Err(err(
            1,
            "the front matter block is not closed by `---`".into(),
        ));
    };
    let name = name.ok_or_else(|| err(end, "the front matter has no `name`".into()))?;
    let description = description
        .filter(|d| !d.is_empty())
        .ok_or_else(|| err(end, "the front matter has no `description`".into()))?;
    let prompt: String = lines.map(|(_, l)| l).collect::<Vec<_>>().join("\n");
    let prompt = prompt.trim().to_string();
    if prompt.is_empty() {
        return Err(err(end, "no system prompt after the front matter".into()));
    }
    Ok(AgentDefinition {
        name,
        description,
        tools: tools.unwrap_or(ToolChoice::All),
        model,
        max_turns,
        prompt,
        source: Some(path.to_path_buf()),
        worktree,
    })
}

/// A `#` comment after whitespace ends the line (not one inside a word like `C#`).
fn strip_comment(line: &str) -> &str {
    match line.find(" #").or_else(|| line.find("\t#")) {
        Some(i) => &line[..i],
        None if line.trim_start().starts_with('#') => "",
        None => line,
    }
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(s)
}

/// Claude Code's tool names, as tooloop calls the same tools.
fn tool_name(name: &str) -> String {
    match name {
        "Read" => "read_file",
        "Grep" => "grep",
        "Glob" => "glob",
        "LS" => "list_dir",
        "Bash" => "bash",
        "Edit" | "MultiEdit" => "edit_file",
        "Write" => "write_file",
        "WebFetch" => "web_fetch",
        other => other,
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<AgentDefinition, DefinitionError> {
        parse(Path::new("a.md"), text)
    }

    #[test]
    fn the_issue_example_parses() {
        let d = p(
            "---\nname: reviewer\ndescription: Reviews a diff for bugs. Use after editing code.\n\
                   tools: read_file, grep, glob, list_dir   # optional\nmodel: claude-haiku-4-5\n\
                   max_turns: 20\n---\nThe system prompt of the agent.\n",
        )
        .expect("parses");
        assert_eq!(d.name, "reviewer");
        assert_eq!(
            d.tools,
            ToolChoice::Named(vec![
                "read_file".into(),
                "grep".into(),
                "glob".into(),
                "list_dir".into()
            ])
        );
        assert_eq!(d.model.as_deref(), Some("claude-haiku-4-5"));
        assert_eq!(d.max_turns, Some(20));
        assert_eq!(d.prompt, "The system prompt of the agent.");
        assert!(!d.worktree);
    }

    #[test]
    fn isolation_worktree() {
        let d = p("---\nname: w\ndescription: d\nisolation: worktree\n---\nGo.").expect("parses");
        assert!(d.worktree);
        let e = p("---\nname: w\ndescription: d\nisolation: vm\n---\nGo.").unwrap_err();
        assert_eq!(e.line, 4);
    }

    #[test]
    fn claude_code_files_work_too() {
        let d = p(
            "---\nname: \"finder\"\ndescription: finds\ntools:\n  - Read\n  - Grep\n\
                   model: inherit\ncolor: blue\n---\nFind.",
        )
        .expect("parses");
        assert_eq!(
            d.tools,
            ToolChoice::Named(vec!["read_file".into(), "grep".into()])
        );
        assert_eq!(d.model, None);
    }

    #[test]
    fn a_bad_file_names_its_line() {
        let e = p("---\nname: x\ndescription: d\nmax_turns: many\n---\nhi").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.to_string().starts_with("a.md:4: max_turns"), "{e}");
        assert_eq!(p("name: x").unwrap_err().line, 1);
        assert_eq!(p("---\nname: x\ndescription: d\n").unwrap_err().line, 1);
        assert_eq!(p("---\nname: x\nhi\n---\n").unwrap_err().line, 3);
        assert_eq!(p("---\ndescription: d\n---\nhi").unwrap_err().line, 3);
        assert_eq!(p("---\nname: a b\n---\n").unwrap_err().line, 2);
        assert_eq!(p("---\nname: a\nfoo: 1\n---\nx").unwrap_err().line, 3);
        assert_eq!(
            p("---\nname: a\ndescription: d\n---\n").unwrap_err().line,
            4
        );
    }

    #[test]
    fn the_project_beats_the_user_and_files_beat_built_ins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path().join("p");
        let user = dir.path().join("u");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::create_dir_all(&user).expect("mkdir");
        let file = |d: &Path, f: &str, name: &str, desc: &str| {
            std::fs::write(
                d.join(f),
                format!("---\nname: {name}\ndescription: {desc}\n---\nprompt"),
            )
            .expect("write")
        };
        file(&project, "r.md", "reviewer", "project");
        file(&user, "r.md", "reviewer", "user");
        file(&user, "e.md", "explore", "mine");
        std::fs::write(project.join("bad.md"), "nothing").expect("write");
        let (defs, errors) = load(&[project.clone(), user]);
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["general", "explore", "reviewer"]);
        assert_eq!(defs[2].description, "project");
        assert_eq!(defs[1].description, "mine", "a file replaces a built-in");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, project.join("bad.md"));
    }
}

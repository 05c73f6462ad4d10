//! The system prompt, assembled from named parts: the base prompt (`--system` replaces it,
//! `--append-system` adds to it), the environment block and the project's instruction files
//! (AGENTS.md / CLAUDE.md).
//!
//! Parts are built once per session (the date is fixed at session start) and never change
//! between turns, so the request prefix stays byte-identical and prompt caching keeps
//! working. The result is a [`SystemPrompt`], which the providers send part by part.

pub mod commands;
pub mod environment;
pub mod instructions;

use std::path::PathBuf;

use crate::provider::{SystemPart, SystemPrompt};
pub use environment::Environment;
pub use instructions::{INSTRUCTIONS_CAP, Instructions};

/// What the prompt is built from; nothing here reads the process environment, so tests can
/// say exactly what they want.
#[derive(Clone, Debug)]
pub struct PromptInputs {
    pub base: String,
    pub append: Option<String>,
    pub environment: Option<Environment>,
    /// Read AGENTS.md / CLAUDE.md (false with `--no-project-instructions`).
    pub project_instructions: bool,
    pub workspace: PathBuf,
    /// Where the user-level AGENTS.md lives (the config directory), if known.
    pub user_dir: Option<PathBuf>,
    pub instructions_cap: usize,
}

/// The assembled prompt and what the user should hear about it (a cut, an unreadable file).
#[derive(Clone, Debug)]
pub struct Assembled {
    pub prompt: SystemPrompt,
    pub notices: Vec<String>,
}

/// The session's prompt for `workspace`: the real environment (OS, shell, today's date, git)
/// and, with `project_instructions`, the AGENTS.md files including the user-level one in
/// the config directory.
pub fn for_workspace(
    workspace: &std::path::Path,
    base: String,
    append: Option<String>,
    project_instructions: bool,
) -> Assembled {
    let user_dir = crate::paths::config_file()
        .ok()
        .and_then(|f| f.parent().map(std::path::Path::to_path_buf));
    assemble(&PromptInputs {
        base,
        append,
        environment: Some(Environment::detect(workspace)),
        project_instructions,
        workspace: workspace.to_path_buf(),
        user_dir,
        instructions_cap: INSTRUCTIONS_CAP,
    })
}

/// Base, append, environment, instructions: in this order, each a part of its own.
pub fn assemble(inputs: &PromptInputs) -> Assembled {
    let mut parts = vec![SystemPart {
        name: "base",
        text: inputs.base.clone(),
    }];
    if let Some(extra) = inputs.append.as_ref().filter(|t| !t.trim().is_empty()) {
        parts.push(SystemPart {
            name: "append",
            text: extra.clone(),
        });
    }
    if let Some(env) = &inputs.environment {
        parts.push(SystemPart {
            name: "environment",
            text: env.render(),
        });
    }
    let mut notices = Vec::new();
    if inputs.project_instructions {
        let git_root = inputs
            .environment
            .as_ref()
            .and_then(|e| e.git.as_ref())
            .map(|g| g.root.clone());
        let found = Instructions::collect(
            &inputs.workspace,
            git_root.as_deref(),
            inputs.user_dir.as_deref(),
            inputs.instructions_cap,
        );
        notices.extend(found.notices.iter().cloned());
        if let Some(text) = found.render() {
            parts.push(SystemPart {
                name: "instructions",
                text,
            });
        }
    }
    Assembled {
        prompt: SystemPrompt::new(parts),
        notices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assemble_orders_the_parts_and_skips_empty_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let inputs = PromptInputs {
            base: "base".into(),
            append: Some("extra".into()),
            environment: None,
            project_instructions: false,
            workspace: dir.path().to_path_buf(),
            user_dir: None,
            instructions_cap: INSTRUCTIONS_CAP,
        };
        let a = assemble(&inputs);
        let names: Vec<&str> = a.prompt.parts().iter().map(|p| p.name).collect();
        assert_eq!(names, ["base", "append"]);
        let a = assemble(&PromptInputs {
            append: Some("  ".into()),
            ..inputs
        });
        assert_eq!(a.prompt.parts().len(), 1);
    }
}

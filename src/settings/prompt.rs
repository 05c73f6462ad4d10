//! The system prompt's parts: the base prompt, what is appended, project instructions.

use serde::Deserialize;

pub const DEFAULT_SYSTEM_PROMPT: &str = "You are tooloop, a coding agent in the user's terminal. \
Use the tools to look at the workspace before you answer questions about it. Call several \
independent tools in one reply when you can; they run in parallel. Be concise.";

#[derive(clap::Args, Debug, Clone, Default)]
pub struct PromptFlags {
    /// Replace the base system prompt (the environment block and project instructions stay).
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,

    /// Add TEXT to the system prompt, after the base prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system: Option<String>,

    /// Do not read AGENTS.md / CLAUDE.md (project and user-level instructions).
    #[arg(long)]
    pub no_project_instructions: bool,
}

/// The section's keys at the top of `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct PromptFile {
    pub system: Option<String>,
    pub append_system: Option<String>,
    pub project_instructions: Option<bool>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PromptSettings {
    /// The base system prompt (--system replaces only this part).
    pub system: String,
    /// --append-system: added after the base prompt.
    pub append_system: Option<String>,
    /// Read AGENTS.md / CLAUDE.md (off with --no-project-instructions).
    pub project_instructions: bool,
}

pub fn resolve(flags: &PromptFlags, file: &PromptFile) -> PromptSettings {
    PromptSettings {
        system: flags
            .system
            .clone()
            .or_else(|| file.system.clone())
            .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_string()),
        append_system: flags
            .append_system
            .clone()
            .or_else(|| file.append_system.clone()),
        project_instructions: !flags.no_project_instructions
            && file.project_instructions.unwrap_or(true),
    }
}

//! Who may run which tools and how they run: approval, pre-approved tools, the executor,
//! limits, the workspace fence, background jobs, Anthropic's server-side web search.

use std::time::Duration;

use serde::Deserialize;

use crate::agent::exec_env::ToolExec;
use crate::protocol::approval_mode::ApprovalMode;
use crate::provider::ProviderKind;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ToolsFlags {
    /// Who may run tools that change things (headless treats ask as deny).
    #[arg(long, value_enum)]
    pub approval: Option<ApprovalMode>,

    /// Pre-approve one tool (repeatable).
    #[arg(long = "allow-tool", value_name = "NAME")]
    pub allow_tool: Vec<String>,

    /// Executor strategy.
    #[arg(long, value_enum)]
    pub tool_exec: Option<ToolExec>,

    /// Let file tools reach paths outside the workspace.
    #[arg(long)]
    pub allow_outside_workspace: bool,

    /// A failing bash call no longer cancels its sibling calls.
    #[arg(long)]
    pub no_sibling_abort: bool,

    /// Anthropic: offer the server-side web_search tool (the API runs the searches; config
    /// `[tools] web_search`, `web_search_max_uses`, default 5 searches a request).
    #[arg(long)]
    pub web_search: bool,
}

/// The section's keys in `config.toml`: `approval`, `tool_exec`, `[tools]`, `[background]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ToolsFile {
    pub approval: Option<ApprovalMode>,
    pub tool_exec: Option<ToolExec>,
    #[serde(default)]
    pub tools: ToolsSection,
    /// `[background]`: jobs started with bash `run_in_background`.
    #[serde(default)]
    pub background: BackgroundSection,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolsSection {
    pub timeout_secs: Option<u64>,
    pub max_output_bytes: Option<usize>,
    pub allow: Option<Vec<String>>,
    /// Offer Anthropic's server-side web_search tool.
    pub web_search: Option<bool>,
    /// At most this many searches per request (the tool's `max_uses`; default 5).
    pub web_search_max_uses: Option<u32>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSection {
    /// Background jobs running at once (default 8).
    pub max_jobs: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolsSettings {
    pub approval: ApprovalMode,
    pub allowed_tools: Vec<String>,
    pub tool_exec: ToolExec,
    pub allow_outside_workspace: bool,
    pub sibling_abort: bool,
    pub max_output_bytes: usize,
    pub tool_timeout: Duration,
    /// `[background] max_jobs`.
    pub max_jobs: usize,
    /// Anthropic's server-side web_search tool, with its `max_uses`; None = not offered.
    pub web_search: Option<u32>,
}

/// Resolves the section for `provider`; a search it cannot offer goes to `notes`.
pub fn resolve(
    flags: &ToolsFlags,
    file: &ToolsFile,
    provider: ProviderKind,
    notes: &mut Vec<String>,
) -> ToolsSettings {
    let tools = &file.tools;
    let mut allowed_tools = tools.allow.clone().unwrap_or_default();
    allowed_tools.extend(flags.allow_tool.iter().cloned());
    let web_search = match flags.web_search || tools.web_search.unwrap_or(false) {
        false => None,
        // Only Anthropic's API runs server tools; OpenAI-compatible APIs have no
        // standard form for them, so the flag is refused there, saying so.
        true if !provider.defaults().server_tools => {
            notes.push(format!(
                "--web-search is not available with the {provider} provider (no standard \
                 form for server-side search on OpenAI-compatible APIs); searching is off"
            ));
            None
        }
        true => Some(tools.web_search_max_uses.unwrap_or(5).max(1)),
    };
    ToolsSettings {
        approval: flags.approval.or(file.approval).unwrap_or_default(),
        allowed_tools,
        tool_exec: flags.tool_exec.or(file.tool_exec).unwrap_or_default(),
        allow_outside_workspace: flags.allow_outside_workspace,
        sibling_abort: !flags.no_sibling_abort,
        max_output_bytes: tools
            .max_output_bytes
            .unwrap_or(crate::tools::DEFAULT_MAX_OUTPUT_BYTES)
            .max(1),
        tool_timeout: tools
            .timeout_secs
            .map(|s| Duration::from_secs(s.max(1)))
            .unwrap_or(crate::tools::DEFAULT_TOOL_TIMEOUT),
        max_jobs: file
            .background
            .max_jobs
            .unwrap_or(crate::background::DEFAULT_MAX_JOBS)
            .max(1),
        web_search,
    }
}

//! A prompt's MCP parts (issue 39), typed in the TUI or given to `-p`: `/mcp__SERVER__PROMPT
//! args` adds the server prompt's messages after the words as typed, `@SERVER:URI` adds the
//! resource like an `@file`. Anything that cannot be had (a missing argument, a resource
//! that does not read, a server that died) stops the prompt: it is not sent without it.

use tokio_util::sync::CancellationToken;

use super::super::Agent;
use crate::mcp::McpManager;
use crate::mcp::prompt_use::{self, UseError};
use crate::message::ContentBlock;
use crate::message::markers::{self, mention};
use crate::protocol::AgentEvent;

/// Why a prompt is not sent (said to the user; the model never sees it).
#[derive(Debug, thiserror::Error)]
pub(super) enum NotSent {
    #[error(transparent)]
    Use(#[from] UseError),
    #[error("stopped while waiting for MCP servers to start")]
    Cancelled,
}

/// The blocks the prompt's MCP parts add; none for a prompt without any.
pub(super) async fn expand(
    agent: &Agent,
    prompt: &str,
    cancel: &CancellationToken,
) -> Result<Vec<ContentBlock>, NotSent> {
    let Some(mcp) = agent.mcp.clone() else {
        return Ok(Vec::new());
    };
    let command = super::skill_command::split(prompt)
        .filter(|(name, _)| mcp.names_a_server_prompt(name).is_some());
    let resources = resource_mentions(&mcp, prompt);
    if command.is_none() && resources.is_empty() {
        return Ok(Vec::new());
    }
    // Prompts and resources are listed as the servers start.
    if !super::extensions::wait_for_servers(agent, &mcp, cancel).await {
        return Err(NotSent::Cancelled);
    }
    let mut blocks = Vec::new();
    if let Some((name, args)) = command {
        blocks.extend(prompt_blocks(&mcp, name, args).await?);
    }
    for (server, uri) in resources {
        let Some(s) = mcp.server(&server) else {
            continue;
        };
        let read = prompt_use::read(s, &uri).await?;
        for b in &read {
            if let ContentBlock::Text { text, .. } = b
                && let Some(label) = mention::label(text).filter(|l| !l.starts_with('@'))
            {
                agent.exec.events.send(AgentEvent::Notice { text: label });
            }
        }
        blocks.extend(read);
    }
    Ok(blocks)
}

/// The prompt's messages, the first headed with the command (how a resumed session shows
/// it, as for a skill typed as `/NAME`).
async fn prompt_blocks(
    mcp: &McpManager,
    command: &str,
    args: &str,
) -> Result<Vec<ContentBlock>, UseError> {
    let Some((server, info)) = mcp.prompt(command) else {
        let (server, prompt) = mcp.names_a_server_prompt(command).unwrap_or_default();
        // A server that is down lists nothing: say that, not "no such prompt".
        let status = mcp.server(&server).map(|s| s.status());
        if let Some(s) = status.filter(|s| s.state == crate::protocol::status::ServerState::Failed)
        {
            return Err(UseError::Prompt {
                command: command.to_string(),
                server,
                why: format!("is not running: {}", s.error.unwrap_or_default()),
            });
        }
        return Err(UseError::UnknownPrompt { server, prompt });
    };
    let arguments = prompt_use::bind(command, &info, &crate::text::words(args))?;
    let mut blocks = prompt_use::get(&server, command, &info.name, arguments).await?;
    match blocks.first() {
        Some(ContentBlock::Text { text, .. }) => blocks[0] = markers::user_skill(command, text),
        _ => blocks.insert(0, markers::user_skill(command, "")),
    }
    Ok(blocks)
}

/// The `@SERVER:URI` words naming a configured server, each once, as (server, URI). A
/// sentence's closing punctuation is not part of the URI unless the server lists it so.
fn resource_mentions(mcp: &McpManager, prompt: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for word in super::super::mentions::mentioned(prompt) {
        let Some((server, uri)) = word.split_once(':') else {
            continue;
        };
        let Some(s) = mcp.server(server) else {
            continue;
        };
        let trimmed = uri.trim_end_matches(['.', ',', ';', '!', '?', ')']);
        let listed = |u: &str| s.status().resources.iter().any(|r| r.uri == u);
        let uri = if trimmed != uri && !listed(uri) {
            trimmed
        } else {
            uri
        };
        let pair = (server.to_string(), uri.to_string());
        if !uri.is_empty() && !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

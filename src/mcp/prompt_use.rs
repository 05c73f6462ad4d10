//! Using a server's prompts and resources (issue 39): `/mcp__SERVER__PROMPT args` gets the
//! prompt (`prompts/get`) with its arguments bound, `@SERVER:URI` reads the resource
//! (`resources/read`); either gives the blocks of the user's message, or why it cannot be
//! sent (the prompt is not sent then).

use std::sync::Arc;

use rmcp::ServiceError;
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
use serde_json::{Map, Value};

use super::content::{prompt_blocks, resource_blocks};
use super::server::McpServer;
use crate::message::ContentBlock;
use crate::protocol::status::PromptInfo;

/// Why a prompt or a resource cannot be used; the text is the notice the user reads.
#[derive(Debug, thiserror::Error)]
pub enum UseError {
    #[error("/{command}: missing required argument{} {}; usage: {usage}", plural(.names.len()), .names.join(", "))]
    MissingArguments {
        command: String,
        names: Vec<String>,
        usage: String,
    },
    #[error("/{command} takes no arguments")]
    NoArguments { command: String },
    #[error("/{command}: no argument named {name}; usage: {usage}")]
    UnknownArgument {
        command: String,
        name: String,
        usage: String,
    },
    #[error("MCP server {server} has no prompt {prompt}")]
    UnknownPrompt { server: String, prompt: String },
    #[error("@{server}:{uri} was not attached: MCP server {server} {why}")]
    Resource {
        server: String,
        uri: String,
        why: String,
    },
    #[error("/{command} was not sent: MCP server {server} {why}")]
    Prompt {
        command: String,
        server: String,
        why: String,
    },
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The command a server's prompt is typed as, without its slash: `mcp__fx__greet`.
pub fn command_name(server: &str, prompt: &PromptInfo) -> String {
    format!("mcp__{server}__{}", prompt.name)
}

/// What a `/` menu (the TUI's, an editor's over ACP) says of it.
pub fn command_help(server: &str, prompt: &PromptInfo) -> String {
    if prompt.description.is_empty() {
        format!("MCP prompt of {server}")
    } else {
        format!("{} (MCP {server})", prompt.description)
    }
}

/// How the prompt is typed: `/mcp__fx__greet <name> [style]`.
pub fn usage(command: &str, prompt: &PromptInfo) -> String {
    format!("/{command} {}", argument_line(prompt))
        .trim_end()
        .to_string()
}

/// Its arguments as the `/` menu shows them: `<name> [style]` (required in angle brackets).
pub fn argument_line(prompt: &PromptInfo) -> String {
    let args: Vec<String> = prompt
        .arguments
        .iter()
        .map(|a| {
            if a.required {
                format!("<{}>", a.name)
            } else {
                format!("[{}]", a.name)
            }
        })
        .collect();
    args.join(" ")
}

/// The arguments of `/command words…`: `name=value` for a named one, the rest in the
/// prompt's order (words past the last argument join it, so a sentence fits one argument).
pub fn bind(
    command: &str,
    prompt: &PromptInfo,
    words: &[String],
) -> Result<Map<String, Value>, UseError> {
    let mut bound = Map::new();
    let mut positional = Vec::new();
    for w in words {
        match w.split_once('=') {
            Some((name, value)) if prompt.arguments.iter().any(|a| a.name == name) => {
                bound.insert(name.to_string(), Value::String(value.to_string()));
            }
            Some((name, _))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && positional.is_empty()
                    && !prompt.arguments.is_empty() =>
            {
                return Err(UseError::UnknownArgument {
                    command: command.to_string(),
                    name: name.to_string(),
                    usage: usage(command, prompt),
                });
            }
            _ => positional.push(w.clone()),
        }
    }
    if prompt.arguments.is_empty() && !(positional.is_empty() && bound.is_empty()) {
        return Err(UseError::NoArguments {
            command: command.to_string(),
        });
    }
    let open: Vec<&str> = prompt
        .arguments
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| !bound.contains_key(*n))
        .collect();
    let mut rest = positional.into_iter();
    for (i, name) in open.iter().enumerate() {
        let value = if i + 1 == open.len() {
            rest.by_ref().collect::<Vec<_>>().join(" ")
        } else {
            rest.next().unwrap_or_default()
        };
        if !value.is_empty() {
            bound.insert(name.to_string(), Value::String(value));
        }
    }
    let missing: Vec<String> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !bound.contains_key(&a.name))
        .map(|a| a.name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(UseError::MissingArguments {
            command: command.to_string(),
            names: missing,
            usage: usage(command, prompt),
        });
    }
    Ok(bound)
}

/// Why a request to the server failed, as the notice says it (after "MCP server NAME").
fn why(e: &ServiceError) -> String {
    match e {
        ServiceError::McpError(e) => format!("answered with an error: {}", e.message),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            format!("is down ({e})")
        }
        e => format!("failed: {e}"),
    }
}

/// `prompts/get` with `arguments`: the blocks of its messages, in order.
pub async fn get(
    server: &Arc<McpServer>,
    command: &str,
    prompt: &str,
    arguments: Map<String, Value>,
) -> Result<Vec<ContentBlock>, UseError> {
    let fail = |why: String| UseError::Prompt {
        command: command.to_string(),
        server: server.config.name.clone(),
        why,
    };
    let client = server
        .client_for_use()
        .await
        .map_err(|e| fail(format!("cannot be used: {e}")))?;
    let mut params = GetPromptRequestParams::new(prompt);
    params.arguments = Some(arguments);
    let result = match client.peer().get_prompt(params).await {
        Ok(r) => r,
        Err(e) => {
            server.lost_if_down(&e).await;
            return Err(fail(why(&e)));
        }
    };
    let result = serde_json::to_value(&result)
        .map_err(|e| fail(format!("sent an unreadable prompt: {e}")))?;
    let blocks: Vec<ContentBlock> = result
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|m| prompt_blocks(&server.config.name, m))
        .collect();
    if blocks.is_empty() {
        return Err(fail(format!("returned no messages for prompt {prompt}")));
    }
    Ok(blocks)
}

/// `resources/read` of `uri`: its contents as blocks, each headed `SERVER:URI`.
pub async fn read(server: &Arc<McpServer>, uri: &str) -> Result<Vec<ContentBlock>, UseError> {
    let name = server.config.name.clone();
    let fail = |why: String| UseError::Resource {
        server: name.clone(),
        uri: uri.to_string(),
        why,
    };
    let client = server
        .client_for_use()
        .await
        .map_err(|e| fail(format!("cannot be used: {e}")))?;
    let result = match client
        .peer()
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
    {
        Ok(r) => r,
        Err(e) => {
            server.lost_if_down(&e).await;
            return Err(fail(why(&e)));
        }
    };
    let result = serde_json::to_value(&result)
        .map_err(|e| fail(format!("sent an unreadable resource: {e}")))?;
    let blocks: Vec<ContentBlock> = result
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|c| {
            let shown = format!(
                "{name}:{}",
                c.get("uri").and_then(Value::as_str).unwrap_or(uri)
            );
            resource_blocks(&shown, c)
        })
        .collect();
    if blocks.is_empty() {
        return Err(fail("returned no contents".into()));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::status::PromptArg;

    fn greet() -> PromptInfo {
        PromptInfo {
            name: "greet".into(),
            description: String::new(),
            arguments: vec![
                PromptArg {
                    name: "name".into(),
                    required: true,
                },
                PromptArg {
                    name: "style".into(),
                    required: false,
                },
            ],
        }
    }

    fn w(s: &str) -> Vec<String> {
        crate::text::words(s)
    }

    #[test]
    fn arguments_by_position_or_by_name() {
        let c = "mcp__fx__greet";
        let b = bind(c, &greet(), &w("Ada warmly and kindly")).unwrap();
        assert_eq!(b["name"], "Ada");
        assert_eq!(b["style"], "warmly and kindly");
        let b = bind(c, &greet(), &w("style='very brief' Ada")).unwrap();
        assert_eq!(
            (b["name"].as_str(), b["style"].as_str()),
            (Some("Ada"), Some("very brief"))
        );
        let b = bind(c, &greet(), &w("name=Bo")).unwrap();
        assert!(!b.contains_key("style"));
        let e = bind(c, &greet(), &w("style=x")).unwrap_err().to_string();
        assert_eq!(
            e,
            "/mcp__fx__greet: missing required argument name; usage: /mcp__fx__greet <name> [style]"
        );
        let e = bind(c, &greet(), &w("colour=red")).unwrap_err().to_string();
        assert!(e.contains("no argument named colour"), "{e}");
        // A value with `=` in it after a positional one is a value.
        let b = bind(c, &greet(), &w("Ada a=b")).unwrap();
        assert_eq!(b["style"], "a=b");
        let none = PromptInfo {
            arguments: vec![],
            ..greet()
        };
        assert!(bind("mcp__fx__x", &none, &[]).unwrap().is_empty());
        assert!(matches!(
            bind("mcp__fx__x", &none, &w("extra")),
            Err(UseError::NoArguments { .. })
        ));
    }
}

//! Slash commands over ACP: the TUI's commands that make sense without it, every command
//! from files (`.tooloop/commands/`, `.claude/commands/`, …) and the MCP servers' prompts
//! (`/mcp__SERVER__PROMPT`), advertised with `available_commands_update`; a prompt that
//! starts with `/name` runs it (an MCP prompt goes to the agent as typed, which gets the
//! prompt's messages, as in the TUI and `-p`).

use std::path::Path;

use agent_client_protocol_schema::v1 as acp;

use crate::mcp::prompt_use::{argument_line, command_help, command_name};
use crate::prompt::commands::FileCommand;
use crate::protocol::status::ServerStatus;

/// Built-in commands: name, description, input hint (None: takes no argument).
pub const BUILTIN: &[(&str, &str, Option<&str>)] = &[
    (
        "compact",
        "Summarize the conversation to free context",
        Some("optional instructions for the summary"),
    ),
    ("clear", "Start a new conversation (a new session)", None),
    ("new", "Start a new conversation (a new session)", None),
    (
        "model",
        "Use another model from the next request on",
        Some("model id"),
    ),
    ("cost", "Tokens and cost of this session so far", None),
    ("status", "Session, model, workspace and context use", None),
    (
        "init",
        "Write a starting AGENTS.md for this workspace",
        None,
    ),
    (
        "rewind",
        "Go back to just before prompt N (conversation and files)",
        Some("prompt number, from 1"),
    ),
];

/// What a prompt asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    /// A built-in command and its argument text.
    Builtin { name: &'static str, args: String },
    /// A command from a file, expanded to the prompt it sends.
    File { prompt: String },
    /// Not a command: sent to the model as it is.
    Prompt,
}

/// The command files of `workspace` (built-in names are never taken by a file), then the
/// user-invocable skills as the TUI offers them (`/NAME ARGS`), sorted by name.
pub fn file_commands(workspace: &Path) -> Vec<FileCommand> {
    let names: Vec<&str> = BUILTIN.iter().map(|(n, _, _)| *n).collect();
    let mut commands = crate::prompt::commands::load_for(workspace, &names);
    let catalog = crate::skills::Catalog::load(&crate::skills::dirs_for(workspace));
    let taken: Vec<&str> = names
        .iter()
        .copied()
        .chain(commands.iter().map(|c| c.name.as_str()))
        .collect();
    let skills = crate::skills::commands(&catalog, &taken);
    commands.extend(skills);
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    commands
}

/// Every command, for `available_commands_update`; `servers` as their last `mcp` reports.
pub fn available(files: &[FileCommand], servers: &[ServerStatus]) -> Vec<acp::AvailableCommand> {
    let hint =
        |h: &str| acp::AvailableCommandInput::Unstructured(acp::UnstructuredCommandInput::new(h));
    let builtin = BUILTIN.iter().map(|(name, description, input)| {
        acp::AvailableCommand::new(*name, *description).input(input.map(hint))
    });
    let from_files = files.iter().map(|f| {
        acp::AvailableCommand::new(&f.name, &f.description)
            .input(f.takes_arguments().then(|| hint("arguments")))
    });
    let from_servers = servers.iter().flat_map(|s| {
        s.prompts.iter().map(|p| {
            let args = argument_line(p);
            acp::AvailableCommand::new(command_name(&s.server, p), command_help(&s.server, p))
                .input((!args.is_empty()).then(|| hint(&args)))
        })
    });
    builtin.chain(from_files).chain(from_servers).collect()
}

/// `/name args` → what it runs; text that is not a known command is a prompt ("/etc/hosts"
/// stays a prompt: a command word has no second slash).
pub fn parse(text: &str, files: &[FileCommand]) -> Parsed {
    let Some(rest) = text.trim_start().strip_prefix('/') else {
        return Parsed::Prompt;
    };
    let (word, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if let Some((name, _, _)) = BUILTIN.iter().find(|(n, _, _)| *n == word) {
        return Parsed::Builtin {
            name,
            args: args.trim().to_string(),
        };
    }
    match files.iter().find(|f| f.name == word) {
        Some(f) => Parsed::File {
            prompt: f.expand(args),
        },
        None => Parsed::Prompt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review() -> FileCommand {
        FileCommand {
            name: "review".into(),
            description: "Review a file".into(),
            body: "Review $ARGUMENTS carefully".into(),
            path: "/x/review.md".into(),
            skill: false,
        }
    }

    #[test]
    fn commands_are_parsed_and_advertised() {
        let files = [review()];
        assert_eq!(
            parse("/compact keep the API", &files),
            Parsed::Builtin {
                name: "compact",
                args: "keep the API".into()
            }
        );
        assert_eq!(
            parse("/review src/main.rs", &files),
            Parsed::File {
                prompt: "Review src/main.rs carefully".into()
            }
        );
        assert_eq!(parse("/etc/hosts: what is it", &files), Parsed::Prompt);
        assert_eq!(parse("hello /compact", &files), Parsed::Prompt);
        let listed = available(&files, &[]);
        let names: Vec<&str> = listed.iter().map(|c| c.name.as_str()).collect();
        assert!(
            names.contains(&"compact") && names.contains(&"review"),
            "{names:?}"
        );
        let review = listed.iter().find(|c| c.name == "review").unwrap();
        assert!(
            review.input.is_some(),
            "a template with $ARGUMENTS takes input"
        );
        let cost = listed.iter().find(|c| c.name == "cost").unwrap();
        assert!(cost.input.is_none());
    }
}

//! Slash commands typed in the input: one table, one entry per command. A line whose first
//! word looks like `/word` (letters, digits, `-`) is a command and never goes to the model;
//! an unknown one says so. Adding a command: one [`SlashCommand`] entry in [`COMMANDS`].

use tokio::time::Instant;

use crate::protocol::AgentCommand;
use crate::tui::app::App;
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;

pub struct SlashCommand {
    /// Without the slash.
    pub name: &'static str,
    /// Written after the name in help and completion ("[revoke TOOL|all]").
    pub args: &'static str,
    pub help: &'static str,
    pub run: fn(&mut App, &str, Instant),
}

/// The table as the help overlay lists it.
pub fn help_rows() -> Vec<crate::tui::overlays::help::CommandRow> {
    COMMANDS.iter().map(|c| (c.name, c.args, c.help)).collect()
}

pub const COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "help",
        args: "",
        help: "keys and commands",
        run: |app, _, _| app.open_help(),
    },
    SlashCommand {
        name: "new",
        args: "",
        help: "start a new conversation and session",
        run: |app, _, _| app.new_conversation(),
    },
    SlashCommand {
        name: "clear",
        args: "",
        help: "same as /new",
        run: |app, _, _| app.new_conversation(),
    },
    SlashCommand {
        name: "compact",
        args: "[instructions]",
        help: "summarize now to free context",
        run: |app, args, _| app.compact((!args.is_empty()).then(|| args.to_string())),
    },
    SlashCommand {
        name: "sessions",
        args: "",
        help: "resume another session of this workspace",
        run: |app, _, _| app.open_sessions(),
    },
    SlashCommand {
        name: "rewind",
        args: "",
        help: "back to an earlier prompt",
        run: |app, _, _| app.rewind_command("rewind"),
    },
    SlashCommand {
        name: "undo",
        args: "",
        help: "take back the last prompt and its edits",
        run: |app, _, _| app.rewind_command("undo"),
    },
    SlashCommand {
        name: "fork",
        args: "",
        help: "continue in a copy of this session",
        run: |app, _, _| app.rewind_command("fork"),
    },
    SlashCommand {
        name: "export",
        args: "[FILE]",
        help: "write the conversation as Markdown",
        run: |app, args, _| app.export_command(args),
    },
    SlashCommand {
        name: "mcp",
        args: "",
        help: "MCP servers: state and tools",
        run: |app, _, _| app.show_mcp(),
    },
    SlashCommand {
        name: "agents",
        args: "[N]",
        help: "list agents and subagents; N opens one",
        run: |app, args, _| app.agents_command(args),
    },
    SlashCommand {
        name: "skills",
        args: "",
        help: "list skills: source, size, by whom",
        run: |app, _, _| app.show_skills(),
    },
    SlashCommand {
        name: "worktrees",
        args: "",
        help: "git worktrees: branch, changes, session",
        run: |app, _, _| app.show_worktrees(),
    },
    SlashCommand {
        name: "jobs",
        args: "",
        help: "background jobs: state, command, pid",
        run: |app, _, _| app.show_jobs(),
    },
    SlashCommand {
        name: "kill",
        args: "ID",
        help: "stop a background job (b1, …)",
        run: |app, args, _| app.kill_job(args),
    },
    SlashCommand {
        name: "model",
        args: "[NAME]",
        help: "list the models; switch to NAME",
        run: model,
    },
    SlashCommand {
        name: "hooks",
        args: "[accept|keep]",
        help: "hooks in force; review settings changes",
        run: hooks,
    },
    SlashCommand {
        name: "permissions",
        args: "[revoke TOOL|all]",
        help: "rules by file and this session's grants; revoke grants",
        run: permissions,
    },
    SlashCommand {
        name: "approval",
        args: "[MODE]",
        help: "show or set the mode: ask auto-edit plan yolo read-only",
        run: approval,
    },
    SlashCommand {
        name: "status",
        args: "",
        help: "model, base URL, session, context, cost",
        run: |app, _, _| app.show_status(),
    },
    SlashCommand {
        name: "context",
        args: "",
        help: "context window use; tool definitions loaded and deferred",
        run: |app, _, _| app.show_context(),
    },
    SlashCommand {
        name: "cost",
        args: "",
        help: "session cost and tokens used",
        run: |app, _, _| app.show_cost(),
    },
    SlashCommand {
        name: "init",
        args: "",
        help: "write a starting AGENTS.md",
        run: |app, _, _| app.init_agents_md(),
    },
    SlashCommand {
        name: "exit",
        args: "",
        help: "quit tooloop",
        run: |app, _, _| app.status.should_quit = true,
    },
    SlashCommand {
        name: "quit",
        args: "",
        help: "same as /exit",
        run: |app, _, _| app.status.should_quit = true,
    },
];

/// The command word of `text` ("/perm x" → "perm"), if it is shaped like one. "/etc/hosts"
/// is not (a path goes to the model).
pub fn command_word(text: &str) -> Option<&str> {
    let first = text.split_whitespace().next()?;
    let word = first.strip_prefix('/')?;
    let ok = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then_some(word)
}

/// Runs `text` if it is a command; false if it is a prompt for the model.
pub fn run(app: &mut App, text: &str, now: Instant) -> bool {
    let Some(word) = command_word(text) else {
        return false;
    };
    let args = text.trim_start()[word.len() + 1..].trim();
    match COMMANDS.iter().find(|c| c.name == word) {
        Some(cmd) => (cmd.run)(app, args, now),
        // A command from a file (`.tooloop/commands/NAME.md`) sends its prompt.
        None if app.run_file_command(word, args) => {}
        // An MCP server's prompt goes to the agent as typed.
        None if app.run_mcp_prompt(word, text.trim()) => {}
        None => app
            .panes
            .conversation
            .push(CellKind::Error(strings::unknown_command(word, &names()))),
    }
    app.panes.conversation.scroll.bottom();
    true
}

/// Every command as typed ("/help /new …").
pub fn names() -> String {
    COMMANDS
        .iter()
        .map(|c| format!("/{}", c.name))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Commands starting with what was typed so far ("/pe" → permissions), for Tab completion.
pub fn completions(text: &str) -> Vec<&'static SlashCommand> {
    let Some(typed) = text.strip_prefix('/') else {
        return vec![];
    };
    if typed.contains(char::is_whitespace) {
        return vec![];
    }
    COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(typed))
        .collect()
}

fn approval(app: &mut App, args: &str, _now: Instant) {
    let text = match crate::protocol::approval_mode::ApprovalMode::parse(args) {
        _ if args.is_empty() => format!(
            "approval {} · {}",
            app.steering.mode.as_str(),
            strings::APPROVAL_USAGE
        ),
        Some(mode) if app.is_live() => {
            app.send(AgentCommand::SetApproval { mode });
            return;
        }
        Some(_) => "nothing runs in a replay: the approval mode cannot change".into(),
        None => strings::APPROVAL_USAGE.into(),
    };
    app.panes.conversation.push(CellKind::Notice(text));
}

fn permissions(app: &mut App, args: &str, _now: Instant) {
    let mut words = args.split_whitespace();
    let text = match (words.next(), words.next()) {
        (None, _) => crate::tui::steering::rules_listing(
            &app.steering.rules,
            &app.overlays.approvals.session_grants,
            app.steering.mode,
        ),
        (Some("revoke"), Some("all")) => {
            let tools: Vec<String> = std::mem::take(&mut app.overlays.approvals.session_grants)
                .into_iter()
                .collect();
            for tool in &tools {
                app.send(AgentCommand::RevokeSessionGrant { tool: tool.clone() });
            }
            strings::revoked(&tools)
        }
        (Some("revoke"), Some(tool)) => {
            if app.overlays.approvals.session_grants.remove(tool) {
                app.send(AgentCommand::RevokeSessionGrant { tool: tool.into() });
                strings::revoked(&[tool.to_string()])
            } else {
                strings::not_granted(tool)
            }
        }
        _ => strings::PERMISSIONS_USAGE.into(),
    };
    app.panes.conversation.push(CellKind::Notice(text));
}

/// `/hooks` asks the agent (which holds the hooks and watches the settings files): it
/// answers with the pending change or the hooks in force; accept / keep decide the change
/// it showed.
fn hooks(app: &mut App, args: &str, _: Instant) {
    use crate::protocol::HooksAction;
    let action = match args.trim() {
        "" => HooksAction::Show,
        "accept" => HooksAction::Accept,
        "keep" => HooksAction::Keep,
        _ => {
            app.panes
                .conversation
                .push(CellKind::Error(strings::HOOKS_USAGE.into()));
            return;
        }
    };
    if !app.is_live() {
        app.panes.conversation.push(CellKind::Notice(
            "nothing runs in a replay: there are no hooks to review".into(),
        ));
        return;
    }
    app.send(AgentCommand::Hooks { action });
}

/// `/model` lists the models; `/model NAME` switches (the agent confirms with ModelChanged,
/// which updates the status bar; during a turn the switch waits for its end).
fn model(app: &mut App, args: &str, _: Instant) {
    let name = args.trim();
    if name.contains(char::is_whitespace) {
        app.panes
            .conversation
            .push(CellKind::Error(strings::MODEL_USAGE.into()));
    } else if name.is_empty() {
        let text =
            crate::cli::model_list::format_table(app.info.model_table(), Some(&app.info.model));
        app.panes
            .conversation
            .push(CellKind::Notice(strings::model_list(text.trim_end())));
    } else {
        if app.turn.busy {
            app.panes
                .conversation
                .push(CellKind::Notice(strings::model_switch_pending(name)));
        }
        app.send(AgentCommand::SetModel {
            model: name.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_words_are_slash_words_not_paths() {
        assert_eq!(command_word("/new"), Some("new"));
        assert_eq!(
            command_word("  /permissions revoke bash"),
            Some("permissions")
        );
        assert_eq!(command_word("/etc/hosts: what is this"), None);
        assert_eq!(command_word("/"), None);
        assert_eq!(command_word("fix /new"), None);
    }

    #[test]
    fn every_command_is_a_table_entry() {
        for name in [
            "help",
            "new",
            "clear",
            "compact",
            "rewind",
            "undo",
            "fork",
            "export",
            "model",
            "mcp",
            "agents",
            "permissions",
            "hooks",
            "status",
            "context",
            "cost",
            "init",
            "exit",
            "quit",
        ] {
            assert!(COMMANDS.iter().any(|c| c.name == name), "/{name}");
        }
    }

    #[test]
    fn completion_matches_prefixes() {
        let names: Vec<&str> = completions("/pe").iter().map(|c| c.name).collect();
        assert_eq!(names, vec!["permissions"]);
        assert!(completions("/new x").is_empty());
        assert_eq!(completions("/").len(), COMMANDS.len());
    }
}

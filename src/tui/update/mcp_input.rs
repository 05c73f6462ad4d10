//! MCP servers' prompts and resources in the input (issue 39): each prompt is a
//! `/mcp__SERVER__PROMPT` entry of the `/` menu, sent as typed (the agent gets the prompt's
//! messages, so `-p` works the same); Tab after `@SERVER:` lists the server's resources.
//! Both follow the servers' `mcp` reports, so a `list_changed` shows at once.

use crate::mcp::prompt_use::{argument_line, command_help, command_name};
use crate::tui::app::App;
use crate::tui::input::menu::{CommandEntry, MenuItem};

impl App {
    /// Every ready server's prompts as menu entries; one without required arguments runs
    /// when picked.
    pub(crate) fn mcp_command_entries(&self) -> Vec<CommandEntry> {
        self.status
            .mcp
            .iter()
            .flat_map(|s| {
                s.prompts.iter().map(|p| CommandEntry {
                    name: command_name(&s.server, p),
                    args: argument_line(p),
                    help: command_help(&s.server, p),
                    runs_bare: !p.arguments.iter().any(|a| a.required),
                })
            })
            .collect()
    }

    /// `/mcp__SERVER__…` for a configured server: sent as typed (queued during a turn); the
    /// agent gets the prompt or says why not. False for any other command word.
    pub(crate) fn run_mcp_prompt(&mut self, word: &str, text: &str) -> bool {
        let Some(rest) = word.strip_prefix("mcp__") else {
            return false;
        };
        let known = self
            .status
            .mcp
            .iter()
            .any(|s| rest.starts_with(&format!("{}__", s.server)));
        if !known {
            return false;
        }
        if self.turn.busy {
            self.outbox.queued.push_back(text.to_string());
        } else {
            self.submit(text.to_string());
        }
        true
    }

    /// The resources of the server `partial` names before its `:`, as completions of
    /// `@partial`; None when it names no server (paths are completed then).
    pub(crate) fn resource_candidates(&self, partial: &str) -> Option<Vec<MenuItem>> {
        let (server, _) = partial.split_once(':')?;
        let status = self.status.mcp.iter().find(|s| s.server == server)?;
        let items = status
            .resources
            .iter()
            .map(|r| (format!("{server}:{}", r.uri), r))
            .filter(|(text, _)| text.starts_with(partial))
            .map(|(text, r)| MenuItem {
                label: text.clone(),
                detail: if r.template {
                    format!("template: {}", r.name)
                } else {
                    r.name.clone()
                },
                text,
                runs: false,
            })
            .collect();
        Some(items)
    }
}

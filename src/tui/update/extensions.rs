//! Hooks and MCP servers on screen (DESIGN.md §11): each hook is a bar on the timeline and a
//! row in the tools pane like a tool; servers' states are in the status bar and in `/mcp`.

use tokio::time::Instant;

use crate::hooks::{HookDecision, HookEvent, HookReport};
use crate::protocol::status::{ServerState, ServerStatus};
use crate::tui::app::App;
use crate::tui::panes::cells::CellKind;
use crate::tui::tool_calls::ToolState;

impl App {
    pub(crate) fn hook_started(&mut self, id: &str, event: HookEvent, command: &str, now: Instant) {
        let name = format!("hook {}", event.as_str());
        self.panes
            .tool_calls
            .upsert(id, &name, command, ToolState::Running, now);
        self.panes
            .tool_calls
            .update(id, |c| c.started_at = Some(now));
        self.panes.tools.add(id);
    }

    pub(crate) fn hook_ended(&mut self, id: &str, report: HookReport, now: Instant) {
        let failed = report.exit.is_none() && report.decision == HookDecision::None;
        let state = match report.decision {
            HookDecision::Deny | HookDecision::Stop => ToolState::Error,
            _ if failed => ToolState::Error,
            _ => ToolState::Ok,
        };
        let why = report.reason.clone().unwrap_or_default();
        self.panes.tool_calls.update(id, |c| {
            c.state = state;
            c.duration_ms = Some(report.duration_ms);
            c.output = why.clone();
            c.ended_at = Some(now);
        });
        // What a hook changed is said where the user reads; a quiet allow is not.
        let verb = match report.decision {
            HookDecision::Deny => Some("blocked"),
            HookDecision::Stop => Some("stopped the turn"),
            _ if failed => Some("failed"),
            _ => None,
        };
        if let Some(verb) = verb {
            let mut text = format!("{} hook `{}` {verb}", report.event.as_str(), report.command);
            if !why.is_empty() {
                text.push_str(": ");
                text.push_str(&why);
            }
            self.panes.conversation.push(CellKind::Notice(text));
        }
    }

    pub(crate) fn mcp_changed(&mut self, status: ServerStatus) {
        if status.state == ServerState::Failed {
            self.panes.conversation.push(CellKind::Notice(format!(
                "MCP server {} failed: {}",
                status.server,
                status.error.as_deref().unwrap_or("unknown error")
            )));
        }
        match self
            .status
            .mcp
            .iter_mut()
            .find(|s| s.server == status.server)
        {
            Some(s) => *s = status,
            None => self.status.mcp.push(status),
        }
        // An open `/` menu shows the server's prompts as they are now (list_changed).
        if self
            .compose
            .menu
            .as_ref()
            .is_some_and(|m| m.kind == crate::tui::input::menu::MenuKind::Commands)
        {
            self.compose.menu = None;
            self.sync_menu();
        }
    }

    /// The `/mcp` view.
    /// `/skills`: what `tooloop skills` prints, and the skills a built-in command's name
    /// keeps from `/`.
    pub(crate) fn show_skills(&mut self) {
        let catalog = crate::skills::Catalog::load(&crate::skills::dirs_for(&self.info.workspace));
        let window = self
            .info
            .model_table()
            .lookup(&self.info.model)
            .context_window;
        let mut text = crate::skills::table::format(&catalog, window);
        for s in &catalog.skills {
            if s.user_invocable && super::slash::COMMANDS.iter().any(|c| c.name == s.name) {
                text.push_str(&format!(
                    "/{} is a built-in command: skill {} is not offered as /{} (the model can \
                     still use it)\n",
                    s.name, s.name, s.name
                ));
            }
        }
        self.panes
            .conversation
            .push(CellKind::Notice(text.trim_end().to_string()));
        self.panes.conversation.scroll.bottom();
    }

    /// `/worktrees`: the table `tooloop worktrees` prints, for this workspace's repository.
    pub(crate) fn show_worktrees(&mut self) {
        let text = match crate::worktree::list(&self.info.workspace) {
            Ok(listed) => crate::worktree::format_table(&listed),
            Err(e) => e.to_string(),
        };
        self.panes
            .conversation
            .push(CellKind::Notice(crate::sanitize::output::for_stderr(
                text.trim_end(),
            )));
        self.panes.conversation.scroll.bottom();
    }

    pub(crate) fn show_mcp(&mut self) {
        let text = if self.status.mcp.is_empty() {
            "no MCP servers configured (add [mcp.servers.NAME] to config.toml; see README)".into()
        } else {
            self.status
                .mcp
                .iter()
                .map(describe)
                .collect::<Vec<_>>()
                .join("\n")
        };
        self.panes.conversation.push(CellKind::Notice(text));
        self.panes.conversation.scroll.bottom();
    }
}

fn describe(s: &ServerStatus) -> String {
    match s.state {
        ServerState::Starting => format!("MCP {}: starting…", s.server),
        ServerState::Ready => format!(
            "MCP {}: ready, {} tool{}{}{}",
            s.server,
            s.tools.len(),
            if s.tools.len() == 1 { "" } else { "s" },
            if s.tools.is_empty() { "" } else { ": " },
            s.tools.join(", ")
        ),
        ServerState::Failed => format!(
            "MCP {}: failed: {}",
            s.server,
            s.error.as_deref().unwrap_or("unknown error")
        ),
    }
}

/// The status bar's `mcp 2/3` (ready of configured), with `…` while any starts and `!`
/// when any failed; None without servers.
pub fn status_label(servers: &[ServerStatus]) -> Option<String> {
    if servers.is_empty() {
        return None;
    }
    let ready = servers
        .iter()
        .filter(|s| s.state == ServerState::Ready)
        .count();
    let mark = if servers.iter().any(|s| s.state == ServerState::Failed) {
        " !"
    } else if servers.iter().any(|s| s.state == ServerState::Starting) {
        " …"
    } else {
        ""
    };
    Some(format!("mcp {ready}/{}{mark}", servers.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(server: &str, state: ServerState) -> ServerStatus {
        ServerStatus {
            server: server.into(),
            state,
            tools: Vec::new(),
            error: None,
            prompts: Vec::new(),
            resources: Vec::new(),
        }
    }

    #[test]
    fn the_status_label_counts_ready_servers_and_marks_trouble() {
        assert_eq!(status_label(&[]), None);
        let mut s = vec![
            status("a", ServerState::Ready),
            status("b", ServerState::Starting),
        ];
        assert_eq!(status_label(&s).as_deref(), Some("mcp 1/2 …"));
        s[1].state = ServerState::Failed;
        assert_eq!(status_label(&s).as_deref(), Some("mcp 1/2 !"));
        s[1].state = ServerState::Ready;
        assert_eq!(status_label(&s).as_deref(), Some("mcp 2/2"));
    }
}

//! `/status`, `/context`, `/cost` and `/init`: what this run is (model, provider, base URL,
//! workspace, mode, sandbox, session, context, tool definitions, cost), what it spent, and a
//! starting AGENTS.md.

use crate::text::grouped as group;
use crate::tui::app::App;
use crate::tui::panes::cells::CellKind;

impl App {
    /// `/status`: one notice, a line per fact.
    pub(crate) fn show_status(&mut self) {
        let info = &self.info;
        let base_url = match (info.base_url.as_str(), info.custom_base_url) {
            ("", _) => "none (offline)".to_string(),
            (url, true) => url.to_string(),
            (url, false) => format!("{url} (default)"),
        };
        let mode = if self.is_live() {
            self.steering.mode.as_str().to_string()
        } else {
            info.approval.clone()
        };
        let session = match &info.session {
            Some(id) => id.clone(),
            None => "none (--no-session)".into(),
        };
        // The transcript's path on a line of its own: it is long.
        let transcript = info
            .session_handle
            .as_ref()
            .filter(|_| info.session.is_some())
            .map(|h| h.path().display().to_string());
        let sandbox = if info.sandbox.is_empty() {
            "off"
        } else {
            info.sandbox.as_str()
        };
        let rows = [
            Some(("model", format!("{}/{}", info.provider, info.model))),
            Some(("base URL", base_url)),
            Some(("workspace", info.workspace.display().to_string())),
            Some(("mode", mode)),
            Some(("sandbox", sandbox.to_string())),
            Some(("session", session)),
            transcript.map(|t| ("transcript", t)),
            Some(("context", self.context_line())),
            Some(("tools", self.tools_line())),
            Some(("cost", self.cost_line())),
        ];
        let text = rows
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k:<10} {v}"))
            .collect::<Vec<_>>()
            .join("\n");
        self.panes
            .conversation
            .push(CellKind::Notice(format!("status\n{text}")));
    }

    /// `/context`: how full the window is, and what the tool definitions take of it: those
    /// sent with every request, and those deferral keeps out (issue 39).
    pub(crate) fn show_context(&mut self) {
        let mut text = format!(
            "context {}
tools   {}",
            self.context_line(),
            self.tools_line()
        );
        if let Some(c) = &self.turn.context
            && c.tools.deferred_count > 0
        {
            text.push_str(&format!(
                "
        deferral saves {} tokens on every request: {} MCP tool definitions \
                 are sent only once tool_search finds them",
                group(c.tools.deferred),
                c.tools.deferred_count
            ));
        }
        self.panes.conversation.push(CellKind::Notice(text));
    }

    /// `/cost`: the session's cost and the tokens this run's prompts used.
    pub(crate) fn show_cost(&mut self) {
        let u = self.turn.total_usage;
        let n = self.turn.prompts_done;
        let text = format!(
            "cost {}\ntokens since tooloop started ({n} prompt{}): {} in ({} read from the \
             cache, {} written to it) · {} out",
            self.cost_line(),
            if n == 1 { "" } else { "s" },
            group(u.total_input()),
            group(u.cache_read_tokens),
            group(u.cache_write_tokens),
            group(u.output_tokens),
        );
        self.panes.conversation.push(CellKind::Notice(text));
    }

    /// `/init`: writes a starting AGENTS.md in the workspace, never over an existing one.
    pub(crate) fn init_agents_md(&mut self) {
        let cell = match crate::prompt::init_template::write(&self.info.workspace) {
            Ok((path, lines)) => CellKind::Notice(format!(
                "wrote {} ({lines} lines) from what the workspace holds: edit it; tooloop \
                 reads it at the start of each session",
                path.display()
            )),
            Err(e) => CellKind::Error(e.to_string()),
        };
        self.panes.conversation.push(cell);
    }

    fn context_line(&self) -> String {
        match &self.turn.context {
            Some(c) if c.window > 0 => format!(
                "{} of {} tokens ({}%)",
                group(c.context_tokens),
                group(c.window),
                c.context_tokens.saturating_mul(100) / c.window
            ),
            Some(c) => format!("{} tokens", group(c.context_tokens)),
            None => "nothing sent yet".into(),
        }
    }

    fn tools_line(&self) -> String {
        let Some(c) = &self.turn.context else {
            return "nothing sent yet".into();
        };
        let t = c.tools;
        let loaded = format!(
            "{} tokens of definitions in every request ({} tools)",
            group(t.loaded),
            t.loaded_count
        );
        if t.deferred_count == 0 {
            return loaded;
        }
        format!(
            "{loaded}, {} deferred ({} tools)",
            group(t.deferred),
            t.deferred_count
        )
    }

    fn cost_line(&self) -> String {
        let total = match self.turn.context.as_ref().map(|c| c.cost_usd) {
            Some(Some(usd)) => format!("${usd:.4} this session"),
            Some(None) => {
                // Name the models that lack prices, not the current one: after `/model` the
                // unknown part may come from a model used before.
                let unpriced = self.spend.unpriced();
                let names = if unpriced.is_empty() {
                    self.info.model.clone()
                } else {
                    unpriced.join(", ")
                };
                format!("unknown (no prices for {names})")
            }
            None => "$0 (nothing sent yet)".into(),
        };
        // By model, once more than one answered (`[models] plan / small`).
        let split = self.spend.split_lines();
        if split.is_empty() {
            total
        } else {
            format!("{total}\n{}", split.join("\n"))
        }
    }
}

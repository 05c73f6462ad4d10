//! `/export [FILE]`: the conversation as Markdown, to FILE (relative to the workspace) or to
//! `tooloop-SESSION.md` in the workspace. With a transcript it is exactly what
//! `tooloop export SESSION` prints (the same rendering of the same file, messages that a
//! compaction replaced included); without one (`--no-session`) the App's own copy of the
//! history, with the messages compactions replaced kept in front.

use crate::cli::ExportFormat;
use crate::message::Message;
use crate::tui::app::App;
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;

impl App {
    pub(crate) fn export_command(&mut self, args: &str) {
        let history: Vec<Message> = self
            .panes
            .json
            .history()
            .iter()
            .map(|m| (**m).clone())
            .collect();
        if history.is_empty() && self.history.compacted.is_empty() {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::EXPORT_NOTHING.into()));
            return;
        }
        let session = self
            .info
            .session
            .clone()
            .unwrap_or_else(|| "conversation".into());
        let name = if args.is_empty() {
            format!("tooloop-{session}.md")
        } else {
            args.to_string()
        };
        let path = self.info.workspace.join(name);
        let messages = self.history.compacted.len() + history.len();
        let md = self.transcript_markdown().unwrap_or_else(|| {
            crate::export::markdown(&crate::export::Conversation {
                title: format!("tooloop session {session}"),
                about: vec![format!("workspace {}", self.info.workspace.display())],
                earlier: &self.history.compacted,
                messages: &history,
                agents: &[],
            })
        });
        let cell = match std::fs::write(&path, md) {
            Ok(()) => CellKind::Notice(strings::exported(messages, &path)),
            Err(e) => CellKind::Error(strings::save_failed(&path, &e)),
        };
        self.panes.conversation.push(cell);
    }

    /// The live transcript rendered as `tooloop export` renders it, if there is one on disk
    /// and it reads.
    fn transcript_markdown(&self) -> Option<String> {
        let path = self.info.session_handle.as_ref()?.path();
        if !path.is_file() {
            return None;
        }
        crate::export::command::render_transcript(&path, None, ExportFormat::Md)
            .inspect_err(|e| tracing::warn!("/export from {}: {e}", path.display()))
            .ok()
    }

    /// Before a compaction replaces the history: keep what it drops (the same split the
    /// transcript reader makes), so `/export` still has it.
    pub(super) fn keep_compacted(&mut self, after: &[Message]) {
        let before = self.panes.json.history();
        let cut = crate::session::load::replaced_count(before, after);
        self.history
            .compacted
            .extend(before[..cut].iter().map(|m| Message::clone(m)));
    }
}

//! The approval modal for tools that change things. It draws the tool's own preview (a
//! command, a diff, a new file's content) or else the JSON input, without knowing any tool
//! or field name. It sits on top and sees keys first.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use serde_json::Value;
use tokio::time::Instant;

use crate::protocol::AgentCommand;
use crate::protocol::approval::Decision;
use crate::protocol::approval::Preview;
use crate::protocol::approval_mode::ApprovalMode;
use crate::sanitize::sanitize;
use crate::tui::keys::Action;
use crate::tui::overlays::approval_choices::{self, Choice};
use crate::tui::overlays::approval_diff;
use crate::tui::strings;
use crate::tui::text::json_view;
use crate::tui::text::wrap::wrap;
use crate::tui::theme::Theme;

/// Body lines shown at most; a huge write_file content must not build a huge modal.
const MAX_BODY_LINES: usize = 400;
/// Keys this soon after the modal opens were typed for the input, not read answers.
pub const GUARD: Duration = Duration::from_millis(400);
/// A key this soon after the previous one is part of a burst of typing: it never answers.
pub const BURST_GAP: Duration = Duration::from_millis(250);

#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    pub id: String,
    pub tool: String,
    pub input: Value,
    pub summary: String,
    /// What the tool says the call would change; None shows the input as JSON.
    pub preview: Option<Preview>,
    /// Why it asks (an ask rule, the delete guard) and what "always allow" would write.
    pub why: crate::protocol::approval::AskWhy,
    /// The subagent asking (`explore #2`); None: the main agent.
    pub agent: Option<String>,
}

#[derive(Default)]
pub struct Approvals {
    queue: VecDeque<ApprovalRequest>,
    /// When the question in front was first shown (the guard time counts from it).
    shown_at: Option<Instant>,
    /// A deny reason being typed (`r`), or None.
    pub reason: Option<String>,
    /// Tools the user allowed for this session (`a`), listed by /permissions.
    pub session_grants: BTreeSet<String>,
    /// Lines the body is scrolled down by.
    pub scroll: usize,
    /// "Always allow": the rules (`bash(sleep:*), bash(ls:*)`) being edited, or None.
    pub rule_edit: Option<String>,
    /// A replay: questions are recorded ones, answered by the recording, so the box shows no
    /// keys to answer them.
    pub replay: bool,
    /// The answer Enter confirms (an index into `choices()`).
    pub selected: usize,
    /// Letters that went to the input since the question appeared or since the last
    /// deliberate choice (↑/↓, a digit). While Some, Enter does not confirm: a person used to
    /// y/n prompts types `n` Enter and must not get "1. Yes".
    pub typed: Option<String>,
    /// Enter came after such letters: the box asks for an explicit choice.
    pub must_choose: bool,
}

impl Approvals {
    pub fn push(&mut self, req: ApprovalRequest, now: Instant) {
        if self.queue.is_empty() {
            self.shown_at = Some(now);
            self.scroll = 0;
            self.selected = 0;
            self.typed = None;
            self.must_choose = false;
        }
        self.queue.push_back(req);
    }

    /// Whether a key at `now` may answer: not within the guard time after the question
    /// appeared, and not while keys arrive in a burst (`prev_key` is the key before).
    pub fn accepts_key(&self, now: Instant, prev_key: Option<Instant>) -> bool {
        let settled = self.settled(now);
        let burst = prev_key.is_some_and(|t| now.saturating_duration_since(t) < BURST_GAP);
        settled && !burst
    }

    fn next_shown(&mut self, now: Instant) {
        self.reason = None;
        self.rule_edit = None;
        self.scroll = 0;
        self.selected = 0;
        self.typed = None;
        self.must_choose = false;
        self.shown_at = (!self.queue.is_empty()).then_some(now);
    }

    pub fn current(&self) -> Option<&ApprovalRequest> {
        self.queue.front()
    }

    pub fn is_open(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The question was settled elsewhere (an abort, a rule): forget it.
    pub fn remove(&mut self, id: &str, now: Instant) {
        let front = self.current().is_some_and(|r| r.id == id);
        self.queue.retain(|r| r.id != id);
        if front {
            self.next_shown(now);
        }
    }

    pub fn clear(&mut self) {
        self.queue.clear();
        self.reason = None;
        self.rule_edit = None;
        self.shown_at = None;
        self.typed = None;
        self.must_choose = false;
    }

    /// A key that went to the input while the question waits: letters count as typing.
    pub fn note_typed(&mut self, code: crossterm::event::KeyCode) {
        use crossterm::event::KeyCode;
        match code {
            KeyCode::Char(c) => self.typed.get_or_insert_with(String::new).push(c),
            KeyCode::Backspace => {
                if let Some(t) = self.typed.as_mut() {
                    t.pop();
                }
            }
            _ => {}
        }
    }

    /// Whether the letters typed since the question appeared say no (`n`, `no`): Enter
    /// after them denies, the safe reading of a y/n habit.
    pub fn typed_no(&self) -> bool {
        self.typed
            .as_deref()
            .is_some_and(|t| matches!(t.trim().to_lowercase().as_str(), "n" | "no"))
    }

    /// Whether a key at `now` is past the guard time after the question appeared.
    pub fn settled(&self, now: Instant) -> bool {
        self.shown_at.is_none_or(|t| now >= t + GUARD)
    }

    /// A deliberate choice (↑/↓, a digit): Enter confirms again.
    fn chose(&mut self) {
        self.typed = None;
        self.must_choose = false;
    }

    /// The answers the question in front offers.
    pub fn choices(&self) -> Vec<Choice> {
        self.current().map_or_else(Vec::new, |req| {
            approval_choices::choices(is_plan(req), req.why.suggestion.is_some())
        })
    }

    /// Chooses answer `n` (1-based, as numbered on screen); a number not listed does nothing.
    pub fn pick(&mut self, n: usize) {
        if (1..=self.choices().len()).contains(&n) {
            self.selected = n - 1;
            self.chose();
        }
    }

    /// The reply for an approval action, or None if it only moved the choice or the preview,
    /// or opened an editor. Enter confirms the chosen answer: a plan reads "Yes" as "approve,
    /// go on in auto-edit" and "Yes, and don't ask again" as "approve, go on asking"; "No"
    /// opens the line where the user says what to do differently (empty: a plain denial).
    pub fn answer(&mut self, action: Action, now: Instant) -> Option<AgentCommand> {
        let plan = self.current().is_some_and(is_plan);
        let last = self.choices().len().saturating_sub(1);
        let decision = match action {
            // Letters typed since the question appeared: Enter asks for an explicit choice.
            Action::Submit if self.typed.is_some() => {
                self.must_choose = true;
                return None;
            }
            Action::Submit => match self.choices().get(self.selected)? {
                Choice::AllowOnce if plan => Decision::ApprovePlan {
                    mode: ApprovalMode::AutoEdit,
                },
                Choice::AllowSession if plan => Decision::ApprovePlan {
                    mode: ApprovalMode::Ask,
                },
                Choice::AllowOnce => Decision::AllowOnce,
                Choice::AllowSession => Decision::AllowForSession,
                Choice::AllowRule => {
                    self.rule_edit = self.current().and_then(|r| r.why.suggestion.clone());
                    return None;
                }
                Choice::DenyWithReason => {
                    self.reason = Some(String::new());
                    return None;
                }
            },
            Action::Deny => Decision::Deny {
                reason: self.reason.take().filter(|r| !r.trim().is_empty()),
            },
            Action::PrevItem => {
                self.selected = self.selected.saturating_sub(1);
                self.chose();
                return None;
            }
            Action::NextItem => {
                self.selected = (self.selected + 1).min(last);
                self.chose();
                return None;
            }
            Action::ScrollUp => {
                self.scroll = self.scroll.saturating_sub(1);
                return None;
            }
            Action::ScrollDown => {
                self.scroll += 1;
                return None;
            }
            Action::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                return None;
            }
            Action::PageDown => {
                self.scroll += 10;
                return None;
            }
            _ => return None,
        };
        let req = self.queue.pop_front()?;
        if decision == Decision::AllowForSession {
            self.session_grants.insert(req.tool.clone());
        }
        self.next_shown(now);
        Some(AgentCommand::PermissionReply {
            id: req.id,
            decision,
        })
    }

    /// Enter while editing "always allow": the reply, and the rules as they will be
    /// written (None when the edit is empty, a rule does not follow the grammar or names
    /// another tool: editing goes on).
    pub fn answer_rule(&mut self, now: Instant) -> Option<(AgentCommand, Vec<String>)> {
        let rules = crate::permission::suggest::split(self.rule_edit.as_deref()?);
        let req = self.current()?;
        let prefix = format!("{}(", req.tool);
        let valid =
            |r: &String| r.starts_with(&prefix) && crate::permission::rules::Rule::parse(r).is_ok();
        if rules.is_empty() || !rules.iter().all(valid) {
            return None;
        }
        let req = self.queue.pop_front()?;
        self.next_shown(now);
        Some((
            AgentCommand::PermissionReply {
                id: req.id,
                decision: Decision::AllowRule {
                    rule: rules.join(", "),
                },
            },
            rules,
        ))
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let Some(req) = self.current() else { return };
        if area.width < 8 || area.height < 4 {
            // Too small for a box: one line that still says what is asked and how to answer.
            let keys = if self.replay {
                "(recorded)"
            } else {
                "Enter/Esc"
            };
            let line = Line::styled(
                format!("allow {}? {keys}", sanitize(&req.tool)),
                theme.accent,
            );
            f.render_widget(Clear, area);
            f.render_widget(Paragraph::new(line).style(theme.base), area);
            return;
        }
        let w = area.width.saturating_sub(4).clamp(8, 100);
        let inner_w = w.saturating_sub(2).max(1);
        let mut body = wrap(&body_lines(req, theme), inner_w);
        let bold = theme.accent.add_modifier(Modifier::BOLD);
        let footer = match (&self.reason, &self.rule_edit) {
            (Some(r), _) => Line::from(vec![
                Span::styled(
                    if is_plan(req) {
                        strings::PLAN_FEEDBACK
                    } else {
                        strings::DENY_REASON
                    },
                    bold,
                ),
                Span::styled(format!("{}▏", sanitize(r)), theme.text),
            ]),
            (None, Some(rule)) => Line::from(vec![
                Span::styled(strings::RULE_EDIT, bold),
                Span::styled(format!("{}▏", sanitize(rule)), theme.text),
            ]),
            (None, None) if self.replay => Line::styled(strings::REPLAY_APPROVAL, bold),
            (None, None) => Line::default(),
        };
        // No editor open: the numbered answers, the chosen one marked (a replay's recorded
        // question has none: the recording answers it).
        let footer = if !self.replay && self.reason.is_none() && self.rule_edit.is_none() {
            let mut lines = approval_choices::lines(
                &self.choices(),
                self.selected,
                is_plan(req),
                &req.tool,
                req.why.suggestion.as_deref(),
                theme,
            );
            if self.must_choose {
                lines.push(Line::styled(
                    strings::must_choose(self.choices().len()),
                    theme.warning.add_modifier(Modifier::BOLD),
                ));
            }
            lines
        } else {
            vec![footer]
        };
        let footer = wrap(&footer, inner_w);
        let h = (body.len() as u16 + footer.len() as u16 + 3)
            .min(area.height.saturating_sub(2))
            .max(4);
        let rect = crate::tui::overlays::modal_box::centred(area, w, h);
        let more = self.queue.len().saturating_sub(1);
        let mut title = if is_plan(req) {
            strings::PLAN_TITLE.to_string()
        } else {
            match &req.agent {
                Some(agent) => {
                    strings::subagent_approval_title(&sanitize(agent), &sanitize(&req.tool))
                }
                None => strings::approval_title(&sanitize(&req.tool)),
            }
        };
        if more > 0 {
            title.push_str(&format!("(+{more} waiting) "));
        }
        let block = crate::tui::overlays::modal_box::block(title, theme).style(theme.base);
        let inner = block.inner(rect);
        // The key line stays visible; a body taller than the box scrolls (↑/↓), and a
        // "more" line says how much is unseen, so nothing is approved unread.
        let room = (inner.height as usize).saturating_sub(footer.len() + 1);
        if body.len() > room && room >= 2 {
            let window = room - 1;
            let top = self.scroll.min(body.len() - window);
            let below = body.len() - window - top;
            let mut shown: Vec<Line> = body.drain(top..top + window).collect();
            shown.push(Line::styled(
                strings::more_lines(top, below, "PgUp/PgDn"),
                theme.dim,
            ));
            body = shown;
        }
        body.push(Line::default());
        body.extend(footer);
        f.render_widget(Clear, rect);
        f.render_widget(block, rect);
        f.render_widget(Paragraph::new(body), inner);
    }
}

fn is_plan(req: &ApprovalRequest) -> bool {
    matches!(req.preview, Some(Preview::Plan { .. }))
}

fn body_lines(req: &ApprovalRequest, theme: &Theme) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    if let Some(r) = &req.why.rule {
        out.push(Line::styled(
            strings::asked_by_rule(&sanitize(&r.rule), &sanitize(&r.source)),
            theme.warning,
        ));
    }
    if let Some(target) = &req.why.guarded {
        out.push(Line::styled(
            strings::guarded_delete(&sanitize(target)),
            theme.error.add_modifier(Modifier::BOLD),
        ));
    }
    match &req.preview {
        Some(Preview::Command { text, note }) => {
            for (i, l) in sanitize(text).lines().enumerate() {
                let p = if i == 0 { "$ " } else { "  " };
                out.push(Line::from(vec![
                    Span::styled(p, theme.dim),
                    Span::styled(l.to_string(), theme.text.add_modifier(Modifier::BOLD)),
                ]));
            }
            if let Some(note) = note {
                out.push(Line::styled(sanitize(note), theme.dim));
            }
        }
        Some(Preview::Diff {
            path,
            unified_diff,
            note,
        }) => {
            // The note heads the diff; one that names the file (`overwrites notes.md (4
            // lines)`) stands for the path line.
            match note {
                Some(note) if !path.is_empty() && note.contains(path.as_str()) => {
                    out.push(Line::styled(sanitize(note), theme.accent))
                }
                Some(note) => {
                    out.push(Line::styled(sanitize(path), theme.accent));
                    out.push(Line::styled(sanitize(note), theme.dim));
                }
                None => out.push(Line::styled(sanitize(path), theme.accent)),
            }
            out.extend(approval_diff::lines(unified_diff, theme));
        }
        Some(Preview::NewFile { path, content }) => {
            let content = sanitize(content);
            out.push(Line::styled(
                format!("{} ({} lines)", sanitize(path), content.lines().count()),
                theme.accent,
            ));
            for l in content.lines() {
                out.push(Line::styled(format!("+ {l}"), theme.ok));
            }
        }
        Some(Preview::Plan { markdown }) => {
            out.extend(crate::tui::text::markdown::render(&sanitize(markdown)))
        }
        None => out.extend(json_view::render(&req.input)),
    }
    out.truncate(MAX_BODY_LINES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_tool_without_a_preview_shows_its_input_as_json() {
        let req = ApprovalRequest {
            id: "m1".into(),
            tool: "mcp__srv__do".into(),
            input: serde_json::json!({"target": "x"}),
            summary: "x".into(),
            preview: None,
            why: Default::default(),
            agent: None,
        };
        let got = text(&body_lines(&req, &Theme::default())).join("\n");
        assert!(got.contains("\"target\"") && got.contains("\"x\""), "{got}");
        let req = ApprovalRequest {
            preview: Some(Preview::Command {
                text: "ls\x1b[2J -la".into(),
                note: Some("timeout 5 ms".into()),
            }),
            ..req
        };
        let got = text(&body_lines(&req, &Theme::default()));
        assert_eq!(got.len(), 2);
        assert!(
            got[0].starts_with("$ ls") && !got[0].contains('\x1b'),
            "{got:?}"
        );
        assert_eq!(got[1], "timeout 5 ms");
    }
}

//! The JSON pane's lines for one message, one raw event, a request's new messages and a
//! server's error answer (rendered once per segment by the pane).

use ratatui::text::Line;
use ratatui::text::Span;
use serde_json::Value;

use crate::message::Message;
use crate::sanitize::sanitize;
use crate::tui::text::json_view;
use crate::tui::theme::Theme;

/// Lines most an error body is shown with (it is capped at 64 KiB anyway).
const MAX_ERROR_LINES: usize = 400;

/// "// HTTP 529 · the server's error body, as sent:" and the body, pretty when it is JSON.
pub fn http_error_lines(status: u16, body: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!("// HTTP {status} · the server's error body, as sent:"),
        theme.error,
    )];
    match serde_json::from_str::<Value>(body) {
        Ok(v) => lines.extend(json_view::render(&v)),
        Err(_) if body.trim().is_empty() => {
            lines.push(Line::styled("(empty body)", theme.dim));
        }
        Err(_) => lines.extend(
            body.lines()
                .take(MAX_ERROR_LINES)
                .map(|l| Line::styled(sanitize(l), theme.text)),
        ),
    }
    lines
}

/// Only the messages `body` added to a request that carried `prev` of them.
pub fn diff_lines(body: &Value, prev: Option<usize>, theme: &Theme) -> Vec<Line<'static>> {
    let empty = Vec::new();
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let from = prev.unwrap_or(0).min(messages.len());
    let mut lines = vec![Line::styled(
        match prev {
            Some(p) => format!(
                "// messages[{from}..{}]: new since the request before ({p} messages)",
                messages.len()
            ),
            None => format!("// all {} messages (the first request)", messages.len()),
        },
        theme.dim,
    )];
    lines.extend(json_view::render(&Value::Array(messages[from..].to_vec())));
    lines
}

pub fn message_lines(i: usize, n: usize, m: &Message, theme: &Theme) -> Vec<Line<'static>> {
    let value = serde_json::to_value(m).unwrap_or(Value::Null);
    let mut lines = vec![Line::styled(format!("// history[{i}]"), theme.dim)];
    lines.extend(json_view::render(&value));
    if i + 1 < n
        && let Some(last) = lines.last_mut()
    {
        last.spans.push(Span::styled(",", theme.dim));
    }
    lines
}

pub fn sse_lines(event: &str, data: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!("event: {}", sanitize(event)),
        theme.accent,
    )];
    match serde_json::from_str::<Value>(data) {
        Ok(v) => lines.extend(json_view::render(&v)),
        Err(_) => lines.push(Line::styled(
            format!("data: {}", sanitize(data)),
            theme.text,
        )),
    }
    lines
}

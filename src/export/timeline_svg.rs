//! The session's timeline as an SVG: one row for the model's requests (each a bar from
//! request to the end of its stream; failed ones red, retry waits grey), one row per tool
//! call (queued, waiting for approval, running). Built from a recording (`--record`).

use std::collections::HashMap;
use std::fmt::Write;

use super::html::escape;
use crate::protocol::AgentEvent;
use crate::recording::timeline::Timed;

const WIDTH: f64 = 960.0;
const LABEL: f64 = 180.0;
const ROW: f64 = 20.0;
const AXIS: f64 = 24.0;

/// One bar: row, start and end (ms), class, hover text.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub row: usize,
    pub from: u64,
    pub to: u64,
    pub class: &'static str,
    pub title: String,
}

/// The rows (labels) and bars of `events`.
pub fn bars(events: &[Timed]) -> (Vec<String>, Vec<Bar>) {
    let mut rows = vec!["model".to_string()];
    let mut bars = Vec::new();
    let mut tool_rows: HashMap<String, usize> = HashMap::new();
    let mut open_request: Option<(u64, String)> = None;
    let mut queued: HashMap<String, u64> = HashMap::new();
    let mut asking: HashMap<String, u64> = HashMap::new();
    let mut running: HashMap<String, u64> = HashMap::new();
    let mut row_of = |id: &str, name: &str, rows: &mut Vec<String>| -> usize {
        *tool_rows.entry(id.to_string()).or_insert_with(|| {
            rows.push(format!("{name} {id}"));
            rows.len() - 1
        })
    };
    let end_request = |bars: &mut Vec<Bar>, open: &mut Option<(u64, String)>, at, class| {
        if let Some((from, title)) = open.take() {
            bars.push(Bar {
                row: 0,
                from,
                to: at,
                class,
                title,
            });
        }
    };
    let mut last = 0;
    for t in events {
        let at = t.at_ms;
        last = at;
        match &t.event {
            AgentEvent::RequestStart { turn, attempt, .. } => {
                end_request(&mut bars, &mut open_request, at, "req");
                open_request = Some((at, format!("request · turn {turn} · attempt {attempt}")));
            }
            AgentEvent::StreamEnd { .. } => {
                end_request(&mut bars, &mut open_request, at, "req");
            }
            AgentEvent::Retry {
                delay_ms, error, ..
            } => {
                if let Some((_, title)) = &mut open_request {
                    title.push_str(&format!(" · failed: {error}"));
                }
                end_request(&mut bars, &mut open_request, at, "fail");
                bars.push(Bar {
                    row: 0,
                    from: at,
                    to: at + delay_ms,
                    class: "wait",
                    title: format!("retry wait {delay_ms} ms"),
                });
            }
            AgentEvent::Error { message } => {
                if let Some((_, title)) = &mut open_request {
                    title.push_str(&format!(" · {message}"));
                }
                end_request(&mut bars, &mut open_request, at, "fail");
            }
            AgentEvent::ToolUse { id, name, .. } => {
                row_of(id, name, &mut rows);
                queued.insert(id.clone(), at);
            }
            AgentEvent::PermissionRequest { id, tool, .. } => {
                row_of(id, tool, &mut rows);
                asking.insert(id.clone(), at);
            }
            AgentEvent::Permission {
                id, name, allowed, ..
            } => {
                let row = row_of(id, name, &mut rows);
                if let Some(from) = asking.remove(id) {
                    bars.push(Bar {
                        row,
                        from,
                        to: at,
                        class: "ask",
                        title: format!(
                            "{name}: waiting for approval ({})",
                            if *allowed { "allowed" } else { "denied" }
                        ),
                    });
                }
            }
            AgentEvent::ToolStart { id, name } => {
                let row = row_of(id, name, &mut rows);
                if let Some(from) = queued.remove(id) {
                    bars.push(Bar {
                        row,
                        from,
                        to: at,
                        class: "queued",
                        title: format!("{name}: queued"),
                    });
                }
                running.insert(id.clone(), at);
            }
            AgentEvent::ToolEnd {
                id,
                name,
                is_error,
                duration_ms,
                ..
            } => {
                let row = row_of(id, name, &mut rows);
                queued.remove(id);
                let from = running
                    .remove(id)
                    .unwrap_or(at.saturating_sub(*duration_ms));
                bars.push(Bar {
                    row,
                    from,
                    to: at,
                    class: if *is_error { "fail" } else { "tool" },
                    title: format!("{name} {id}: {duration_ms} ms"),
                });
            }
            AgentEvent::Done(_) => {
                end_request(&mut bars, &mut open_request, at, "req");
            }
            _ => {}
        }
    }
    end_request(&mut bars, &mut open_request, last, "req");
    (rows, bars)
}

/// The SVG for `events` (an empty recording gives a small "no events" picture).
pub fn svg(events: &[Timed]) -> String {
    let (rows, bars) = bars(events);
    let end = bars.iter().map(|b| b.to).max().unwrap_or(0).max(1);
    let scale = (WIDTH - LABEL - 10.0) / end as f64;
    let height = AXIS + ROW * rows.len() as f64 + 6.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="session timeline">"#
    );
    let step = tick_step(end);
    let mut t = 0;
    while t <= end {
        let x = LABEL + t as f64 * scale;
        let _ = write!(
            s,
            r#"<line class="tick" x1="{x:.1}" y1="{AXIS}" x2="{x:.1}" y2="{height}"/><text class="axis" x="{x:.1}" y="14">{}</text>"#,
            ms_label(t)
        );
        t += step;
    }
    for (i, label) in rows.iter().enumerate() {
        let y = AXIS + ROW * i as f64 + 14.0;
        let _ = write!(
            s,
            r#"<text class="label" x="4" y="{y:.1}">{}</text>"#,
            escape(&cut(label, 26))
        );
    }
    for b in &bars {
        let x = LABEL + b.from as f64 * scale;
        let w = ((b.to.saturating_sub(b.from)) as f64 * scale).max(1.5);
        let y = AXIS + ROW * b.row as f64 + 3.0;
        let _ = write!(
            s,
            r#"<rect class="{}" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{:.1}"><title>{}</title></rect>"#,
            b.class,
            ROW - 6.0,
            escape(&b.title)
        );
    }
    s.push_str("</svg>");
    s
}

fn tick_step(end: u64) -> u64 {
    let raw = end / 8;
    [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000,
        600_000, 1_800_000, 3_600_000,
    ]
    .into_iter()
    .find(|s| *s >= raw)
    .unwrap_or(raw.max(1))
}

fn ms_label(ms: u64) -> String {
    if ms >= 1000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{AgentEvent, ToolOutcome};
    use crate::recording::{Entry, Kind};

    fn at(t_ms: u64, event: AgentEvent) -> Entry {
        Entry {
            t_ms,
            kind: Kind::Event(event),
            req_ms: None,
        }
    }

    #[test]
    fn requests_retries_and_tools_become_bars() {
        let entries = vec![
            at(
                0,
                AgentEvent::RequestStart {
                    turn: 1,
                    attempt: 1,
                    model: "m".into(),
                    body: std::sync::Arc::new(serde_json::json!({}).into()),
                },
            ),
            at(
                10,
                AgentEvent::Retry {
                    attempt: 2,
                    max_attempts: 8,
                    delay_ms: 30,
                    error: "HTTP 529".into(),
                },
            ),
            at(
                40,
                AgentEvent::RequestStart {
                    turn: 1,
                    attempt: 2,
                    model: "m".into(),
                    body: std::sync::Arc::new(serde_json::json!({}).into()),
                },
            ),
            at(
                50,
                AgentEvent::ToolUse {
                    id: "a".into(),
                    name: "glob".into(),
                    input: serde_json::json!({}),
                    safe: true,
                    summary: String::new(),
                    preview: None,
                },
            ),
            at(
                51,
                AgentEvent::ToolStart {
                    id: "a".into(),
                    name: "glob".into(),
                },
            ),
            at(
                80,
                AgentEvent::StreamEnd {
                    turn: 1,
                    stop_reason: None,
                    usage: None,
                },
            ),
            at(
                90,
                AgentEvent::ToolEnd {
                    id: "a".into(),
                    name: "glob".into(),
                    is_error: false,
                    outcome: ToolOutcome::Ok,
                    duration_ms: 39,
                    output: String::new(),
                },
            ),
        ];
        let (rows, bars) = bars(&crate::recording::timeline::timeline(&entries));
        assert_eq!(rows, vec!["model", "glob a"]);
        let classes: Vec<(&str, u64, u64)> = bars.iter().map(|b| (b.class, b.from, b.to)).collect();
        assert_eq!(
            classes,
            vec![
                ("fail", 0, 10),
                ("wait", 10, 40),
                ("queued", 50, 51),
                ("req", 40, 80),
                ("tool", 51, 90)
            ]
        );
        let svg = svg(&crate::recording::timeline::timeline(&entries));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }
}

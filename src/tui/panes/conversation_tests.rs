//! A long conversation keeps rendered lines only near the view, and shows exactly what it
//! would have shown with every cell kept: at the bottom, scrolled back to the top page by
//! page, after a resize, with an old tool call selected and opened.

use ratatui::layout::Rect;
use tokio::time::Instant;

use super::*;
use crate::tui::theme::Theme;
use crate::tui::tool_calls::{ToolCalls, ToolState};

/// The kind of cell `k` of a long session: a prompt now and then, answers in markdown
/// (Chinese, a list, a code fence), and tool calls with output.
fn kind(k: usize) -> CellKind {
    match k % 5 {
        0 if k.is_multiple_of(50) => CellKind::User(format!("第{k}个问题：请再看一次时钟 please")),
        0 | 3 => {
            // Code is highlighted (slow in a debug build): in one answer of ten.
            let code = if k % 10 == 3 {
                format!("```rust\nfn f{k}() {{ let x = {k}; }}\n```\n\n")
            } else {
                String::new()
            };
            CellKind::Assistant(StreamingMarkdown::finished(&format!(
                "Answer {k}: 时钟显示现在仍然是今天，我会再看一次以确保没有任何变化。\n\n\
                 - item {k} with `code`\n- another item that is long enough to wrap at eighty \
                 columns for sure, {k}\n\n{code}End {k}."
            )))
        }
        _ => CellKind::Tool(format!("toolu_{k:05}")),
    }
}

fn calls_for(n: usize) -> ToolCalls {
    let mut calls = ToolCalls::default();
    let now = Instant::now();
    for k in 0..n {
        if let CellKind::Tool(id) = kind(k) {
            calls.upsert(
                &id,
                "get_current_time",
                &format!("call {k}"),
                ToolState::Running,
                now,
            );
            calls.update(&id, |c| {
                c.state = ToolState::Ok;
                c.duration_ms = Some(k as u64 % 900);
                c.output = format!("2026-12-01T22:{:02}:00Z\nline two of {k}\n第三行", k % 60);
            });
        }
    }
    calls
}

fn conversation(n: usize) -> Conversation {
    let mut c = Conversation::default();
    for k in 0..n {
        c.push(kind(k));
    }
    c
}

/// Every line of the conversation at `width`, from cells that were never evicted.
fn reference(n: usize, width: u16, theme: &Theme, calls: &ToolCalls) -> Vec<String> {
    let mut out = Vec::new();
    let mut prev_tool = false;
    for k in 0..n {
        let mut cell = Cell::new(kind(k));
        let tool = matches!(cell.kind, CellKind::Tool(_));
        if k > 0 && !(tool && prev_tool) {
            out.push(String::new());
        }
        prev_tool = tool;
        cell.prepare(width, theme, calls);
        let (a, b) = cell.lines();
        out.extend(a.iter().chain(b).map(|l| l.to_string()));
    }
    out
}

fn lay(c: &mut Conversation, w: u16, h: u16, theme: &Theme, calls: &ToolCalls) -> Vec<String> {
    let ctx = PaneContext {
        theme,
        now: Instant::now(),
        focused: true,
        tool_calls: calls,
    };
    c.layout(Rect::new(0, 0, w, h), &ctx);
    c.visible_lines().iter().map(|l| l.to_string()).collect()
}

#[test]
fn a_long_session_keeps_lines_only_near_the_view() {
    let theme = Theme::default();
    let n = 3_000;
    let calls = calls_for(n);
    let mut c = Conversation::default();
    // As in a soak: cells arrive a few at a time, a frame after each.
    let mut most = 0;
    for k in 0..n {
        c.push(kind(k));
        if k % 3 == 2 {
            lay(&mut c, 200, 50, &theme, &calls);
            most = most.max(c.resident_cells());
        }
    }
    let full = reference(n, 200, &theme, &calls);
    assert_eq!(c.heights.total(), full.len());
    assert_eq!(
        lay(&mut c, 200, 50, &theme, &calls),
        full[full.len() - 50..].to_vec()
    );
    // 9 screens of 50 lines hold at most 450 cells, plus the sweep's slack.
    assert!(most <= 450 + SWEEP_SLACK + 3, "{most} cells held lines");
}

#[test]
fn scrolling_back_page_by_page_shows_every_line_as_it_was() {
    let theme = Theme::default();
    let n = 1_000;
    let calls = calls_for(n);
    for (w, h) in [(80u16, 24u16), (200, 50)] {
        let mut c = conversation(n);
        let full = reference(n, w, &theme, &calls);
        lay(&mut c, w, h, &theme, &calls);
        assert_eq!(c.heights.total(), full.len());
        // PgUp to the top, checking each page against the full rendering.
        loop {
            let shown = lay(&mut c, w, h, &theme, &calls);
            let (s, e) = c.window;
            assert_eq!(shown, full[s..e].to_vec(), "{w}×{h} at line {s}");
            if s == 0 {
                break;
            }
            c.scroll.page_up();
        }
        assert!(
            c.resident_cells() < 600,
            "{} cells held lines",
            c.resident_cells()
        );
        // Home, then PgDn all the way down.
        c.scroll.top();
        loop {
            let shown = lay(&mut c, w, h, &theme, &calls);
            let (s, e) = c.window;
            assert_eq!(shown, full[s..e].to_vec(), "{w}×{h} at line {s}");
            if e == full.len() {
                break;
            }
            c.scroll.page_down();
        }
    }
}

#[test]
fn a_resize_keeps_the_lines_right_and_the_memory_bounded() {
    let theme = Theme::default();
    let n = 1_000;
    let calls = calls_for(n);
    let mut c = conversation(n);
    lay(&mut c, 200, 50, &theme, &calls);
    c.scroll.top();
    lay(&mut c, 200, 50, &theme, &calls);
    for (w, h) in [(80u16, 24u16), (200, 50), (53, 17)] {
        c.invalidate();
        let shown = lay(&mut c, w, h, &theme, &calls);
        let full = reference(n, w, &theme, &calls);
        assert_eq!(c.heights.total(), full.len(), "{w}×{h}");
        let (s, e) = c.window;
        assert_eq!(shown, full[s..e].to_vec(), "{w}×{h}");
        assert!(
            c.resident_cells() < 100,
            "{} cells after a resize",
            c.resident_cells()
        );
        c.scroll.bottom();
        let shown = lay(&mut c, w, h, &theme, &calls);
        assert_eq!(shown, full[full.len() - h as usize..].to_vec(), "{w}×{h}");
        c.scroll.top();
    }
}

#[test]
fn an_old_tool_call_far_up_can_be_selected_and_opened() {
    let theme = Theme::default();
    let n = 1_500;
    let calls = calls_for(n);
    let mut c = conversation(n);
    lay(&mut c, 80, 24, &theme, &calls);
    let before = c.heights.total();
    // The first tool call: cell 1. Selecting it scrolls it into view.
    c.set_selected(Some(1));
    let shown = lay(&mut c, 80, 24, &theme, &calls).join("\n");
    assert!(shown.contains("▌✓ get_current_time call 1"), "{shown}");
    c.toggle_selected();
    let shown = lay(&mut c, 80, 24, &theme, &calls).join("\n");
    assert!(shown.contains("│ line two of 1"), "{shown}");
    assert_eq!(
        c.heights.total(),
        before + 3,
        "three lines of output opened"
    );
    // Page down to the bottom (the cell is evicted on the way) and back: still open.
    while c.window.1 < c.heights.total() {
        c.scroll.page_down();
        lay(&mut c, 80, 24, &theme, &calls);
    }
    assert!(c.cells[1].height() == 0, "the old cell was evicted");
    c.set_selected(None);
    c.set_selected(Some(1));
    let again = lay(&mut c, 80, 24, &theme, &calls).join("\n");
    assert!(again.contains("│ 第三行"), "{again}");
    assert_eq!(c.heights.total(), before + 3);
}

#[test]
fn a_tool_call_that_changes_far_above_the_view_gets_its_new_height() {
    let theme = Theme::default();
    let n = 1_500;
    let mut calls = calls_for(n);
    let mut c = conversation(n);
    lay(&mut c, 80, 24, &theme, &calls);
    let before = c.heights.total();
    // A call near the top fails: its line gains the first line of the error.
    calls.update("toolu_00001", |t| {
        t.state = ToolState::Error;
        t.output = "boom".into();
    });
    lay(&mut c, 80, 24, &theme, &calls);
    assert_eq!(c.heights.total(), before + 1);
    c.scroll.top();
    let shown = lay(&mut c, 80, 24, &theme, &calls).join("\n");
    assert!(shown.contains("└ boom"), "{shown}");
}

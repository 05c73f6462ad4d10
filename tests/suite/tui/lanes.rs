//! Issue 41, item 1: a lane on the tools pane's timeline for every subagent. Each `task`
//! call's agent gets a lane (its life and its model streams on a row labelled with the
//! agent's number, its calls under it); all of them when there is room, the running ones
//! first when there is not (the rest counted by an "N more" mark); a running child is in
//! sight in the tools list at 80×24 too; picking a child's bar highlights its whole lane.

use crate::support;

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::subagent::{AgentInfo, AgentReport};
use tooloop::protocol::{AgentEvent, Terminal, ToolOutcome};
use tooloop::provider::Usage;
use tooloop::tui::app::{App, Focus};

fn child(n: usize, event: AgentEvent) -> AgentEvent {
    AgentEvent::Subagent {
        agent_id: format!("a{n}").into(),
        parent_tool_use_id: format!("toolu_{n}").into(),
        event: Box::new(event),
    }
}

fn child_request() -> AgentEvent {
    AgentEvent::RequestStart {
        turn: 1,
        attempt: 1,
        model: "claude-mock".into(),
        body: std::sync::Arc::new(json!({"model": "claude-mock", "messages": []}).into()),
    }
}

fn stream_end() -> AgentEvent {
    AgentEvent::StreamEnd {
        turn: 1,
        stop_reason: Some("tool_use".into()),
        usage: None,
    }
}

/// The parent's `task` call `n` and the start of its agent `a{n}` (`agent`).
fn start_child(app: &mut App, n: usize, agent: &str, now: Instant) {
    let task =
        json!({"description": format!("job {n}"), "prompt": format!("child-{n}"), "agent": agent});
    feed(
        app,
        now,
        vec![
            tool_use(&format!("toolu_{n}"), "task", task),
            start(&format!("toolu_{n}"), "task"),
            AgentEvent::AgentStart(AgentInfo {
                agent_id: format!("a{n}"),
                parent_tool_use_id: format!("toolu_{n}"),
                parent_agent_id: None,
                agent: agent.into(),
                description: format!("job {n}"),
                model: "claude-mock".into(),
            }),
            child(n, child_request()),
        ],
    );
}

/// Child `n` calls `tool` (`c{n}`): its model stream ends with the call.
fn child_call(app: &mut App, n: usize, tool: &str, input: serde_json::Value, now: Instant) {
    let id = format!("c{n}");
    feed(
        app,
        now,
        vec![child(n, stream_end()), child(n, tool_use(&id, tool, input))],
    );
}

/// Child `n`'s call ran `ms`, its last answer streamed, the agent and its task ended.
fn finish_child(app: &mut App, n: usize, tool: &str, agent: &str, now: Instant, ms: u64) {
    let id = format!("c{n}");
    feed(
        app,
        now,
        vec![
            child(n, start(&id, tool)),
            child(n, tool_end(&id, tool, ToolOutcome::Ok, ms, "ok")),
            child(n, child_request()),
            child(n, stream_end()),
            AgentEvent::AgentEnd(AgentReport {
                agent_id: format!("a{n}"),
                parent_tool_use_id: format!("toolu_{n}"),
                agent: agent.into(),
                reason: Terminal::Completed,
                turns: 2,
                tools: 1,
                usage: Usage::default(),
                cost_usd: None,
                duration_ms: ms + 200,
            }),
            tool_end(
                &format!("toolu_{n}"),
                "task",
                ToolOutcome::Ok,
                ms + 200,
                "report",
            ),
        ],
    );
}

/// The mock's three children (tests/suite/tmux/subagents.rs): #1 and #3 explore with a
/// glob each and finish; #2 (general) runs bash and is waiting for its approval.
async fn three_children(app: &mut App) -> Instant {
    let t0 = Instant::now();
    prompt(app, "split the work", t0);
    feed(app, t0, vec![text("I will split this in three.\n\n")]);
    for (n, agent) in [(1, "explore"), (2, "general"), (3, "explore")] {
        start_child(app, n, agent, t0);
    }
    feed(app, t0, vec![stream_end()]);
    tokio::time::advance(Duration::from_millis(300)).await;
    let t1 = Instant::now();
    child_call(app, 1, "glob", json!({"pattern": "**/*.rs"}), t1);
    child_call(app, 3, "glob", json!({"pattern": "**/*.rs"}), t1);
    let bash = json!({"command": "sleep 3; echo passed"});
    child_call(app, 2, "bash", bash.clone(), t1);
    feed(
        app,
        t1,
        vec![child(2, permission_request("c2", "bash", bash))],
    );
    tokio::time::advance(Duration::from_millis(500)).await;
    let t2 = Instant::now();
    finish_child(app, 1, "glob", "explore", t2, 20);
    finish_child(app, 3, "glob", "explore", t2, 20);
    tokio::time::advance(Duration::from_millis(400)).await;
    Instant::now()
}

/// Child #2's bash is approved and starts.
fn approve_child_2(app: &mut App, now: Instant) {
    let allowed = AgentEvent::Permission {
        id: "c2".into(),
        name: "bash".into(),
        allowed: true,
        rule: None,
    };
    feed(
        app,
        now,
        vec![child(2, allowed), child(2, start("c2", "bash"))],
    );
}

/// The timeline's rows, from its model row to (without) its axis, cut at the pane's left
/// edge (at 200×50 the tools pane is on the right of the conversation).
fn timeline(screen: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut col = None;
    for line in screen.lines() {
        let chars: Vec<char> = line.chars().collect();
        if col.is_none() {
            col = (0..chars.len()).find(|&i| {
                chars[i..].iter().collect::<String>().starts_with("model  ")
                    && (i == 0 || chars[i - 1] == ' ')
            });
            if col.is_none() {
                continue;
            }
        }
        let row: String = chars[col.unwrap_or(0)..].iter().collect();
        if row.trim_start().starts_with("0s") {
            break;
        }
        rows.push(row.trim_end().to_string());
    }
    assert!(!rows.is_empty(), "no timeline:\n{screen}");
    rows
}

/// The row whose label is `label` (the label column, then the bars).
fn lane_row<'a>(rows: &'a [String], label: &str) -> Option<&'a String> {
    rows.iter()
        .find(|r| r.starts_with(label) && r[label.len()..].starts_with(' '))
}

#[tokio::test(start_paused = true)]
async fn three_children_get_three_lanes_labelled_by_agent_at_200x50() {
    let mut app = app();
    let now = three_children(&mut app).await;
    let screen = render_text(&mut app, 200, 50, now);
    let rows = timeline(&screen);
    for agent in ["explore #1", "general #2", "explore #3"] {
        let row = lane_row(&rows, agent)
            .unwrap_or_else(|| panic!("no lane for {agent}:\n{}\n{screen}", rows.join("\n")));
        assert!(row.contains('━'), "its model streams on its lane: {row}");
    }
    // Each lane's call under it, labelled as in the tools list; no call ordinal that reads
    // like an agent's number ("task #3", "glob #2").
    assert_eq!(
        rows.iter().filter(|r| r.starts_with("↳ glob ")).count(),
        2,
        "{screen}"
    );
    assert!(lane_row(&rows, "↳ bash").is_some(), "{screen}");
    for r in &rows {
        let label = r.split("  ").next().unwrap_or_default();
        assert!(
            !label.starts_with("task") && !label.starts_with("glob #"),
            "a call ordinal as a label: {r}\n{screen}"
        );
    }
    // Lanes in the order their tasks were called, each call right under its agent.
    let order: Vec<&str> = rows
        .iter()
        .map(|r| r.split("  ").next().unwrap_or_default())
        .collect();
    assert_eq!(
        order,
        [
            "model",
            "explore #1",
            "↳ glob",
            "general #2",
            "↳ bash",
            "explore #3",
            "↳ glob"
        ],
        "{screen}"
    );
    assert!(!screen.contains(" more"), "all fit, no mark:\n{screen}");
}

/// More children than the timeline has rows: the running ones keep their lanes, the
/// finished ones give way, and a mark counts what is not shown.
#[tokio::test(start_paused = true)]
async fn running_lanes_first_and_the_rest_counted_when_rows_run_out() {
    let mut app = app();
    let t0 = Instant::now();
    prompt(&mut app, "split it eight ways", t0);
    for n in 1..=8 {
        start_child(&mut app, n, "explore", t0);
    }
    feed(&mut app, t0, vec![stream_end()]);
    tokio::time::advance(Duration::from_millis(300)).await;
    let t1 = Instant::now();
    for n in 1..=8 {
        child_call(
            &mut app,
            n,
            "glob",
            json!({"pattern": format!("{n}/**")}),
            t1,
        );
    }
    // #2 and #5 are still at work; the others finished.
    for n in [1, 3, 4, 6, 7, 8] {
        finish_child(&mut app, n, "glob", "explore", t1, 50);
    }
    feed(
        &mut app,
        t1,
        vec![child(2, start("c2", "glob")), child(5, start("c5", "glob"))],
    );
    tokio::time::advance(Duration::from_millis(400)).await;
    let screen = render_text(&mut app, 80, 24, Instant::now());
    let rows = timeline(&screen);
    for agent in ["explore #2", "explore #5"] {
        assert!(
            lane_row(&rows, agent).is_some(),
            "the running {agent} keeps its lane:\n{screen}"
        );
    }
    let mark = rows
        .iter()
        .find(|r| r.contains(" more"))
        .unwrap_or_else(|| panic!("no \"N more\" mark:\n{screen}"));
    let n: usize = mark
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("a count in {mark}"));
    // Every call is a row: 8 tasks and 8 globs, shown or counted.
    let shown = rows
        .iter()
        .filter(|r| r.starts_with("explore #") || r.starts_with("↳ glob"))
        .count();
    assert_eq!(shown + n, 16, "{}\n{screen}", rows.join("\n"));
}

/// At 80×24 the child waiting for approval keeps its lane on the timeline (the box covers
/// the list), and once approved and running, its rows are in the tools list, not scrolled
/// off under the finished ones.
#[tokio::test(start_paused = true)]
async fn a_running_child_is_in_sight_at_80x24() {
    let mut app = app();
    let now = three_children(&mut app).await;
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("general #2 wants to run bash"), "{screen}");
    let rows = timeline(&screen);
    assert!(lane_row(&rows, "general #2").is_some(), "{screen}");
    assert!(lane_row(&rows, "↳ bash").is_some(), "{screen}");

    approve_child_2(&mut app, now);
    let screen = render_text(&mut app, 80, 24, now + Duration::from_millis(500));
    let list = screen
        .split_once(" tools ─")
        .map(|(_, pane)| pane.to_string())
        .unwrap_or_else(|| panic!("no tools pane:\n{screen}"));
    assert!(
        list.contains("task general #2"),
        "the running task row:\n{screen}"
    );
    assert!(
        list.contains("↳ bash sleep 3"),
        "its running call:\n{screen}"
    );
    let rows = timeline(&screen);
    assert!(lane_row(&rows, "general #2").is_some(), "{screen}");
}

/// Picking a child's bar (its task) with ←/→ highlights its lane: its own row and its
/// calls' bars, not another lane's.
#[tokio::test(start_paused = true)]
async fn picking_a_child_bar_highlights_its_lane() {
    let mut app = app();
    let now = three_children(&mut app).await;
    approve_child_2(&mut app, now);
    app.panes.focus = Focus::Tools;
    let before = render_text(&mut app, 200, 50, now);
    assert!(!before.contains('▓'), "nothing picked yet:\n{before}");
    // The bars in the order they started: the request, the three tasks, … Step to task 1.
    app.on_key(key(KeyCode::Left), now);
    for _ in 0..20 {
        if app.panes.tools.bars.is_selected_tool("toolu_1") {
            break;
        }
        app.on_key(key(KeyCode::Left), now);
    }
    assert!(app.panes.tools.bars.is_selected_tool("toolu_1"));
    let screen = render_text(&mut app, 200, 50, now);
    let rows = timeline(&screen);
    let lane: Vec<&String> = rows
        .iter()
        .skip_while(|r| !r.starts_with("explore #1"))
        .take(2)
        .collect();
    assert_eq!(lane.len(), 2, "{screen}");
    assert!(
        lane[0].contains('═'),
        "its own row highlighted: {}\n{screen}",
        lane[0]
    );
    assert!(
        lane[1].starts_with("↳ glob") && lane[1].contains('▓'),
        "its call: {}",
        lane[1]
    );
    for other in ["general #2", "explore #3"] {
        let row = lane_row(&rows, other).expect("the other lanes");
        assert!(!row.contains('═') && !row.contains('▓'), "{row}\n{screen}");
    }
    assert_eq!(
        rows.iter().filter(|r| r.contains('▓')).count(),
        1,
        "{screen}"
    );
    // The label says which agent.
    assert!(screen.contains("explore #1 · Enter"), "{screen}");
}

//! Each approval mode × each mutating tool, through the real executor: who is asked, what
//! runs, and that a refusal leaves the disk untouched.

use crate::support;

use std::fs;

use serde_json::{Value, json};
use tooloop::protocol::approval::Decision;
use tooloop::protocol::approval_mode::ApprovalMode;

use support::permissions::{Answer, Harness, allow_once, deny, never_asked};

/// A call of each mutating tool and a check of its side effect.
fn calls() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "bash",
            json!({"command": "echo ran > bash.txt"}),
            "bash.txt",
        ),
        (
            "write_file",
            json!({"path": "write.txt", "content": "ran\n"}),
            "write.txt",
        ),
        (
            "edit_file",
            json!({"path": "edit.txt", "old_string": "before", "new_string": "ran"}),
            "edit.txt",
        ),
    ]
}

fn prepare(h: &Harness) {
    fs::write(h.path("edit.txt"), "before\n").expect("write");
}

fn side_effect(h: &Harness, tool: &str, file: &str) -> bool {
    match tool {
        "edit_file" => fs::read_to_string(h.path(file)).expect("edit.txt") == "ran\n",
        _ => h.path(file).exists(),
    }
}

/// Runs each tool alone in a fresh workspace; returns (tool, asked, ran, result) rows.
async fn matrix(
    mode: ApprovalMode,
    interactive: bool,
    answer: fn(&str) -> Answer,
) -> Vec<(String, bool, bool, String)> {
    let mut rows = Vec::new();
    for (tool, input, file) in calls() {
        let mut h = Harness::new(mode, interactive);
        prepare(&h);
        let batch = h.run(&[("t1", tool, input)], answer).await;
        let run = &batch.runs[0];
        let ran = side_effect(&h, tool, file);
        assert_eq!(
            ran, !run.output.is_error,
            "{tool}: result agrees with disk: {:?}",
            run.output
        );
        assert_eq!(
            ran,
            run.started_at.is_some(),
            "{tool}: only allowed calls start"
        );
        let decided = batch.decisions();
        assert_eq!(
            decided,
            vec![(tool.to_string(), ran)],
            "{tool}: one permission decision"
        );
        rows.push((
            tool.to_string(),
            !batch.asked().is_empty(),
            ran,
            run.output.content.clone(),
        ));
    }
    rows
}

fn summary(rows: &[(String, bool, bool, String)]) -> Vec<(&str, bool, bool)> {
    rows.iter()
        .map(|(t, a, r, _)| (t.as_str(), *a, *r))
        .collect()
}

#[tokio::test]
async fn ask_mode_asks_for_every_change_and_runs_on_allow() {
    let rows = matrix(ApprovalMode::Ask, true, allow_once).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", true, true),
            ("write_file", true, true),
            ("edit_file", true, true)
        ]
    );
}

#[tokio::test]
async fn ask_mode_deny_is_an_error_result_and_changes_nothing() {
    let rows = matrix(ApprovalMode::Ask, true, deny).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", true, false),
            ("write_file", true, false),
            ("edit_file", true, false)
        ]
    );
    for (tool, _, _, result) in &rows {
        assert!(
            result.contains(&format!("The user declined to run {tool}")),
            "{result}"
        );
    }
}

#[tokio::test]
async fn auto_edit_allows_file_edits_and_asks_for_bash() {
    let rows = matrix(ApprovalMode::AutoEdit, true, deny).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", true, false),
            ("write_file", false, true),
            ("edit_file", false, true)
        ]
    );
}

#[tokio::test]
async fn yolo_runs_everything_without_asking() {
    let rows = matrix(ApprovalMode::Yolo, true, never_asked).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", false, true),
            ("write_file", false, true),
            ("edit_file", false, true)
        ]
    );
}

#[tokio::test]
async fn read_only_refuses_every_change_without_asking() {
    let rows = matrix(ApprovalMode::ReadOnly, true, never_asked).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", false, false),
            ("write_file", false, false),
            ("edit_file", false, false)
        ]
    );
    for (_, _, _, result) in &rows {
        assert!(result.contains("read-only mode"), "{result}");
    }
}

#[tokio::test]
async fn headless_ask_means_deny() {
    let rows = matrix(ApprovalMode::Ask, false, never_asked).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", false, false),
            ("write_file", false, false),
            ("edit_file", false, false)
        ]
    );
    for (tool, _, _, result) in &rows {
        assert!(
            result.contains("headless") && result.contains(&format!("--allow-tool {tool}")),
            "{result}"
        );
    }
    // auto-edit headless: edits need nobody, bash still cannot be approved.
    let rows = matrix(ApprovalMode::AutoEdit, false, never_asked).await;
    assert_eq!(
        summary(&rows),
        [
            ("bash", false, false),
            ("write_file", false, true),
            ("edit_file", false, true)
        ]
    );
}

#[tokio::test]
async fn allow_tool_pre_approves_one_tool_only() {
    let mut h = Harness::with(ApprovalMode::Ask, false, true, &["bash".to_string()]);
    let batch = h
        .run(
            &[
                ("t1", "bash", json!({"command": "echo ok > b.txt"})),
                ("t2", "write_file", json!({"path": "w.txt", "content": "x"})),
            ],
            never_asked,
        )
        .await;
    assert!(h.path("b.txt").exists());
    assert!(!h.path("w.txt").exists());
    assert_eq!(
        batch.decisions(),
        [
            ("bash".to_string(), true),
            ("write_file".to_string(), false)
        ]
    );
}

#[tokio::test]
async fn allow_for_session_asks_once_per_tool() {
    let mut h = Harness::new(ApprovalMode::Ask, true);
    let session = |_: &str| Answer::Reply(Decision::AllowForSession);
    let first = h
        .run(
            &[("t1", "bash", json!({"command": "echo 1 >> n.txt"}))],
            session,
        )
        .await;
    assert_eq!(first.asked(), ["bash"]);
    let second = h
        .run(
            &[
                ("t2", "bash", json!({"command": "echo 2 >> n.txt"})),
                ("t3", "bash", json!({"command": "echo 3 >> n.txt"})),
            ],
            never_asked,
        )
        .await;
    assert!(
        second.asked().is_empty(),
        "bash is allowed for the rest of the session"
    );
    assert_eq!(
        fs::read_to_string(h.path("n.txt")).expect("n.txt"),
        "1\n2\n3\n"
    );
    // Another tool still asks.
    let third = h
        .run(
            &[("t4", "write_file", json!({"path": "w.txt", "content": "w"}))],
            deny,
        )
        .await;
    assert_eq!(third.asked(), ["write_file"]);
    assert!(!h.path("w.txt").exists());
}

#[tokio::test]
async fn deny_with_a_reason_tells_the_model_why() {
    let mut h = Harness::new(ApprovalMode::Ask, true);
    let batch = h
        .run(
            &[("t1", "bash", json!({"command": "rm -rf build"}))],
            |_| {
                Answer::Reply(Decision::Deny {
                    reason: Some("keep the build dir".into()),
                })
            },
        )
        .await;
    let out = &batch.runs[0].output;
    assert!(
        out.is_error && out.content.contains("keep the build dir"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn abort_while_waiting_for_consent_interrupts_every_call() {
    let mut h = Harness::new(ApprovalMode::Ask, true);
    let batch = h
        .run(
            &[
                ("t1", "write_file", json!({"path": "a.txt", "content": "a"})),
                ("t2", "bash", json!({"command": "echo b > b.txt"})),
            ],
            |_| Answer::Abort,
        )
        .await;
    for run in &batch.runs {
        assert_eq!(run.output.content, "interrupted by user", "{}", run.id);
        assert!(run.output.is_error && run.started_at.is_none());
    }
    assert_eq!(
        batch.asked(),
        ["write_file"],
        "the queued call was never asked about"
    );
    assert!(!h.path("a.txt").exists() && !h.path("b.txt").exists());
}

#[tokio::test]
async fn the_tool_clock_starts_after_consent() {
    let mut h = Harness::new(ApprovalMode::Ask, true);
    let batch = h
        .run(&[("t1", "bash", json!({"command": "true"}))], allow_once)
        .await;
    use tooloop::protocol::AgentEvent;
    let kinds: Vec<&str> = batch
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::PermissionRequest { .. } => Some("ask"),
            AgentEvent::Permission { .. } => Some("decided"),
            AgentEvent::ToolStart { .. } => Some("start"),
            AgentEvent::ToolEnd { .. } => Some("end"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["ask", "decided", "start", "end"]);
}

#[tokio::test]
async fn auto_edit_asks_for_edits_outside_the_workspace() {
    // Only reachable with --allow-outside-workspace: confinement is lifted, consent is not.
    let mut h = Harness::new(ApprovalMode::AutoEdit, true);
    let outer = tempfile::tempdir().expect("tempdir");
    let target = outer.path().join("out.txt");
    let open = tooloop::tools::Workspace::new(h.dir.path(), true).expect("workspace");
    h.env.workspace = std::sync::Arc::new(open);
    let path = target.display().to_string();
    let batch = h
        .run(
            &[("t1", "write_file", json!({"path": path, "content": "x"}))],
            deny,
        )
        .await;
    assert_eq!(batch.asked(), ["write_file"]);
    assert!(!target.exists());
}

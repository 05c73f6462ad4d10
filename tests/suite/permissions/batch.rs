//! Several mutating calls in one model reply, through the real executor: bash calls never
//! overlap, a failing bash cancels its queued siblings (unless --no-sibling-abort), and an
//! abort while bash runs kills its whole process group.

use crate::support;

use std::fs;
use std::time::Duration;

use serde_json::json;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::{AgentEvent, ToolOutcome};

use support::permissions::{Answer, Harness, never_asked};

#[tokio::test]
async fn three_bash_calls_in_one_reply_never_overlap() {
    let mut h = Harness::new(ApprovalMode::Yolo, true);
    let stamp = "s=$(date +%s%N); sleep 0.2; e=$(date +%s%N); echo \"$s $e\" >> times.txt";
    let batch = h
        .run(
            &[
                ("t1", "bash", json!({ "command": stamp })),
                ("t2", "bash", json!({ "command": stamp })),
                ("t3", "bash", json!({ "command": stamp })),
            ],
            never_asked,
        )
        .await;
    assert!(
        batch.runs.iter().all(|r| !r.output.is_error),
        "{:?}",
        batch.runs
    );
    let times = fs::read_to_string(h.path("times.txt")).expect("times.txt");
    let mut spans: Vec<(u128, u128)> = times
        .lines()
        .map(|l| {
            let (s, e) = l.split_once(' ').expect("two stamps");
            (s.parse().expect("start ns"), e.parse().expect("end ns"))
        })
        .collect();
    assert_eq!(spans.len(), 3, "{times}");
    spans.sort();
    for pair in spans.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "intervals overlap: {spans:?}");
    }
    assert_eq!(batch.started(), ["t1", "t2", "t3"]);
}

#[tokio::test]
async fn a_failing_bash_cancels_its_queued_siblings_and_names_itself() {
    let mut h = Harness::new(ApprovalMode::Yolo, true);
    let batch = h
        .run(
            &[
                ("t1", "bash", json!({"command": "echo compiling; exit 2"})),
                ("t2", "bash", json!({"command": "echo ran > second.txt"})),
                (
                    "t3",
                    "write_file",
                    json!({"path": "third.txt", "content": "x"}),
                ),
            ],
            never_asked,
        )
        .await;
    assert!(batch.runs[0].output.is_error);
    assert!(batch.runs[0].output.content.ends_with("exit code 2"));
    for run in &batch.runs[1..] {
        assert!(run.output.is_error);
        assert_eq!(
            run.output.content,
            "cancelled: parallel tool call bash(echo compiling; exit 2) failed (id t1)"
        );
        assert!(run.started_at.is_none());
    }
    assert!(!h.path("second.txt").exists() && !h.path("third.txt").exists());
    // The failed call is an error; the ones it stopped were cancelled, not failed.
    assert_eq!(
        batch.outcomes(),
        vec![
            ("t1".into(), ToolOutcome::Error),
            ("t2".into(), ToolOutcome::Cancelled),
            ("t3".into(), ToolOutcome::Cancelled),
        ]
    );
}

#[tokio::test]
async fn without_sibling_abort_the_others_still_run() {
    let mut h = Harness::with(ApprovalMode::Yolo, true, false, &[]);
    let batch = h
        .run(
            &[
                ("t1", "bash", json!({"command": "exit 1"})),
                ("t2", "bash", json!({"command": "echo ran > second.txt"})),
                (
                    "t3",
                    "write_file",
                    json!({"path": "third.txt", "content": "x"}),
                ),
            ],
            never_asked,
        )
        .await;
    assert!(batch.runs[0].output.is_error);
    assert!(!batch.runs[1].output.is_error && !batch.runs[2].output.is_error);
    assert!(h.path("second.txt").exists() && h.path("third.txt").exists());
}

#[tokio::test]
async fn a_denied_bash_cancels_nothing() {
    let mut h = Harness::new(ApprovalMode::Ask, true);
    let batch = h
        .run(
            &[
                ("t1", "bash", json!({"command": "echo no > no.txt"})),
                (
                    "t2",
                    "write_file",
                    json!({"path": "yes.txt", "content": "y"}),
                ),
            ],
            |tool| match tool {
                "bash" => {
                    Answer::Reply(tooloop::protocol::approval::Decision::Deny { reason: None })
                }
                _ => Answer::Reply(tooloop::protocol::approval::Decision::AllowOnce),
            },
        )
        .await;
    assert!(batch.runs[0].output.is_error && !batch.runs[1].output.is_error);
    assert!(!h.path("no.txt").exists() && h.path("yes.txt").exists());
    assert_eq!(
        batch.outcomes(),
        vec![
            ("t1".into(), ToolOutcome::Error),
            ("t2".into(), ToolOutcome::Ok)
        ]
    );
}

#[tokio::test]
async fn abort_during_bash_kills_its_group_through_the_executor() {
    use tokio_util::sync::CancellationToken;
    use tooloop::agent::executor::StreamingToolExecutor;

    let mut h = Harness::new(ApprovalMode::Yolo, true);
    let cancel = CancellationToken::new();
    let exec = StreamingToolExecutor::new(h.env.clone(), cancel.clone());
    exec.add(
        "t1",
        "bash",
        &json!({"command": "echo PGID=$$; sleep 300 & sleep 300"}),
    );
    exec.add(
        "t2",
        "write_file",
        &json!({"path": "after.txt", "content": "x"}),
    );
    exec.stream_ended();
    // Wait for the command to report its group, then press Ctrl+C.
    let mut seen = String::new();
    let pgid: i32 = loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), h.rx_mut().recv())
            .await
            .expect("progress")
            .expect("open");
        if let AgentEvent::ToolProgress { chunk, .. } = ev {
            seen.push_str(&chunk);
            if let Some(p) = seen.lines().find_map(|l| l.strip_prefix("PGID=")) {
                break p.trim().parse().expect("pgid");
            }
        }
    };
    assert!(
        !support::permissions::live_in_group(pgid).is_empty(),
        "the command runs"
    );
    cancel.cancel();
    let runs = tokio::time::timeout(Duration::from_secs(10), exec.finish())
        .await
        .expect("finish after abort");
    assert!(
        runs[0].output.content.starts_with("interrupted by user"),
        "{}",
        runs[0].output.content
    );
    assert!(
        runs[0].output.content.contains("PGID="),
        "output before the stop is kept"
    );
    assert_eq!(runs[1].output.content, "interrupted by user");
    assert!(!h.path("after.txt").exists());
    // Both calls were stopped by Ctrl+C: the executor says so in their tool_end events.
    let mut outcomes = Vec::new();
    while let Ok(ev) = h.rx_mut().try_recv() {
        if let AgentEvent::ToolEnd { id, outcome, .. } = ev {
            outcomes.push((id, outcome));
        }
    }
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        outcomes,
        vec![
            ("t1".to_string(), ToolOutcome::Cancelled),
            ("t2".to_string(), ToolOutcome::Cancelled)
        ]
    );
    assert_eq!(support::permissions::live_in_group(pgid), Vec::<i32>::new());
}

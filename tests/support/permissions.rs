//! A harness for permission tests: the real executor, the real built-in tools, a real
//! workspace in a temp dir, and a scripted "user" answering permission requests.

#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::executor::{StreamingToolExecutor, ToolRun};
use tooloop::cli::ToolExec;
use tooloop::message::{ContentBlock, Message, validate_history};
use tooloop::permission::PermissionPolicy;
use tooloop::protocol::approval::Decision;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentEvent, ToolOutcome};
use tooloop::tools::{ToolRegistry, Workspace};

/// What the scripted user does when asked.
#[derive(Clone, Debug)]
pub enum Answer {
    Reply(Decision),
    /// Presses Ctrl+C instead of answering.
    Abort,
}

pub struct Harness {
    pub dir: tempfile::TempDir,
    pub env: ExecEnv,
    rx: mpsc::UnboundedReceiver<AgentEvent>,
}

pub struct Batch {
    pub runs: Vec<ToolRun>,
    pub events: Vec<AgentEvent>,
}

impl Batch {
    /// Tools the user was asked about, in order.
    pub fn asked(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::PermissionRequest { tool, .. } => Some(tool.clone()),
                _ => None,
            })
            .collect()
    }

    /// (tool, allowed) for each `permission` decision.
    pub fn decisions(&self) -> Vec<(String, bool)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Permission { name, allowed, .. } => Some((name.clone(), *allowed)),
                _ => None,
            })
            .collect()
    }

    /// (id, outcome) of each `tool_end`, as the executor decided it.
    pub fn outcomes(&self) -> Vec<(String, ToolOutcome)> {
        let mut v: Vec<(String, ToolOutcome)> = self
            .events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolEnd { id, outcome, .. } => Some((id.clone(), *outcome)),
                _ => None,
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    pub fn started(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolStart { id, .. } => Some(id.clone()),
                _ => None,
            })
            .collect()
    }
}

impl Harness {
    pub fn new(mode: ApprovalMode, interactive: bool) -> Self {
        Self::with(mode, interactive, true, &[])
    }

    pub fn with(
        mode: ApprovalMode,
        interactive: bool,
        sibling_abort: bool,
        allow: &[String],
    ) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let workspace = Workspace::new(dir.path(), false).expect("workspace");
        let (events, rx) = EventSink::channel();
        let mut env = ExecEnv::new(
            ToolRegistry::builtin(),
            PermissionPolicy::new(mode, allow, interactive),
            workspace,
            events,
        );
        env.strategy = ToolExec::Streaming;
        env.sibling_abort = sibling_abort;
        env.max_output_bytes = 30_000;
        env.max_timeout = Duration::from_secs(600);
        Harness { dir, env, rx }
    }

    pub fn rx_mut(&mut self) -> &mut mpsc::UnboundedReceiver<AgentEvent> {
        &mut self.rx
    }

    pub fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    /// Runs one model reply's tool calls through the executor, answering every permission
    /// request with `answer(tool)`, and checks that the resulting history is valid.
    pub async fn run(
        &mut self,
        calls: &[(&str, &str, Value)],
        answer: impl Fn(&str) -> Answer,
    ) -> Batch {
        let cancel = CancellationToken::new();
        let exec = StreamingToolExecutor::new(self.env.clone(), cancel.clone());
        for (id, name, input) in calls {
            exec.add(id, name, input);
        }
        exec.stream_ended();
        let finish = exec.finish();
        tokio::pin!(finish);
        let mut events = Vec::new();
        let runs = loop {
            tokio::select! {
                runs = &mut finish => break runs,
                Some(ev) = self.rx.recv() => {
                    if let AgentEvent::PermissionRequest { id, tool, .. } = &ev {
                        match answer(tool) {
                            Answer::Reply(d) => self.env.policy.reply(id, d),
                            Answer::Abort => cancel.cancel(),
                        }
                    }
                    events.push(ev);
                }
            }
        };
        while let Ok(ev) = self.rx.try_recv() {
            events.push(ev);
        }
        assert_eq!(runs.len(), calls.len(), "one result per tool_use");
        let history = vec![
            Message::user_text("go"),
            Message::assistant(
                calls
                    .iter()
                    .map(|(id, name, input)| ContentBlock::ToolUse {
                        id: id.to_string(),
                        name: name.to_string(),
                        input: input.clone(),
                    })
                    .collect(),
            ),
            Message::user(runs.iter().map(ToolRun::to_block).collect()),
        ];
        validate_history(&history).expect("history stays valid");
        Batch { runs, events }
    }
}

pub fn allow_once(_: &str) -> Answer {
    Answer::Reply(Decision::AllowOnce)
}

pub fn deny(_: &str) -> Answer {
    Answer::Reply(Decision::Deny { reason: None })
}

pub fn never_asked(tool: &str) -> Answer {
    panic!("{tool} should not have needed an answer")
}

/// Live (non-zombie) processes in process group `pgid`, straight from /proc. Zombies are
/// ignored: this container's init does not reap orphans, so they linger dead.
pub fn live_in_group(pgid: i32) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let after = &stat[stat.rfind(')').expect("comm") + 2..];
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields[2].parse::<i32>() == Ok(pgid) && fields[0] != "Z" && fields[0] != "X" {
            pids.push(pid);
        }
    }
    pids
}

//! One ACP session: an engine of its own (started by `main`'s builder), the task that turns
//! its events into `session/update`s, the prompt in progress and the permission questions
//! the editor has not answered yet.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use agent_client_protocol_schema::v1 as acp;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::transport::{Outbox, RpcError};
use super::updates::{self, Mapper};
use crate::engine::Control;
use crate::prompt::commands::FileCommand;
use crate::protocol::approval_mode::ApprovalMode;
use crate::protocol::status::ServerStatus;
use crate::protocol::{AgentCommand, AgentEvent};

/// How the prompt in progress ends: the `session/prompt` answer.
pub type TurnEnd = Result<Value, RpcError>;

pub struct Session {
    pub id: String,
    pub workspace: std::path::PathBuf,
    /// The commands from files and skills, as last advertised.
    files: Mutex<Vec<FileCommand>>,
    /// The MCP servers as their last `mcp` reports said (their prompts are commands).
    servers: Mutex<Vec<ServerStatus>>,
    commands: mpsc::UnboundedSender<AgentCommand>,
    control: Mutex<Option<Control>>,
    /// The waiting `session/prompt` (one at a time per session).
    turn: Mutex<Option<oneshot::Sender<TurnEnd>>>,
    /// `session/request_permission` requests not answered yet (their JSON-RPC ids).
    asking: Mutex<Vec<i64>>,
    pub mode: Mutex<ApprovalMode>,
    /// The last context meter, for /cost and /status.
    pub usage: Mutex<Option<crate::protocol::compaction::ContextStatus>>,
    pub model: Mutex<String>,
    /// A `/compact` is waiting: it ends with Compacted, or with the error or notice that
    /// says why nothing was compacted (no Done follows a manual compaction).
    pub compacting: std::sync::atomic::AtomicBool,
    /// The editor's files, when the client serves them (`fs/*`).
    pub files_access: Option<Arc<super::files::ClientFiles>>,
}

impl Session {
    pub fn new(
        id: String,
        workspace: std::path::PathBuf,
        control: Control,
        mode: ApprovalMode,
        model: String,
        files_access: Option<Arc<super::files::ClientFiles>>,
    ) -> Session {
        Session {
            files: Mutex::new(super::commands::file_commands(&workspace)),
            servers: Mutex::new(Vec::new()),
            id,
            workspace,
            commands: control.commands().clone(),
            control: Mutex::new(Some(control)),
            turn: Mutex::new(None),
            asking: Mutex::new(Vec::new()),
            mode: Mutex::new(mode),
            usage: Mutex::new(None),
            model: Mutex::new(model),
            compacting: std::sync::atomic::AtomicBool::new(false),
            files_access,
        }
    }

    pub fn file_commands(&self) -> Vec<FileCommand> {
        self.files.lock().expect("files").clone()
    }

    /// Every command the session offers now.
    pub fn available_commands(&self) -> Vec<acp::AvailableCommand> {
        let servers = self.servers.lock().expect("servers");
        super::commands::available(&self.files.lock().expect("files"), &servers)
    }

    /// A server's report (started, failed, its lists changed); true when its prompts, and
    /// so the advertised commands, changed.
    pub fn server_changed(&self, status: &ServerStatus) -> bool {
        let mut servers = self.servers.lock().expect("servers");
        let before = servers
            .iter()
            .position(|s| s.server == status.server)
            .map(|i| servers.remove(i));
        let changed = before.as_ref().map_or(&[][..], |s| &s.prompts[..]) != status.prompts;
        servers.push(status.clone());
        changed
    }

    /// Reads the command files and skills again (one may have appeared, changed or gone);
    /// true when the advertised set changed, so an `available_commands_update` is due.
    /// A changed body alone is taken in silently.
    pub fn refresh_commands(&self) -> bool {
        let fresh = super::commands::file_commands(&self.workspace);
        let mut files = self.files.lock().expect("files");
        let servers = self.servers.lock().expect("servers");
        let changed = super::commands::available(&files, &servers)
            != super::commands::available(&fresh, &servers);
        *files = fresh;
        changed
    }

    pub fn send(&self, command: AgentCommand) -> bool {
        self.commands.send(command).is_ok()
    }

    /// Claims the session for one prompt; None while another prompt runs.
    pub fn begin_turn(&self) -> Option<oneshot::Receiver<TurnEnd>> {
        let mut turn = self.turn.lock().expect("turn");
        if turn.as_ref().is_some_and(|t| !t.is_closed()) {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        *turn = Some(tx);
        Some(rx)
    }

    pub fn end_turn(&self, end: TurnEnd) {
        if let Some(tx) = self.turn.lock().expect("turn").take() {
            let _ = tx.send(end);
        }
    }

    /// `session/cancel`: every question withdrawn (each becomes a denial), then the turn
    /// aborted as Ctrl+C aborts it.
    pub fn cancel(&self, outbox: &Outbox) {
        for id in std::mem::take(&mut *self.asking.lock().expect("asking")) {
            outbox.withdraw(id);
        }
        self.send(AgentCommand::Abort);
    }

    /// Ends the engine (its transcript is complete on disk); the turn in progress is
    /// cancelled first.
    pub async fn stop(&self, outbox: &Outbox) {
        self.cancel(outbox);
        let control = self.control.lock().expect("control").take();
        if let Some(control) = control {
            control.stop(std::time::Duration::from_secs(5)).await;
        }
        self.end_turn(Ok(json!({"stopReason": "cancelled"})));
    }
}

/// `available_commands_update` with every command the session offers now.
pub fn announce_commands(outbox: &Outbox, s: &Session) {
    notify(
        outbox,
        &s.id,
        acp::SessionUpdate::AvailableCommandsUpdate(acp::AvailableCommandsUpdate::new(
            s.available_commands(),
        )),
    );
}

pub fn notify(outbox: &Outbox, session: &str, update: acp::SessionUpdate) {
    outbox.notify(
        "session/update",
        acp::SessionNotification::new(session.to_string(), update),
    );
}

/// Turns the engine's events into updates until the engine ends.
pub fn pump(
    session: Arc<Session>,
    outbox: Arc<Outbox>,
    mut events: mpsc::UnboundedReceiver<AgentEvent>,
    mut mapper: Mapper,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            handle(&session, &outbox, &mut mapper, &event);
        }
        session.end_turn(Err(RpcError::new(
            super::transport::code::INTERNAL_ERROR,
            "the agent stopped",
        )));
    })
}

fn handle(session: &Arc<Session>, outbox: &Arc<Outbox>, mapper: &mut Mapper, event: &AgentEvent) {
    for update in mapper.map(event) {
        notify(outbox, &session.id, update);
    }
    let (agent, inner) = event.unwrapped();
    match inner {
        AgentEvent::PermissionRequest { .. } => ask(
            session.clone(),
            outbox.clone(),
            agent.map(|(a, _)| a),
            inner,
        ),
        AgentEvent::ApprovalChanged { mode } if agent.is_none() => {
            *session.mode.lock().expect("mode") = *mode;
        }
        AgentEvent::Context(status) if agent.is_none() => {
            *session.usage.lock().expect("usage") = Some(status.clone());
        }
        // A server's prompts appeared, changed (`list_changed`) or went with it.
        AgentEvent::Mcp(status) if agent.is_none() && session.server_changed(status) => {
            announce_commands(outbox, session);
        }
        AgentEvent::ModelChanged { model } if agent.is_none() => {
            *session.model.lock().expect("model") = model.clone();
        }
        AgentEvent::Done(summary) if agent.is_none() => {
            let (reason, why) = updates::stop_reason(summary, mapper.last_stop.as_deref());
            if let Some(why) = why {
                notify(
                    outbox,
                    &session.id,
                    acp::SessionUpdate::AgentMessageChunk(updates::chunk(&why)),
                );
            }
            // A turn may have written a command file or a skill: said before the answer.
            if session.refresh_commands() {
                announce_commands(outbox, session);
            }
            session.end_turn(Ok(json!(acp::PromptResponse::new(reason))));
        }
        AgentEvent::Compacted { info, .. } if agent.is_none() => {
            let text = format!(
                "compacted the conversation: {} → {} tokens",
                crate::text::grouped(info.pre_tokens),
                crate::text::grouped(info.post_tokens)
            );
            notify(
                outbox,
                &session.id,
                acp::SessionUpdate::AgentMessageChunk(updates::chunk(&text)),
            );
            // `/compact` waits for this (a compaction inside a turn ends with Done).
            if session.compacting.swap(false, Ordering::SeqCst) {
                session.end_turn(Ok(json!(acp::PromptResponse::new(
                    acp::StopReason::EndTurn
                ))));
            }
        }
        AgentEvent::Error { message: text } | AgentEvent::Notice { text }
            if agent.is_none() && session.compacting.swap(false, Ordering::SeqCst) =>
        {
            notify(
                outbox,
                &session.id,
                acp::SessionUpdate::AgentMessageChunk(updates::chunk(text)),
            );
            session.end_turn(Ok(json!(acp::PromptResponse::new(
                acp::StopReason::EndTurn
            ))));
        }
        _ => {}
    }
}

/// The question the agent waits on, asked of the editor; its answer (or none) goes back
/// as the one permission decision. Anything but a chosen allow option is a denial.
fn ask(session: Arc<Session>, outbox: Arc<Outbox>, agent: Option<&str>, event: &AgentEvent) {
    let AgentEvent::PermissionRequest {
        id,
        tool,
        input,
        summary,
        preview,
        why,
    } = event
    else {
        return;
    };
    let (call_id, reply_id) = match agent {
        Some(a) => {
            let scoped = crate::protocol::subagent::scoped_id(a, id);
            (scoped.clone(), scoped)
        }
        None => (id.clone(), id.clone()),
    };
    let plan = matches!(
        preview,
        Some(crate::protocol::approval::Preview::Plan { .. })
    );
    let options = super::permission::options(plan, why.suggestion.as_deref());
    let request = json!({
        "sessionId": session.id,
        "toolCall": {
            "toolCallId": call_id,
            "title": updates::title(tool, summary),
            "kind": updates::tool_kind(tool),
            "status": "pending",
            "rawInput": input,
        },
        "options": options,
    });
    let (rpc_id, answer) = outbox.request("session/request_permission", request);
    session.asking.lock().expect("asking").push(rpc_id);
    let suggestion = why.suggestion.clone();
    tokio::spawn(async move {
        let answer = answer.await.unwrap_or_else(|_| {
            Err(RpcError::new(
                super::transport::code::INTERNAL_ERROR,
                "no answer",
            ))
        });
        session
            .asking
            .lock()
            .expect("asking")
            .retain(|i| *i != rpc_id);
        let decision = super::permission::decision(&answer, plan, suggestion);
        session.send(AgentCommand::PermissionReply {
            id: reply_id,
            decision,
        });
    });
}

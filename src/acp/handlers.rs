//! The agent-side methods: initialize, authenticate, session/new, session/load,
//! session/prompt, session/set_mode (session/cancel is a notification: see mod.rs).

use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol_schema::v1 as acp;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::commands::{self, Parsed};
use super::files::ClientFiles;
use super::session::{self, Session};
use super::transport::{RpcError, code};
use super::updates::{Mapper, chunk};
use super::{Server, replay};
use crate::protocol::approval_mode::ApprovalMode;
use crate::protocol::{AgentCommand, AgentEvent, RewindRequest};
use crate::session::SessionMode;

/// Methods answered once initialized; anything else is "method not found".
pub const KNOWN: &[&str] = &[
    "authenticate",
    "session/prompt",
    "session/new",
    "session/load",
    "session/set_mode",
];

fn parse<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(RpcError::invalid_params)
}

pub fn initialize(params: &Value) -> Result<Value, RpcError> {
    let _: acp::InitializeRequest = parse(params.clone())?;
    let capabilities = acp::AgentCapabilities::new()
        .load_session(true)
        .prompt_capabilities(
            acp::PromptCapabilities::new()
                .image(true)
                .embedded_context(true),
        )
        // tooloop's MCP client speaks stdio and streamable HTTP (no legacy SSE).
        .mcp_capabilities(acp::McpCapabilities::new().http(true));
    // Only version 1 exists: a client asking for another one gets 1 (ACP's negotiation).
    Ok(json!({
        "protocolVersion": 1,
        "agentCapabilities": capabilities,
        "agentInfo": acp::Implementation::new("tooloop", env!("CARGO_PKG_VERSION")),
        // Keys come from the environment and config files, as for the TUI.
        "authMethods": [],
    }))
}

/// A method's result, and the session whose commands are announced right after it (the
/// answer goes out first: the client knows the session before its first update).
pub struct Answer {
    pub result: Value,
    pub then: Option<Arc<Session>>,
}

impl From<Value> for Answer {
    fn from(result: Value) -> Self {
        Answer { result, then: None }
    }
}

pub async fn request(
    server: &Arc<Server>,
    method: &str,
    params: Value,
) -> Result<Answer, RpcError> {
    match method {
        "authenticate" => {
            let req: acp::AuthenticateRequest = parse(params)?;
            Err(RpcError::invalid_params(format!(
                "unknown auth method {:?} (tooloop advertises none: keys come from the environment and config)",
                req.method_id.0
            )))
        }
        "session/new" => new_session(server, parse(params)?).await,
        "session/load" => load_session(server, parse(params)?).await,
        "session/set_mode" => {
            let s = server.session(&params)?;
            let req: acp::SetSessionModeRequest = parse(params)?;
            let mode = ApprovalMode::parse(&req.mode_id.0).ok_or_else(|| {
                RpcError::invalid_params(format!("unknown mode {:?}", req.mode_id.0))
            })?;
            s.send(AgentCommand::SetApproval { mode });
            Ok(json!({}).into())
        }
        _ => Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!("unknown method {method:?}"),
        )),
    }
}

/// The approval modes as ACP session modes.
fn modes(current: ApprovalMode) -> acp::SessionModeState {
    let mode = |m: ApprovalMode, name: &str, description: &str| {
        acp::SessionMode::new(m.as_str(), name).description(description.to_string())
    };
    acp::SessionModeState::new(
        current.as_str(),
        vec![
            mode(ApprovalMode::Ask, "Ask", "Every change needs your consent"),
            mode(
                ApprovalMode::AutoEdit,
                "Auto-edit",
                "File edits in the workspace run unasked; commands ask (unless sandboxed)",
            ),
            mode(
                ApprovalMode::Plan,
                "Plan",
                "Read-only until you approve the model's plan",
            ),
            mode(ApprovalMode::Yolo, "Yolo", "Everything runs unasked"),
            mode(
                ApprovalMode::ReadOnly,
                "Read-only",
                "Changes are refused without asking",
            ),
        ],
    )
}

fn workspace(cwd: &std::path::Path) -> Result<PathBuf, RpcError> {
    if !cwd.is_absolute() {
        return Err(RpcError::invalid_params(format!(
            "cwd {} is not an absolute path",
            cwd.display()
        )));
    }
    if !cwd.is_dir() {
        return Err(RpcError::invalid_params(format!(
            "cwd {} is not a directory",
            cwd.display()
        )));
    }
    Ok(cwd.to_path_buf())
}

/// The editor's MCP servers as tooloop's server configs.
fn mcp_servers(servers: &[acp::McpServer]) -> Vec<crate::mcp::ServerConfig> {
    use crate::mcp::config::{DEFAULT_STARTUP_TIMEOUT, DEFAULT_TOOL_TIMEOUT, Transport};
    servers
        .iter()
        .filter_map(|s| {
            let (name, transport) = match s {
                acp::McpServer::Stdio(s) => (
                    s.name.clone(),
                    Transport::Stdio {
                        command: s.command.display().to_string(),
                        args: s.args.clone(),
                        env: s
                            .env
                            .iter()
                            .map(|e| (e.name.clone(), e.value.clone()))
                            .collect(),
                        cwd: None,
                    },
                ),
                acp::McpServer::Http(h) => (
                    h.name.clone(),
                    Transport::Http {
                        url: h.url.clone(),
                        headers: h
                            .headers
                            .iter()
                            .map(|e| (e.name.clone(), e.value.clone()))
                            .collect(),
                    },
                ),
                _ => {
                    tracing::warn!("acp: an MCP server of a transport tooloop lacks is skipped");
                    return None;
                }
            };
            Some(crate::mcp::ServerConfig {
                name,
                transport,
                startup_timeout: DEFAULT_STARTUP_TIMEOUT,
                tool_timeout: DEFAULT_TOOL_TIMEOUT,
                tools_allow: None,
                tools_deny: Vec::new(),
                // The editor's servers are deferred like configured ones (`[mcp] defer`'s
                // default): many tools from an editor must not fill the first request.
                defer: Default::default(),
            })
        })
        .collect()
}

/// Starts an engine for one editor session and registers it.
fn start(
    server: &Arc<Server>,
    cwd: PathBuf,
    mcp: &[acp::McpServer],
    mode: SessionMode,
) -> Result<
    (
        Arc<Session>,
        tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    ),
    crate::engine::EngineError,
> {
    let extra = mcp_servers(mcp);
    let keep_off = server.builder.config().session.mode == SessionMode::Off;
    let adjust = |c: &mut crate::config::Config| {
        c.workspace = cwd.clone();
        if !keep_off {
            c.session.mode = mode;
        }
        c.mcp.extend(extra);
    };
    let fs = *server.client_fs.lock().expect("client_fs");
    let files = fs
        .any()
        .then(|| ClientFiles::new(server.outbox.clone(), fs));
    let engine = match &files {
        Some(f) => server.builder.start_reaching(adjust, f.clone())?,
        None => server.builder.start_adjusted(adjust)?,
    };
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let id = engine
        .session
        .as_ref()
        .map(|s| s.id.clone())
        .unwrap_or_else(|| {
            format!(
                "acp-{}",
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            )
        });
    if let Some(f) = &files {
        f.set_session(&id);
    }
    let config = server.builder.config();
    let s = Arc::new(Session::new(
        id.clone(),
        cwd,
        engine.control,
        config.tools.approval,
        config.provider.model.clone(),
        files,
    ));
    server
        .sessions
        .lock()
        .expect("sessions")
        .insert(id, s.clone());
    Ok((s, engine.events))
}

async fn new_session(
    server: &Arc<Server>,
    req: acp::NewSessionRequest,
) -> Result<Answer, RpcError> {
    let cwd = workspace(&req.cwd)?;
    let (s, events) = start(server, cwd.clone(), &req.mcp_servers, SessionMode::New)
        .map_err(|e| RpcError::new(code::INTERNAL_ERROR, format!("cannot start a session: {e}")))?;
    session::pump(
        s.clone(),
        server.outbox.clone(),
        events,
        Mapper::new(&cwd).with_files(s.files_access.clone()),
    );
    let mode = *s.mode.lock().expect("mode");
    Ok(Answer {
        result: json!(acp::NewSessionResponse::new(s.id.clone()).modes(modes(mode))),
        then: Some(s),
    })
}

async fn load_session(
    server: &Arc<Server>,
    req: acp::LoadSessionRequest,
) -> Result<Answer, RpcError> {
    let cwd = workspace(&req.cwd)?;
    let id = req.session_id.0.to_string();
    // A session live in this process is ended first (its transcript is complete then):
    // the loaded one takes its place.
    let live = server.sessions.lock().expect("sessions").remove(&id);
    if let Some(live) = live {
        live.stop(&server.outbox).await;
    }
    let (s, mut events) = start(
        server,
        cwd.clone(),
        &req.mcp_servers,
        SessionMode::Resume(id.clone()),
    )
    .map_err(|e| match e {
        crate::engine::EngineError::Session(e) => RpcError::new(
            code::RESOURCE_NOT_FOUND,
            format!("cannot load session {id:?}: {e}"),
        ),
        e => RpcError::new(
            code::INTERNAL_ERROR,
            format!("cannot load session {id:?}: {e}"),
        ),
    })?;
    // The engine queued the resumed history while it started: the whole conversation is
    // replayed before the answer.
    let mut mapper = Mapper::new(&cwd).with_files(s.files_access.clone());
    while let Ok(event) = events.try_recv() {
        match &event {
            AgentEvent::HistoryReset {
                messages,
                summaries,
            } => {
                for update in replay::replay(messages, summaries) {
                    session::notify(&server.outbox, &s.id, update);
                }
            }
            other => {
                for update in mapper.map(other) {
                    session::notify(&server.outbox, &s.id, update);
                }
            }
        }
    }
    session::pump(s.clone(), server.outbox.clone(), events, mapper);
    let mode = *s.mode.lock().expect("mode");
    Ok(Answer {
        result: json!(acp::LoadSessionResponse::new().modes(modes(mode))),
        then: Some(s),
    })
}

/// One prompt: a slash command runs as in the TUI, anything else is one turn. Called in
/// the order prompts arrive (the session is claimed before the next line is read); the
/// answer is what the returned receiver gets when the turn ends.
pub fn prompt(
    server: &Arc<Server>,
    params: Value,
) -> Result<tokio::sync::oneshot::Receiver<session::TurnEnd>, RpcError> {
    let s = server.session(&params)?;
    let req: acp::PromptRequest = parse(params)?;
    let text =
        super::prompt::text_of(&req.prompt, &s.workspace).map_err(RpcError::invalid_params)?;
    let Some(done) = s.begin_turn() else {
        return Err(RpcError::new(
            code::INVALID_REQUEST,
            format!("a prompt is already running on session {}", s.id),
        ));
    };
    let say = |text: String| {
        session::notify(
            &server.outbox,
            &s.id,
            acp::SessionUpdate::AgentMessageChunk(chunk(&text)),
        );
    };
    let end_turn = || {
        s.end_turn(Ok(json!(acp::PromptResponse::new(
            acp::StopReason::EndTurn
        ))));
    };
    // A command file or skill added since the last look runs now, and the editor hears of it.
    if s.refresh_commands() {
        session::announce_commands(&server.outbox, &s);
    }
    match commands::parse(&text, &s.file_commands()) {
        Parsed::Prompt => {
            s.send(AgentCommand::Submit { text });
        }
        Parsed::File { prompt } => {
            s.send(AgentCommand::Submit { text: prompt });
        }
        Parsed::Builtin { name, args } => match name {
            "compact" => {
                s.compacting
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                s.send(AgentCommand::Compact {
                    instructions: (!args.is_empty()).then_some(args),
                });
            }
            "clear" | "new" => {
                s.send(AgentCommand::NewConversation);
                say("Started a new conversation.".into());
                end_turn();
            }
            "model" if args.is_empty() => {
                say(format!("model: {}", s.model.lock().expect("model")));
                end_turn();
            }
            "model" => {
                s.send(AgentCommand::SetModel {
                    model: args.clone(),
                });
                say(format!("Requests use {args} from now on."));
                end_turn();
            }
            "cost" | "status" => {
                say(status_text(&s, name == "status"));
                end_turn();
            }
            "init" => {
                say(match crate::prompt::init_template::write(&s.workspace) {
                    Ok((path, lines)) => format!("Wrote {} ({lines} lines).", path.display()),
                    Err(e) => format!("/init: {e}"),
                });
                end_turn();
            }
            "rewind" => {
                match args.parse::<usize>() {
                    Ok(to) if to >= 1 => {
                        s.send(AgentCommand::Rewind(RewindRequest {
                            to,
                            files: false,
                            conversation: false,
                            overwrite_conflicts: false,
                        }));
                        say(format!("Rewound to just before prompt {to}."));
                    }
                    _ => say("/rewind N: the prompt to go back to, counted from 1".into()),
                }
                end_turn();
            }
            _ => {
                say(format!("/{name} is not available here"));
                end_turn();
            }
        },
    }
    Ok(done)
}

/// `/cost` and `/status`.
fn status_text(s: &Session, full: bool) -> String {
    let usage = s.usage.lock().expect("usage").clone();
    let mut out = match usage {
        Some(u) => format!(
            "context: {} of {} tokens; cost: {}",
            u.context_tokens,
            u.window,
            u.cost_usd
                .map(|c| format!("${c:.4}"))
                .unwrap_or_else(|| "unknown for this model".into())
        ),
        None => "no request yet".to_string(),
    };
    if full {
        out = format!(
            "session: {}\nmodel: {}\nworkspace: {}\nmode: {}\n{out}",
            s.id,
            s.model.lock().expect("model"),
            s.workspace.display(),
            s.mode.lock().expect("mode").as_str()
        );
    }
    out
}

//! `tooloop acp`: the third front end. An editor speaks the Agent Client Protocol (v1,
//! newline-delimited JSON-RPC 2.0) on stdin/stdout; each of its sessions is an engine built
//! by `main`'s [`Builder`] and driven with the same commands and events as the TUI and
//! headless mode (no second loop). Nothing but protocol messages is written to stdout.

mod commands;
mod files;
mod handlers;
mod permission;
mod prompt;
mod replay;
mod session;
pub mod transport;
pub mod updates;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::engine::Builder;
use session::Session;
use transport::{Incoming, Outbox, RpcError, code};

/// Everything the protocol loop shares with the tasks it starts.
pub(crate) struct Server {
    builder: Builder,
    outbox: Arc<Outbox>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    initialized: AtomicBool,
    /// The file methods the client serves (from `initialize`).
    client_fs: Mutex<files::ClientFs>,
}

impl Server {
    fn session(&self, params: &Value) -> Result<Arc<Session>, RpcError> {
        let id = params
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("missing \"sessionId\""))?;
        self.sessions
            .lock()
            .expect("sessions")
            .get(id)
            .cloned()
            .ok_or_else(|| RpcError::unknown_session(id))
    }
}

/// Most bytes the writer gathers before it writes (lines waiting beyond it go next).
const WRITE_BATCH: usize = 64 * 1024;

/// Serves ACP on the process's stdin/stdout until stdin closes; returns the exit status.
pub async fn run(builder: Builder) -> i32 {
    serve(builder, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`run`] on any pair of streams (tests drive it in memory).
pub async fn serve<R, W>(builder: Builder, input: R, mut output: W) -> i32
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outbox, mut lines) = Outbox::new();
    let server = Arc::new(Server {
        builder,
        outbox: Arc::new(outbox),
        sessions: Mutex::new(HashMap::new()),
        initialized: AtomicBool::new(false),
        client_fs: Mutex::new(files::ClientFs::default()),
    });
    let writer = tokio::spawn(async move {
        // Every line waiting goes out in one write and one flush: a write to tokio's stdout
        // is a hop to a blocking thread, too dear to pay per streamed chunk.
        let mut batch = String::new();
        while let Some(line) = lines.recv().await {
            batch.clear();
            batch.push_str(&line);
            batch.push('\n');
            while batch.len() < WRITE_BATCH {
                let Ok(more) = lines.try_recv() else { break };
                batch.push_str(&more);
                batch.push('\n');
            }
            if output.write_all(batch.as_bytes()).await.is_err() || output.flush().await.is_err() {
                tracing::warn!("acp: stdout is closed");
                break;
            }
        }
    });
    let mut input = BufReader::new(input);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!("acp: reading stdin failed: {e}");
                break;
            }
        }
        if let Some(message) = transport::read_line(&buf) {
            dispatch(&server, message);
        }
    }
    // Stdin closed: every turn ends as a cancel would, every session is saved.
    tracing::info!("acp: stdin closed; ending every session");
    let sessions: Vec<Arc<Session>> = server
        .sessions
        .lock()
        .expect("sessions")
        .drain()
        .map(|(_, s)| s)
        .collect();
    for s in sessions {
        s.stop(&server.outbox).await;
    }
    drop(server);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    0
}

fn dispatch(server: &Arc<Server>, message: Incoming) {
    match message {
        Incoming::Invalid { id, error } => server.outbox.respond(id, Err(error)),
        Incoming::Response { id, answer } => server.outbox.resolve(&id, answer),
        Incoming::Notification { method, params } => {
            if method == "session/cancel" {
                match server.session(&params) {
                    Ok(s) => s.cancel(&server.outbox),
                    Err(e) => tracing::warn!("acp: session/cancel: {}", e.message),
                }
            } else {
                // Notifications get no answer, even unknown ones (JSON-RPC 2.0).
                tracing::debug!("acp: notification {method} ignored");
            }
        }
        Incoming::Request { id, method, params } => {
            if method == "initialize" {
                let answer = handlers::initialize(&params);
                if answer.is_ok() {
                    *server.client_fs.lock().expect("client_fs") =
                        files::ClientFs::from_initialize(&params);
                    server.initialized.store(true, Ordering::SeqCst);
                }
                server.outbox.respond(id, answer);
                return;
            }
            if !handlers::KNOWN.contains(&method.as_str()) {
                let error =
                    RpcError::new(code::METHOD_NOT_FOUND, format!("unknown method {method:?}"));
                server.outbox.respond(id, Err(error));
                return;
            }
            if !server.initialized.load(Ordering::SeqCst) {
                let error = RpcError::new(
                    code::INVALID_REQUEST,
                    format!("{method} before initialize: send initialize first"),
                );
                server.outbox.respond(id, Err(error));
                return;
            }
            if method == "session/prompt" {
                match handlers::prompt(server, params) {
                    Err(e) => server.outbox.respond(id, Err(e)),
                    Ok(done) => {
                        let outbox = server.outbox.clone();
                        tokio::spawn(async move {
                            let end = done.await.unwrap_or_else(|_| {
                                Err(RpcError::new(
                                    code::INTERNAL_ERROR,
                                    "the session ended during the prompt",
                                ))
                            });
                            outbox.respond(id, end);
                        });
                    }
                }
                return;
            }
            let server = server.clone();
            tokio::spawn(async move {
                match handlers::request(&server, &method, params).await {
                    Ok(answer) => {
                        server.outbox.respond(id, Ok(answer.result));
                        if let Some(s) = answer.then {
                            session::announce_commands(&server.outbox, &s);
                        }
                    }
                    Err(e) => {
                        tracing::info!("acp: {method} failed: {}", e.message);
                        server.outbox.respond(id, Err(e));
                    }
                }
            });
        }
    }
}

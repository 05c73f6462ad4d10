//! One configured MCP server: started once at launch, restarted on its next call after a
//! crash (at most [`MAX_RESTARTS`] times a session), and its state kept for the front ends.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, RequestMetaObject};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::ServerConfig;
use super::connect::{Client, Lookup, connect};
use super::result::to_output;
use crate::protocol::status::{ServerState, ServerStatus};
use crate::tools::ToolOutput;

pub const MAX_RESTARTS: u32 = 3;

/// A tool as the server announced it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub read_only: bool,
}

/// Why a server did not start (or restart); its text is the state's `error`.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Connect(#[from] super::connect::ConnectError),
    #[error("tools/list failed: {0}")]
    List(ServiceError),
    #[error("did not start within {0} s (startup_timeout_secs)")]
    Timeout(u64),
    #[error(
        "MCP server {0} is down and was already restarted {MAX_RESTARTS} times this session; \
         it is not restarted again"
    )]
    RestartsUsed(String),
    #[error("MCP server {server} could not be restarted: {source}")]
    Restart {
        server: String,
        source: Box<StartError>,
    },
    #[error("MCP server {0} is not running")]
    NotRunning(String),
}

/// Called whenever a server's state changes.
pub type StatusSink = Arc<dyn Fn(ServerStatus) + Send + Sync>;

pub struct McpServer {
    pub config: ServerConfig,
    workspace: PathBuf,
    lookup: Arc<Lookup>,
    client: tokio::sync::Mutex<Option<Arc<Client>>>,
    restarts: Mutex<u32>,
    status: Mutex<ServerStatus>,
    on_status: StatusSink,
    /// Tools the server listed that cannot be offered, each with why (said in a notice).
    left_out: Mutex<Vec<String>>,
    /// Its notifications (the same flag across restarts).
    handler: super::notify::Handler,
}

impl McpServer {
    pub fn new(
        config: ServerConfig,
        workspace: PathBuf,
        lookup: Arc<Lookup>,
        on_status: StatusSink,
    ) -> Self {
        let status = ServerStatus {
            server: config.name.clone(),
            state: ServerState::Starting,
            tools: Vec::new(),
            error: None,
            prompts: Vec::new(),
            resources: Vec::new(),
        };
        McpServer {
            config,
            workspace,
            lookup,
            client: tokio::sync::Mutex::new(None),
            restarts: Mutex::new(0),
            status: Mutex::new(status),
            on_status,
            left_out: Mutex::new(Vec::new()),
            handler: super::notify::Handler::default(),
        }
    }

    pub fn status(&self) -> ServerStatus {
        self.status
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    fn set_status(&self, state: ServerState, tools: Option<Vec<String>>, error: Option<String>) {
        let snapshot = {
            let mut s = self.status.lock().unwrap_or_else(|p| p.into_inner());
            s.state = state;
            if let Some(t) = tools {
                s.tools = t;
            }
            s.error = error;
            s.clone()
        };
        (self.on_status)(snapshot);
    }

    /// Marks the server failed (its start task died).
    pub fn fail(&self, why: String) {
        self.set_status(ServerState::Failed, Some(Vec::new()), Some(why));
    }

    /// Connects and lists the tools, within the startup timeout.
    pub async fn start(&self) -> Result<Vec<ToolDef>, StartError> {
        let started = tokio::time::timeout(self.config.startup_timeout, async {
            let client = connect(
                &self.config,
                &self.workspace,
                self.lookup.as_ref(),
                self.handler.clone(),
            )
            .await?;
            let tools = client
                .peer()
                .list_all_tools()
                .await
                .map_err(StartError::List)?;
            Ok::<_, StartError>((client, tools))
        })
        .await
        .unwrap_or(Err(StartError::Timeout(
            self.config.startup_timeout.as_secs(),
        )));
        let (client, tools) = match started {
            Ok(pair) => pair,
            Err(e) => {
                self.set_status(ServerState::Failed, Some(Vec::new()), Some(e.to_string()));
                return Err(e);
            }
        };
        let defs = self.offered_defs(&tools);
        // Prompts and resources are listed after the tools, outside the startup timeout: a
        // server slow to list them still offers its tools.
        let catalog = super::catalog::list(&client, &self.config.name).await;
        self.set_catalog_quietly(catalog);
        *self.client.lock().await = Some(Arc::new(client));
        self.set_ready(&defs);
        Ok(defs)
    }

    /// After a `list_changed` notification: the tools listed again (None when nothing
    /// changed, or the server cannot answer; its calls say why then).
    pub async fn relist(&self) -> Option<Vec<ToolDef>> {
        if !self.handler.take_tools_changed() {
            return None;
        }
        let client = self.client.lock().await.clone()?;
        let tools = match client.peer().list_all_tools().await {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(server = %self.config.name, "tools/list after list_changed: {e}");
                return None;
            }
        };
        let defs = self.offered_defs(&tools);
        self.set_ready(&defs);
        Some(defs)
    }

    /// After `prompts/list_changed` or `resources/list_changed`: both listed again, and the
    /// front ends told (the `/` menu and `@` completion follow).
    pub async fn relist_catalog(&self) {
        let Some(client) = self.client.lock().await.clone() else {
            return;
        };
        let catalog = super::catalog::list(&client, &self.config.name).await;
        self.set_catalog_quietly(catalog);
        let snapshot = self.status();
        (self.on_status)(snapshot);
    }

    fn set_catalog_quietly(&self, catalog: super::catalog::Catalog) {
        let mut s = self.status.lock().unwrap_or_else(|p| p.into_inner());
        s.prompts = catalog.prompts;
        s.resources = catalog.resources;
    }

    /// Its notifications' handler (the manager waits on its catalog changes).
    pub fn handler(&self) -> &super::notify::Handler {
        &self.handler
    }

    fn set_ready(&self, defs: &[ToolDef]) {
        let names = defs
            .iter()
            .map(|d| super::config::qualified_name(&self.config.name, &d.name))
            .collect();
        self.set_status(ServerState::Ready, Some(names), None);
    }

    /// The listed tools this server offers; those no API would take are kept for a notice.
    fn offered_defs(&self, tools: &[rmcp::model::Tool]) -> Vec<ToolDef> {
        let mut defs = Vec::new();
        let mut left_out = Vec::new();
        for v in tools.iter().filter_map(|t| serde_json::to_value(t).ok()) {
            match tool_def(&v) {
                Some(Ok(d)) if self.config.offers(&d.name) => defs.push(d),
                Some(Err((name, why))) if self.config.offers(&name) => left_out.push(format!(
                    "{}: {why}",
                    super::config::qualified_name(&self.config.name, &name)
                )),
                _ => {}
            }
        }
        *self.left_out.lock().unwrap_or_else(|p| p.into_inner()) = left_out;
        defs
    }

    /// The tools it listed that were left out, and why (taken: said once).
    pub fn take_left_out(&self) -> Vec<String> {
        std::mem::take(&mut *self.left_out.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The client for a prompt or a resource: the live one, or the server restarted.
    pub(super) async fn client_for_use(&self) -> Result<Arc<Client>, StartError> {
        self.live_client().await
    }

    /// A request failed because the server is gone: it is marked failed, and restarted on
    /// its next use. Any other error leaves it as it is.
    pub(super) async fn lost_if_down(&self, e: &ServiceError) -> Option<String> {
        if !matches!(
            e,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        ) {
            return None;
        }
        let why = format!("crashed during the call ({e})");
        *self.client.lock().await = None;
        self.set_status(ServerState::Failed, None, Some(why.clone()));
        Some(why)
    }

    /// The live client, restarting a crashed server (within the restart budget).
    async fn live_client(&self) -> Result<Arc<Client>, StartError> {
        {
            let guard = self.client.lock().await;
            if let Some(c) = guard.as_ref()
                && !c.is_closed()
            {
                return Ok(c.clone());
            }
        }
        let attempt = {
            let mut r = self.restarts.lock().unwrap_or_else(|p| p.into_inner());
            if *r >= MAX_RESTARTS {
                return Err(StartError::RestartsUsed(self.config.name.clone()));
            }
            *r += 1;
            *r
        };
        tracing::info!(server = %self.config.name, attempt, "restarting MCP server");
        self.set_status(ServerState::Starting, None, None);
        self.start().await.map_err(|e| StartError::Restart {
            server: self.config.name.clone(),
            source: Box::new(e),
        })?;
        self.client
            .lock()
            .await
            .clone()
            .ok_or_else(|| StartError::NotRunning(self.config.name.clone()))
    }

    /// Calls `tool`; `traceparent` (telemetry on) goes into the request's `params._meta`,
    /// where the MCP trace-context convention has servers look for their caller's span.
    /// Dropping this future (abort, timeout) sends `notifications/cancelled`.
    pub async fn call(
        &self,
        tool: &str,
        input: Value,
        traceparent: Option<String>,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let client = match self.live_client().await {
            Ok(c) => c,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = input {
            params = params.with_arguments(map);
        }
        if let Some(value) = traceparent {
            let mut meta = RequestMetaObject::new();
            meta.set_traceparent(value);
            params.meta = Some(meta);
        }
        let result = tokio::select! {
            biased;
            _ = cancel.cancelled() => return ToolOutput::error("cancelled"),
            r = client.peer().call_tool(params) => r,
        };
        match result {
            Ok(r) => match serde_json::to_value(&r) {
                Ok(v) => to_output(&v),
                Err(e) => ToolOutput::error(format!("unreadable MCP result: {e}")),
            },
            Err(ServiceError::McpError(e)) => ToolOutput::error(format!(
                "MCP server {} answered with an error: {}",
                self.config.name, e.message
            )),
            Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                let why = self.lost_if_down(&e).await.unwrap_or_default();
                ToolOutput::error(format!(
                    "MCP server {} {why}; it will be restarted on its next call",
                    self.config.name
                ))
            }
            Err(e) => ToolOutput::error(format!("MCP server {}: {e}", self.config.name)),
        }
    }

    /// Closes the connection (a stdio server's process is ended).
    pub async fn shutdown(&self) {
        let client = self.client.lock().await.take();
        if let Some(c) = client.and_then(|c| Arc::try_unwrap(c).ok()) {
            let _ = c.cancel().await;
        }
    }
}

/// A tool from its spec JSON; None for one without a usable name, Err (name, why) for one
/// no model API would take.
fn tool_def(v: &Value) -> Option<Result<ToolDef, (String, String)>> {
    let name = v.get("name")?.as_str()?.to_string();
    if name.is_empty() {
        return None;
    }
    let mut schema = v
        .get("inputSchema")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    // The model APIs require an object schema; servers sometimes omit "type".
    if let Value::Object(map) = &mut schema {
        map.entry("type").or_insert_with(|| "object".into());
    }
    // Anything else would make every request fail (the API refuses the whole list).
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        let found = match schema.get("type") {
            Some(t) => format!("type {}", crate::text::ellipsize(&t.to_string(), 40)),
            None => "not a JSON object".to_string(),
        };
        return Some(Err((
            name,
            format!("its input schema is not an object ({found}); the tool is left out"),
        )));
    }
    Some(Ok(ToolDef {
        description: v
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        read_only: v
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        input_schema: schema,
        name,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_defs_from_the_spec_shape() {
        let d = tool_def(&json!({
            "name": "slow_read",
            "description": "reads slowly",
            "inputSchema": {"properties": {"ms": {"type": "integer"}}},
            "annotations": {"readOnlyHint": true}
        }))
        .unwrap()
        .unwrap();
        assert!(d.read_only);
        assert_eq!(d.input_schema["type"], "object");
        let w = tool_def(&json!({"name": "write", "inputSchema": {"type": "object"}}))
            .unwrap()
            .unwrap();
        assert!(!w.read_only, "no annotation means unsafe");
        assert!(tool_def(&json!({"name": ""})).is_none());
        assert!(tool_def(&json!({"description": "nameless"})).is_none());
        for bad in [
            json!({"type": "string"}),
            json!("x"),
            json!({"type": ["object"]}),
        ] {
            let (name, why) = tool_def(&json!({"name": "s", "inputSchema": bad}))
                .unwrap()
                .unwrap_err();
            assert_eq!(name, "s");
            assert!(why.contains("not an object"), "{why}");
        }
    }
}

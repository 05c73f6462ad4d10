//! Starting one MCP server connection with rmcp: a child process over stdio (its stderr goes
//! to the log file, never the screen) or a streamable HTTP endpoint.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;

use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::config::{ServerConfig, Transport, expand_env};

/// A live client session with one server.
pub type Client = RunningService<RoleClient, super::notify::Handler>;

/// Environment lookups for `${VAR}` in env and header values.
pub type Lookup = dyn Fn(&str) -> Option<String> + Send + Sync;

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error("bad header {0:?}")]
    Header(String),
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
}

/// Connects and completes the MCP handshake. `workspace` is where a relative `cwd` (and a
/// stdio server without one) runs.
pub async fn connect(
    server: &ServerConfig,
    workspace: &Path,
    lookup: &Lookup,
    handler: super::notify::Handler,
) -> Result<Client, ConnectError> {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args);
            crate::child_trace_context::apply(&mut cmd);
            for (k, v) in env {
                cmd.env(k, expand_env(v, lookup));
            }
            cmd.current_dir(match cwd {
                Some(dir) => workspace.join(dir),
                None => workspace.to_path_buf(),
            });
            let (transport, stderr) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|source| ConnectError::Spawn {
                    command: command.clone(),
                    source,
                })?;
            if let Some(stderr) = stderr {
                let name = server.name.clone();
                tokio::spawn(async move {
                    let mut lines = BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::info!(target: "tooloop::mcp", server = %name, "stderr: {line}");
                    }
                });
            }
            handler
                .serve(transport)
                .await
                .map_err(|e| ConnectError::Handshake(crate::text::ellipsize(&e.to_string(), 300)))
        }
        Transport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (k, v) in headers {
                let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                    .map_err(|_| ConnectError::Header(k.clone()))?;
                let value = reqwest::header::HeaderValue::from_str(&expand_env(v, lookup))
                    .map_err(|_| ConnectError::Header(k.clone()))?;
                custom.insert(name, value);
            }
            // Installed once per process; a second call only says it already is.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            config.custom_headers = custom;
            let transport = StreamableHttpClientTransport::from_config(config);
            handler
                .serve(transport)
                .await
                .map_err(|e| ConnectError::Handshake(crate::text::ellipsize(&e.to_string(), 300)))
        }
    }
}

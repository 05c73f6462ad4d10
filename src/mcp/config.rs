//! `[mcp.servers.NAME]` in config.toml: a stdio server (`command`, `args`, `env`, `cwd`) or a
//! streamable HTTP one (`url`, `headers`). Header and env values may name environment
//! variables as `${VAR}`, so secrets stay out of the file; the expanded values are never
//! logged or written to a transcript.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// The `[mcp]` section.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct McpSection {
    /// `defer = "auto"|"auto:N"|true|false`: when MCP tool definitions stay out of the
    /// request until `tool_search` finds them (defer.rs).
    pub defer: Option<super::defer::DeferSetting>,
    #[serde(default)]
    pub servers: BTreeMap<String, ServerSpec>,
}

/// One `[mcp.servers.NAME]` table as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    pub enabled: Option<bool>,
    pub startup_timeout_secs: Option<u64>,
    pub tool_timeout_secs: Option<u64>,
    pub tools_allow: Option<Vec<String>>,
    #[serde(default)]
    pub tools_deny: Vec<String>,
    /// `defer = false`: this server's tools are always sent, whatever `[mcp] defer` says.
    pub defer: Option<bool>,
}

/// How to reach a server.
#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// A server ready to be started.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    pub startup_timeout: Duration,
    pub tool_timeout: Duration,
    pub tools_allow: Option<Vec<String>>,
    pub tools_deny: Vec<String>,
    /// `[mcp] defer` as it applies to this server (`Off` when the server says `defer = false`).
    pub defer: super::defer::DeferSetting,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum McpConfigError {
    #[error("mcp.servers.{0}: set either `command` (stdio) or `url` (HTTP), not both")]
    Both(String),
    #[error("mcp.servers.{0}: needs `command` (stdio) or `url` (HTTP)")]
    Neither(String),
    #[error(
        "mcp.servers.{0}: a server name may hold only letters, digits, '-' and '_' \
         (it becomes part of tool names like mcp__NAME__tool)"
    )]
    BadName(String),
    #[error("mcp.servers.{server}: url {url:?} must start with http:// or https://")]
    BadUrl { server: String, url: String },
}

impl ServerSpec {
    /// The server as configured, or None when `enabled = false`.
    pub fn resolve(&self, name: &str) -> Result<Option<ServerConfig>, McpConfigError> {
        self.resolve_with(name, super::defer::DeferSetting::default())
    }

    /// The server with the section's `defer` setting (its own `defer = false` wins).
    pub fn resolve_with(
        &self,
        name: &str,
        defer: super::defer::DeferSetting,
    ) -> Result<Option<ServerConfig>, McpConfigError> {
        if self.enabled == Some(false) {
            return Ok(None);
        }
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            || name.contains("__")
        {
            return Err(McpConfigError::BadName(name.to_string()));
        }
        let transport = match (&self.command, &self.url) {
            (Some(_), Some(_)) => return Err(McpConfigError::Both(name.into())),
            (None, None) => return Err(McpConfigError::Neither(name.into())),
            (Some(command), None) => Transport::Stdio {
                command: command.clone(),
                args: self.args.clone(),
                env: self.env.clone(),
                cwd: self.cwd.clone(),
            },
            (None, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(McpConfigError::BadUrl {
                        server: name.into(),
                        url: url.clone(),
                    });
                }
                Transport::Http {
                    url: url.clone(),
                    headers: self.headers.clone(),
                }
            }
        };
        Ok(Some(ServerConfig {
            name: name.to_string(),
            transport,
            startup_timeout: self
                .startup_timeout_secs
                .map(Duration::from_secs)
                .unwrap_or(DEFAULT_STARTUP_TIMEOUT),
            tool_timeout: self
                .tool_timeout_secs
                .map(Duration::from_secs)
                .unwrap_or(DEFAULT_TOOL_TIMEOUT),
            tools_allow: self.tools_allow.clone(),
            tools_deny: self.tools_deny.clone(),
            defer: if self.defer == Some(false) {
                super::defer::DeferSetting::Off
            } else {
                defer
            },
        }))
    }
}

impl McpSection {
    /// Every enabled server, in name order.
    pub fn resolve(&self) -> Result<Vec<ServerConfig>, McpConfigError> {
        let mut out = Vec::new();
        for (name, spec) in &self.servers {
            if let Some(s) = spec.resolve_with(name, self.defer.unwrap_or_default())? {
                out.push(s);
            }
        }
        Ok(out)
    }
}

impl ServerConfig {
    /// Whether the server's tool `tool` is offered to the model.
    pub fn offers(&self, tool: &str) -> bool {
        let allowed = self
            .tools_allow
            .as_ref()
            .is_none_or(|allow| allow.iter().any(|a| a == tool));
        allowed && !self.tools_deny.iter().any(|d| d == tool)
    }
}

/// Replaces `${VAR}` with the variable's value (empty when unset). Everything else is kept
/// as written.
pub fn expand_env(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&lookup(&after[..end]).unwrap_or_default());
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The longest tool name the model APIs accept.
const MAX_NAME: usize = 64;

/// `mcp__SERVER__TOOL`, with characters the model APIs refuse in a tool name replaced by
/// `_` and cut to their length limit.
pub fn qualified_name(server: &str, tool: &str) -> String {
    let name: String = format!("mcp__{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.chars().take(MAX_NAME).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_shapes_parse() {
        let text = r#"
            [servers.files]
            command = "npx"
            args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
            env = { DEBUG = "1" }
            tools_deny = ["write_file"]

            [servers.remote]
            url = "http://127.0.0.1:8931/mcp"
            headers = { Authorization = "Bearer ${REMOTE_TOKEN}" }
            startup_timeout_secs = 3
            tool_timeout_secs = 30

            [servers.off]
            command = "x"
            enabled = false
        "#;
        let section: McpSection = toml::from_str(text).unwrap();
        let servers = section.resolve().unwrap();
        assert_eq!(servers.len(), 2, "a disabled server is left out");
        assert_eq!(servers[0].name, "files");
        assert!(!servers[0].offers("write_file"));
        assert!(servers[0].offers("read_file"));
        assert_eq!(servers[1].startup_timeout, Duration::from_secs(3));
        assert!(matches!(servers[1].transport, Transport::Http { .. }));
        assert_eq!(servers[0].tool_timeout, DEFAULT_TOOL_TIMEOUT);
    }

    #[test]
    fn bad_tables_are_errors_naming_the_server() {
        let spec = ServerSpec::default();
        assert_eq!(spec.resolve("x"), Err(McpConfigError::Neither("x".into())));
        let both = ServerSpec {
            command: Some("a".into()),
            url: Some("http://x".into()),
            ..ServerSpec::default()
        };
        assert_eq!(both.resolve("x"), Err(McpConfigError::Both("x".into())));
        let cmd = ServerSpec {
            command: Some("a".into()),
            ..ServerSpec::default()
        };
        assert!(matches!(
            cmd.resolve("a__b"),
            Err(McpConfigError::BadName(_))
        ));
        assert!(matches!(
            cmd.resolve("a b"),
            Err(McpConfigError::BadName(_))
        ));
        let url = ServerSpec {
            url: Some("file:///etc".into()),
            ..ServerSpec::default()
        };
        assert!(matches!(
            url.resolve("u"),
            Err(McpConfigError::BadUrl { .. })
        ));
    }

    #[test]
    fn allow_list_and_deny_list() {
        let spec = ServerSpec {
            command: Some("a".into()),
            tools_allow: Some(vec!["echo".into(), "slow".into()]),
            tools_deny: vec!["slow".into()],
            ..ServerSpec::default()
        };
        let s = spec.resolve("s").unwrap().unwrap();
        assert!(s.offers("echo"));
        assert!(!s.offers("slow"));
        assert!(!s.offers("other"));
    }

    #[test]
    fn env_references_expand() {
        let lookup = |k: &str| (k == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(expand_env("Bearer ${TOKEN}", &lookup), "Bearer s3cret");
        assert_eq!(expand_env("${MISSING}x", &lookup), "x");
        assert_eq!(
            expand_env("plain $TOKEN ${unterminated", &lookup),
            "plain $TOKEN ${unterminated"
        );
    }

    #[test]
    fn qualified_names_fit_the_api() {
        assert_eq!(qualified_name("srv", "echo"), "mcp__srv__echo");
        assert_eq!(qualified_name("srv", "a.b/c d"), "mcp__srv__a_b_c_d");
        assert_eq!(qualified_name("srv", &"x".repeat(100)).len(), MAX_NAME);
    }
}

//! Deferred MCP tool definitions (issue 39): past a share of the context window, MCP tools'
//! definitions stay out of the request and the model finds them with `tool_search`
//! (tool_search.rs). Found tools join the request's `tools` at the end, in the order they
//! were found, and stay for the session: the list only ever grows at its tail, so the
//! prefix a provider caches is never reordered.
//!
//! Every MCP tool is still registered (a deferred tool named exactly runs); only what the
//! request offers changes.

use serde::Deserialize;

// The state lives with the registry that offers the tools (tools/deferral.rs); the setting,
// the decision and the search are MCP's.
pub use crate::tools::deferral::{DeferStats, Deferral, Entry, offered};

/// `[mcp] defer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferSetting {
    /// Defer when the MCP tools' definitions exceed this percent of the context window.
    Auto(u8),
    On,
    Off,
}

/// Claude Code's threshold: a tenth of the window.
pub const DEFAULT_PERCENT: u8 = 10;

impl Default for DeferSetting {
    fn default() -> Self {
        DeferSetting::Auto(DEFAULT_PERCENT)
    }
}

/// A `[mcp] defer` value that is none of the accepted shapes.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("defer = {0:?}: expected \"auto\", \"auto:N\" (N a percent, 1-100), true or false")]
pub struct BadDeferSetting(pub String);

impl DeferSetting {
    /// `"auto"`, `"auto:N"` (N percent, 1–100).
    pub fn parse(text: &str) -> Result<Self, BadDeferSetting> {
        let bad = || BadDeferSetting(text.to_string());
        match text.strip_prefix("auto") {
            Some("") => Ok(DeferSetting::default()),
            Some(rest) => {
                let n: u8 = rest
                    .strip_prefix(':')
                    .and_then(|n| n.trim().parse().ok())
                    .ok_or_else(bad)?;
                if (1..=100).contains(&n) {
                    Ok(DeferSetting::Auto(n))
                } else {
                    Err(bad())
                }
            }
            None => Err(bad()),
        }
    }
}

impl<'de> Deserialize<'de> for DeferSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(true) => Ok(DeferSetting::On),
            Raw::Bool(false) => Ok(DeferSetting::Off),
            Raw::Text(t) => DeferSetting::parse(&t).map_err(serde::de::Error::custom),
        }
    }
}

/// Estimated tokens of a definition as sent (the context estimate's 4 bytes a token).
pub fn spec_tokens(spec: &crate::message::ToolSpec) -> u64 {
    let len = serde_json::to_vec(&serde_json::json!({
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
    }))
    .map_or(0, |v| v.len());
    (len as u64).div_ceil(4)
}

/// The tool error for a call of a tool that does not exist: the tools offered, and with
/// deferral on, where the rest are.
pub fn no_such_tool(registry: &crate::tools::ToolRegistry, name: &str) -> String {
    let deferral = registry.deferral();
    let offered: Vec<&str> = registry
        .names()
        .filter(|n| deferral.is_none_or(|d| !d.is_hidden(n)))
        .collect();
    let mut text = format!(
        "Error: no such tool: {name}. Available tools: {}",
        offered.join(", ")
    );
    if let Some(d) = deferral {
        let hidden = d.stats().deferred;
        text.push_str(&format!(
            ". {hidden} more MCP tools are deferred: call {} to find one by keywords or \
             select:NAME.",
            super::tool_search::NAME
        ));
    }
    text
}

/// Whether to defer, given the setting, the tokens of every MCP tool definition and the
/// context window.
pub fn should_defer(setting: DeferSetting, mcp_tokens: u64, window: u64) -> bool {
    match setting {
        DeferSetting::On => true,
        DeferSetting::Off => false,
        DeferSetting::Auto(pct) => mcp_tokens * 100 > window * u64::from(pct),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn settings_parse_from_toml_shapes() {
        #[derive(Deserialize)]
        struct T {
            defer: DeferSetting,
        }
        let p = |s: &str| toml::from_str::<T>(s).map(|t| t.defer);
        assert_eq!(p("defer = \"auto\"").unwrap(), DeferSetting::Auto(10));
        assert_eq!(p("defer = \"auto:25\"").unwrap(), DeferSetting::Auto(25));
        assert_eq!(p("defer = true").unwrap(), DeferSetting::On);
        assert_eq!(p("defer = false").unwrap(), DeferSetting::Off);
        for bad in [
            "\"auto:0\"",
            "\"auto:101\"",
            "\"auto:x\"",
            "\"sometimes\"",
            "3",
        ] {
            assert!(p(&format!("defer = {bad}")).is_err(), "{bad}");
        }
    }

    #[test]
    fn auto_compares_with_the_window_share() {
        assert!(!should_defer(DeferSetting::Auto(10), 20_000, 200_000));
        assert!(should_defer(DeferSetting::Auto(10), 20_001, 200_000));
        assert!(should_defer(DeferSetting::On, 1, 200_000));
        assert!(!should_defer(DeferSetting::Off, 1_000_000, 200_000));
    }

    #[test]
    fn found_tools_keep_their_order_and_stats_add_up() {
        let entry = |t| Entry {
            description: String::new(),
            tokens: t,
        };
        let d = Deferral::new(BTreeMap::from([
            ("a".to_string(), entry(10)),
            ("b".to_string(), entry(20)),
            ("c".to_string(), entry(30)),
        ]));
        assert!(d.is_hidden("b"));
        assert_eq!(d.load(&["c", "zz", "a"]), ["c", "a"]);
        assert_eq!(d.load(&["a", "b"]), ["b"]);
        assert_eq!(d.loaded(), ["c", "a", "b"]);
        assert!(!d.is_hidden("b"));
        d.keep_only(&|n| n != "a");
        assert_eq!(d.loaded(), ["c", "b"]);
        let s = d.stats();
        assert_eq!((s.loaded, s.loaded_tokens), (2, 50));
        assert_eq!((s.deferred, s.deferred_tokens), (1, 10));
    }
}

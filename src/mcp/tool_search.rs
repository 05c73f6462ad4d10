//! `tool_search`: how the model finds deferred MCP tools (defer.rs). `{query}` ranks them by
//! name and description (search_rank.rs); `select:NAME,NAME` picks exact ones. The tools it
//! returns are offered from the next request on.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::search_rank::rank;
use crate::tools::args::{one_line, optional_str};
use crate::tools::deferral::Deferral;
use crate::tools::{Effect, Tool, ToolContext, ToolOutput};

pub const NAME: &str = "tool_search";
pub const DEFAULT_RESULTS: usize = 5;
const MAX_RESULTS: u64 = 20;

pub struct ToolSearch {
    deferral: Arc<Deferral>,
    /// Fixed when deferral starts: it names the servers whose tools are deferred, so the
    /// model knows what is there to find; it never changes (the cached prefix holds it).
    description: String,
}

impl ToolSearch {
    pub fn new(deferral: Arc<Deferral>) -> Self {
        let mut servers: Vec<(String, usize)> = Vec::new();
        for name in deferral.entries().keys() {
            let server = name
                .strip_prefix("mcp__")
                .and_then(|r| r.split("__").next())
                .unwrap_or("?")
                .to_string();
            match servers.iter_mut().find(|(s, _)| *s == server) {
                Some((_, n)) => *n += 1,
                None => servers.push((server, 1)),
            }
        }
        let listed = servers
            .iter()
            .map(|(s, n)| format!("{s} ({n})"))
            .collect::<Vec<_>>()
            .join(", ");
        let description = format!(
            "Find tools that are not loaded yet. {} tools of these MCP servers are deferred: \
             {listed}. Their definitions are not in your tool list until you find them: call \
             this with a few keywords of what you need (query \"create github issue\"), or \
             with \"select:NAME,NAME\" for tools whose exact names you know. The tools found \
             can be called from your next step on. Returns at most {DEFAULT_RESULTS} by \
             default.",
            deferral.entries().len()
        );
        ToolSearch {
            deferral,
            description,
        }
    }

    /// The matched names for an input, or what was wrong with it.
    fn find(&self, query: &str, limit: usize) -> Result<Vec<String>, FindError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(FindError::Empty);
        }
        if let Some(list) = query.strip_prefix("select:") {
            let mut found = Vec::new();
            let mut unknown = Vec::new();
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                if self.deferral.is_deferred(name) {
                    found.push(name.to_string());
                } else {
                    unknown.push(name);
                }
            }
            if !unknown.is_empty() && found.is_empty() {
                return Err(FindError::NoSuchTool(unknown.join(", ")));
            }
            return Ok(found);
        }
        let docs: Vec<(&str, &str)> = self
            .deferral
            .entries()
            .iter()
            .map(|(n, e)| (n.as_str(), e.description.as_str()))
            .collect();
        Ok(rank(&docs, query, limit)
            .into_iter()
            .map(str::to_string)
            .collect())
    }
}

/// What the model's query got wrong (the tool error it reads).
#[derive(Debug, thiserror::Error)]
enum FindError {
    #[error("Error: query is empty; give keywords or select:NAME")]
    Empty,
    #[error("Error: no deferred tool named {0}; search with keywords instead")]
    NoSuchTool(String),
}

#[async_trait]
impl Tool for ToolSearch {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords, or select:NAME,NAME for exact tool names"},
                "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "description": "How many tools to return (default 5)"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn summary(&self, input: &Value) -> String {
        one_line(optional_str(input, "query").unwrap_or(""), 60)
    }

    async fn run(&self, input: Value, _ctx: ToolContext) -> ToolOutput {
        let query = optional_str(&input, "query").unwrap_or("");
        let limit = input
            .get("max_results")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_RESULTS as u64)
            .clamp(1, MAX_RESULTS) as usize;
        let names = match self.find(query, limit) {
            Ok(n) => n,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        if names.is_empty() {
            return ToolOutput::ok(format!(
                "No deferred tool matches {query:?}. Try other keywords ({} tools are deferred).",
                self.deferral.entries().len()
            ));
        }
        self.deferral.load(&names);
        let mut out = format!(
            "Found {} tool{}; they are in your tool list from now on:",
            names.len(),
            if names.len() == 1 { "" } else { "s" }
        );
        for name in &names {
            let desc = self
                .deferral
                .entries()
                .get(name)
                .map(|e| crate::text::ellipsize(e.description.lines().next().unwrap_or(""), 200))
                .unwrap_or_default();
            out.push_str(&format!("\n- {name}: {desc}"));
        }
        let mut output = ToolOutput::ok(out);
        if self.deferral.loads_by_reference() {
            // The API puts each definition where its reference is: the tools list (and
            // the cached prefix) stays as it was.
            output.references = names;
        }
        output
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::deferral::Entry;
    use std::collections::BTreeMap;

    fn search() -> ToolSearch {
        let e = |d: &str| Entry {
            description: d.into(),
            tokens: 100,
        };
        ToolSearch::new(Arc::new(Deferral::new(BTreeMap::from([
            (
                "mcp__gh__create_issue".to_string(),
                e("Create a GitHub issue"),
            ),
            ("mcp__gh__list_issues".to_string(), e("List GitHub issues")),
            ("mcp__slack__post".to_string(), e("Post to a Slack channel")),
        ]))))
    }

    fn ctx() -> ToolContext {
        let ws = crate::tools::Workspace::new(&std::env::temp_dir(), false).unwrap();
        ToolContext::for_workspace(Arc::new(ws))
    }

    #[tokio::test]
    async fn search_loads_what_it_finds() {
        let s = search();
        assert!(s.description().contains("gh (2), slack (1)"));
        let out = s.run(json!({"query": "slack post"}), ctx()).await;
        assert!(!out.is_error);
        assert!(out.content.contains("mcp__slack__post"), "{}", out.content);
        assert_eq!(s.deferral.loaded(), ["mcp__slack__post"]);
        let out = s
            .run(json!({"query": "select:mcp__gh__list_issues, nope"}), ctx())
            .await;
        assert!(out.content.contains("mcp__gh__list_issues"));
        assert_eq!(
            s.deferral.loaded(),
            ["mcp__slack__post", "mcp__gh__list_issues"]
        );
    }

    #[tokio::test]
    async fn bad_queries_are_clear() {
        let s = search();
        let out = s.run(json!({"query": "  "}), ctx()).await;
        assert!(out.is_error);
        let out = s.run(json!({"query": "select:nope"}), ctx()).await;
        assert!(out.is_error && out.content.contains("nope"));
        let out = s.run(json!({"query": "weather"}), ctx()).await;
        assert!(!out.is_error && out.content.starts_with("No deferred tool"));
        let out = s
            .run(json!({"query": "issue", "max_results": 1}), ctx())
            .await;
        assert!(out.content.starts_with("Found 1 tool;"), "{}", out.content);
        assert!(s.deferral.loaded().len() == 1);
    }
}

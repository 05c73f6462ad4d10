//! The mock's rules for deferred tool loading (Anthropic's tool search, issue 39), like the
//! Messages API's:
//!
//! - `defer_loading` needs the `advanced-tool-use-2025-11-20` beta and a boolean;
//! - not every tool may be deferred (the model would have nothing to search with);
//! - a `tool_reference` block (only inside a `tool_result`) must name a tool in `tools`.
//!
//! For accounting (`anthropic_cache.rs`): a deferred definition is not part of the prompt
//! (it costs nothing where it stands in `tools`), and each `tool_reference` is replaced by the
//! definition it names, where it stands, so the prefix before it never changes.

use std::collections::HashMap;

use serde_json::{Value, json};

pub const BETA: &str = "advanced-tool-use-2025-11-20";

fn deferred(t: &Value) -> bool {
    t["defer_loading"] == true
}

/// The API's checks; `betas` is the request's `anthropic-beta` header.
pub fn validate(body: &Value, betas: Option<&str>) -> Result<(), String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let beta_on = betas.is_some_and(|b| b.split(',').any(|b| b.trim() == BETA));
    for (i, t) in tools.iter().enumerate() {
        let Some(flag) = t.get("defer_loading") else {
            continue;
        };
        if !beta_on {
            return Err(format!(
                "tools.{i}.custom.defer_loading: Extra inputs are not permitted"
            ));
        }
        if !flag.is_boolean() {
            return Err(format!(
                "tools.{i}.custom.defer_loading: Input should be a valid boolean"
            ));
        }
        if flag == true && t.get("cache_control").is_some() {
            return Err(format!(
                "tools.{i}: cache_control cannot be set on a tool with defer_loading"
            ));
        }
    }
    if !tools.is_empty() && tools.iter().all(deferred) {
        return Err(
            "All tools have defer_loading set. At least one tool must be non-deferred.".into(),
        );
    }
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for (i, m) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (j, b) in m["content"].as_array().into_iter().flatten().enumerate() {
            if b["type"] == "tool_reference" {
                return Err(format!(
                    "messages.{i}.content.{j}: `tool_reference` blocks are only allowed inside `tool_result` content"
                ));
            }
            if b["type"] != "tool_result" {
                continue;
            }
            for r in b["content"].as_array().into_iter().flatten() {
                if r["type"] != "tool_reference" {
                    continue;
                }
                let name = r["tool_name"].as_str().unwrap_or("");
                if !beta_on {
                    return Err(format!(
                        "messages.{i}.content.{j}.tool_result.content: tool_reference blocks require the {BETA} beta"
                    ));
                }
                if !names.contains(&name) {
                    return Err(format!(
                        "Tool reference '{name}' has no corresponding tool definition"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A tool as it counts in the prompt: nothing when deferred.
pub fn tool_segment(t: &Value) -> Option<Value> {
    (!deferred(t)).then(|| t.clone())
}

/// The definitions `tool_reference` blocks expand to, by name (without `defer_loading`).
pub fn definitions(body: &Value) -> HashMap<String, Value> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let mut t = t.clone();
            let name = t["name"].as_str()?.to_string();
            if let Value::Object(m) = &mut t {
                m.remove("defer_loading");
                m.remove("cache_control");
            }
            Some((name, t))
        })
        .collect()
}

/// A message block with each `tool_reference` in its result replaced by the definition.
pub fn expand(block: &Value, defs: &HashMap<String, Value>) -> Value {
    if block["type"] != "tool_result" || !block["content"].is_array() {
        return block.clone();
    }
    let mut out = block.clone();
    if let Some(items) = out["content"].as_array_mut() {
        for item in items.iter_mut() {
            if item["type"] == "tool_reference"
                && let Some(def) = item["tool_name"].as_str().and_then(|n| defs.get(n))
            {
                *item = json!({"type": "tool_definition", "definition": def});
            }
        }
    }
    out
}

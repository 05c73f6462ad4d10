//! A server's prompts and resources (issue 39): listed at start and again after its
//! `prompts/list_changed` or `resources/list_changed`, read from the JSON shape of the spec
//! (as [`super::result`] reads tool results), so a server's odd entry is skipped, never a
//! panic.

use rmcp::ServiceError;
use serde_json::Value;

use super::connect::Client;
use crate::protocol::status::{PromptArg, PromptInfo, ResourceInfo};

/// Entries a server's list is cut to: the menu and the completion stay usable.
const MAX_ENTRIES: usize = 500;

/// What the server offers besides tools; empty lists for what it does not advertise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    pub prompts: Vec<PromptInfo>,
    pub resources: Vec<ResourceInfo>,
}

/// Lists the prompts and resources (and resource templates) the server advertises. A list
/// that fails is empty (and logged): prompts and resources are extras, the tools still work.
pub async fn list(client: &Client, server: &str) -> Catalog {
    let caps = client.peer().peer_info().map(|i| i.capabilities.clone());
    let (has_prompts, has_resources) = caps.as_ref().map_or((false, false), |c| {
        (c.prompts.is_some(), c.resources.is_some())
    });
    let mut catalog = Catalog::default();
    if has_prompts {
        match client.peer().list_all_prompts().await {
            Ok(all) => {
                catalog.prompts = all
                    .iter()
                    .filter_map(json_of)
                    .filter_map(|v| prompt(&v))
                    .collect()
            }
            Err(e) => warn(server, "prompts/list", &e),
        }
    }
    if has_resources {
        match client.peer().list_all_resources().await {
            Ok(all) => {
                catalog.resources = all
                    .iter()
                    .filter_map(json_of)
                    .filter_map(|v| resource(&v, false))
                    .collect()
            }
            Err(e) => warn(server, "resources/list", &e),
        }
        match client.peer().list_all_resource_templates().await {
            Ok(all) => catalog.resources.extend(
                all.iter()
                    .filter_map(json_of)
                    .filter_map(|v| resource(&v, true)),
            ),
            // Templates are optional in the spec: a server without them says "not found".
            Err(e) => tracing::debug!(server, "resources/templates/list: {e}"),
        }
    }
    catalog.prompts.truncate(MAX_ENTRIES);
    catalog.resources.truncate(MAX_ENTRIES);
    catalog
}

fn json_of<T: serde::Serialize>(t: &T) -> Option<Value> {
    serde_json::to_value(t).ok()
}

fn warn(server: &str, what: &str, e: &ServiceError) {
    tracing::warn!(server, "{what} failed: {e}");
}

/// A prompt from its spec JSON; None without a usable name (it could not be typed).
fn prompt(v: &Value) -> Option<PromptInfo> {
    let name = v.get("name")?.as_str()?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    let arguments = v
        .get("arguments")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .filter_map(|a| {
                    Some(PromptArg {
                        name: a.get("name")?.as_str()?.to_string(),
                        required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(PromptInfo {
        name: name.to_string(),
        description: one_line(v.get("description").and_then(Value::as_str).unwrap_or("")),
        arguments,
    })
}

fn resource(v: &Value, template: bool) -> Option<ResourceInfo> {
    let key = if template { "uriTemplate" } else { "uri" };
    let uri = v.get(key)?.as_str()?;
    if uri.is_empty() || uri.contains(char::is_whitespace) {
        return None;
    }
    Some(ResourceInfo {
        uri: uri.to_string(),
        name: one_line(v.get("name").and_then(Value::as_str).unwrap_or("")),
        template,
    })
}

/// Server text for a one-line menu entry: first line, control characters out, at most 120.
fn one_line(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    let clean: String = first.chars().filter(|c| !c.is_control()).collect();
    crate::text::ellipsize(clean.trim(), 120)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_and_resources_from_the_spec_shape() {
        let p = prompt(&json!({
            "name": "greet",
            "description": "Says hello\nsecond line \u{1b}[31m",
            "arguments": [{"name": "who", "required": true}, {"name": "style"}, {"nameless": 1}]
        }))
        .unwrap();
        assert_eq!(p.description, "Says hello");
        assert_eq!(
            p.arguments,
            [
                PromptArg {
                    name: "who".into(),
                    required: true
                },
                PromptArg {
                    name: "style".into(),
                    required: false
                }
            ]
        );
        assert!(prompt(&json!({"name": "has space"})).is_none());
        assert!(prompt(&json!({"name": ""})).is_none());
        assert!(prompt(&json!({"description": "x"})).is_none());
        let r = resource(&json!({"uri": "fx://a", "name": "A"}), false).unwrap();
        assert_eq!((r.uri.as_str(), r.template), ("fx://a", false));
        let t = resource(&json!({"uriTemplate": "fx://n/{id}", "name": "N"}), true).unwrap();
        assert!(t.template);
        assert!(resource(&json!({"uri": "a b"}), false).is_none());
    }
}

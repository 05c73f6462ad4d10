//! The MCP fixture's prompts and resources (issue 39), as the spec's JSON.
//!
//! Prompts: `greet` (`name` required, `style` optional: one text message), `review` (no
//! arguments: a text, an embedded resource and an image), `vanish` (the server exits while
//! getting it). Resources: `fixture://notes/readme` (text), `fixture://image/dot` (a PNG
//! blob), `fixture://vanish` (the server exits while reading it), and the template
//! `fixture://notes/{topic}`; any other URI is "resource not found". The tool `grow` adds
//! the prompt `later` and the resource `fixture://notes/later`, then sends
//! `prompts/list_changed` and `resources/list_changed`.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

pub const PNG: &str = "iVBORw0KGgo=";

static GROWN: AtomicBool = AtomicBool::new(false);

/// Called by the `grow` tool before it notifies.
pub fn grow() {
    GROWN.store(true, Ordering::SeqCst);
}

pub fn prompts() -> Value {
    let mut prompts = vec![
        json!({
            "name": "greet",
            "description": "Greets someone by name",
            "arguments": [
                {"name": "name", "description": "who", "required": true},
                {"name": "style", "description": "how"}
            ]
        }),
        json!({"name": "review", "description": "Reviews the notes, with a picture"}),
        json!({"name": "vanish", "description": "The server exits while getting it"}),
    ];
    if GROWN.load(Ordering::SeqCst) {
        prompts.push(json!({"name": "later", "description": "Appeared later"}));
    }
    json!({ "prompts": prompts })
}

/// `prompts/get`: Ok(result JSON), or Err(message) for an invalid-params error.
pub fn get_prompt(name: &str, args: &serde_json::Map<String, Value>) -> Result<Value, String> {
    let text =
        |role: &str, t: String| json!({"role": role, "content": {"type": "text", "text": t}});
    match name {
        "greet" => {
            let who = args
                .get("name")
                .and_then(Value::as_str)
                .ok_or("missing argument name")?;
            let style = args
                .get("style")
                .and_then(Value::as_str)
                .unwrap_or("plainly");
            Ok(json!({"messages": [text("user", format!("Say hello to {who}, {style}."))]}))
        }
        "review" => Ok(json!({"messages": [
            text("user", "Review these notes.".into()),
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": "fixture://notes/readme", "mimeType": "text/plain", "text": readme()
            }}},
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}
        ]})),
        "vanish" => std::process::exit(4),
        "later" if GROWN.load(Ordering::SeqCst) => {
            Ok(json!({"messages": [text("user", "The later prompt.".into())]}))
        }
        other => Err(format!("no prompt {other}")),
    }
}

fn readme() -> String {
    "The fixture's notes.\nSecond line.".into()
}

pub fn resources() -> Value {
    let mut resources = vec![
        json!({"uri": "fixture://notes/readme", "name": "readme", "mimeType": "text/plain"}),
        json!({"uri": "fixture://image/dot", "name": "dot", "mimeType": "image/png"}),
        json!({"uri": "fixture://vanish", "name": "vanish"}),
    ];
    if GROWN.load(Ordering::SeqCst) {
        resources.push(json!({"uri": "fixture://notes/later", "name": "later"}));
    }
    json!({ "resources": resources })
}

pub fn templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "fixture://notes/{topic}", "name": "notes on a topic"}
    ]})
}

/// `resources/read`: Ok(result JSON), or Err(message) for a not-found error.
pub fn read(uri: &str) -> Result<Value, String> {
    let contents = match uri {
        "fixture://notes/readme" => json!({"uri": uri, "mimeType": "text/plain", "text": readme()}),
        "fixture://image/dot" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
        "fixture://vanish" => std::process::exit(4),
        _ => match uri.strip_prefix("fixture://notes/") {
            Some(topic) if !topic.is_empty() => {
                json!({"uri": uri, "mimeType": "text/plain", "text": format!("Notes on {topic}.")})
            }
            _ => return Err(format!("resource {uri} not found")),
        },
    };
    Ok(json!({ "contents": [contents] }))
}

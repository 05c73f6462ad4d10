//! Validates `/v1/messages` requests like the real API, with its wording.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::reply::Reply;
use super::server::Recorded;

fn invalid(message: String) -> Reply {
    Reply::error(400, "invalid_request_error", &message)
}

/// Checks a `/v1/messages` request like the real API does.
pub fn validate(req: &Recorded) -> Result<(), Reply> {
    if req.method != "POST" {
        return Err(Reply::error(
            405,
            "invalid_request_error",
            "Method not allowed",
        ));
    }
    if req.header("x-api-key").is_none_or(str::is_empty) {
        return Err(Reply::error(
            401,
            "authentication_error",
            "x-api-key header is required",
        ));
    }
    if req.header("anthropic-version").is_none() {
        return Err(invalid("anthropic-version: header is required".into()));
    }
    let body = &req.body;
    if !body.is_object() {
        return Err(invalid(
            "There was an error parsing the body of your request as JSON".into(),
        ));
    }
    for field in ["model", "max_tokens", "messages"] {
        if body.get(field).is_none() {
            return Err(invalid(format!("{field}: Field required")));
        }
    }
    if body["max_tokens"].as_u64().is_none_or(|n| n < 1) {
        return Err(invalid(
            "max_tokens: Input should be greater than or equal to 1".into(),
        ));
    }
    if let Some(system) = body.get("system")
        && !(system.is_string() || system.is_array())
    {
        return Err(invalid("system: Input should be a valid string".into()));
    }
    validate_tools(body)?;
    super::anthropic_defer::validate(body, req.header("anthropic-beta")).map_err(invalid)?;
    super::anthropic_cache::validate_cache(body).map_err(invalid)?;
    let Some(messages) = body["messages"].as_array() else {
        return Err(invalid("messages: Input should be a valid list".into()));
    };
    validate_messages(messages).map_err(invalid)?;
    super::anthropic_thinking::validate(body).map_err(invalid)
}

fn validate_tools(body: &Value) -> Result<(), Reply> {
    if let Some(tools) = body.get("tools") {
        let Some(tools) = tools.as_array() else {
            return Err(invalid("tools: Input should be a valid list".into()));
        };
        let mut names = HashSet::new();
        for (i, t) in tools.iter().enumerate() {
            if t.get("type").is_some() {
                // A server tool (web_search_20250305, …): its own fields, no input_schema.
                super::web_search::validate_tool(i, t).map_err(invalid)?;
                if !names.insert(t["name"].as_str().unwrap_or("")) {
                    return Err(invalid("tools: Tool names must be unique.".into()));
                }
                continue;
            }
            let Some(name) = t["name"].as_str() else {
                return Err(invalid(format!("tools.{i}.name: Field required")));
            };
            if !t["input_schema"].is_object() {
                return Err(invalid(format!("tools.{i}.input_schema: Field required")));
            }
            if t["input_schema"]["type"] != "object" {
                return Err(invalid(format!(
                    "tools.{i}.custom.input_schema.type: Input should be 'object'"
                )));
            }
            if !names.insert(name) {
                return Err(invalid("tools: Tool names must be unique.".into()));
            }
        }
    }
    if let Some(choice) = body.get("tool_choice") {
        let ok = matches!(
            choice["type"].as_str(),
            Some("auto" | "any" | "tool" | "none")
        );
        if !ok {
            return Err(invalid("tool_choice.type: Input tag is not one of the expected tags: 'auto', 'any', 'tool', 'none'".into()));
        }
    }
    Ok(())
}

/// The content blocks of a message: the string form counts as one text block.
fn blocks(msg: &Value) -> Vec<Value> {
    match &msg["content"] {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

fn tool_use_ids(blocks: &[Value]) -> Vec<String> {
    blocks
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .filter_map(|b| b["id"].as_str().map(String::from))
        .collect()
}

fn validate_messages(messages: &[Value]) -> Result<(), String> {
    if messages.is_empty() {
        return Err("messages: at least one message is required".into());
    }
    let mut seen_ids = HashSet::new();
    for (i, msg) in messages.iter().enumerate() {
        let role = msg["role"].as_str().unwrap_or("");
        if role != "user" && role != "assistant" {
            return Err(format!(
                "messages.{i}.role: Input should be 'user' or 'assistant'"
            ));
        }
        if i == 0 && role != "user" {
            return Err("messages: first message must use the \"user\" role".into());
        }
        if i > 0 && messages[i - 1]["role"] == msg["role"] {
            return Err(format!(
                "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{role}\" roles in a row"
            ));
        }
        let content = blocks(msg);
        let is_final_assistant = i + 1 == messages.len() && role == "assistant";
        if content.is_empty() && !is_final_assistant {
            return Err(format!(
                "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            ));
        }
        super::web_search::validate_blocks(i, role, &content)?;
        super::images::validate_blocks(i, role, &content)?;
        for (j, b) in content.iter().enumerate() {
            let ty = b["type"].as_str().unwrap_or("");
            match (role, ty) {
                ("user", "tool_use") | ("assistant", "tool_result") => {
                    return Err(format!(
                        "messages.{i}.content.{j}: `{ty}` blocks are not allowed in {role} messages"
                    ));
                }
                (_, "text") if !b["text"].is_string() => {
                    return Err(format!(
                        "messages.{i}.content.{j}.text.text: Field required"
                    ));
                }
                (_, "tool_use") => {
                    let id = b["id"].as_str().unwrap_or("");
                    let id_ok = !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    if !id_ok {
                        return Err(format!(
                            "messages.{i}.content.{j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
                        ));
                    }
                    if !b["input"].is_object() {
                        return Err(format!(
                            "messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary"
                        ));
                    }
                    if !seen_ids.insert(id.to_string()) {
                        return Err(format!(
                            "messages.{i}.content.{j}: `tool_use` ids must be unique"
                        ));
                    }
                }
                _ => {}
            }
        }
        if role == "user" {
            let prev_ids: HashSet<String> = match i.checked_sub(1) {
                Some(p) => tool_use_ids(&blocks(&messages[p])).into_iter().collect(),
                None => HashSet::new(),
            };
            // The API wants the tool_result blocks first; text may only follow them.
            if !prev_ids.is_empty()
                && let Some(first_other) = content.iter().position(|b| b["type"] != "tool_result")
                && content[first_other..]
                    .iter()
                    .any(|b| b["type"] == "tool_result")
            {
                let mut ids: Vec<&str> = prev_ids.iter().map(String::as_str).collect();
                ids.sort();
                return Err(format!(
                    "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                    i - 1,
                    ids.join(", ")
                ));
            }
            for (j, b) in content.iter().enumerate() {
                if b["type"] != "tool_result" {
                    continue;
                }
                let id = b["tool_use_id"].as_str().unwrap_or("");
                if !prev_ids.contains(id) {
                    return Err(format!(
                        "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    ));
                }
            }
        }
        if role == "assistant" {
            final_block_not_thinking(i, &content)?;
            let ids = tool_use_ids(&content);
            // Only the tool_result blocks that open the next message answer: the API wants
            // them before any text, and names the ids as unanswered otherwise.
            let answered: HashSet<String> = messages
                .get(i + 1)
                .map(|next| {
                    blocks(next)
                        .iter()
                        .take_while(|b| b["type"] == "tool_result")
                        .filter_map(|b| b["tool_use_id"].as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let missing: Vec<&str> = ids
                .iter()
                .filter(|id| !answered.contains(*id))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                    missing.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// The API refuses an assistant message that ends in thinking (what a reply cut off after
/// its thinking blocks would leave), with this wording for redacted_thinking too.
fn final_block_not_thinking(i: usize, content: &[Value]) -> Result<(), String> {
    let last = content.last().and_then(|b| b["type"].as_str());
    if matches!(last, Some("thinking" | "redacted_thinking")) {
        return Err(format!(
            "messages.{i}: The final block in an assistant message cannot be `thinking`."
        ));
    }
    Ok(())
}

/// The tool_result blocks of a request's last message: (tool_use_id, content, is_error).
pub fn tool_results(req: &Recorded) -> Vec<(String, Value, bool)> {
    let Some(last) = req.body["messages"].as_array().and_then(|m| m.last()) else {
        return Vec::new();
    };
    blocks(last)
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            (
                b["tool_use_id"].as_str().unwrap_or("").to_string(),
                b["content"].clone(),
                b["is_error"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

//! Synthetic tools for the MCP fixture (`MCP_FIXTURE_SYNTHETIC=N`): N tools shaped like
//! those of common servers (issue trackers, chat, error monitoring, databases, browsers),
//! each with a realistic description and a schema of 3–6 described parameters, so a session
//! can carry the tens of thousands of tokens of definitions issue 39 is about.

use serde_json::{Map, Value, json};

const AREAS: &[(&str, &str)] = &[
    ("github", "a GitHub repository"),
    ("jira", "a Jira project"),
    ("slack", "a Slack workspace"),
    ("sentry", "a Sentry organization"),
    ("postgres", "a PostgreSQL database"),
    ("browser", "the automated browser"),
    ("grafana", "a Grafana instance"),
    ("notion", "a Notion workspace"),
    ("linear", "a Linear team"),
    ("s3", "an S3 bucket"),
];

const ACTIONS: &[(&str, &str, &str)] = &[
    (
        "list",
        "items",
        "Lists the items of {area}, newest first, with paging.",
    ),
    (
        "get",
        "item",
        "Gets one item of {area} by its identifier, with every field.",
    ),
    (
        "create",
        "item",
        "Creates a new item in {area} from a title and a body.",
    ),
    (
        "update",
        "item",
        "Updates the fields of an existing item in {area}.",
    ),
    (
        "delete",
        "item",
        "Deletes an item from {area}; this cannot be undone.",
    ),
    (
        "search",
        "items",
        "Searches {area} with a full-text query and filters.",
    ),
    ("comment", "item", "Adds a comment to an item in {area}."),
    (
        "assign",
        "item",
        "Assigns an item in {area} to a member of the team.",
    ),
    (
        "label",
        "item",
        "Adds or removes labels on an item in {area}.",
    ),
    (
        "export",
        "items",
        "Exports items of {area} as CSV or JSON for a date range.",
    ),
    (
        "watch",
        "item",
        "Subscribes to notifications about an item in {area}.",
    ),
    (
        "stats",
        "items",
        "Summarizes activity in {area}: counts by state and by week.",
    ),
    (
        "archive",
        "item",
        "Archives an item in {area} so it no longer shows in lists.",
    ),
    (
        "link",
        "item",
        "Links two items of {area} (blocks, duplicates, relates to).",
    ),
    (
        "history",
        "item",
        "Shows the change history of an item in {area}.",
    ),
];

/// The `i`-th synthetic tool: (name, description, schema).
pub fn tool(i: usize) -> (String, String, Value) {
    let (area, what) = AREAS[i % AREAS.len()];
    let (verb, noun, desc) = ACTIONS[(i / AREAS.len()) % ACTIONS.len()];
    let round = i / (AREAS.len() * ACTIONS.len());
    let suffix = if round == 0 {
        String::new()
    } else {
        format!("_v{}", round + 1)
    };
    let name = format!("{area}_{verb}_{noun}{suffix}");
    let description = format!(
        "{} Returns JSON. Requires the {area} token configured on the server; fails with \
         a permission error when the token lacks the scope for this action.",
        desc.replace("{area}", what)
    );
    let mut props = Map::new();
    props.insert(
        "workspace".into(),
        json!({"type": "string", "description": format!("The {area} workspace, org or project key")}),
    );
    props.insert(
        "id".into(),
        json!({"type": "string", "description": "Identifier of the item (as shown in its URL)"}),
    );
    props.insert(
        "fields".into(),
        json!({"type": "array", "items": {"type": "string"}, "description": "Fields to return; all when empty"}),
    );
    if i.is_multiple_of(2) {
        props.insert(
            "limit".into(),
            json!({"type": "integer", "minimum": 1, "maximum": 100, "description": "Most items to return (default 20)"}),
        );
    }
    if i.is_multiple_of(3) {
        props.insert(
            "state".into(),
            json!({"type": "string", "enum": ["open", "closed", "all"], "description": "Which items by state"}),
        );
    }
    if i.is_multiple_of(5) {
        props.insert(
            "since".into(),
            json!({"type": "string", "format": "date-time", "description": "Only items changed after this time (RFC 3339)"}),
        );
    }
    let schema = json!({
        "type": "object",
        "properties": props,
        "required": ["workspace"],
        "additionalProperties": false
    });
    (name, description, schema)
}

//! Reading tool input fields. The executor validates input against each schema first, but
//! `run` may be called directly (tests, benchmarks), so nothing here assumes the shape.

use serde_json::Value;

use super::ToolOutput;

/// A required string field, or an error result naming it.
pub fn required_str<'a>(input: &'a Value, key: &str) -> Result<&'a str, ToolOutput> {
    input
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolOutput::error(format!("Error: `{key}` (a string) is required")))
}

pub fn optional_str<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// A non-negative integer field; negative or fractional values count as absent (the
/// schema's minimum catches them before `run`).
pub fn optional_u64(input: &Value, key: &str) -> Option<u64> {
    input.get(key).and_then(Value::as_u64)
}

/// The path in `key` as a one-element list for `Tool::paths` (empty when absent).
pub fn path_field(input: &Value, key: &str) -> Vec<String> {
    optional_str(input, key)
        .map(|p| vec![p.to_string()])
        .unwrap_or_default()
}

pub fn flag(input: &Value, key: &str) -> bool {
    input.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A field cut to one line of at most `max` characters, for `summary()`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let mut out: String = first.chars().take(max).collect();
    if first.chars().count() > max || lines.next().is_some() {
        out.push('…');
    }
    out
}

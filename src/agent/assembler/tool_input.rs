//! A tool_use block's input: the concatenated JSON fragments, parsed once at block stop.

use serde_json::Value;

/// The input as an object, or why it is not one. Empty means `{}` (a tool without
/// parameters); `null` too. Some OpenAI-compatible servers encode the arguments twice, so
/// a JSON string holding an object is unwrapped. The API accepts only an object.
pub fn parse(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(Value::Null) => Ok(Value::Object(Default::default())),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err("the input is a JSON string, not an object".into()),
        },
        Ok(other) => Err(format!(
            "the input must be a JSON object, not {}",
            kind(&other)
        )),
        Err(e) => Err(e.to_string()),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_objects_are_inputs() {
        assert_eq!(parse(""), Ok(json!({})));
        assert_eq!(parse("  "), Ok(json!({})));
        assert_eq!(parse("null"), Ok(json!({})));
        assert_eq!(parse(r#"{"a":1}"#), Ok(json!({"a": 1})));
        assert_eq!(parse(r#""{\"a\":1}""#), Ok(json!({"a": 1})));
        assert!(parse("[1]").unwrap_err().contains("an array"));
        assert!(parse("5").unwrap_err().contains("a number"));
        assert!(parse(r#""x""#).unwrap_err().contains("JSON string"));
        assert!(parse(r#"{"a":"#).is_err());
    }
}

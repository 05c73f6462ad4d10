//! Tool input validation against each tool's JSON schema (the `jsonschema` crate).

use serde_json::Value;

/// A schema that does not compile (a runtime tool's, from outside).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(String);

/// Input that breaks the schema: every violation, shown in one line the model can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", violations.join("; "))]
pub struct InputError {
    pub violations: Vec<String>,
}

pub struct Validator {
    inner: jsonschema::Validator,
}

impl Validator {
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        jsonschema::validator_for(schema)
            .map(|inner| Validator { inner })
            .map_err(|e| SchemaError(e.to_string()))
    }

    /// Ok, or every violation in one line the model can act on.
    pub fn validate(&self, input: &Value) -> Result<(), InputError> {
        let violations: Vec<String> = self
            .inner
            .iter_errors(input)
            .map(|e| {
                let path = e.instance_path.to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                }
            })
            .collect();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(InputError { violations })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_missing_and_wrong_types() {
        let v = Validator::new(&json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["path"],
            "additionalProperties": false
        }))
        .expect("schema compiles");
        assert!(v.validate(&json!({"path": "a"})).is_ok());
        let e = v
            .validate(&json!({}))
            .expect_err("missing path")
            .to_string();
        assert!(e.contains("path"), "{e}");
        let e = v
            .validate(&json!({"path": 3, "limit": 0}))
            .expect_err("wrong types");
        assert_eq!(e.violations.len(), 2, "{e}");
        let e = e.to_string();
        assert!(e.contains("/path") && e.contains("/limit"), "{e}");
        assert!(v.validate(&json!("not an object")).is_err());
    }
}

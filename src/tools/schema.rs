//! Tool input validation against a tool's JSON schema (the `jsonschema` crate), for tools
//! without an input type of their own: an MCP server's, and tools made in tests.

use std::sync::{Arc, OnceLock};

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

/// A tool's schema and, once needed, its compiled form.
///
/// Compiling is what costs: each `jsonschema::Validator` holds its own resolver state, about
/// 0.5 MB and ~10 ms of CPU, so compiling all ~15 built-in schemas at start took the binary
/// from 29 to 42 MB, and compiling at a tool's first call delayed that call by 10–19 ms. The
/// built-in tools are checked through their input types instead (`input.rs`). A schema from
/// outside is compiled at once, so a bad one is refused when the tool registers; a lazy one
/// (a tool of ours without an input type) at its first call, or warmed as its block streams.
pub struct Validator {
    schema: Value,
    compiled: OnceLock<Result<jsonschema::Validator, SchemaError>>,
}

impl Validator {
    /// Compiled now: an error names what is wrong with the schema.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let v = Self::lazy(schema);
        v.compiled()?;
        Ok(v)
    }

    /// Compiled at the first [`Validator::validate`].
    pub fn lazy(schema: &Value) -> Self {
        Validator {
            schema: schema.clone(),
            compiled: OnceLock::new(),
        }
    }

    /// Compiles now on the blocking pool if nothing has yet: called when a tool_use block
    /// starts streaming, so the compile runs while its input arrives and the tool's first
    /// call does not wait for it.
    pub fn warm(self: &Arc<Self>) {
        if self.compiled.get().is_none() {
            let v = self.clone();
            tokio::task::spawn_blocking(move || {
                let _ = v.compiled();
            });
        }
    }

    fn compiled(&self) -> Result<&jsonschema::Validator, SchemaError> {
        self.compiled
            .get_or_init(|| {
                jsonschema::validator_for(&self.schema).map_err(|e| SchemaError(e.to_string()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Ok, or every violation in one line the model can act on.
    pub fn validate(&self, input: &Value) -> Result<(), InputError> {
        let inner = self.compiled().map_err(|e| InputError {
            violations: vec![format!("the tool's input schema does not compile: {e}")],
        })?;
        let violations: Vec<String> = inner
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

    #[tokio::test]
    async fn built_in_schemas_compile_on_first_use_or_when_warmed() {
        let v = Arc::new(Validator::lazy(&json!({"type": "object"})));
        assert!(
            v.compiled.get().is_none(),
            "nothing compiled at registration"
        );
        v.warm();
        for _ in 0..500 {
            if v.compiled.get().is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        assert!(matches!(v.compiled.get(), Some(Ok(_))), "warm compiled it");
        // A schema that does not compile is the call's error, not a panic.
        let bad = Validator::lazy(&json!({"type": 12}));
        let e = bad
            .validate(&json!({}))
            .expect_err("bad schema")
            .to_string();
        assert!(e.contains("does not compile"), "{e}");
    }

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

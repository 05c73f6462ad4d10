//! Built-in tools' input, checked by deserializing it into the tool's own input type.
//!
//! A compiled JSON-schema validator costs ~10 ms of CPU and ~0.5 MB each; compiling them at
//! start cost 12 MB, compiling at a tool's first call put 10–19 ms between the model's first
//! `tool_use` and the tool's start. The built-in tools know the shape of their input, so
//! serde checks it in microseconds; compiled validators stay for tools known only at run
//! time (MCP), whose schema is all there is (`schema.rs`).
//!
//! The input types hold only markers ([`Text`], [`Positive`], [`Flag`]): nothing is copied
//! (a write_file `content` may be megabytes), the types are the check. A field the schema
//! makes optional is `#[serde(default)]`, not `Option`, so an explicit `null` is refused as
//! the schema refuses it (`tests.rs` holds every built-in's type to its schema).

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};
use serde_json::Value;

use super::schema::InputError;

/// Checks one call's input; shared by every registry made from the one it was registered in.
pub type Check = Arc<dyn Fn(&Value) -> Result<(), InputError> + Send + Sync>;

/// The check for a tool whose input type is `T`.
pub fn check<T>() -> Check
where
    T: for<'de> Deserialize<'de> + 'static,
{
    Arc::new(typed::<T>)
}

/// Ok when `input` deserializes into `T`; else the first violation, with its place in the
/// input as a JSON pointer (`/todos/0/status: …`), the form the schema validator gives.
pub fn typed<T>(input: &Value) -> Result<(), InputError>
where
    T: for<'de> Deserialize<'de>,
{
    if !input.is_object() {
        return Err(violation(format!(
            "the input must be a JSON object, not {}",
            kind(input)
        )));
    }
    match serde_path_to_error::deserialize::<_, T>(input) {
        Ok(_) => Ok(()),
        Err(e) => {
            let mut pointer = String::new();
            for segment in e.path().iter() {
                use serde_path_to_error::Segment;
                match segment {
                    Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
                    Segment::Map { key } => {
                        pointer.push('/');
                        pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    }
                    Segment::Enum { .. } | Segment::Unknown => {}
                }
            }
            let message = e.into_inner().to_string();
            Err(violation(if pointer.is_empty() {
                message
            } else {
                format!("{pointer}: {message}")
            }))
        }
    }
}

/// A violation in the one-line form the model reads.
pub fn violation(message: String) -> InputError {
    InputError {
        violations: vec![message],
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

/// A string field (`"type": "string"`); its text is not kept.
#[derive(Default)]
pub struct Text;

/// An integer field with `"minimum": 1`.
#[derive(Default)]
pub struct Positive;

/// A boolean field.
#[derive(Default)]
pub struct Flag;

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Text, E> {
                Ok(Text)
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Positive;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer of at least 1")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Positive, E> {
                if n >= 1 {
                    Ok(Positive)
                } else {
                    Err(E::invalid_value(Unexpected::Unsigned(n), &self))
                }
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Positive, E> {
                if n >= 1 {
                    Ok(Positive)
                } else {
                    Err(E::invalid_value(Unexpected::Signed(n), &self))
                }
            }
        }
        d.deserialize_u64(V)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        bool::deserialize(d).map(|_| Flag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // the field types are the check
    struct Input {
        path: Text,
        #[serde(default)]
        limit: Positive,
        #[serde(default)]
        all: Flag,
    }

    fn error(input: Value) -> String {
        typed::<Input>(&input).expect_err("refused").to_string()
    }

    #[test]
    fn each_violation_names_its_field_and_what_was_expected() {
        assert!(typed::<Input>(&json!({"path": "a", "limit": 3, "all": true})).is_ok());
        assert_eq!(error(json!({})), "missing field `path`");
        assert_eq!(
            error(json!({"path": 3})),
            "/path: invalid type: integer `3`, expected a string"
        );
        assert_eq!(
            error(json!({"path": "a", "limit": 0})),
            "/limit: invalid value: integer `0`, expected an integer of at least 1"
        );
        assert_eq!(
            error(json!({"path": "a", "limit": 2.5})),
            "/limit: invalid type: floating point `2.5`, expected an integer of at least 1"
        );
        assert_eq!(
            error(json!({"path": "a", "all": null})),
            "/all: invalid type: null, expected a boolean"
        );
        assert_eq!(
            error(json!({"path": "a", "pat": "x"})),
            "/pat: unknown field `pat`, expected one of `path`, `limit`, `all`"
        );
        assert_eq!(
            error(json!(["path"])),
            "the input must be a JSON object, not an array"
        );
    }
}

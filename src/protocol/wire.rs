//! How an [`super::AgentEvent`] is written as JSON: the `serde` helpers its derive names.
//!
//! The written form is the `--record` line (src/recording) and the starting point of
//! stream-json's lines (src/headless/stream_json.rs), so it keeps the shape recordings have
//! always had:
//! a payload that is a struct of its own (usage, context, a subagent's info…) sits under one
//! key, a request carries its size beside its body, shared values (`Arc`) are written as
//! what they hold.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::provider::RequestBody;

/// A payload written under one key: `Usage(u)` → `{"type":"usage","usage":{…}}`.
macro_rules! under_key {
    ($name:ident, $key:literal) => {
        pub mod $name {
            use serde::{Deserialize, Deserializer, Serialize, Serializer};

            pub fn serialize<T: Serialize, S: Serializer>(
                value: &T,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry($key, value)?;
                map.end()
            }

            pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
                d: D,
            ) -> Result<T, D::Error> {
                #[derive(Deserialize)]
                struct Under<T> {
                    #[serde(rename = $key)]
                    value: T,
                }
                Under::<T>::deserialize(d).map(|u| u.value)
            }
        }
    };
}

under_key!(usage, "usage");
under_key!(status, "status");
under_key!(event, "event");
under_key!(summary, "summary");
under_key!(info, "info");
under_key!(report, "report");

/// `Arc<T>` written as the `T` it holds (serde's `rc` feature, for one field).
pub mod arc {
    use super::*;

    pub fn serialize<T: Serialize, S: Serializer>(value: &Arc<T>, s: S) -> Result<S::Ok, S::Error> {
        (**value).serialize(s)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Arc<T>, D::Error> {
        T::deserialize(d).map(Arc::new)
    }
}

/// `Arc<str>` written as a string.
pub mod arc_str {
    use super::*;

    pub fn serialize<S: Serializer>(value: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
        String::deserialize(d).map(Arc::from)
    }
}

/// `Vec<Arc<T>>` written as a list of the `T`s.
pub mod arc_vec {
    use super::*;

    pub fn serialize<T: Serialize, S: Serializer>(
        value: &[Arc<T>],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(value.iter().map(|v| &**v))
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<Arc<T>>, D::Error> {
        Vec::<T>::deserialize(d).map(|v| v.into_iter().map(Arc::new).collect())
    }
}

/// A request: its body as JSON and its size in bytes as sent (`"type":"request"`).
pub mod request {
    use super::*;

    #[derive(Serialize)]
    struct Out<'a> {
        turn: u32,
        attempt: u32,
        model: &'a str,
        bytes: usize,
        body: &'a Value,
    }

    #[derive(Deserialize)]
    struct In {
        turn: u32,
        attempt: u32,
        model: String,
        body: Value,
    }

    pub fn serialize<S: Serializer>(
        turn: &u32,
        attempt: &u32,
        model: &String,
        body: &Arc<RequestBody>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        Out {
            turn: *turn,
            attempt: *attempt,
            model,
            bytes: body.len(),
            body: body.json(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<(u32, u32, String, Arc<RequestBody>), D::Error> {
        let r = In::deserialize(d)?;
        Ok((
            r.turn,
            r.attempt,
            r.model,
            Arc::new(RequestBody::from(r.body)),
        ))
    }
}

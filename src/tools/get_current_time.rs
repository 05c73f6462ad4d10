//! get_current_time: the current date and time, in the system's or a named time zone.

use async_trait::async_trait;
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Value, json};

use super::args::{one_line, optional_str};
use super::input::{Check, Text, check};
use super::{Effect, Tool, ToolContext, ToolOutput};

pub struct GetCurrentTime;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    #[serde(default)]
    timezone: Text,
}

#[async_trait]
impl Tool for GetCurrentTime {
    fn name(&self) -> &str {
        "get_current_time"
    }
    fn description(&self) -> &str {
        "The current date and time as RFC 3339 with the UTC offset, the time zone and the \
         weekday. `timezone` is an IANA name such as Europe/Berlin or UTC (default: the \
         system's time zone)."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "timezone": {"type": "string", "description": "IANA time zone name, e.g. America/New_York"}
            },
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    fn summary(&self, input: &Value) -> String {
        // One line whatever the model sent (found by the tool_input fuzz target).
        one_line(optional_str(input, "timezone").unwrap_or("local time"), 40)
    }
    async fn run(&self, input: Value, _ctx: ToolContext) -> ToolOutput {
        match now_in(optional_str(&input, "timezone"), Timestamp::now()) {
            Ok(line) => ToolOutput::ok(line),
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

/// A time zone name the tz database does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Error: unknown time zone {0:?}; use an IANA name such as UTC, Europe/Berlin or \
     America/New_York"
)]
pub struct UnknownZone(pub String);

/// One line like `2026-12-01T06:30:00+00:00 (UTC, Tuesday)`.
pub fn now_in(timezone: Option<&str>, now: Timestamp) -> Result<String, UnknownZone> {
    let (tz, label) = match timezone.map(str::trim).filter(|t| !t.is_empty()) {
        Some(name) => {
            let tz = TimeZone::get(name).map_err(|_| UnknownZone(name.to_string()))?;
            (tz, name.to_string())
        }
        None => {
            let tz = TimeZone::system();
            let label = tz.iana_name().unwrap_or("system time zone").to_string();
            (tz, label)
        }
    };
    let zoned = now.to_zoned(tz);
    // Etc/UTC is what most containers call UTC; say the familiar name.
    let label = if label == "Etc/UTC" {
        "UTC".to_string()
    } else {
        label
    };
    Ok(format!(
        "{} ({label}, {})",
        zoned.strftime("%Y-%m-%dT%H:%M:%S%:z"),
        zoned.strftime("%A")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_in_a_named_zone_and_names_unknown_zones() {
        let t: Timestamp = "2026-12-01T06:30:00Z".parse().expect("timestamp");
        assert_eq!(
            now_in(Some("UTC"), t).expect("utc"),
            "2026-12-01T06:30:00+00:00 (UTC, Tuesday)"
        );
        assert_eq!(
            now_in(Some("Asia/Tokyo"), t).expect("tokyo"),
            "2026-12-01T15:30:00+09:00 (Asia/Tokyo, Tuesday)"
        );
        let e = now_in(Some("Mars/Olympus"), t).expect_err("unknown");
        assert_eq!(e, UnknownZone("Mars/Olympus".into()));
        assert!(e.to_string().contains("Mars/Olympus"), "{e}");
        assert!(now_in(None, t).is_ok());
    }
}

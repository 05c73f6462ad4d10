//! `[telemetry]` in the user's config file and the environment variables that beat it
//! (CLI.md). Only the user's own config.toml has this section: a project file the model
//! could write never turns exporting on.

use serde::Deserialize;

/// `[telemetry]` as written in config.toml.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySection {
    /// Export traces and metrics over OTLP (default false).
    pub enabled: Option<bool>,
    /// Put prompts and the model's text on the spans (default false).
    pub log_prompts: Option<bool>,
    /// Put tool inputs, outputs and hook commands on the spans (default false).
    pub log_tool_content: Option<bool>,
}

/// What a run exports. Off unless asked; content only with its own switch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub enabled: bool,
    pub log_prompts: bool,
    pub log_tool_content: bool,
}

/// The section, then `TOOLOOP_TELEMETRY` / `TOOLOOP_TELEMETRY_LOG_PROMPTS` (`1`/`true`/`on`
/// or `0`/`false`/`off`; anything else is ignored), then `OTEL_SDK_DISABLED=true`, which
/// the OpenTelemetry specification says turns every SDK off.
pub fn resolve(section: &TelemetrySection, env: &dyn Fn(&str) -> Option<String>) -> Settings {
    let switch = |name: &str| env(name).and_then(|v| parse_switch(&v));
    let disabled = env("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    Settings {
        enabled: !disabled
            && switch("TOOLOOP_TELEMETRY").unwrap_or(section.enabled.unwrap_or(false)),
        log_prompts: switch("TOOLOOP_TELEMETRY_LOG_PROMPTS")
            .unwrap_or(section.log_prompts.unwrap_or(false)),
        log_tool_content: section.log_tool_content.unwrap_or(false),
    }
}

fn parse_switch(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn off_unless_asked_and_the_environment_beats_the_file() {
        let none = TelemetrySection::default();
        assert_eq!(resolve(&none, &with(&[])), Settings::default());
        let on = TelemetrySection {
            enabled: Some(true),
            ..Default::default()
        };
        assert!(resolve(&on, &with(&[])).enabled);
        assert!(!resolve(&on, &with(&[("TOOLOOP_TELEMETRY", "0")])).enabled);
        assert!(resolve(&none, &with(&[("TOOLOOP_TELEMETRY", "1")])).enabled);
        // A value that says nothing leaves the file's choice.
        assert!(resolve(&on, &with(&[("TOOLOOP_TELEMETRY", "maybe")])).enabled);
        assert!(
            !resolve(
                &on,
                &with(&[("TOOLOOP_TELEMETRY", "1"), ("OTEL_SDK_DISABLED", "true")])
            )
            .enabled
        );
    }

    #[test]
    fn content_switches_are_separate() {
        let s = resolve(
            &TelemetrySection {
                enabled: Some(true),
                log_tool_content: Some(true),
                ..Default::default()
            },
            &with(&[("TOOLOOP_TELEMETRY_LOG_PROMPTS", "1")]),
        );
        assert!(s.log_prompts && s.log_tool_content);
        let s = resolve(&TelemetrySection::default(), &with(&[]));
        assert!(!s.log_prompts && !s.log_tool_content);
    }
}

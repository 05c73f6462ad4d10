//! The `[[hooks.EVENT]]` tables of config.toml, exactly as the README documents them:
//! `matcher` (a regex on the tool name; absent = every tool), `command` (run with `bash -c`
//! in the workspace) and `timeout_secs` (default 60).

use std::time::Duration;

use regex::Regex;
use serde::Deserialize;

/// A hook gets this long unless its table says otherwise.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// One `[[hooks.EVENT]]` table as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_secs: Option<u64>,
}

/// The `[hooks]` section: one list per event.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HooksSection {
    #[serde(default)]
    pub pre_tool_use: Vec<HookSpec>,
    #[serde(default)]
    pub post_tool_use: Vec<HookSpec>,
    #[serde(default)]
    pub user_prompt_submit: Vec<HookSpec>,
    #[serde(default)]
    pub stop: Vec<HookSpec>,
    #[serde(default)]
    pub pre_compact: Vec<HookSpec>,
}

impl HooksSection {
    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty()
            && self.post_tool_use.is_empty()
            && self.user_prompt_submit.is_empty()
            && self.stop.is_empty()
            && self.pre_compact.is_empty()
    }
}

/// A hook ready to run: its matcher compiled once, at start.
#[derive(Clone, Debug)]
pub struct Hook {
    pub matcher: Option<Regex>,
    pub command: String,
    pub timeout: Duration,
}

/// A matcher that does not compile is a config error, said at start, never a hook that
/// silently matches nothing.
#[derive(Debug, thiserror::Error)]
#[error("hooks.{event}: matcher {matcher:?} is not a valid regex: {source}")]
pub struct MatcherError {
    pub event: &'static str,
    pub matcher: String,
    #[source]
    pub source: regex::Error,
}

impl Hook {
    pub fn compile(event: &'static str, spec: &HookSpec) -> Result<Hook, MatcherError> {
        let matcher = match spec.matcher.as_deref().map(str::trim) {
            None | Some("") | Some("*") => None,
            // Anchored: `bash` must not also match `mcp__x__bash_like`.
            Some(m) => Some(
                Regex::new(&format!("^(?:{m})$")).map_err(|source| MatcherError {
                    event,
                    matcher: m.to_string(),
                    source,
                })?,
            ),
        };
        Ok(Hook {
            matcher,
            command: spec.command.clone(),
            timeout: spec
                .timeout_secs
                .map(Duration::from_secs)
                .unwrap_or(DEFAULT_HOOK_TIMEOUT),
        })
    }

    /// Whether this hook runs for `tool` (events without a tool always match).
    pub fn matches(&self, tool: Option<&str>) -> bool {
        match (&self.matcher, tool) {
            (Some(re), Some(name)) => re.is_match(name),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(matcher: Option<&str>) -> HookSpec {
        HookSpec {
            matcher: matcher.map(str::to_string),
            command: "true".into(),
            timeout_secs: None,
        }
    }

    #[test]
    fn matcher_is_an_anchored_regex_on_the_tool_name() {
        let h = Hook::compile("pre_tool_use", &spec(Some("bash|write_file"))).unwrap();
        assert!(h.matches(Some("bash")));
        assert!(h.matches(Some("write_file")));
        assert!(!h.matches(Some("mcp__x__bash_like")));
        assert!(!h.matches(Some("read_file")));
        let all = Hook::compile("pre_tool_use", &spec(None)).unwrap();
        assert!(all.matches(Some("anything")));
        let prefix = Hook::compile("pre_tool_use", &spec(Some("mcp__srv__.*"))).unwrap();
        assert!(prefix.matches(Some("mcp__srv__echo")));
        assert_eq!(h.timeout, DEFAULT_HOOK_TIMEOUT);
    }

    #[test]
    fn a_bad_matcher_is_an_error_naming_the_event() {
        let err = Hook::compile("post_tool_use", &spec(Some("("))).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("hooks.post_tool_use: matcher \"(\"")
        );
    }

    #[test]
    fn the_documented_toml_shape_parses() {
        let text = r#"
            [[pre_tool_use]]
            matcher = "bash|write_file"
            command = "./check.sh"
            timeout_secs = 30

            [[stop]]
            command = "./stop.sh"
        "#;
        let s: HooksSection = toml::from_str(text).unwrap();
        assert_eq!(s.pre_tool_use.len(), 1);
        assert_eq!(s.pre_tool_use[0].timeout_secs, Some(30));
        assert_eq!(s.stop[0].command, "./stop.sh");
        assert!(toml::from_str::<HooksSection>("[[pre_tool_use]]\ncommand='x'\nbogus=1").is_err());
    }
}

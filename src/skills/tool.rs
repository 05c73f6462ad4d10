//! The `skill` tool: `{"name": "…", "arguments": "…"}`. Its description lists the skills
//! the model may use (names and descriptions only); its result is the skill's body with the
//! folder's path, read from disk at the call. A skill's `allowed-tools` are allowed (and its
//! `model` used) until the prompt ends, within the mode, the sandbox and the deny rules
//! ([`super::active`]).

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::Catalog;
use crate::permission::PermissionPolicy;
use crate::tools::{Effect, Tool, ToolContext, ToolOutput};

pub const NAME: &str = "skill";

const INTRO: &str = "Use a skill: a folder of instructions (and sometimes scripts or \
references) for one kind of task. When a task matches a skill's description below, call this \
tool with its name before doing the task yourself; the result is the skill's instructions and \
its folder. `arguments` is optional text for the skill.\n\nAvailable skills:\n";

pub struct SkillTool {
    catalog: Arc<Catalog>,
    description: String,
    policy: Option<Arc<PermissionPolicy>>,
    active: Arc<super::active::Active>,
    home: Option<PathBuf>,
}

impl SkillTool {
    /// The tool over `catalog`, its listing capped for a window of `window_tokens`.
    /// `policy`: where a skill's `allowed-tools` are granted (None: they are not).
    pub fn new(
        catalog: Arc<Catalog>,
        window_tokens: u64,
        policy: Option<Arc<PermissionPolicy>>,
        active: Arc<super::active::Active>,
    ) -> SkillTool {
        let listing =
            super::listing::build(&catalog.skills, super::listing::cap_bytes(window_tokens));
        SkillTool {
            description: format!("{INTRO}{}", listing.text),
            catalog,
            policy,
            active,
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }
}

#[async_trait]
impl Tool for SkillTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name, as listed"},
                "arguments": {"type": "string", "description": "Optional text for the skill"}
            },
            "required": ["name"],
            "additionalProperties": false
        })
    }

    /// Reading instructions changes nothing.
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn summary(&self, input: &Value) -> String {
        input
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    }

    async fn run(&self, input: Value, _ctx: ToolContext) -> ToolOutput {
        let name = input.get("name").and_then(Value::as_str).unwrap_or("");
        let args = input.get("arguments").and_then(Value::as_str).unwrap_or("");
        let Some(skill) = self.catalog.get(name).filter(|s| s.model_invocable) else {
            let known: Vec<&str> = self
                .catalog
                .skills
                .iter()
                .filter(|s| s.model_invocable)
                .map(|s| s.name.as_str())
                .collect();
            return ToolOutput::error(format!(
                "no skill named {name:?}; the skills are: {}",
                if known.is_empty() {
                    "(none)".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        match self
            .active
            .invoke(skill, args, self.policy.as_deref(), self.home.as_deref())
        {
            Ok(text) => ToolOutput::ok(text),
            Err(e) => ToolOutput::error(format!("skill {name} cannot be read: {e}")),
        }
    }
}

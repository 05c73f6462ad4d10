//! A skill in use: what using one does, the same whether the model called the `skill` tool
//! or the user typed `/NAME args` — the body is read from disk, its `allowed-tools` are
//! granted and its `model` is used for the requests that follow, until the prompt ends.

use std::path::Path;
use std::sync::Mutex;

use super::{Skill, SkillError};
use crate::claude::rules::{Mapped, map};
use crate::permission::PermissionPolicy;

/// The model the skill in use asks for; shared between the `skill` tool and the loop,
/// which switches to it before its next request and back when the prompt ends.
#[derive(Debug, Default)]
pub struct Active {
    model: Mutex<Option<String>>,
}

impl Active {
    /// Uses `skill` with `args`: its text for the history (folder and body), its grants in
    /// `policy` (None: none are granted), its model wanted from the next request on.
    pub fn invoke(
        &self,
        skill: &Skill,
        args: &str,
        policy: Option<&PermissionPolicy>,
        home: Option<&Path>,
    ) -> Result<String, SkillError> {
        let body = skill.read_body()?;
        if let Some(policy) = policy {
            let rules = allowed_rules(&skill.allowed_tools, home);
            policy.grant_for_skill(&skill.name, &rules);
        }
        if let Some(model) = &skill.model
            && let Ok(mut slot) = self.model.lock()
        {
            *slot = Some(model.clone());
        }
        Ok(skill.expand(&body, args))
    }

    /// The model a skill in use wants (None: the session's).
    pub fn model(&self) -> Option<String> {
        self.model.lock().ok().and_then(|m| m.clone())
    }

    /// The prompt ended: so does the skill's model. Whether one was in use.
    pub fn end(&self) -> bool {
        self.model.lock().ok().and_then(|mut m| m.take()).is_some()
    }
}

/// `allowed-tools` entries (Claude Code's names and rule forms, or tooloop's) as tooloop
/// allow rules; entries naming tools tooloop lacks are dropped.
pub fn allowed_rules(entries: &[String], home: Option<&std::path::Path>) -> Vec<String> {
    entries
        .iter()
        .flat_map(|e| match map(e, false, home) {
            Mapped::Rules(r) => r,
            Mapped::Unused(_) => Vec::new(),
        })
        .collect()
}

//! `/NAME args` for a user-invocable skill, typed in the TUI or given to `-p`: the prompt
//! as typed stays the user's words, and the skill's text follows it in the same user
//! message ([`markers::user_skill`]). It is used the way the model's `skill` call uses it
//! ([`crate::skills::active::Active::invoke`]): body from disk, grants, model.
//!
//! Why a user-side block and not a `skill` tool call: a tool_use would be words the model
//! never said (a forged assistant turn); Claude Code also puts a typed skill on the user's
//! side. The history stays valid either way the skill came in.

use crate::message::ContentBlock;
use crate::message::markers;
use crate::protocol::AgentEvent;

use super::super::Agent;

/// The skill block for `prompt` when it is `/NAME args` naming a skill the user may run;
/// None for any other prompt (it is sent as typed).
pub(super) fn expand(agent: &Agent, prompt: &str) -> Option<ContentBlock> {
    let (name, args) = split(prompt)?;
    let state = agent.skills.as_ref()?;
    let skill = state.catalog.get(name).filter(|s| s.user_invocable)?;
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    match state
        .active
        .invoke(skill, args, Some(&agent.exec.policy), home.as_deref())
    {
        Ok(text) => Some(markers::user_skill(name, &text)),
        Err(e) => {
            agent.exec.events.send(AgentEvent::Notice {
                text: format!("skill {name} cannot be read: {e}; the prompt is sent as typed"),
            });
            None
        }
    }
}

/// `/NAME rest` → (NAME, rest); a slash followed by a path (`/tmp/x`) is no command.
pub(super) fn split(prompt: &str) -> Option<(&str, &str)> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then_some((name, args))
}

/// A skill in use that names a model: the requests from here on use it (the status bar
/// shows it), until the prompt ends.
pub(super) fn use_skill_model(agent: &Agent, current: &mut String) {
    let Some(model) = agent.skills.as_ref().and_then(|s| s.active.model()) else {
        return;
    };
    if model != *current {
        tracing::info!(from = %current, to = %model, "a skill's model");
        *current = model.clone();
        agent.exec.events.send(AgentEvent::ModelChanged { model });
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn a_command_is_a_name_then_its_arguments() {
        assert_eq!(split("/pdf fill form.pdf"), Some(("pdf", "fill form.pdf")));
        assert_eq!(split("  /changelog-writer"), Some(("changelog-writer", "")));
        assert_eq!(split("/pdf\nline two"), Some(("pdf", "line two")));
        assert_eq!(split("/tmp/x is a path"), None);
        assert_eq!(split("no slash"), None);
        assert_eq!(split("/"), None);
    }
}

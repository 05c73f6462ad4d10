//! `/hooks` on the agent's side: show a pending change of Claude Code's settings files (or
//! the hooks in force), apply exactly what was shown when the user accepts, or keep the old.
//! Answered with notices; it works the same whether a turn runs or not (an accepted change
//! holds from the next hook or permission decision on).

use std::sync::{Arc, Mutex};

use super::hook_calls::HookEnv;
use crate::claude::settings::{LOCAL, PROJECT, USER};
use crate::claude::watch::SettingsWatch;
use crate::hooks::Dialect;
use crate::permission::PermissionPolicy;
use crate::protocol::events::EventSink;
use crate::protocol::{AgentEvent, HooksAction};

/// The watch the loop checks before each request and `/hooks` reviews.
pub type SharedWatch = Arc<Mutex<SettingsWatch>>;

/// What a `/hooks` command reaches: cheap clones the agent task keeps while a turn runs.
#[derive(Clone)]
pub struct Review {
    pub watch: Option<SharedWatch>,
    pub hooks: Arc<HookEnv>,
    pub policy: Arc<PermissionPolicy>,
    pub events: EventSink,
}

impl Review {
    pub fn of(agent: &super::Agent) -> Review {
        Review {
            watch: agent.settings_watch.clone(),
            hooks: agent.exec.hooks.clone(),
            policy: agent.exec.policy.clone(),
            events: agent.exec.events.clone(),
        }
    }

    pub fn handle(&self, action: HooksAction) {
        let text = match (action, &self.watch) {
            (HooksAction::Show, Some(w)) => match lock(w).review() {
                Some(diff) => format!(
                    "{diff}/hooks accept: use these hooks and rules from now on · /hooks keep: \
                     keep those in force"
                ),
                None => crate::claude::review::active(&self.hooks.current()),
            },
            (HooksAction::Show, None) => crate::claude::review::active(&self.hooks.current()),
            (HooksAction::Accept, Some(w)) => {
                let accepted = lock(w).accept();
                match accepted {
                    Some((labels, settings)) => {
                        self.apply(&settings);
                        for text in settings.notices {
                            self.say(text);
                        }
                        format!(
                            "accepted: the hooks and permission rules of {} are in force from \
                             now on",
                            labels.join(", ")
                        )
                    }
                    None => "nothing to accept: /hooks shows a pending change first".into(),
                }
            }
            (HooksAction::Keep, Some(w)) => {
                let kept = lock(w).keep();
                if kept.is_empty() {
                    "nothing to keep: /hooks shows a pending change first".into()
                } else {
                    format!(
                        "kept the hooks and permission rules in force; the change of {} is not \
                         applied",
                        kept.join(", ")
                    )
                }
            }
            (_, None) => "no settings files are watched in this session".into(),
        };
        self.say(text);
    }

    /// Claude Code's hooks and rules rebuilt from the files' sections now in force;
    /// tooloop's own (config.toml) and a skill's grants stay as they are.
    fn apply(&self, settings: &crate::claude::settings::ClaudeSettings) {
        let mut hooks = self.hooks.current().without(Dialect::Claude);
        settings.add_hooks(&mut hooks);
        self.hooks.replace(hooks);
        self.policy.update_rules(|set| {
            for label in [USER, PROJECT, LOCAL] {
                set.remove_source(label);
            }
            settings.apply_rules(set);
        });
        // The front end's `/permissions` lists the rules now in force.
        let rules = self.policy.rules();
        self.events.send(AgentEvent::RulesChanged {
            rules: rules.lines(),
            unused: rules.unused().to_vec(),
        });
    }

    fn say(&self, text: String) {
        self.events.send(AgentEvent::Notice {
            text: crate::sanitize::sanitize(&text),
        });
    }
}

fn lock(w: &SharedWatch) -> std::sync::MutexGuard<'_, SettingsWatch> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

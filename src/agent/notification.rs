//! The Notification hooks (Claude Code's `Notification`): told when a question waits for
//! the person (`permission_prompt`) and when a turn ends while the terminal is unfocused
//! (`idle_prompt`, at once). Run beside the loop, never delaying it; what they say changes
//! nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Map;
use tokio_util::sync::CancellationToken;

use super::hook_calls::HookEnv;
use crate::hooks::HookEvent;
use crate::protocol::events::EventSink;

impl HookEnv {
    /// The flag the front end sets while its terminal is unfocused.
    pub fn unfocused_flag(&self) -> Arc<AtomicBool> {
        self.unfocused.clone()
    }

    /// Whether a hook listens for notifications (the front end then reports focus).
    pub fn wants_notifications(&self) -> bool {
        self.wants(HookEvent::Notification, Some(IDLE))
            || self.wants(HookEvent::Notification, Some(QUESTION))
    }

    /// The prompt ended: while the terminal is unfocused, the Notification hooks are told
    /// at once (`idle_prompt`), beside whatever comes next.
    pub fn turn_ended(self: &Arc<Self>, events: &EventSink) {
        if self.unfocused.load(Ordering::Relaxed) {
            notify(
                self,
                events,
                IDLE,
                "tooloop is waiting for your input".to_string(),
            );
        }
    }
}

/// Claude Code's `notification_type`s: a turn ended while unfocused, a question waits.
pub const IDLE: &str = "idle_prompt";
pub const QUESTION: &str = "permission_prompt";

/// Tells the Notification hooks matching `kind`, in the background.
pub fn notify(hooks: &Arc<HookEnv>, events: &EventSink, kind: &'static str, message: String) {
    if !hooks.wants(HookEvent::Notification, Some(kind)) {
        return;
    }
    let (hooks, events) = (hooks.clone(), events.clone());
    tokio::spawn(async move {
        let mut fields = Map::new();
        fields.insert("message".into(), message.into());
        fields.insert("notification_type".into(), kind.into());
        hooks
            .run(
                &events,
                HookEvent::Notification,
                Some(kind),
                fields,
                &CancellationToken::new(),
            )
            .await;
    });
}

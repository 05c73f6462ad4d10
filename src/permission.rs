//! Who may run tools that change things, and the ask/answer flow with the user.
//!
//! Decisions come only from the user side (an [`AgentCommand::PermissionReply`]), from the
//! mode, or from `--allow-tool`: nothing the model writes can grant anything.
//!
//! [`AgentCommand::PermissionReply`]: crate::agent::protocol::AgentCommand::PermissionReply

use crate::agent::protocol::approval::Decision;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::tools::Effect;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Every change needs consent.
    #[default]
    Ask,
    /// File edits inside the workspace are allowed; commands ask, unless the shell's
    /// sandbox is on (then they run unasked, contained).
    AutoEdit,
    /// Everything is allowed.
    Yolo,
    /// Changes are refused without asking.
    ReadOnly,
}

/// What the policy says before anyone is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Deny(String),
    Ask,
}

/// The outcome of asking, as the executor sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consent {
    Granted,
    /// Refused; the text becomes the tool's is_error result.
    Refused(String),
    /// The wait was cancelled (Ctrl+C).
    Interrupted,
}

/// The mode plus what the user allowed so far in this session.
pub struct PermissionPolicy {
    mode: ApprovalMode,
    pre_approved: HashSet<String>,
    session_approved: Mutex<HashSet<String>>,
    /// False in headless mode: nobody can answer, so `Ask` means deny.
    interactive: bool,
    /// Tools that run in the shell sandbox (it is on): auto-edit lets them run unasked.
    sandboxed: HashSet<String>,
    pending: Mutex<HashMap<String, oneshot::Sender<Decision>>>,
}

impl PermissionPolicy {
    pub fn new(mode: ApprovalMode, pre_approved: &[String], interactive: bool) -> Self {
        PermissionPolicy {
            mode,
            pre_approved: pre_approved.iter().cloned().collect(),
            session_approved: Mutex::new(HashSet::new()),
            interactive,
            sandboxed: HashSet::new(),
            pending: Mutex::new(HashMap::new()),
        }
    }

    /// Approval follows the sandbox: these tools run contained, so auto-edit runs them
    /// unasked. Empty when the sandbox is off.
    pub fn set_sandboxed<S: AsRef<str>>(&mut self, tools: &[S]) {
        self.sandboxed = tools.iter().map(|t| t.as_ref().to_string()).collect();
    }

    /// Whether someone can answer a question (false in headless mode).
    pub fn is_interactive(&self) -> bool {
        self.interactive
    }

    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// The verdict for one call. `inside_workspace` is false when an edit targets a path
    /// outside the root (only possible with --allow-outside-workspace).
    pub fn verdict(&self, tool: &str, effect: Effect, inside_workspace: bool) -> Verdict {
        if effect == Effect::ReadOnly {
            return Verdict::Allow;
        }
        if self.is_pre_approved(tool) || self.session_approved_contains(tool) {
            return Verdict::Allow;
        }
        let verdict = match self.mode {
            ApprovalMode::Yolo => Verdict::Allow,
            ApprovalMode::ReadOnly => {
                return Verdict::Deny(format!(
                    "{tool} was not run: tooloop is in read-only mode, which refuses tools that \
                     change files or run commands. Tell the user what you would have done instead."
                ));
            }
            ApprovalMode::AutoEdit if effect == Effect::Edit && inside_workspace => Verdict::Allow,
            // Only tools that run in the sandbox; any other command-running tool still asks.
            ApprovalMode::AutoEdit if effect == Effect::Exec && self.sandboxed.contains(tool) => {
                Verdict::Allow
            }
            ApprovalMode::AutoEdit | ApprovalMode::Ask => Verdict::Ask,
        };
        if verdict == Verdict::Ask && !self.interactive {
            return Verdict::Deny(format!(
                "{tool} was not run: it needs the user's approval and nobody can answer in \
                 headless mode. Rerun with --approval yolo, --approval auto-edit or \
                 --allow-tool {tool} to permit it."
            ));
        }
        verdict
    }

    /// The verdict for a call a pre_tool_use hook said `allow` to: the hook answers the
    /// approval question (headless too), but read-only mode's refusal still stands.
    pub fn verdict_hook_allowed(&self, tool: &str, effect: Effect, inside: bool) -> Verdict {
        match self.verdict(tool, effect, inside) {
            Verdict::Deny(m) if self.mode == ApprovalMode::ReadOnly => Verdict::Deny(m),
            _ => Verdict::Allow,
        }
    }

    /// Takes back an "allow for this session": the tool asks again from its next call.
    pub fn revoke(&self, tool: &str) {
        if let Ok(mut s) = self.session_approved.lock() {
            s.remove(tool);
        }
    }

    /// `--allow-tool` / `[tools] allow`: an exact name, or a prefix ending in `*`
    /// (`mcp__srv__*` allows every tool of one MCP server). Only a trailing `*` is special.
    fn is_pre_approved(&self, tool: &str) -> bool {
        self.pre_approved.contains(tool)
            || self.pre_approved.iter().any(|p| {
                p.strip_suffix('*')
                    .is_some_and(|prefix| !prefix.is_empty() && tool.starts_with(prefix))
            })
    }

    fn session_approved_contains(&self, tool: &str) -> bool {
        self.session_approved
            .lock()
            .map(|s| s.contains(tool))
            .unwrap_or(false)
    }

    /// Registers a question; the returned receiver resolves with the user's reply.
    pub fn register(&self, id: &str) -> oneshot::Receiver<Decision> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id.to_string(), tx);
        }
        rx
    }

    /// Routes a user's reply to the call waiting for it. Unknown ids are ignored (a late
    /// answer to a cancelled question).
    pub fn reply(&self, id: &str, decision: Decision) {
        let waiter = self.pending.lock().ok().and_then(|mut p| p.remove(id));
        if let Some(tx) = waiter {
            let _ = tx.send(decision);
        }
    }

    /// Waits for the answer to a registered question, or for cancellation.
    pub async fn wait(
        &self,
        id: &str,
        tool: &str,
        rx: oneshot::Receiver<Decision>,
        cancel: &CancellationToken,
    ) -> Consent {
        let decision = tokio::select! {
            d = rx => d.ok(),
            _ = cancel.cancelled() => None,
        };
        if let Ok(mut p) = self.pending.lock() {
            p.remove(id);
        }
        match decision {
            None => Consent::Interrupted,
            Some(Decision::AllowOnce) => Consent::Granted,
            Some(Decision::AllowForSession) => {
                if let Ok(mut s) = self.session_approved.lock() {
                    s.insert(tool.to_string());
                }
                Consent::Granted
            }
            Some(Decision::Deny { reason }) => Consent::Refused(match reason {
                Some(r) if !r.trim().is_empty() => format!(
                    "The user declined to run {tool}. Their reason: {r}. Do not retry it unchanged."
                ),
                _ => format!(
                    "The user declined to run {tool}. Do not retry it; ask the user how to \
                     proceed or try another approach."
                ),
            }),
        }
    }
}

pub type SharedPolicy = Arc<PermissionPolicy>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_decide_by_effect() {
        let ask = PermissionPolicy::new(ApprovalMode::Ask, &[], true);
        assert_eq!(
            ask.verdict("read_file", Effect::ReadOnly, true),
            Verdict::Allow
        );
        assert_eq!(ask.verdict("write_file", Effect::Edit, true), Verdict::Ask);
        let auto = PermissionPolicy::new(ApprovalMode::AutoEdit, &[], true);
        assert_eq!(
            auto.verdict("write_file", Effect::Edit, true),
            Verdict::Allow
        );
        assert_eq!(
            auto.verdict("write_file", Effect::Edit, false),
            Verdict::Ask
        );
        assert_eq!(auto.verdict("bash", Effect::Exec, true), Verdict::Ask);
        let yolo = PermissionPolicy::new(ApprovalMode::Yolo, &[], true);
        assert_eq!(yolo.verdict("bash", Effect::Exec, true), Verdict::Allow);
        let ro = PermissionPolicy::new(ApprovalMode::ReadOnly, &["bash".into()], true);
        assert!(matches!(
            ro.verdict("write_file", Effect::Edit, true),
            Verdict::Deny(_)
        ));
        assert_eq!(ro.verdict("bash", Effect::Exec, true), Verdict::Allow);
        let mut sandboxed = PermissionPolicy::new(ApprovalMode::AutoEdit, &[], false);
        sandboxed.set_sandboxed(&["bash"]);
        assert!(matches!(
            sandboxed.verdict("mcp_shell", Effect::Exec, true),
            Verdict::Deny(_)
        ));
        assert_eq!(
            sandboxed.verdict("bash", Effect::Exec, true),
            Verdict::Allow
        );
        let headless = PermissionPolicy::new(ApprovalMode::Ask, &[], false);
        assert!(matches!(
            headless.verdict("bash", Effect::Exec, true),
            Verdict::Deny(_)
        ));
    }

    #[test]
    fn allow_tool_takes_a_trailing_star() {
        let p = PermissionPolicy::new(
            ApprovalMode::Ask,
            &["mcp__srv__*".into(), "*".into(), "bash".into()],
            false,
        );
        assert_eq!(
            p.verdict("mcp__srv__write", Effect::Exec, true),
            Verdict::Allow
        );
        assert_eq!(p.verdict("bash", Effect::Exec, true), Verdict::Allow);
        // A lone `*` is not "everything" (that is --approval yolo), and only a trailing
        // star is a pattern.
        assert!(matches!(
            p.verdict("mcp__other__write", Effect::Exec, true),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            p.verdict("write_file", Effect::Edit, true),
            Verdict::Deny(_)
        ));
    }

    #[tokio::test]
    async fn allow_for_session_is_remembered_and_cancel_interrupts() {
        let p = PermissionPolicy::new(ApprovalMode::Ask, &[], true);
        let rx = p.register("t1");
        p.reply("t1", Decision::AllowForSession);
        let c = CancellationToken::new();
        assert_eq!(p.wait("t1", "bash", rx, &c).await, Consent::Granted);
        assert_eq!(p.verdict("bash", Effect::Exec, true), Verdict::Allow);

        let rx = p.register("t2");
        c.cancel();
        assert_eq!(
            p.wait("t2", "write_file", rx, &c).await,
            Consent::Interrupted
        );
    }
}

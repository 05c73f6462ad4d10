//! Who may run tools that change things, and the ask/answer flow with the user.
//!
//! Decisions come only from the user side (an [`AgentCommand::PermissionReply`]), from the
//! mode, or from `--allow-tool`: nothing the model writes can grant anything.
//!
//! [`AgentCommand::PermissionReply`]: crate::protocol::AgentCommand::PermissionReply

pub mod decide;
pub mod delete_guard;

pub mod rules;
pub mod settings;
pub mod shell;
pub mod suggest;

use crate::protocol::approval::Decision;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::tools::Effect;

use crate::protocol::approval_mode::ApprovalMode;

/// The source of a skill's grants (`skill NAME (allowed-tools)`).
pub const SKILL_SOURCE: &str = "skill ";

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
    /// Changes during a session: Shift+Tab, `/approval`, an approved plan.
    mode: Mutex<ApprovalMode>,
    /// The rules of the three files (the local file's grow with "always allow").
    rules: RwLock<rules::RuleSet>,
    /// `.tooloop/settings.local.toml` of the workspace ("always allow" writes there).
    local_settings: Option<PathBuf>,
    home: Option<PathBuf>,
    /// What answering did or what went wrong (a rule saved, one that could not be), for
    /// the front end: (text, whether it is a problem).
    notices: Mutex<Vec<(String, bool)>>,
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
            mode: Mutex::new(mode),
            rules: RwLock::new(rules::RuleSet::default()),
            local_settings: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            notices: Mutex::new(Vec::new()),
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
        self.mode.lock().map(|m| *m).unwrap_or_default()
    }

    /// Switches the mode from the next decision on.
    pub fn set_mode(&self, mode: ApprovalMode) {
        if let Ok(mut m) = self.mode.lock() {
            *m = mode;
        }
    }

    /// The rules of the three files, and where "always allow" appends.
    pub fn set_rules(&mut self, rules: rules::RuleSet, local_settings: Option<PathBuf>) {
        self.rules = RwLock::new(rules);
        self.local_settings = local_settings;
    }

    /// Tests: another home directory for `~`.
    pub fn set_home(&mut self, home: Option<PathBuf>) {
        self.home = home;
    }

    /// A skill's `allowed-tools` (already tooloop rules) as allow rules until the turn
    /// ends ([`PermissionPolicy::end_skill_grants`]). Allow rules come after deny rules,
    /// plan and read-only mode and the delete guard in the one decision, so a skill never
    /// gets past those. Rules that do not parse are skipped.
    pub fn grant_for_skill(&self, skill: &str, rules: &[String]) {
        if let Ok(mut set) = self.rules.write() {
            let source = format!("{SKILL_SOURCE}{skill} (allowed-tools)");
            for text in rules {
                if let Ok(rule) = rules::Rule::parse(text) {
                    set.push(rules::RuleKind::Allow, rule, &source);
                }
            }
        }
    }

    /// The turn ended: skills' grants end with it.
    pub fn end_skill_grants(&self) {
        if let Ok(mut set) = self.rules.write() {
            set.remove_sources(SKILL_SOURCE);
        }
    }

    /// Changes the rules in force from the next decision on (a settings change the user
    /// accepted in `/hooks`).
    pub fn update_rules(&self, change: impl FnOnce(&mut rules::RuleSet)) {
        if let Ok(mut set) = self.rules.write() {
            change(&mut set);
        }
    }

    /// A copy of the rules now in force (for `/permissions`).
    pub fn rules(&self) -> rules::RuleSet {
        self.rules.read().map(|r| r.clone()).unwrap_or_default()
    }

    /// The session's "allow for this session" grants, sorted.
    pub fn session_grants(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .session_approved
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    /// Notices from answering (a rule saved, or one that could not be: then `true`);
    /// drained.
    pub fn take_notices(&self) -> Vec<(String, bool)> {
        self.notices
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }

    /// The decision for one call (DESIGN.md §12): [`decide::decide`] over this session's
    /// mode, rules and grants. `root`: the workspace the call runs in.
    pub fn decide(&self, call: &decide::Call<'_>, root: &Path) -> decide::Decided {
        let session = self
            .session_approved
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        let rules = self.rules.read().map(|r| r.clone()).unwrap_or_default();
        let call = decide::Call {
            sandboxed: call.sandboxed || self.sandboxed.contains(call.tool),
            ..*call
        };
        decide::decide(
            &call,
            self.mode(),
            &rules,
            &decide::Grants {
                pre_approved: &self.pre_approved,
                session: &session,
            },
            &decide::Place {
                root,
                home: self.home.as_deref(),
                interactive: self.interactive,
            },
        )
    }

    /// The verdict for a call with no command and no paths. `inside_workspace` is false
    /// when an edit targets a path outside the root (only possible with
    /// --allow-outside-workspace).
    pub fn verdict(&self, tool: &str, effect: Effect, inside_workspace: bool) -> Verdict {
        let call = decide::Call {
            tool,
            effect,
            command: None,
            paths: &[],
            inside_workspace,
            sandboxed: false,
        };
        self.decide(&call, Path::new("/")).verdict
    }

    /// The verdict for a call a pre_tool_use hook said `allow` to: the hook answers the
    /// approval question (headless too), but a refusal by a mode or a deny rule stands.
    pub fn hook_allowed(&self, decided: decide::Decided) -> decide::Decided {
        match decided.verdict {
            Verdict::Deny(_) if decided.fixed => decided,
            _ => decide::Decided {
                verdict: Verdict::Allow,
                ..decided
            },
        }
    }

    /// The verdict for a call a pre_tool_use hook said `allow` to, without a command.
    pub fn verdict_hook_allowed(&self, tool: &str, effect: Effect, inside: bool) -> Verdict {
        let call = decide::Call {
            tool,
            effect,
            command: None,
            paths: &[],
            inside_workspace: inside,
            sandboxed: false,
        };
        self.hook_allowed(self.decide(&call, Path::new("/")))
            .verdict
    }

    /// Takes back an "allow for this session": the tool asks again from its next call.
    pub fn revoke(&self, tool: &str) {
        if let Ok(mut s) = self.session_approved.lock() {
            s.remove(tool);
        }
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
            Some(Decision::AllowRule { rule }) => {
                self.add_local_rule(&rule, rules::RuleKind::Allow);
                Consent::Granted
            }
            Some(Decision::DenyRule { rule }) => {
                self.add_local_rule(&rule, rules::RuleKind::Deny);
                Consent::Refused(format!(
                    "The user declined to run {tool} and will not allow it: a rule now \
                     denies it. Do not retry it; try another approach."
                ))
            }
            Some(Decision::ApprovePlan { mode }) => {
                self.set_mode(mode);
                Consent::Granted
            }
            Some(Decision::AllowForSession) => {
                if let Ok(mut s) = self.session_approved.lock() {
                    s.insert(tool.to_string());
                }
                Consent::Granted
            }
            Some(Decision::Deny { reason }) => Consent::Refused(
                crate::message::markers::tool_results::declined(tool, reason.as_deref()),
            ),
        }
    }
}

impl PermissionPolicy {
    /// "Always allow … in this project" (or, with `RuleKind::Deny`, "always reject"): the
    /// rules (a list, `bash(sleep:*), bash(ls:*)`) hold at once and are appended to that
    /// list of `.tooloop/settings.local.toml` for later sessions; a notice names the file.
    /// A rule that does not parse or cannot be saved still decided this call; the notice
    /// says what went wrong.
    fn add_local_rule(&self, list: &str, kind: rules::RuleKind) {
        let mut saved = Vec::new();
        for text in suggest::split(list) {
            let rule = match rules::Rule::parse(&text) {
                Ok(r) => r,
                Err(e) => {
                    self.notice(e.to_string());
                    continue;
                }
            };
            let Some(path) = &self.local_settings else {
                self.notice(format!(
                    "rule `{text}` not saved: this run has no project settings file"
                ));
                continue;
            };
            if let Ok(mut r) = self.rules.write() {
                r.push(kind, rule, settings::LOCAL_SOURCE);
            }
            let appended = match kind {
                rules::RuleKind::Deny => settings::append_deny(path, &text),
                _ => settings::append_allow(path, &text),
            };
            match appended {
                Ok(()) => saved.push(format!("`{text}`")),
                Err(e) => self.notice(format!(
                    "rule `{text}` holds for this session but was not saved: {e}"
                )),
            }
        }
        if let (false, Some(path)) = (saved.is_empty(), &self.local_settings)
            && let Ok(mut n) = self.notices.lock()
        {
            n.push((
                format!(
                    "always {} {} (saved to {})",
                    match kind {
                        rules::RuleKind::Deny => "denied",
                        _ => "allowed",
                    },
                    saved.join(", "),
                    path.display()
                ),
                false,
            ));
        }
    }

    fn notice(&self, text: String) {
        tracing::warn!("{text}");
        if let Ok(mut n) = self.notices.lock() {
            n.push((text, true));
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

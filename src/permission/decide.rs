//! The one decision point of steering (DESIGN.md §12): plan mode, the approval mode, the
//! rules of the three files, the session's grants and the delete guard go into one pure
//! function, so the TUI, headless mode and hooks see the same answer and the rule that
//! produced it.

use std::collections::HashSet;
use std::path::Path;

use super::rules::{CallFacts, RuleKind, RuleSet};
use super::{ApprovalMode, Verdict};
use crate::message::markers::tool_results::not_run;
use crate::protocol::approval::RuleRef;
use crate::tools::Effect;
use crate::tools::exit_plan_mode::EXIT_PLAN_MODE;

/// The refusal every changing call gets in plan mode (issue 27's wording).
pub const PLAN_REFUSAL: &str = "plan mode: only read-only tools run until the plan is approved";

/// One call, as the decision sees it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub effect: Effect,
    /// A command-running tool's command line.
    pub command: Option<&'a str>,
    /// Every path the call touches, as written.
    pub paths: &'a [String],
    /// Every path is inside the workspace (canonical check by the workspace).
    pub inside_workspace: bool,
    /// The tool runs inside the shell's sandbox (it is on).
    pub sandboxed: bool,
}

/// What was allowed besides the rules.
pub struct Grants<'a> {
    /// `--allow-tool` / `[tools] allow`.
    pub pre_approved: &'a HashSet<String>,
    /// "Allow for this session" answers.
    pub session: &'a HashSet<String>,
}

/// Where the call runs.
pub struct Place<'a> {
    pub root: &'a Path,
    pub home: Option<&'a Path>,
    /// False in headless mode: nobody can answer, so asking means refusing.
    pub interactive: bool,
}

/// The answer and what produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub verdict: Verdict,
    /// The rule (or grant) that decided, when one did.
    pub rule: Option<RuleRef>,
    /// The delete guard caught this call (the approval box says so).
    pub guarded: Option<String>,
    /// A refusal no answer changes (a deny rule, plan or read-only mode): a hook's `allow`
    /// does not lift it.
    pub fixed: bool,
}

fn plain(verdict: Verdict) -> Decided {
    Decided {
        verdict,
        rule: None,
        guarded: None,
        fixed: false,
    }
}

fn fixed(verdict: Verdict) -> Decided {
    Decided {
        fixed: true,
        ..plain(verdict)
    }
}

/// The decision for one call.
pub fn decide(
    call: &Call<'_>,
    mode: ApprovalMode,
    rules: &RuleSet,
    grants: &Grants<'_>,
    place: &Place<'_>,
) -> Decided {
    let tool = call.tool;
    let facts = CallFacts::new(tool, call.command, call.paths, place.root, place.home);
    if let Some(r) = rules.any_part(RuleKind::Deny, &facts) {
        return Decided {
            verdict: Verdict::Deny(not_run(
                tool,
                &format!(
                    "the permission rule deny `{}` in {} forbids it. Do not retry it; find \
                     another way or ask the user.",
                    r.rule.text, r.source
                ),
            )),
            rule: Some(r.as_ref()),
            guarded: None,
            fixed: true,
        };
    }
    if tool == EXIT_PLAN_MODE {
        return match (mode, place.interactive) {
            (ApprovalMode::Plan, true) => plain(Verdict::Ask),
            (ApprovalMode::Plan, false) => plain(Verdict::Allow),
            _ => fixed(Verdict::Deny(
                "exit_plan_mode is only for plan mode, and tooloop is not in plan mode: go \
                 ahead with the task."
                    .into(),
            )),
        };
    }
    if mode == ApprovalMode::Plan && call.effect != Effect::ReadOnly {
        return fixed(Verdict::Deny(PLAN_REFUSAL.into()));
    }
    let pre = grant(tool, grants.pre_approved, "--allow-tool");
    if mode == ApprovalMode::ReadOnly && call.effect != Effect::ReadOnly && pre.is_none() {
        return fixed(Verdict::Deny(not_run(
            tool,
            "tooloop is in read-only mode, which refuses tools that change files or run \
             commands. Tell the user what you would have done instead.",
        )));
    }
    let ask = |rule: Option<RuleRef>, guarded: Option<String>, why: String| Decided {
        verdict: if place.interactive {
            Verdict::Ask
        } else {
            Verdict::Deny(why)
        },
        rule,
        guarded,
        fixed: false,
    };
    if let (Some(parsed), Some(raw)) = (&facts.command, call.command)
        && let Some(target) = super::delete_guard::dangerous_delete(parsed, place.root, place.home)
    {
        if let Some(r) = rules.allows_exactly(&facts, raw) {
            return Decided {
                verdict: Verdict::Allow,
                rule: Some(r.as_ref()),
                guarded: Some(target),
                fixed: false,
            };
        }
        let why = not_run(
            tool,
            &format!(
                "it deletes {target} recursively, which is outside the workspace or the \
                 workspace itself; tooloop asks before that in every mode and nobody can \
                 answer in headless mode. An allow rule naming this exact command permits it."
            ),
        );
        return ask(None, Some(target), why);
    }
    if let Some(r) = rules.any_part(RuleKind::Ask, &facts) {
        let why = not_run(
            tool,
            &format!(
                "the permission rule ask `{}` in {} needs the user's answer and nobody can \
                 answer in headless mode.",
                r.rule.text, r.source
            ),
        );
        return ask(Some(r.as_ref()), None, why);
    }
    if call.effect == Effect::ReadOnly {
        return plain(Verdict::Allow);
    }
    if let Some(r) = rules.allows(&facts) {
        return Decided {
            verdict: Verdict::Allow,
            rule: Some(r.as_ref()),
            guarded: None,
            fixed: false,
        };
    }
    if let Some(g) = pre.or_else(|| grant(tool, grants.session, "session")) {
        return Decided {
            verdict: Verdict::Allow,
            rule: Some(g),
            guarded: None,
            fixed: false,
        };
    }
    let by_mode = match mode {
        ApprovalMode::Yolo => Verdict::Allow,
        ApprovalMode::AutoEdit if call.effect == Effect::Edit && call.inside_workspace => {
            Verdict::Allow
        }
        // Only tools that run in the sandbox; any other command-running tool still asks.
        ApprovalMode::AutoEdit if call.effect == Effect::Exec && call.sandboxed => Verdict::Allow,
        _ => Verdict::Ask,
    };
    if by_mode == Verdict::Ask {
        return ask(
            None,
            None,
            not_run(
                tool,
                &format!(
                    "it needs the user's approval and nobody can answer in headless mode. \
                     Rerun with --approval yolo, --approval auto-edit, --allow-tool {tool} or \
                     an allow rule in .tooloop/settings.toml to permit it."
                ),
            ),
        );
    }
    plain(by_mode)
}

/// `--allow-tool` / session grants: an exact name, or a prefix ending in `*` (`mcp__srv__*`
/// allows every tool of one MCP server). Only a trailing `*` is special.
fn grant(tool: &str, set: &HashSet<String>, source: &str) -> Option<RuleRef> {
    let hit = set.get(tool).cloned().or_else(|| {
        set.iter()
            .find(|p| {
                p.strip_suffix('*')
                    .is_some_and(|prefix| !prefix.is_empty() && tool.starts_with(prefix))
            })
            .cloned()
    })?;
    Some(RuleRef {
        rule: hit,
        source: source.into(),
    })
}

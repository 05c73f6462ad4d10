//! The consent bridge: the options offered in `session/request_permission` and the one
//! [`Decision`] an answer becomes. A cancelled outcome, an error, an unknown option or no
//! answer at all is a denial: the tool never runs without a chosen allow (no fail-open).

use serde_json::{Value, json};

use super::transport::RpcError;
use crate::protocol::approval::Decision;
use crate::protocol::approval_mode::ApprovalMode;

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";
/// Offered with a rule to write: the TUI's proposal, as a deny rule.
pub const REJECT_ALWAYS: &str = "reject_always";
/// Plan approval (`exit_plan_mode`): go on in auto-edit or in ask.
pub const PLAN_AUTO_EDIT: &str = "approve_auto_edit";
pub const PLAN_ASK: &str = "approve_ask";

/// The options: allow once, allow always (the rule the TUI would propose, written where
/// the TUI writes it; for this session when no rule could cover the call), reject, and
/// reject always where there is such a rule (the same rule, written to the `deny` list of
/// the same file: a deny rule is never asked again).
pub fn options(plan: bool, suggestion: Option<&str>) -> Value {
    if plan {
        return json!([
            {"optionId": PLAN_AUTO_EDIT, "name": "Approve the plan, auto-accept edits", "kind": "allow_always"},
            {"optionId": PLAN_ASK, "name": "Approve the plan, ask before edits", "kind": "allow_once"},
            {"optionId": REJECT_ONCE, "name": "Keep planning", "kind": "reject_once"},
        ]);
    }
    let always = match suggestion {
        Some(rule) => format!("Always allow {rule} in this project"),
        None => "Allow for this session".to_string(),
    };
    let mut offered = json!([
        {"optionId": ALLOW_ONCE, "name": "Allow once", "kind": "allow_once"},
        {"optionId": ALLOW_ALWAYS, "name": always, "kind": "allow_always"},
        {"optionId": REJECT_ONCE, "name": "Reject", "kind": "reject_once"},
    ]);
    if let (Some(rule), Some(list)) = (suggestion, offered.as_array_mut()) {
        list.push(json!({
            "optionId": REJECT_ALWAYS,
            "name": format!("Always reject {rule} in this project"),
            "kind": "reject_always",
        }));
    }
    offered
}

/// The decision an answer to `session/request_permission` makes.
pub fn decision(
    answer: &Result<Value, RpcError>,
    plan: bool,
    suggestion: Option<String>,
) -> Decision {
    let deny = |why: &str| Decision::Deny {
        reason: Some(why.to_string()),
    };
    let result = match answer {
        Ok(v) => v,
        Err(e) => return deny(&format!("the editor did not answer: {}", e.message)),
    };
    let outcome = &result["outcome"];
    if outcome["outcome"] != "selected" {
        return deny("the request was cancelled");
    }
    match (outcome["optionId"].as_str(), plan) {
        (Some(ALLOW_ONCE), false) => Decision::AllowOnce,
        (Some(ALLOW_ALWAYS), false) => match suggestion {
            Some(rule) => Decision::AllowRule { rule },
            None => Decision::AllowForSession,
        },
        (Some(PLAN_AUTO_EDIT), true) => Decision::ApprovePlan {
            mode: ApprovalMode::AutoEdit,
        },
        (Some(PLAN_ASK), true) => Decision::ApprovePlan {
            mode: ApprovalMode::Ask,
        },
        (Some(REJECT_ONCE), _) => Decision::Deny { reason: None },
        (Some(REJECT_ALWAYS), false) => match suggestion {
            Some(rule) => Decision::DenyRule { rule },
            None => deny("the editor chose an option that was not offered"),
        },
        _ => deny("the editor chose an option that was not offered"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selected(id: &str) -> Result<Value, RpcError> {
        Ok(json!({"outcome": {"outcome": "selected", "optionId": id}}))
    }

    #[test]
    fn only_a_chosen_allow_allows() {
        assert_eq!(
            decision(&selected(ALLOW_ONCE), false, None),
            Decision::AllowOnce
        );
        assert_eq!(
            decision(
                &selected(ALLOW_ALWAYS),
                false,
                Some("bash(cargo test:*)".into())
            ),
            Decision::AllowRule {
                rule: "bash(cargo test:*)".into()
            }
        );
        assert_eq!(
            decision(&selected(ALLOW_ALWAYS), false, None),
            Decision::AllowForSession
        );
        assert_eq!(
            decision(&selected(PLAN_AUTO_EDIT), true, None),
            Decision::ApprovePlan {
                mode: ApprovalMode::AutoEdit
            }
        );
        for denied in [
            selected(REJECT_ONCE),
            selected("made_up"),
            selected(PLAN_ASK), // not offered outside a plan
            Ok(json!({"outcome": {"outcome": "cancelled"}})),
            Ok(json!({})),
            Err(RpcError::new(-32603, "boom")),
        ] {
            assert!(!decision(&denied, false, None).is_allow(), "{denied:?}");
        }
        assert_eq!(
            decision(&selected(REJECT_ALWAYS), false, Some("bash(rm:*)".into())),
            Decision::DenyRule {
                rule: "bash(rm:*)".into()
            }
        );
        // Without a rule to write, reject_always was not offered: a plain denial.
        assert_eq!(
            decision(&selected(REJECT_ALWAYS), false, None),
            Decision::Deny {
                reason: Some("the editor chose an option that was not offered".into())
            }
        );
        assert!(!decision(&selected(REJECT_ALWAYS), true, Some("x".into())).is_allow());
        let offered = options(false, Some("bash(ls:*)"));
        assert_eq!(offered.as_array().unwrap().len(), 4);
        assert!(offered[1]["name"].as_str().unwrap().contains("bash(ls:*)"));
        assert_eq!(offered[3]["optionId"], REJECT_ALWAYS);
        assert!(offered[3]["name"].as_str().unwrap().contains("bash(ls:*)"));
        assert_eq!(options(false, None).as_array().unwrap().len(), 3);
        assert_eq!(options(true, Some("x")).as_array().unwrap().len(), 3);
    }
}

//! The right model for each job (issue 40): `[models] main / plan / small` in config.toml
//! and `--plan-model` / `--small-model`. `main` is today's model (`--model`); `plan` answers
//! while the session is in plan mode (until the plan is approved); `small` runs the built-in
//! `explore` agent and compaction summaries. Each defaults to main; an agent file's
//! `model:` still wins. Layering: flag > file > main.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::protocol::approval_mode::ApprovalMode;

/// The `[models]` table: the three routes beside the `[models."NAME"]` tables of the model
/// table (window, prices), which keep their place.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ModelsSection {
    pub main: Option<String>,
    pub plan: Option<String>,
    pub small: Option<String>,
    #[serde(flatten)]
    pub table: BTreeMap<String, crate::models::ModelOverride>,
}

/// The models the loop routes to besides its own (None: the main model does the job).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelRoutes {
    pub plan: Option<String>,
    pub small: Option<String>,
}

impl ModelsSection {
    /// Flags beat the file; an empty name means "the main model".
    pub fn routes(&self, plan_flag: Option<&str>, small_flag: Option<&str>) -> ModelRoutes {
        let pick = |flag: Option<&str>, file: &Option<String>| {
            flag.map(str::to_string)
                .or_else(|| file.clone())
                .filter(|m| !m.trim().is_empty())
        };
        ModelRoutes {
            plan: pick(plan_flag, &self.plan),
            small: pick(small_flag, &self.small),
        }
    }
}

impl ModelRoutes {
    /// The model of the next request: `plan` while in plan mode, else `main`.
    pub fn for_request<'a>(&'a self, mode: ApprovalMode, main: &'a str) -> &'a str {
        match (&self.plan, mode) {
            (Some(plan), ApprovalMode::Plan) => plan,
            _ => main,
        }
    }

    /// The model of a small job (explore, a compaction summary).
    pub fn small<'a>(&'a self, main: &'a str) -> &'a str {
        self.small.as_deref().unwrap_or(main)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_sit_beside_the_model_tables_and_flags_win() {
        let s: ModelsSection =
            toml::from_str("plan = \"big\"\nsmall = \"tiny\"\n[\"tiny\"]\nprice_input = 1.0\n")
                .expect("parse");
        assert_eq!(s.table["tiny"].price_input, Some(1.0));
        let r = s.routes(None, Some("flagged"));
        assert_eq!(r.plan.as_deref(), Some("big"));
        assert_eq!(r.small("main"), "flagged");
        assert_eq!(r.for_request(ApprovalMode::Plan, "main"), "big");
        assert_eq!(r.for_request(ApprovalMode::Ask, "main"), "main");
        let none = ModelsSection::default().routes(None, Some(""));
        assert_eq!(none.small("main"), "main");
    }
}

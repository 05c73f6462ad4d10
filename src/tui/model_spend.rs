//! Which model is answering and what each model spent (issue 40), as the TUI hears it:
//! every request names its model (RequestStart) and every response its usage (StreamEnd),
//! the subagents' and compaction summaries' included; a prompt hook's question comes with
//! its `hook` report. The status bar shows the model of the request in flight; `/cost`
//! lists the split.

use std::collections::BTreeMap;

use crate::models::ModelTable;
use crate::protocol::AgentEvent;
use crate::provider::Usage;

#[derive(Debug, Default)]
pub struct ModelSpend {
    /// The top-level agent's request in flight (None between prompts).
    answering: Option<String>,
    /// Each agent's model of its request in flight, by agent id ("" for the top level).
    in_flight: BTreeMap<String, String>,
    /// Per model: tokens and cost (None once a price is unknown).
    by_model: BTreeMap<String, (Usage, Option<f64>)>,
}

impl ModelSpend {
    pub fn on_event(&mut self, event: &AgentEvent, models: &ModelTable) {
        let (agent, inner) = event.unwrapped();
        let who = agent.map(|(id, _)| id.to_string()).unwrap_or_default();
        match inner {
            AgentEvent::RequestStart { model, .. } => {
                if agent.is_none() {
                    self.answering = Some(model.clone());
                }
                self.in_flight.insert(who, model.clone());
            }
            AgentEvent::StreamEnd {
                usage: Some(usage), ..
            } => {
                if let Some(model) = self.in_flight.get(&who).cloned() {
                    self.add(&model, usage, models);
                }
            }
            // A prompt hook's question (its model answered outside any request of the loop).
            AgentEvent::HookEnd { report, .. } => {
                if let Some(spent) = &report.spent {
                    self.add(&spent.model, &spent.usage, models);
                }
            }
            AgentEvent::Done(_) if agent.is_none() => self.answering = None,
            _ => {}
        }
    }

    fn add(&mut self, model: &str, usage: &Usage, models: &ModelTable) {
        let cost = models.cost_usd(model, usage);
        let entry = self
            .by_model
            .entry(model.to_string())
            .or_insert((Usage::default(), Some(0.0)));
        entry.0.add(*usage);
        entry.1 = entry.1.zip(cost).map(|(a, b)| a + b);
    }

    /// The model of the request in flight, if one is.
    pub fn answering(&self) -> Option<&str> {
        self.answering.as_deref()
    }

    /// The models that answered and have no prices (what makes the session's cost unknown).
    pub fn unpriced(&self) -> Vec<&str> {
        self.by_model
            .iter()
            .filter(|(_, (_, cost))| cost.is_none())
            .map(|(model, _)| model.as_str())
            .collect()
    }

    /// `/cost`'s lines per model, once more than one model answered.
    pub fn split_lines(&self) -> Vec<String> {
        if self.by_model.len() < 2 {
            return Vec::new();
        }
        self.by_model
            .iter()
            .map(|(model, (usage, cost))| {
                let cost = cost.map_or("unknown".to_string(), |c| format!("${c:.4}"));
                format!(
                    "  {model}: {cost} ({} in, {} out)",
                    usage.total_input(),
                    usage.output_tokens
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::AgentEvent as E;

    fn request(model: &str) -> E {
        E::RequestStart {
            turn: 1,
            attempt: 1,
            model: model.into(),
            body: std::sync::Arc::new(crate::provider::RequestBody::new("{}")),
        }
    }

    fn end(output: u64) -> E {
        E::StreamEnd {
            turn: 1,
            stop_reason: None,
            usage: Some(Usage {
                output_tokens: output,
                ..Default::default()
            }),
        }
    }

    #[test]
    fn the_answering_model_and_a_split_by_model_subagents_included() {
        let mut s = ModelSpend::default();
        let table = ModelTable::builtin();
        s.on_event(&request("big"), &table);
        assert_eq!(s.answering(), Some("big"));
        s.on_event(&end(10), &table);
        let child = |e: E| E::Subagent {
            agent_id: "a1".into(),
            parent_tool_use_id: "t1".into(),
            event: Box::new(e),
        };
        s.on_event(&child(request("gpt-4o")), &table);
        s.on_event(&child(end(3)), &table);
        assert_eq!(s.answering(), Some("big"), "a child does not take the bar");
        let lines = s.split_lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].contains("big: unknown (0 in, 10 out)"),
            "{lines:?}"
        );
        assert!(lines[1].contains("gpt-4o: $0.0000"), "{lines:?}");
        assert_eq!(s.unpriced(), ["big"]);
    }

    /// A prompt hook's question counts under its model, from the `hook` report.
    #[test]
    fn a_prompt_hooks_spend_counts_under_its_model() {
        use crate::hooks::{HookDecision, HookEvent, HookReport, HookSpend};
        let mut s = ModelSpend::default();
        let table = ModelTable::builtin();
        s.on_event(&request("big"), &table);
        s.on_event(&end(10), &table);
        let hook = |spent: Option<HookSpend>| E::HookEnd {
            id: "hook-1".into(),
            report: HookReport {
                event: HookEvent::Stop,
                command: "Did the tests run?".into(),
                exit: Some(0),
                duration_ms: 5,
                decision: HookDecision::None,
                reason: None,
                spent,
            },
        };
        s.on_event(&hook(None), &table);
        assert_eq!(s.split_lines().len(), 0, "a command hook spends nothing");
        let usage = Usage {
            input_tokens: 7,
            output_tokens: 2,
            ..Default::default()
        };
        let model = "claude-haiku-4-5".to_string();
        s.on_event(&hook(Some(HookSpend { model, usage })), &table);
        let lines = s.split_lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("claude-haiku-4-5") && l.contains("(7 in, 2 out)")),
            "{lines:?}"
        );
    }
}

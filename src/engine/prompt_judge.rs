//! Prompt hooks ask the session's own provider (`hooks::prompt::PromptJudge`), with the
//! `small` route or the hook's `model`. What each question costs goes into the session's
//! ledger as a node of its own under the top-level agent, as a subagent's spend does: the
//! session's cost, `result.usage`, `usage_by_model` and the budgets include it.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;

use crate::agent::assembler::Assembler;
use crate::agent::context::ledger::Ledger;
use crate::hooks::HookSpend;
use crate::hooks::prompt::{Answer, JudgeError, PromptJudge, SYSTEM};
use crate::message::Message;
use crate::models::ModelTable;
use crate::provider::{ModelRequest, Provider, StreamEvent, Usage};

pub struct ProviderJudge {
    pub provider: Arc<dyn Provider>,
    /// The `small` route's model.
    pub model: String,
    /// The prompt hooks' node, under the top-level agent's.
    pub ledger: Arc<Ledger>,
    pub models: Arc<ModelTable>,
}

/// Counts what a question used when it ends, however it ends: answered, failed, or
/// dropped at its timeout or a Ctrl+C (the tokens the API reported were spent anyway).
struct Charge<'a> {
    judge: &'a ProviderJudge,
    model: String,
    usage: Usage,
}

impl Drop for Charge<'_> {
    fn drop(&mut self) {
        if self.usage != Usage::default() {
            let cost = self.judge.models.cost_usd(&self.model, &self.usage);
            self.judge.ledger.add(&self.model, self.usage, cost);
        }
    }
}

impl PromptJudge for ProviderJudge {
    fn ask<'a>(
        &'a self,
        prompt: String,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Answer, JudgeError>> {
        Box::pin(async move {
            let model = model.unwrap_or(&self.model).to_string();
            let req = ModelRequest {
                model: model.clone(),
                system: SYSTEM.into(),
                messages: vec![Message::user_text(prompt)],
                tools: Vec::new(),
                max_tokens: 1024,
                disable_parallel_tool_use: false,
                reasoning: Default::default(),
            };
            let mut charge = Charge {
                judge: self,
                model,
                usage: Usage::default(),
            };
            let mut stream = self.provider.start(&req).await?;
            // The assembler reads usage as the loop does (message_start, then the final
            // message_delta restating it); the text is the deltas in order.
            let mut asm = Assembler::new();
            let mut text = String::new();
            while let Some(event) = stream.next().await {
                let event = event?;
                if let StreamEvent::TextDelta { text: t, .. } = &event {
                    text.push_str(t);
                }
                asm.push(event);
                charge.usage = asm.usage;
                if asm.saw_stop {
                    let spent = HookSpend {
                        model: charge.model.clone(),
                        usage: charge.usage,
                    };
                    return Ok(Answer { text, spent });
                }
            }
            Err(JudgeError::Incomplete)
        })
    }
}

//! The query loop (DESIGN.md §3): request → stream → tools → results → again, until the
//! model stops asking for tools.
//!
//! One iteration: prepare the messages, send the request (encoded once), consume the stream
//! while tools run, close the reply (assistant message, tool results), then [`decide::decide`]
//! says how to go on.

mod decide;
mod extensions;
mod failure;
mod job_notices;
mod mcp_use;
mod open;
mod skill_command;
mod steering;
mod stream_events;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::Agent;
use super::assembler::{Assembler, Completed};
use super::context::prepare::{self, Prepared};
use super::executor::{StreamingToolExecutor, ToolRun};
use crate::message::markers::interrupt_block;
use crate::message::{ContentBlock, Message, check_ready};
use crate::protocol::{AgentEvent, Terminal, Transition, TurnSummary};
use crate::provider::{EventStream, ProviderError, StreamEvent, Usage};
use decide::{Outcome, Plan, Reply, Step};
use failure::{fail, is_prompt_too_long};
use open::{OpenError, note_overload, open_stream, wait_before_retry, will_fall_back};
use stream_events::forward;

pub use decide::MAX_TOKENS_RESUME;

/// What carries over from one iteration to the next.
struct State {
    turn: u32,
    /// Attempt number of the current request (1 = first try).
    attempt: u32,
    model: String,
    usage: Usage,
    transitions: Vec<Transition>,
    max_tokens_recoveries: u32,
    consecutive_overloads: u32,
    /// One reactive compaction per request (seed 002's hasAttemptedReactiveCompact).
    reactive_tried: bool,
    /// Times in a row a stop hook sent the model back to work.
    stop_continuations: u32,
    /// The subagents' usage when the prompt began: what they spend during it counts in
    /// the prompt's usage too.
    descendants_at_start: Usage,
}

impl State {
    /// The prompt's usage so far, its subagents' included.
    fn usage_with_descendants(&self, agent: &Agent) -> Usage {
        let mut usage = self.usage;
        usage.add(super::context::ledger::usage_since(
            agent.context.ledger.descendants(),
            self.descendants_at_start,
        ));
        usage
    }
}

/// How the loop goes on after one request.
enum Flow {
    Continue(Transition),
    End(Terminal, Option<String>),
}

enum StreamOutcome {
    Finished,
    Aborted,
    Failed(ProviderError),
}

impl Agent {
    /// Runs one prompt to the end of its loop and reports how it ended.
    pub async fn run_prompt(&mut self, prompt: &str, cancel: &CancellationToken) -> TurnSummary {
        let model = self.settings.model.clone();
        if let Some(r) = &mut self.observer {
            r.prompt_start(prompt, &model);
        }
        let summary = run(self, prompt, cancel).await;
        // A skill's model lasts as long as the prompt: the next one uses the session's.
        if self.skills.as_ref().is_some_and(|s| s.active.end()) {
            self.exec.events.send(AgentEvent::ModelChanged {
                model: self.settings.model.clone(),
            });
        }
        self.prompt_ended(&summary);
        self.exec.hooks.turn_ended(&self.exec.events);
        if let Some(r) = &mut self.observer {
            r.prompt_end(&summary);
        }
        self.steer
            .announce(summary.reason.is_aborted(), &self.exec.events);
        self.exec.events.send(AgentEvent::Done(summary.clone()));
        summary
    }
}

async fn run(agent: &mut Agent, prompt: &str, cancel: &CancellationToken) -> TurnSummary {
    let events = agent.exec.events.clone();
    events.send(AgentEvent::PromptStart {
        text: prompt.to_string(),
    });
    let hooks = agent.exec.hooks.clone();
    hooks.take_stop();
    if let Some(r) = agent.observer.as_ref()
        && let Some(id) = r.session_id()
    {
        // The transcript file exists from here on: its prompt record is written.
        hooks.set_session(&id, r.path().as_deref());
    }
    // A skill typed as `/NAME` is looked up in the catalog as it is on disk now.
    extensions::refresh_skills(agent);
    let mut message = match extensions::prompt_message(agent, prompt, cancel).await {
        Ok(m) => m,
        Err(reason) => return not_sent(agent, Terminal::HookStopped, reason),
    };
    match mcp_use::expand(agent, prompt, cancel).await {
        Ok(blocks) => message.content.extend(blocks),
        Err(e) => return not_sent(agent, Terminal::NotSent, e.to_string()),
    }
    super::mentions::attach_to_prompt(agent, prompt, &mut message.content);
    job_notices::append(&agent.exec.jobs, &mut message.content);
    let kept = agent.take_unanswered();
    agent.push(message);
    agent.prompt_pushed(kept);
    // The user's words as typed, for the state block (not the hooks' additions).
    agent.facts.record_request(prompt);
    extensions::join_mcp_tools(agent, cancel).await;
    let mut state = State {
        turn: 1,
        attempt: 1,
        model: steering::request_model(agent),
        usage: Usage::default(),
        transitions: Vec::new(),
        max_tokens_recoveries: 0,
        consecutive_overloads: 0,
        reactive_tried: false,
        stop_continuations: 0,
        descendants_at_start: agent.context.ledger.descendants(),
    };
    events.send(AgentEvent::TurnStart { turn: 1 });
    loop {
        let (reason, error) = match one_request(agent, &mut state, cancel).await {
            Flow::Continue(t) => {
                state.transitions.push(t);
                if matches!(t, Transition::Retry | Transition::ReactiveCompact) {
                    continue;
                }
                state.attempt = 1;
                if state.turn >= agent.settings.max_turns {
                    let text = format!(
                        "Stopped after {} turns (--max-turns). The model still wanted to use \
                         tools; send another prompt to let it go on.",
                        state.turn
                    );
                    events.send(AgentEvent::Notice { text: text.clone() });
                    (Terminal::MaxTurns, Some(text))
                } else {
                    state.turn += 1;
                    // Plan mode ends when the plan is approved: the next request is main's
                    // (after a switch to the fallback model, that one stays).
                    if Some(&state.model) != agent.settings.fallback_model.as_ref() {
                        state.model = steering::request_model(agent);
                    }
                    events.send(AgentEvent::TurnStart { turn: state.turn });
                    continue;
                }
            }
            Flow::End(reason, error) => (reason, error),
        };
        let (context_tokens, _) = prepare::current(agent, &state.model);
        return TurnSummary {
            reason,
            turns: state.turn,
            usage: state.usage_with_descendants(agent),
            text: if reason == Terminal::Completed {
                agent.last_assistant_text()
            } else {
                String::new()
            },
            transitions: state.transitions,
            error,
            cost_usd: agent.context.tree_cost(),
            context_tokens,
        };
    }
}

/// A prompt that is not sent and not kept: the history is as it was before it.
fn not_sent(agent: &Agent, reason: Terminal, why: String) -> TurnSummary {
    agent.exec.events.send(AgentEvent::Error {
        message: why.clone(),
    });
    TurnSummary {
        reason,
        turns: 0,
        usage: Usage::default(),
        text: String::new(),
        transitions: Vec::new(),
        error: Some(why),
        cost_usd: agent.context.tree_cost(),
        context_tokens: prepare::current(agent, &agent.settings.model.clone()).0,
    }
}

/// The step before every request: the history must be sendable as it is. Compaction
/// (DESIGN.md §10) rewrites the messages here, before they are encoded.
fn prepare_messages(agent: &Agent) {
    if let Err(e) = check_ready(&agent.history) {
        tracing::error!("history about to be sent is not ready: {e}");
        debug_assert!(false, "history about to be sent is not ready: {e}");
    }
}

/// One model request and, if it asked for tools, their results.
async fn one_request(agent: &mut Agent, state: &mut State, cancel: &CancellationToken) -> Flow {
    let events = agent.exec.events.clone();
    extensions::refresh_skills(agent);
    extensions::check_settings(agent);
    skill_command::use_skill_model(agent, &mut state.model);
    extensions::refresh_mcp_tools(agent).await;
    match prepare::prepare(agent, state.turn, &state.model, cancel).await {
        Prepared::Send { usage } => state.usage.add(usage),
        Prepared::End {
            reason,
            message,
            usage,
        } => {
            state.usage.add(usage);
            if reason.is_aborted() {
                agent.push(Message::user(vec![interrupt_block()]));
            }
            return Flow::End(reason, message);
        }
    }
    prepare_messages(agent);
    let sent_len = agent.history.len();
    let stream = match open_stream(agent, state, cancel).await {
        Ok(s) => s,
        Err(OpenError::Aborted) => {
            agent.push(Message::user(vec![interrupt_block()]));
            return Flow::End(Terminal::AbortedStreaming, None);
        }
        Err(OpenError::Failed(e)) if is_prompt_too_long(&e) && !state.reactive_tried => {
            state.reactive_tried = true;
            let message = super::request_errors::describe(&e);
            match prepare::reactive(agent, state.turn, &state.model, &message, cancel).await {
                Ok(usage) => {
                    state.usage.add(usage);
                    return Flow::Continue(Transition::ReactiveCompact);
                }
                Err(super::context::autocompact::CompactError::Aborted) => {
                    agent.push(Message::user(vec![interrupt_block()]));
                    return Flow::End(Terminal::AbortedStreaming, None);
                }
                Err(ce) => {
                    events.send(AgentEvent::Error {
                        message: format!("reactive {ce}"),
                    });
                    return fail(agent, &state.model, e);
                }
            }
        }
        Err(OpenError::Failed(e)) => return fail(agent, &state.model, e),
    };
    let executor = StreamingToolExecutor::new(agent.exec.clone(), cancel.clone());
    let mut asm = Assembler::new();
    let streamed = consume(agent, stream, &mut asm, &executor, state, cancel).await;
    state.usage.add(asm.usage);
    if asm.usage != Usage::default() {
        prepare::after_response(agent, &state.model, asm.usage, sent_len);
    }
    let (blocks, outcome, error) = end_reply(agent, state, &mut asm, streamed);
    let (results, reply) = close_reply(agent, executor, blocks, cancel).await;
    let Plan { tail, next } = decide::decide(outcome, reply, state.max_tokens_recoveries);
    let mut message = results;
    message.extend(tail.map(ContentBlock::text));
    let steered = steering::joins_now(agent, &next, &message, state.turn, cancel);
    let (steered, blocks) = steering::screened(agent, steered, cancel).await;
    message.extend(blocks);
    // Only with a request to follow: a reply without tools ends the prompt, and the notice
    // then goes with the next one.
    if !message.is_empty() {
        job_notices::append(&agent.exec.jobs, &mut message);
    }
    agent.push(Message::user(message));
    steering::joined(agent, steered);
    agent.record_todos();
    if let Some(plan) = steering::plan_ready(agent) {
        agent.exec.events.send(AgentEvent::PlanReady { plan });
        return Flow::End(Terminal::PlanReady, None);
    }
    if let Some(stopped) = extensions::stopped_by_hook(agent) {
        return stopped;
    }
    match (next, error) {
        (Step::End(Terminal::Completed, message), _) => {
            extensions::on_stop(agent, &mut state.stop_continuations, message, cancel).await
        }
        (Step::Continue(t), _) => {
            if t == Transition::MaxTokensRecovery {
                state.max_tokens_recoveries += 1;
            }
            Flow::Continue(t)
        }
        (Step::End(reason, message), _) => Flow::End(reason, message),
        (Step::Retry, Some(e)) => {
            note_overload(agent, state, &e);
            if wait_before_retry(agent, state, &e, cancel).await {
                Flow::Continue(Transition::Retry)
            } else {
                agent.push(Message::user(vec![interrupt_block()]));
                Flow::End(Terminal::AbortedStreaming, None)
            }
        }
        (Step::Fail, Some(e)) => fail(agent, &state.model, e),
        // Only a failed stream fails or retries, and it always carries its error.
        (Step::Fail | Step::Retry, None) => Flow::End(Terminal::ModelError, None),
    }
}

/// The blocks the reply leaves in history, and how its stream ended (with the error).
fn end_reply(
    agent: &Agent,
    state: &mut State,
    asm: &mut Assembler,
    streamed: StreamOutcome,
) -> (Vec<ContentBlock>, Outcome, Option<ProviderError>) {
    let events = &agent.exec.events;
    match streamed {
        StreamOutcome::Finished => {
            state.consecutive_overloads = 0;
            state.reactive_tried = false;
            events.send(AgentEvent::StreamEnd {
                turn: state.turn,
                stop_reason: asm.stop_reason.clone(),
                usage: Some(asm.usage),
            });
            let cut = asm.stop_reason.as_deref() == Some("max_tokens");
            let outcome = match asm.stop_reason.as_deref() {
                Some("pause_turn") => Outcome::Paused,
                _ => Outcome::Finished { cut },
            };
            (asm.blocks(!cut), outcome, None)
        }
        StreamOutcome::Aborted => (asm.blocks_with_partial(None), Outcome::Aborted, None),
        StreamOutcome::Failed(e) => {
            events.send(AgentEvent::Error {
                message: format!("the model's stream failed: {e}"),
            });
            // Switching model: the failed attempt's partial text is thrown away (the UI
            // tombstones it); complete blocks stay, as their tools may already have run.
            let blocks = if will_fall_back(agent, state, &e) {
                events.send(AgentEvent::Discarded {
                    reason: format!("{e}; switching to the fallback model"),
                });
                asm.complete_blocks_of_cut_reply()
            } else {
                let marker = format!("\n[reply cut off: {e}]");
                asm.blocks_with_partial(Some(&marker))
            };
            let retryable = agent.settings.retry.should_retry(state.attempt, &e);
            (blocks, Outcome::Failed { retryable }, Some(e))
        }
    }
}

/// Waits for the reply's tools, appends the assistant message and returns one result per
/// tool_use (in order), with what [`decide::decide`] needs to know about the reply.
async fn close_reply(
    agent: &mut Agent,
    executor: StreamingToolExecutor,
    blocks: Vec<ContentBlock>,
    cancel: &CancellationToken,
) -> (Vec<ContentBlock>, Reply) {
    let asked = tool_use_ids(&blocks);
    let runs = executor.finish().await;
    if let Some(r) = &mut agent.observer
        && !runs.is_empty()
    {
        r.tool_runs(&runs.iter().map(ToolRun::timing).collect::<Vec<_>>());
    }
    let kept = !blocks.is_empty();
    agent.push(Message::assistant(blocks));
    let reply = Reply {
        asked: !asked.is_empty(),
        kept,
        cancelled: cancel.is_cancelled(),
    };
    (results_for(&asked, &runs), reply)
}

/// Reads the stream to its end, handing each complete tool_use to the executor at once.
async fn consume(
    agent: &Agent,
    mut stream: EventStream,
    asm: &mut Assembler,
    executor: &StreamingToolExecutor,
    state: &State,
    cancel: &CancellationToken,
) -> StreamOutcome {
    let events = &agent.exec.events;
    let idle = agent.settings.idle_timeout;
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => return StreamOutcome::Aborted,
            n = tokio::time::timeout(idle, stream.next()) => n,
        };
        let event = match next {
            Err(_) => return StreamOutcome::Failed(ProviderError::Idle(idle)),
            Ok(None) if asm.saw_stop => {
                executor.stream_ended();
                return StreamOutcome::Finished;
            }
            Ok(None) => return StreamOutcome::Failed(ProviderError::Incomplete),
            Ok(Some(Err(e))) => return StreamOutcome::Failed(e),
            // Raw wire events only go to the front end: moved, not copied.
            Ok(Some(Ok(StreamEvent::Raw { event, data }))) => {
                events.send(AgentEvent::RawSse { event, data });
                continue;
            }
            Ok(Some(Ok(ev))) => asm.with_unique_tool_id(ev, |id| agent.tool_id_taken(id)),
        };
        forward(events, &event);
        if let StreamEvent::BlockStart {
            name: Some(name), ..
        } = &event
        {
            agent.exec.registry.warm(name);
        }
        let usage_event = matches!(
            event,
            StreamEvent::MessageStart { .. } | StreamEvent::Delta { .. }
        );
        match asm.push(event) {
            Some(Completed::Block(ContentBlock::ToolUse { id, name, input })) => {
                events.send(executor.tool_use_event(id, name, input));
                executor.add(id, name, input);
            }
            Some(Completed::Block(ContentBlock::Other(block))) => {
                events.send(AgentEvent::ServerBlock {
                    block: block.clone(),
                });
            }
            Some(Completed::Invalid(inv)) => {
                events.send(executor.invalid_tool_use_event(&inv.id, &inv.name));
                executor.add_error(&inv.id, &inv.name, &inv.error);
            }
            _ => {}
        }
        if usage_event {
            let mut usage_base = state.usage_with_descendants(agent);
            usage_base.add(asm.usage);
            events.send(AgentEvent::Usage(usage_base));
        }
        if asm.saw_stop {
            // Nothing after message_stop matters; do not wait for the connection to close.
            executor.stream_ended();
            return StreamOutcome::Finished;
        }
    }
}

fn tool_use_ids(blocks: &[ContentBlock]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}

/// One tool_result per asked id, in tool_use order. A call the executor never saw (it
/// cannot happen, but history must stay valid regardless) is answered as interrupted.
fn results_for(asked: &[String], runs: &[ToolRun]) -> Vec<ContentBlock> {
    asked
        .iter()
        .map(|id| match runs.iter().find(|r| &r.id == id) {
            Some(run) => run.to_block(),
            None => ContentBlock::tool_result(id, crate::message::markers::INTERRUPTED, true),
        })
        .collect()
}

//! The agent as a task: commands in, events out. The TUI's side of the engine.

use std::collections::VecDeque;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Agent;
use crate::protocol::{AgentCommand, AgentEvent};

/// Runs `agent` until Shutdown or until the command channel closes. Prompts submitted while
/// a turn runs wait their turn; Abort and permission replies reach the running turn at once.
pub fn spawn(agent: Agent, commands: mpsc::UnboundedReceiver<AgentCommand>) -> JoinHandle<Agent> {
    tokio::spawn(async move {
        let mut agent = run(agent, commands).await;
        end_jobs(&mut agent).await;
        let (hooks, events) = (agent.exec.hooks.clone(), agent.events().clone());
        super::hook_calls::session_end(&hooks, &events, "other").await;
        agent
    })
}

/// `/kill`: the user ends a job (in its own task: the agent keeps answering meanwhile).
fn kill_job(agent: &Agent, id: String) {
    kill_job_in(&agent.exec.jobs, &agent.exec.events, id);
}

fn kill_job_in(
    jobs: &std::sync::Arc<crate::background::Jobs>,
    events: &crate::protocol::events::EventSink,
    id: String,
) {
    let (jobs, events) = (jobs.clone(), events.clone());
    tokio::spawn(async move {
        if let Err(e) = jobs.kill(&id, crate::background::KilledBy::User).await {
            events.send(AgentEvent::Error {
                message: e.to_string(),
            });
        }
    });
}

/// The session ends: so does every background job (SIGTERM, SIGKILL after a second), and
/// the transcript records how each ended.
async fn end_jobs(agent: &mut Agent) {
    let jobs = agent.exec.jobs.clone();
    jobs.shutdown(crate::background::EXIT_GRACE).await;
    agent.record_jobs();
}

async fn run(mut agent: Agent, mut rx: mpsc::UnboundedReceiver<AgentCommand>) -> Agent {
    let mut queued: VecDeque<String> = VecDeque::new();
    loop {
        let text = match queued.pop_front() {
            Some(t) => t,
            None => match rx.recv().await {
                // Nothing runs to steer: the words are a prompt.
                Some(AgentCommand::Submit { text } | AgentCommand::Steer { text }) => text,
                Some(AgentCommand::NewConversation) => {
                    agent.reset(Vec::new());
                    agent.exec.hooks.cleared();
                    continue;
                }
                Some(AgentCommand::Rewind(req)) => {
                    if let Err(e) = agent.rewind(&req) {
                        agent.events().send(AgentEvent::Error {
                            message: e.to_string(),
                        });
                    }
                    continue;
                }
                Some(AgentCommand::Fork) => {
                    if let Err(e) = agent.fork().await {
                        agent.events().send(AgentEvent::Error {
                            message: e.to_string(),
                        });
                    }
                    continue;
                }
                Some(AgentCommand::Resume { id }) => {
                    if let Err(e) = crate::agent::session_switch::resume(&mut agent, &id).await {
                        agent.events().send(AgentEvent::Error {
                            message: format!("cannot resume {id}: {e}"),
                        });
                    }
                    continue;
                }
                Some(AgentCommand::SetModel { model }) => {
                    agent.set_model(model);
                    continue;
                }
                Some(AgentCommand::Compact { instructions }) => {
                    if compact(&mut agent, instructions, &mut rx, &mut queued).await {
                        return agent;
                    }
                    continue;
                }
                Some(AgentCommand::Shell { command }) => {
                    if shell(&mut agent, &command, &mut rx, &mut queued).await {
                        return agent;
                    }
                    continue;
                }
                Some(AgentCommand::RevokeSessionGrant { tool }) => {
                    agent.exec.policy.revoke(&tool);
                    continue;
                }
                Some(AgentCommand::SetApproval { mode }) => {
                    set_approval(&agent, mode);
                    continue;
                }
                Some(AgentCommand::KillJob { id }) => {
                    kill_job(&agent, id);
                    continue;
                }
                Some(AgentCommand::Hooks { action }) => {
                    super::hooks_review::Review::of(&agent).handle(action);
                    continue;
                }
                // Nothing runs: an abort or a late permission answer has nothing to reach.
                Some(AgentCommand::Abort | AgentCommand::PermissionReply { .. }) => continue,
                Some(AgentCommand::Shutdown) | None => return agent,
            },
        };
        let cancel = CancellationToken::new();
        let policy = agent.exec.policy.clone();
        let events = agent.exec.events.clone();
        let jobs = agent.exec.jobs.clone();
        let review = super::hooks_review::Review::of(&agent);
        let mut shutdown = false;
        let mut reset = false;
        // The running prompt borrows the agent; a switch waits for it to end.
        let mut next_model: Option<String> = None;
        let inbox = agent.steer.clone();
        {
            let turn = agent.run_prompt(&text, &cancel);
            tokio::pin!(turn);
            loop {
                tokio::select! {
                    _ = &mut turn => break,
                    cmd = rx.recv() => match cmd {
                        Some(AgentCommand::Abort) => cancel.cancel(),
                        Some(AgentCommand::Steer { text }) => inbox.push(text),
                        Some(AgentCommand::PermissionReply { id, decision }) => {
                            policy.reply(&id, decision)
                        }
                        Some(AgentCommand::Submit { text }) => queued.push_back(text),
                        Some(AgentCommand::SetModel { model }) => next_model = Some(model),
                        // The TUI refuses /compact while a turn runs, and queues a
                        // `!command` until the turn ends.
                        Some(AgentCommand::Compact { .. } | AgentCommand::Shell { .. }) => {}
                        Some(AgentCommand::RevokeSessionGrant { tool }) => policy.revoke(&tool),
                        Some(AgentCommand::SetApproval { mode }) => {
                            policy.set_mode(mode);
                            events.send(AgentEvent::ApprovalChanged { mode });
                        }
                        Some(AgentCommand::KillJob { id }) => kill_job_in(&jobs, &events, id),
                        Some(AgentCommand::Hooks { action }) => review.handle(action),
                        Some(AgentCommand::NewConversation) => {
                            cancel.cancel();
                            reset = true;
                        }
                        Some(
                            AgentCommand::Rewind(_)
                            | AgentCommand::Fork
                            | AgentCommand::Resume { .. },
                        ) => events.send(AgentEvent::Error {
                            message: "wait for the turn to end (or Ctrl+C) before \
                                      rewinding, forking or resuming"
                                .into(),
                        }),
                        Some(AgentCommand::Shutdown) | None => {
                            cancel.cancel();
                            shutdown = true;
                        }
                    },
                }
            }
        }
        // Words that found no tool boundary to join: the next prompt, or back to the user
        // when the turn was aborted (or the conversation is going away).
        super::steer_inbox::settle(&inbox, reset || shutdown, &events, &mut queued);
        // A skill's allowed-tools last as long as the turn that used it.
        policy.end_skill_grants();
        if let Some(model) = next_model {
            agent.set_model(model);
        }
        if reset {
            queued.clear();
            agent.reset(Vec::new());
            agent.exec.hooks.cleared();
        }
        if shutdown {
            events.send(AgentEvent::Notice {
                text: "agent stopped".into(),
            });
            return agent;
        }
    }
}

/// Shift+Tab / `/approval`: the policy decides in `mode` from now on.
fn set_approval(agent: &Agent, mode: crate::protocol::approval_mode::ApprovalMode) {
    agent.exec.policy.set_mode(mode);
    agent.events().send(AgentEvent::ApprovalChanged { mode });
}

/// A `!command`; Abort stops it (its process group is killed, the partial output kept).
/// True if the agent must stop.
async fn shell(
    agent: &mut Agent,
    command: &str,
    rx: &mut mpsc::UnboundedReceiver<AgentCommand>,
    queued: &mut VecDeque<String>,
) -> bool {
    let cancel = CancellationToken::new();
    let side = Side::of(agent);
    let work = super::shell_command::run(agent, command, &cancel);
    side.while_working(work, &cancel, rx, queued).await
}

/// A manual compaction; Abort cancels it (history unchanged). True if the agent must stop.
async fn compact(
    agent: &mut Agent,
    instructions: Option<String>,
    rx: &mut mpsc::UnboundedReceiver<AgentCommand>,
    queued: &mut VecDeque<String>,
) -> bool {
    let cancel = CancellationToken::new();
    let side = Side::of(agent);
    let work = super::context::prepare::manual(agent, instructions.as_deref(), &cancel);
    side.while_working(work, &cancel, rx, queued).await
}

/// What answers commands while the agent itself is busy with a `!command` or a compaction.
struct Side {
    policy: std::sync::Arc<crate::permission::PermissionPolicy>,
    jobs: std::sync::Arc<crate::background::Jobs>,
    events: crate::protocol::events::EventSink,
    review: super::hooks_review::Review,
}

impl Side {
    fn of(agent: &Agent) -> Self {
        Side {
            policy: agent.exec.policy.clone(),
            jobs: agent.exec.jobs.clone(),
            events: agent.exec.events.clone(),
            review: super::hooks_review::Review::of(agent),
        }
    }

    /// Runs `work` while still taking commands: Abort cancels it, prompts queue, questions
    /// (a sandbox escalation) are answered, modes change and jobs stop. True if the agent
    /// must stop.
    async fn while_working<T>(
        self,
        work: impl std::future::Future<Output = T>,
        cancel: &CancellationToken,
        rx: &mut mpsc::UnboundedReceiver<AgentCommand>,
        queued: &mut VecDeque<String>,
    ) -> bool {
        let Side {
            policy,
            jobs,
            events,
            review,
        } = self;
        let mut shutdown = false;
        tokio::pin!(work);
        loop {
            tokio::select! {
                _ = &mut work => break,
                cmd = rx.recv() => match cmd {
                    Some(AgentCommand::Abort) => cancel.cancel(),
                    // No turn to steer: it waits like a prompt.
                    Some(AgentCommand::Submit { text } | AgentCommand::Steer { text }) => {
                        queued.push_back(text)
                    }
                    Some(AgentCommand::PermissionReply { id, decision }) => policy.reply(&id, decision),
                    Some(AgentCommand::RevokeSessionGrant { tool }) => policy.revoke(&tool),
                    Some(AgentCommand::SetApproval { mode }) => {
                        policy.set_mode(mode);
                        events.send(AgentEvent::ApprovalChanged { mode });
                    }
                    Some(AgentCommand::KillJob { id }) => kill_job_in(&jobs, &events, id),
                    Some(AgentCommand::Hooks { action }) => review.handle(action),
                    Some(AgentCommand::Shutdown) | None => {
                        cancel.cancel();
                        shutdown = true;
                    }
                    Some(_) => {}
                },
            }
        }
        shutdown
    }
}

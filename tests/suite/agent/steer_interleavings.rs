//! Steering a running turn (issue 40), in process under tokio's paused clock: text sent
//! while tools run joins the request after that step, and 1,000 random interleavings of
//! steering and aborting leave every request valid and lose no text.

use crate::support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc;

use support::harness::{Harness, harness};
use tooloop::cli::ToolExec;
use tooloop::message::{ContentBlock, Message, Role, validate_history};
use tooloop::protocol::steer::SteerFate;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::provider::scripted::{ReplyBuilder, ScriptedProvider};

/// Every `steps + 1`-th request is answered with a final text; the others with one `wait`
/// call (50 ms of virtual time).
fn looping_provider(steps: usize) -> ScriptedProvider {
    let n = Arc::new(AtomicUsize::new(0));
    ScriptedProvider::default().with_responder(Arc::new(move |_, _| {
        let i = n.fetch_add(1, Ordering::SeqCst);
        Some(if i % (steps + 1) == steps {
            ReplyBuilder::new().text(10, "done").end(40, "end_turn")
        } else {
            ReplyBuilder::new()
                .tool(
                    5,
                    20,
                    &format!("toolu_{i}"),
                    "wait",
                    json!({"tag": i.to_string()}),
                )
                .end(30, "tool_use")
        })
    }))
}

fn agent_with(provider: &ScriptedProvider) -> Harness {
    let mut h = harness(Vec::new(), &[("wait", true, 50)], ToolExec::Streaming);
    h.agent.provider = Arc::new(provider.clone());
    h.provider = provider.clone();
    h
}

fn text_blocks(m: &Message) -> Vec<&str> {
    m.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn has_text(messages: &[Message], text: &str) -> bool {
    messages
        .iter()
        .any(|m| m.role == Role::User && text_blocks(m).contains(&text))
}

/// Texts that became the next prompt together are one prompt, a blank line between them.
fn in_a_prompt(messages: &[Message], text: &str) -> bool {
    messages.iter().any(|m| {
        m.role == Role::User
            && text_blocks(m)
                .iter()
                .any(|b| b.split("\n\n").any(|part| part == text))
    })
}

/// A run of the agent task with `commands` sent at their virtual times (ms after Submit);
/// returns the agent's final history, every request's messages, and the Steer events.
async fn run_task(
    h: Harness,
    commands: Vec<(u64, AgentCommand)>,
) -> (Vec<Message>, Vec<Vec<Message>>, Vec<(String, SteerFate)>) {
    let Harness {
        agent,
        provider,
        events,
        ..
    } = h;
    let (tx, rx) = mpsc::unbounded_channel();
    let task = tooloop::agent::task::spawn(agent, rx);
    tx.send(AgentCommand::Submit {
        text: "start".into(),
    })
    .expect("send");
    let mut at = 0;
    for (t, cmd) in commands {
        tokio::time::sleep(Duration::from_millis(t - at)).await;
        at = t;
        tx.send(cmd).expect("send");
    }
    // Long enough for any queued prompt to run out (virtual time).
    tokio::time::sleep(Duration::from_secs(30)).await;
    tx.send(AgentCommand::Shutdown).expect("send");
    let agent = task.await.expect("agent task");
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    let steers = events
        .lock()
        .expect("events")
        .iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::Steer { text, fate } => Some((text.clone(), *fate)),
            _ => None,
        })
        .collect();
    let history = agent.history.iter().map(|m| Message::clone(m)).collect();
    (history, provider.requests(), steers)
}

#[tokio::test(start_paused = true)]
async fn text_sent_during_step_one_joins_the_request_after_it_and_not_before() {
    // Three tool steps, then the answer. Step 1's request streams 0–30 ms, its tool runs
    // 20–70 ms: the text arrives at 25 ms, during step 1.
    let provider = looping_provider(3);
    let h = agent_with(&provider);
    let steer = AgentCommand::Steer {
        text: "use the other file".into(),
    };
    let (history, requests, steers) = run_task(h, vec![(25, steer)]).await;
    assert_eq!(
        requests.len(),
        4,
        "three steps and the answer, no extra request"
    );
    assert!(!has_text(&requests[0], "use the other file"), "not before");
    let second = requests[1].last().expect("the request after step 1");
    assert_eq!(second.role, Role::User);
    // Tool results first, then the user's words, in the same message.
    assert!(matches!(second.content[0], ContentBlock::ToolResult { .. }));
    assert_eq!(text_blocks(second), vec!["use the other file"]);
    assert_eq!(
        steers,
        vec![("use the other file".to_string(), SteerFate::Joined)]
    );
    validate_history(&history).expect("valid history");
    for r in &requests {
        validate_history(r).expect("valid request");
    }
}

#[tokio::test(start_paused = true)]
async fn text_sent_during_the_final_answer_is_the_next_prompt() {
    let provider = looping_provider(1);
    let h = agent_with(&provider);
    // The answer's request starts at 70 ms (30 ms of stream, 50 ms of tool) and ends at 110.
    let steer = AgentCommand::Steer {
        text: "and then?".into(),
    };
    let (history, requests, steers) = run_task(h, vec![(90, steer)]).await;
    assert_eq!(
        steers,
        vec![("and then?".to_string(), SteerFate::NextPrompt)]
    );
    // The next prompt's own request starts with it as the last user message.
    let third = requests.get(2).expect("the next prompt's request");
    assert_eq!(text_blocks(third.last().expect("last")), vec!["and then?"]);
    validate_history(&history).expect("valid history");
}

/// A small deterministic generator (no dependency; the seed names the case).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[tokio::test(start_paused = true)]
async fn a_thousand_random_steer_and_abort_interleavings_keep_history_valid_and_lose_nothing() {
    let (mut invalid, mut lost, mut joined, mut returned, mut next) = (0, 0, 0, 0, 0);
    for seed in 0..1000u64 {
        let mut rng = Rng(seed * 2_654_435_761 + 1);
        let steps = 1 + rng.below(3) as usize;
        let h = agent_with(&looping_provider(steps));
        let mut commands = Vec::new();
        for i in 0..1 + rng.below(4) {
            let text = format!("steer {seed}.{i}");
            commands.push((rng.below(300), AgentCommand::Steer { text }));
        }
        if rng.below(2) == 0 {
            commands.push((rng.below(300), AgentCommand::Abort));
        }
        commands.sort_by_key(|(t, _)| *t);
        let sent: Vec<String> = commands
            .iter()
            .filter_map(|(_, c)| match c {
                AgentCommand::Steer { text } => Some(text.clone()),
                _ => None,
            })
            .collect();
        let (history, requests, steers) = run_task(h, commands).await;
        let valid = validate_history(&history).is_ok()
            && requests.iter().all(|r| validate_history(r).is_ok());
        if !valid {
            invalid += 1;
            eprintln!("seed {seed}: invalid history {history:#?}");
        }
        let fates: HashMap<&str, SteerFate> =
            steers.iter().map(|(t, f)| (t.as_str(), *f)).collect();
        for text in &sent {
            let in_history = in_a_prompt(&history, text);
            let ok = match fates.get(text.as_str()) {
                Some(SteerFate::Returned) => !in_history,
                // Joined, sent as the next prompt, or sent while idle (a plain prompt).
                Some(_) | None => in_history,
            };
            if !ok {
                lost += 1;
                eprintln!(
                    "seed {seed}: {text:?} ({:?}) lost",
                    fates.get(text.as_str())
                );
            }
            match fates.get(text.as_str()) {
                Some(SteerFate::Joined) => joined += 1,
                Some(SteerFate::Returned) => returned += 1,
                Some(SteerFate::NextPrompt) => next += 1,
                None => {}
            }
        }
        assert_eq!(steers.len(), fates.len(), "seed {seed}: one event per text");
    }
    eprintln!("joined {joined}, next prompt {next}, returned {returned}");
    assert_eq!((invalid, lost), (0, 0), "invalid histories, lost texts");
    // The cases really cover all three fates.
    assert!(
        joined > 100 && returned > 20 && next > 20,
        "{joined} {next} {returned}"
    );
}

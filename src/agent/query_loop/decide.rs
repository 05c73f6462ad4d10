//! What the loop does after a reply was closed: a pure function of how the stream ended and
//! what the reply held, testable without tokio.

use crate::message::markers::INTERRUPT_MARKER;
use crate::protocol::{Terminal, Transition};

/// The meta message that resumes a reply cut by the output token limit.
pub const MAX_TOKENS_RESUME: &str =
    "Output token limit hit. Resume directly — no apology, no recap. Pick up mid-thought.";
pub(super) const MAX_TOKENS_RECOVERIES: u32 = 3;
pub(super) const CUT_OFF_RESUME: &str = "[Your previous reply was cut off by a connection \
problem. Continue from where it stopped; tools that already ran have their results above.]";

/// How the reply's stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// message_stop arrived; `cut` if the reply hit the output token limit.
    Finished { cut: bool },
    /// message_stop arrived with `stop_reason: "pause_turn"`: the API paused a long
    /// server-tool turn (web search, code execution) and expects the reply sent back as it
    /// is, so the model continues it.
    Paused,
    /// The user aborted while the reply streamed.
    Aborted,
    /// The stream broke; `retryable` if the retry policy allows another attempt.
    Failed { retryable: bool },
}

/// What the closed reply held, and whether the user has aborted since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Reply {
    /// The reply had tool_use blocks (each now has a result).
    pub asked: bool,
    /// The reply was kept in history (it had any block at all).
    pub kept: bool,
    pub cancelled: bool,
}

/// How the loop goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Continue(Transition),
    End(Terminal, Option<String>),
    /// The request failed for good: end with the error's own reason.
    Fail,
    /// Wait out the backoff, then try again (or end if the user aborts meanwhile).
    Retry,
}

/// The user message that closes the reply (its tool results, then `tail` if any; nothing is
/// appended when both are empty) and the next step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub tail: Option<&'static str>,
    pub next: Step,
}

fn plan(tail: Option<&'static str>, next: Step) -> Plan {
    Plan { tail, next }
}

/// `recoveries`: max_tokens recoveries already made in this prompt.
pub(super) fn decide(outcome: Outcome, reply: Reply, recoveries: u32) -> Plan {
    match outcome {
        Outcome::Finished { cut } => {
            if reply.cancelled && reply.asked {
                plan(
                    Some(INTERRUPT_MARKER),
                    Step::End(Terminal::AbortedTools, None),
                )
            } else if cut && recoveries >= MAX_TOKENS_RECOVERIES {
                let why =
                    format!("the reply hit the output token limit {MAX_TOKENS_RECOVERIES} times");
                plan(None, Step::End(Terminal::MaxOutputTokens, Some(why)))
            } else if cut {
                plan(
                    Some(MAX_TOKENS_RESUME),
                    Step::Continue(Transition::MaxTokensRecovery),
                )
            } else if !reply.asked {
                plan(None, Step::End(Terminal::Completed, None))
            } else {
                plan(None, Step::Continue(Transition::NextTurn))
            }
        }
        // The paused reply stays the last message (no user message after it): the next
        // request sends it back and the model's continuation joins the same message.
        Outcome::Paused if reply.cancelled => plan(
            Some(INTERRUPT_MARKER),
            Step::End(Terminal::AbortedStreaming, None),
        ),
        Outcome::Paused if reply.asked => plan(None, Step::Continue(Transition::NextTurn)),
        Outcome::Paused => plan(None, Step::Continue(Transition::PauseTurn)),
        Outcome::Aborted => plan(
            Some(INTERRUPT_MARKER),
            Step::End(Terminal::AbortedStreaming, None),
        ),
        Outcome::Failed { retryable } => {
            if reply.cancelled {
                // Tools of a kept reply may have run: that abort is an abort of tools.
                let reason = if reply.kept {
                    Terminal::AbortedTools
                } else {
                    Terminal::AbortedStreaming
                };
                return plan(Some(INTERRUPT_MARKER), Step::End(reason, None));
            }
            let tail = (reply.kept && !reply.asked).then_some(CUT_OFF_RESUME);
            plan(tail, if retryable { Step::Retry } else { Step::Fail })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(asked: bool, kept: bool, cancelled: bool) -> Reply {
        Reply {
            asked,
            kept,
            cancelled,
        }
    }

    const DONE: Outcome = Outcome::Finished { cut: false };
    const CUT: Outcome = Outcome::Finished { cut: true };

    #[test]
    fn a_finished_reply_goes_on_only_for_tools() {
        assert_eq!(
            decide(DONE, reply(true, true, false), 0),
            plan(None, Step::Continue(Transition::NextTurn))
        );
        assert_eq!(
            decide(DONE, reply(false, true, false), 0),
            plan(None, Step::End(Terminal::Completed, None))
        );
        // An abort that came after the last tool_use of a text-only reply changes nothing.
        assert_eq!(
            decide(DONE, reply(false, true, true), 0).next,
            Step::End(Terminal::Completed, None)
        );
        assert_eq!(
            decide(DONE, reply(true, true, true), 0),
            plan(
                Some(INTERRUPT_MARKER),
                Step::End(Terminal::AbortedTools, None)
            )
        );
    }

    #[test]
    fn max_tokens_resumes_three_times_then_ends() {
        for n in 0..MAX_TOKENS_RECOVERIES {
            assert_eq!(
                decide(CUT, reply(true, true, false), n),
                plan(
                    Some(MAX_TOKENS_RESUME),
                    Step::Continue(Transition::MaxTokensRecovery)
                )
            );
        }
        assert_eq!(
            decide(CUT, reply(false, true, false), MAX_TOKENS_RECOVERIES),
            plan(
                None,
                Step::End(
                    Terminal::MaxOutputTokens,
                    Some("the reply hit the output token limit 3 times".into())
                )
            )
        );
    }

    #[test]
    fn a_paused_reply_is_sent_back_as_it_is() {
        assert_eq!(
            decide(Outcome::Paused, reply(false, true, false), 0),
            plan(None, Step::Continue(Transition::PauseTurn))
        );
        assert_eq!(
            decide(Outcome::Paused, reply(true, true, false), 0),
            plan(None, Step::Continue(Transition::NextTurn))
        );
        assert_eq!(
            decide(Outcome::Paused, reply(false, true, true), 0).next,
            Step::End(Terminal::AbortedStreaming, None)
        );
    }

    #[test]
    fn an_aborted_stream_always_ends_with_the_marker() {
        for (asked, kept) in [(false, false), (false, true), (true, true)] {
            assert_eq!(
                decide(Outcome::Aborted, reply(asked, kept, true), 0),
                plan(
                    Some(INTERRUPT_MARKER),
                    Step::End(Terminal::AbortedStreaming, None)
                )
            );
        }
    }

    #[test]
    fn a_failed_stream_retries_or_fails_and_resumes_cut_text() {
        let failed = |retryable| Outcome::Failed { retryable };
        assert_eq!(
            decide(failed(true), reply(false, true, false), 0),
            plan(Some(CUT_OFF_RESUME), Step::Retry)
        );
        assert_eq!(
            decide(failed(true), reply(true, true, false), 0),
            plan(None, Step::Retry),
            "tool results say enough"
        );
        assert_eq!(
            decide(failed(false), reply(false, false, false), 0),
            plan(None, Step::Fail)
        );
        assert_eq!(
            decide(failed(true), reply(true, true, true), 0),
            plan(
                Some(INTERRUPT_MARKER),
                Step::End(Terminal::AbortedTools, None)
            )
        );
        assert_eq!(
            decide(failed(true), reply(false, false, true), 0),
            plan(
                Some(INTERRUPT_MARKER),
                Step::End(Terminal::AbortedStreaming, None)
            )
        );
    }
}

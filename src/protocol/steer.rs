//! Steering a running turn (issue 40): what became of words sent while the turn ran.

use serde::{Deserialize, Serialize};

/// Where a steered text went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteerFate {
    /// It joined the user message after a tool step's results: the next request carries it.
    Joined,
    /// The model was giving its final answer (no tool step left to join): it is sent as the
    /// next prompt when the turn ends.
    NextPrompt,
    /// The turn was aborted before it could join: not sent, handed back to the user.
    Returned,
}

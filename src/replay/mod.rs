//! `tooloop replay SESSION`: a recording (src/recording) played back offline, into the real TUI
//! or as the stream-json lines the original run printed.
//!
//! Replay feeds recorded [`AgentEvent`]s to the front ends at their recorded times. Nothing
//! is sent to a model and no tool runs: a tool "runs" from its recorded `tool_start` to its
//! recorded `tool_end`, with the recorded output. The front ends cannot tell the difference,
//! which is the point: timers, the timeline and the JSON pane behave as they did.

pub mod approvals;
pub mod command;
pub mod headless;
pub mod player;
pub mod steps;
pub mod tui;

pub use player::play;

/// `--speed`: how many times faster than recorded (2 = half the waits).
pub fn check_speed(speed: f64) -> Result<f64, crate::recording::RecordError> {
    if speed.is_finite() && speed > 0.0 {
        Ok(speed)
    } else {
        Err(crate::recording::RecordError::BadSpeed(speed))
    }
}

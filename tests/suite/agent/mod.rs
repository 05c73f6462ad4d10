//! The agent loop in process: turns, aborts, the executor's schedule, history invariants.

mod abort_then_continue;
mod executor_timing;
mod history_props;
mod images;
mod input_mentions_shell;
mod instructions_prompt;
mod loop_abort;
mod loop_shared_history;
mod loop_turns;
mod model_routes;
mod rewind;
mod steer_interleavings;
mod steering_todo;

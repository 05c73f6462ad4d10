//! Settings: flags, environment, config file and their precedence; the engine's defaults.

mod cli;
mod engine_defaults;
mod precedence;
mod tool_timeout;

//! The bash sandbox (Landlock), its config and escalation.

mod bash;
mod config;
mod cost;
mod escalation;
mod headless;

//! The bash sandbox (Landlock), its config and escalation.

mod bash;
mod config;
mod escalation;
mod headless;

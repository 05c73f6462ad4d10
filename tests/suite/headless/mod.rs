//! The real binary in `-p` mode against the mock server.

mod anthropic;
mod anthropic_faults;
mod claude_hook_answers;
mod claude_hook_scripts;
mod claude_prompt_hooks;
mod claude_settings;
mod demo;
mod duplicate_ids;
mod exit_codes;
mod hardening;
mod hooks;
mod openai;
mod prompt_input;
mod quiet_pipe;
mod readme_examples;
mod skill_command;
mod skill_folders;
mod skills;
mod steer_hooks;
mod steer_stdin;
mod steering;
mod telemetry;
mod telemetry_compaction;
mod telemetry_mcp;
mod telemetry_wire;

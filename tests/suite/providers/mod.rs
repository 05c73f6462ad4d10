//! The provider clients over real HTTP: Anthropic, OpenAI-compatible, recorded streams.

mod anthropic_http;
mod anthropic_mock;
mod anthropic_mock_defer;
mod anthropic_protocol;
mod base_url_errors;
mod models_switch;
mod openai_faults;
mod openai_http;
mod openai_messages;
mod openai_stream;
mod openai_tool_calls;
mod pause_turn_context;
mod recorded_streams;
mod server_tools;

//! Anthropic Messages API, streaming (placeholder).

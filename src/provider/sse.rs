//! Server-sent events framing (placeholder).

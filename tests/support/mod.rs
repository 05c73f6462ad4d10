//! Shared test support: a mock model server and a runner for the real binary, and one
//! submodule per kind of harness (below).
//!
//! Use it from a test under `suite/` with `use crate::support;` and `use support::*;`.
//!
//! ## Harnesses
//! - `harness`: an in-process Agent (or a parent with subagents, `Setup`) over the scripted
//!   provider under tokio's paused clock, every event recorded with its virtual time.
//! - `compaction`: the engine over the mock in a small context window.
//! - `permissions`: the executor with a policy and scripted approvals.
//! - `session`: a sandboxed HOME and the binary's saved sessions.
//! - `tui`: an App, keys and a started turn, without a terminal; `tui::demo_engine`.
//! - `tmux`: the real binary in a private tmux server. `env`: the gate for tests that need
//!   Landlock or tmux.
//! - `fuzz`: the fuzz targets' checks, run over their corpora and seeds.
//!
//! ## Mock server (`server.rs`, replies in `reply.rs`)
//! - `let server = MockServer::start();` — real HTTP/1.1 on 127.0.0.1 (random port), on its
//!   own thread and runtime: works in plain `#[test]`s that spawn the binary and in async
//!   tests. Dropping it stops it (stalled connections too).
//! - `server.url()` = `http://127.0.0.1:PORT`; `server.anthropic_base()` = `…/anthropic` (a
//!   path prefix; any prefix before `/v1/messages` is accepted).
//! - `server.enqueue(reply)` — replies are served in order to *valid* requests, one each.
//!   An empty queue answers 400 "mock server: no reply scripted for request #N".
//! - `server.requests()` / `server.accepted()` — every request: `method`, `path`, `headers`
//!   (lowercased; `.header(name)`), `body` (JSON) and `body_text`, `rejected` (the
//!   validator's error body if it was refused). `server.pending()` = replies left.
//! - `Reply`: `Reply::sse(Vec<SseEvent>)`, `Reply::error(status, type, message)` (the API's
//!   JSON error body), `Reply::status(status, body)`, `Reply::hang()`; modifiers
//!   `.header(k, v)`, `.chunked(n)` (n-byte pieces, each its own flushed HTTP chunk),
//!   `.event_delay(d)`, `.head_delay(d)`, `.ending(Ending::Complete|Drop|Stall)`.
//!   `SseEvent::named(name, &json)`, `::data(str)`, `::raw(bytes)`, `.after(delay)`.
//! - `Gate::new()` + `reply.head_gated(&g)` / `reply.gate_event(i, &g)` /
//!   `event.gated(&g)`: the reply waits there until the test calls `g.open()` (from any
//!   thread) — deterministic "abort while the stream is at X" without sleeps.
//! - `server.wait_for_requests(n, timeout)` (sync) / `wait_for_requests_async(n)`.
//! - Refusals are checked: when the server is dropped, a request a validator refused fails
//!   the test unless it called `server.expect_rejections()` (and with that call, a run where
//!   nothing was refused fails). Not while the test is already panicking.
//! - Validation: `server::Route { suffix, validate }`; `default_routes()` holds
//!   `/v1/messages` → `anthropic_validate::validate` (401 without x-api-key, 400 without
//!   anthropic-version, unanswered tool_use (also: text before the tool_result blocks that
//!   answer it), orphan tool_result, non-alternating roles,
//!   first message not user, empty content, duplicate tool_use ids, bad tools — with the
//!   API's wording), and extended thinking (`anthropic_thinking.rs`: budget ≥ 1024 and below
//!   max_tokens; thinking / redacted_thinking blocks only as the mock issued them (replies
//!   record theirs; `sign(text)` / `redacted_data(seed)` issue one for a hand-built body); no
//!   reply may end in thinking; with thinking on, the assistant turn before the last
//!   tool_results must start with thinking).
//!   OpenAI adds `/chat/completions` from `support/openai.rs` to
//!   `default_routes()` (or at run time with `server.add_route`).
//!
//! ## Prompt caching and context windows (`anthropic_cache.rs`)
//! - Always: more than 4 `cache_control` blocks, or one on an empty text / thinking block,
//!   is a 400 with the API's wording.
//! - `server.enable_prompt_cache()`: counts tokens (4 bytes each), remembers prefixes
//!   written at breakpoints and rewrites each reply's message_start usage with
//!   `input_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`.
//!   `server.set_context_window(n)`: counts too, and answers 400 "prompt is too long: N
//!   tokens > n maximum" past it. `recorded.accounted` holds the counts reported.
//! - `server.respond_with(|req| reply)`: computes a reply when the queue is empty.
//!
//! ## Anthropic replies (`anthropic.rs`)
//! - `text_reply("Hello")`, `tool_reply(&[("toolu_1", "get_current_time", json!({}))])`,
//!   `overloaded()` (529), `rate_limited(ms)` (429 + retry-after-ms), `prompt_too_long()`,
//!   `stream_error(ty, msg)`.
//! - `ReplyBuilder::new().text(..).thinking(text, sig).signed_thinking(text)
//!   .redacted_thinking(data).tool_use(id, name, input)
//!   .tool_use_fragments(id, name, &["{\"a\"", ":1}"]).stop_reason(..).usage(in, out)
//!   .delay_ms(20).chunk(1).no_ping()` then `.build()`, or a fault: `.drop_after(n)`,
//!   `.error_after(n, "overloaded_error", "Overloaded")`, `.malformed_after(n)`,
//!   `.without_message_stop()`, `.stall_after(n)`; `.events()` for hand editing.
//!   Event order (for the `n` of faults and `gate_event`): 0 message_start, 1 ping, then per
//!   block start / deltas (text split at spaces, tool input in 3 fragments, none for `{}`) /
//!   stop, then message_delta, message_stop.
//! - `tool_results(&recorded)` — the tool_result blocks of a request's last message.
//!
//! ## Provider streams (`stream.rs`)
//! - `collect(event_stream).await` → `Seen { raw, events, error }` (+ `.completed()`,
//!   `.text()`, `.thinking()`); panics if anything follows an error.
//! - `sample_request()`, `anthropic(&server)`, `anthropic_run(&server, reply)`,
//!   `anthropic_start_err(&server, reply)`, `TEST_KEY`.
//!
//! ## The binary (`bin.rs`)
//! - `Tooloop::new(&["-p", "hi", "--output-format", "stream-json"]).env(k, v).run()` → `Run
//!   { code, stdout, stderr, lines (stdout JSON lines), home, workspace }`; `.spawn()` gives
//!   a `Spawned` (its `pid()` for signals) to `.wait()` on. API keys and base URLs are
//!   removed from the inherited env; HOME and XDG dirs point into a temp dir; the cwd is an
//!   empty workspace unless `.workspace(dir)`. Killed after 60 s (`.timeout(d)`).
//! - `run.result()`, `run.types()`, `run.of_type("tool_use")`,
//!   `assert_valid_history(run.result())`.
//!
//! ## An OpenTelemetry collector (`otlp.rs`)
//! - `Collector::start(Behaviour::Accept)` — OTLP/HTTP on 127.0.0.1 (`collector.endpoint()`
//!   for `OTEL_EXPORTER_OTLP_ENDPOINT`); decodes `/v1/traces` and `/v1/metrics` with the
//!   official protobuf schema (`opentelemetry-proto`): `spans()`, `metrics()`,
//!   `connections()`. `Refuse` answers 503, `Stall` never answers, `Garbage` answers 200
//!   with bytes that are not protobuf. `dead_endpoint()`: a port nobody listens on.

#![allow(dead_code, unused_imports)]

pub mod anthropic;
pub mod anthropic_cache;
pub mod anthropic_defer;
pub mod anthropic_thinking;
pub mod anthropic_validate;
pub mod bin;
pub mod compaction;
pub mod env;
pub mod extensions;
pub mod fuzz;
pub mod harness;
pub mod images;
pub mod openai;
pub mod openai_history;
pub mod otlp;
pub mod permissions;
pub mod reply;
pub mod server;
pub mod session;
pub mod stream;
pub mod tmux;
pub mod tui;
pub mod web_search;

pub use anthropic::{
    ReplyBuilder, overloaded, prompt_too_long, rate_limited, text_reply, tool_reply, tool_results,
};
pub use bin::{Run, Tooloop, assert_valid_history};
pub use extensions::{headless_with_config, mcp_fixture, wait_for_file_text};
pub use reply::{Body, Ending, Gate, Reply, SseEvent};
pub use server::{MockServer, Recorded, Route, Validator};

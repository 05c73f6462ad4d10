//! `--reasoning-effort` on OpenAI-compatible servers: sent only when asked, and a server that
//! refuses the field is reported clearly, once (no retries).

use crate::support;

use support::openai as oa;
use support::{MockServer, Recorded, Reply, Route, Run, Tooloop};

fn run(server: &MockServer, extra: &[&str]) -> Run {
    let base = oa::base(server);
    let mut args = vec![
        "-p",
        "hi",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "gpt-4.1",
        "--output-format",
        "json",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).run()
}

/// Like OpenAI for a model without reasoning: the parameter is refused by name.
fn refuse_reasoning_effort(req: &Recorded) -> Result<(), Reply> {
    if req.body.get("reasoning_effort").is_some() {
        return Err(oa::error(
            400,
            "invalid_request_error",
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        ));
    }
    oa::validate(req)
}

#[test]
fn the_effort_is_sent_only_when_asked() {
    let server = MockServer::start();
    server.enqueue(oa::text_reply("Hi."));
    server.enqueue(oa::text_reply("Hi again."));
    let asked = run(&server, &["--reasoning-effort", "high"]);
    assert_eq!(asked.code, Some(0), "{}", asked.stderr);
    let plain = run(&server, &[]);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    let reqs = server.accepted();
    assert_eq!(reqs[0].body["reasoning_effort"], "high");
    assert!(
        reqs[1].body.get("reasoning_effort").is_none(),
        "{}",
        reqs[1].body
    );
}

#[test]
fn a_server_that_refuses_the_field_is_reported_once() {
    let server = MockServer::start();
    server.expect_rejections();
    server.add_route(Route {
        suffix: "/chat/completions",
        validate: refuse_reasoning_effort,
    });
    let run = run(&server, &["--reasoning-effort", "low"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    let error = result["error"].as_str().unwrap_or("");
    assert!(
        error.contains("refused reasoning_effort") && error.contains("--reasoning-effort"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1, "not retried");
}

#[test]
fn thinking_on_an_openai_server_is_ignored_and_said() {
    let server = MockServer::start();
    server.enqueue(oa::text_reply("Hi."));
    let base = oa::base(&server);
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--thinking",
        "2048",
    ])
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--thinking is not sent by the openai provider"),
        "{}",
        run.stderr
    );
    let req = &server.accepted()[0];
    assert!(req.body.get("thinking").is_none());
}

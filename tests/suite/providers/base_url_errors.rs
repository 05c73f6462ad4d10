//! A wrong `--base-url`, through the real binary: every connection error names the URL it
//! tried, and a refused connection is retried twice, not for a minute. Counted in attempts
//! (request_start / retry lines), not in wall-clock time.

use crate::support;

use support::*;

/// A port on 127.0.0.1 that nobody listens on (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn run_refused(provider: &str, base: &str, key_env: &str) -> Run {
    Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        provider,
        "--base-url",
        base,
        "--output-format",
        "stream-json",
        "--no-session",
    ])
    .env(key_env, "sk-test-refused")
    .run()
}

fn assert_refused_twice(run: &Run, url: &str) {
    assert_eq!(run.code, Some(1), "a model error: {}", run.stderr);
    assert_eq!(
        run.of_type("request_start").len(),
        3,
        "the first attempt and two retries: {:?}",
        run.types()
    );
    let retries = run.of_type("retry");
    assert_eq!(retries.len(), 2, "{:?}", run.types());
    for r in retries {
        let error = r["error"].as_str().unwrap_or("");
        assert!(error.contains(url), "the retry names {url}: {error}");
        assert!(error.contains("refused"), "{error}");
    }
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    let error = result["error"].as_str().unwrap_or("");
    assert!(error.contains(url), "the final error names {url}: {error}");
    assert!(!run.stdout.contains("sk-test-refused"), "the key leaked");
}

#[test]
fn anthropic_refused_names_the_url_and_retries_twice() {
    let base = format!("http://127.0.0.1:{}/proxy", closed_port());
    let run = run_refused("anthropic", &base, "ANTHROPIC_API_KEY");
    assert_refused_twice(&run, &format!("{base}/v1/messages"));
}

#[test]
fn openai_refused_names_the_url_and_retries_twice() {
    let base = format!("http://127.0.0.1:{}/v1", closed_port());
    let run = run_refused("openai", &base, "OPENAI_API_KEY");
    assert_refused_twice(&run, &format!("{base}/chat/completions"));
}

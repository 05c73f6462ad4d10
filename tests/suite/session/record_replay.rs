//! `--record` then `tooloop replay -p`: a real run against the mock (a retry, three tools
//! mid-stream) is recorded beside its transcript and replayed offline; the replay prints the
//! very lines the run printed, at the recorded pace.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

const KEY: &str = "sk-ant-record-secret-key";

fn record_run(server: &MockServer, record_flag: &str) -> Run {
    server.enqueue(overloaded().header("retry-after-ms", "30"));
    server.enqueue(
        ReplyBuilder::new()
            .text("Checking three things.")
            .tool_use("toolu_a", "get_current_time", json!({}))
            .tool_use("toolu_b", "list_dir", json!({}))
            .tool_use("toolu_c", "get_current_time", json!({"timezone": "UTC"}))
            .usage(100, 30)
            .delay_ms(15)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .text("All done.")
            .usage(160, 5)
            .delay_ms(10)
            .build(),
    );
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "check the time and the files",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--output-format",
        "stream-json",
        record_flag,
    ])
    .env("ANTHROPIC_API_KEY", KEY)
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    run
}

fn find(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(find(&p, suffix));
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
    out
}

fn replay(recording: &Path, extra: &[&str]) -> (Run, Duration) {
    let path = recording.to_string_lossy().into_owned();
    let mut args = vec!["replay", &path, "-p", "--output-format", "stream-json"];
    args.extend_from_slice(extra);
    let started = Instant::now();
    let run = Tooloop::new(&args).run();
    (run, started.elapsed())
}

/// Every `t_ms` the recording holds.
fn recorded_times(recording: &Path) -> std::collections::HashSet<u64> {
    std::fs::read_to_string(recording)
        .expect("recording")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["t_ms"].as_u64())
        .collect()
}

/// A replayed line carries exactly a time the recording holds (the replay invents none), and
/// that time is on the clock the run printed with. The run printed each line when its reader
/// got to it, the recording stamped the event as it was sent, so under load the printed time
/// lags: the second check only catches another clock (epoch, per request), not a lag.
fn same_clock(printed: u64, replayed: u64, recorded: &std::collections::HashSet<u64>, at: &Value) {
    assert!(
        recorded.contains(&replayed),
        "replayed t_ms {replayed} is in no recorded line, at {at}"
    );
    assert!(
        printed.abs_diff(replayed) <= (printed / 4).max(500),
        "t_ms {printed} printed vs {replayed} replayed at {at}"
    );
}

fn last_t(run: &Run) -> u64 {
    run.lines
        .last()
        .and_then(|l| l["t_ms"].as_u64())
        .unwrap_or(0)
}

#[test]
fn a_recorded_run_replays_line_for_line_at_its_pace() {
    let server = MockServer::start();
    let original = record_run(&server, "--record");
    let recordings = find(original.home.path(), ".record");
    assert_eq!(recordings.len(), 1, "{recordings:?}");
    let transcripts = find(original.home.path(), ".jsonl");
    assert_eq!(
        transcripts.len(),
        1,
        "the recording is not listed as a transcript"
    );
    let file = std::fs::read_to_string(&recordings[0]).expect("recording");
    assert!(!file.contains(KEY), "the key never reaches the recording");

    // Every request the server saw is in the recording, the failed one (529) included,
    // with its body exactly as the server received it.
    let lines: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let requests: Vec<&Value> = lines.iter().filter(|l| l["type"] == "request").collect();
    let seen = server.requests();
    assert_eq!(
        requests.len(),
        seen.len(),
        "one request line per request sent"
    );
    for (rec, sent) in requests.iter().zip(&seen) {
        assert_eq!(rec["body"], sent.body);
    }
    assert_eq!(lines.iter().filter(|l| l["type"] == "retry").count(), 1);
    let sse: Vec<&Value> = lines.iter().filter(|l| l["type"] == "sse").collect();
    assert!(sse.iter().any(|l| l["event"] == "message_stop"));
    assert!(sse.iter().all(|l| l["req_ms"].is_u64()));
    let ends: Vec<&Value> = lines.iter().filter(|l| l["type"] == "tool_end").collect();
    assert_eq!(ends.len(), 3);
    assert!(
        ends.iter()
            .all(|l| l["output"].is_string() && l["duration_ms"].is_u64())
    );

    let (replayed, took) = replay(&recordings[0], &[]);
    assert_eq!(replayed.code, Some(0), "stderr:\n{}", replayed.stderr);
    assert_eq!(replayed.types(), original.types());
    let recorded = recorded_times(&recordings[0]);
    for (a, b) in original.lines.iter().zip(&replayed.lines) {
        let (ta, tb) = (a["t_ms"].as_u64().unwrap(), b["t_ms"].as_u64().unwrap());
        same_clock(ta, tb, &recorded, a);
        let strip = |v: &Value| {
            let mut v = v.clone();
            v.as_object_mut().unwrap().remove("t_ms");
            v
        };
        assert_eq!(strip(a), strip(b));
    }
    // At the recorded pace: the replay takes about as long as the recording's events span.
    let span = Duration::from_millis(last_t(&replayed));
    assert!(took >= span.mul_f64(0.9), "{took:?} for {span:?} of events");

    // --speed divides the waits.
    let (fast, _) = replay(&recordings[0], &["--speed", "1000"]);
    assert_eq!(fast.code, Some(0), "{}", fast.stderr);
    assert_eq!(fast.types(), original.types());
}

#[test]
fn a_gzip_recording_replays_too() {
    let server = MockServer::start();
    let original = record_run(&server, "--record=gzip");
    let recordings = find(original.home.path(), ".record.gz");
    assert_eq!(recordings.len(), 1, "{recordings:?}");
    let bytes = std::fs::read(&recordings[0]).expect("recording");
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip");
    let (replayed, _) = replay(&recordings[0], &["--speed", "50"]);
    assert_eq!(replayed.code, Some(0), "stderr:\n{}", replayed.stderr);
    assert_eq!(replayed.types(), original.types());
    assert_eq!(replayed.result()["messages"], original.result()["messages"]);
}

#[test]
fn replay_without_a_recording_says_how_to_make_one() {
    let run = Tooloop::new(&["replay", "no-such-session", "-p"]).run();
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("no-such-session"), "{}", run.stderr);
}

/// Every text of the transcript's messages (text blocks, tool inputs and results).
fn texts(messages: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for m in messages.as_array().expect("messages") {
        for b in m["content"].as_array().expect("content") {
            match b["type"].as_str() {
                Some("text") => out.push(b["text"].as_str().unwrap().to_string()),
                Some("tool_result") => out.push(b["content"].as_str().unwrap().to_string()),
                Some("tool_use") => out.push(b["name"].as_str().unwrap().to_string()),
                _ => {}
            }
        }
    }
    out
}

#[test]
fn export_writes_markdown_and_a_self_contained_html_page() {
    let server = MockServer::start();
    let original = record_run(&server, "--record");
    let transcript = &find(original.home.path(), ".jsonl")[0];
    let messages = &original.result()["messages"];
    let t = transcript.to_string_lossy().into_owned();

    let md = Tooloop::new(&["export", &t, "--format", "md"]).run();
    assert_eq!(md.code, Some(0), "{}", md.stderr);
    for text in texts(messages) {
        assert!(
            md.stdout.contains(&text),
            "markdown lacks {text:?}:\n{}",
            md.stdout
        );
    }
    assert_eq!(md.stdout.matches("<details><summary>🔧").count(), 3);
    assert_eq!(md.stdout.matches("</details>").count(), 3);
    // Markdown is the default format.
    let plain = Tooloop::new(&["export", &t]).run();
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert_eq!(plain.stdout, md.stdout);

    let out = original.home.path().join("session.html");
    let o = out.to_string_lossy().into_owned();
    let html = Tooloop::new(&["export", &t, "--format", "html", "-o", &o]).run();
    assert_eq!(html.code, Some(0), "{}", html.stderr);
    assert!(html.stdout.is_empty(), "-o writes the file, not stdout");
    let page = std::fs::read_to_string(&out).expect("html written");
    // A parser reads the whole page without an error, and its text holds every message.
    let mut reader = quick_xml::Reader::from_str(&page);
    let mut text = String::new();
    let mut depth = 0i64;
    let mut rects = 0;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(e)) => {
                depth += 1;
                if e.name().into_inner() == "rect" {
                    rects += 1;
                }
            }
            Ok(quick_xml::events::Event::Empty(e)) => {
                if e.name().into_inner() == "rect" {
                    rects += 1;
                }
            }
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Text(t)) => {
                text.push_str(&t.xml10_content());
            }
            Ok(quick_xml::events::Event::GeneralRef(r)) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    text.push(c);
                    continue;
                }
                let name = r.xml10_content().into_owned();
                text.push_str(match name.as_str() {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    other => panic!("unexpected entity {other}"),
                });
            }
            Ok(_) => {}
            Err(e) => panic!("HTML does not parse at {}: {e}", reader.buffer_position()),
        }
    }
    assert_eq!(depth, 0, "every element is closed");
    for t in texts(messages) {
        assert!(text.contains(&t), "page lacks {t:?}");
    }
    assert!(page.contains("<svg"), "the timeline is drawn");
    // One failed request, two good ones, three tools (each at least its running bar).
    assert!(rects >= 6, "{rects} bars");
    // Self-contained: nothing to fetch, nothing to run (the SVG namespace is only a name).
    let fetches = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for bad in ["<script", "http://", "https://", "src=", "<link"] {
        assert!(!fetches.contains(bad), "the page holds {bad}");
    }
}

#[test]
fn the_request_stepper_shows_every_request_made_the_failed_one_too() {
    use tooloop::tui::panes::json::stepper::Link;

    let server = MockServer::start();
    let original = record_run(&server, "--record");
    let path = recording(&original);
    let rec = tooloop::recording::read(&path).expect("reads");
    let mut app = app_for(&original);
    app.panes.json.requests.link(Link::Replay(path.clone()));
    let now = tokio::time::Instant::now();
    for t in tooloop::recording::timeline::timeline(&rec.entries) {
        app.on_agent(t.event, now);
    }
    let journal = server.requests();
    let stepper = &mut app.panes.json.requests;
    assert_eq!(
        stepper.metas.len(),
        journal.len(),
        "one entry per request made"
    );
    assert_eq!(journal.len(), 3);
    let head = stepper.headline().expect("headline");
    assert!(
        head.starts_with("request 3 of 3 · turn 2 · attempt 1"),
        "{head}"
    );
    // Back to the first: it failed with the server's 529, and its body is the one sent.
    assert!(stepper.step(-1) && stepper.step(-1));
    assert!(!stepper.step(-1), "nothing before the first");
    let head = stepper.headline().expect("headline");
    assert!(
        head.starts_with("request 1 of 3 · turn 1 · attempt 1"),
        "{head}"
    );
    assert!(head.contains("FAILED") && head.contains("529"), "{head}");
    // The raw answer, as the server sent it: status and error body.
    let (status, body) = stepper.http_failure().expect("the HTTP failure is kept");
    assert_eq!(*status, 529);
    let body: Value = serde_json::from_str(body).expect("the body as sent is JSON");
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "overloaded_error");
    assert_eq!(body["error"]["message"], "Overloaded");
    let shown = stepper.shown.as_ref().expect("loaded from the recording");
    assert_eq!(shown.body.json(), &journal[0].body);
    assert!(shown.sse.is_empty(), "a 529 streams nothing");
    // The second attempt streamed the three tool calls.
    assert!(stepper.step(1));
    let head = stepper.headline().unwrap();
    assert!(
        head.starts_with("request 2 of 3 · turn 1 · attempt 2") && !head.contains("FAILED"),
        "{head}"
    );
    let shown = stepper.shown.as_ref().expect("loaded");
    assert_eq!(shown.body.json(), &journal[1].body);
    assert_eq!(shown.prev_messages, Some(1));
    assert!(shown.sse.iter().any(|(e, _)| e == "message_stop"));
    let tool_blocks = shown
        .sse
        .iter()
        .filter(|(e, d)| e == "content_block_start" && d.contains("\"tool_use\""))
        .count();
    assert_eq!(tool_blocks, 3);
}

/// The run's one recording (`--record`).
fn recording(run: &Run) -> PathBuf {
    find(run.home.path(), ".record").pop().expect("recording")
}

fn app_for(run: &Run) -> tooloop::tui::app::App {
    use tooloop::tui::app::{App, RunInfo};
    App::new(RunInfo {
        provider: "anthropic".into(),
        model: "claude-mock".into(),
        session: None,
        shift_enter: false,
        mouse: false,
        save_dir: run.home.path().join("json"),
        session_handle: None,
        sandbox: String::new(),
        models: None,
        workspace: run.workspace.clone(),
        approval: "ask".into(),
        rules: Default::default(),
        ..Default::default()
    })
}

#[test]
fn a_failed_request_keeps_the_raw_http_answer_in_the_recording() {
    let server = MockServer::start();
    let original = record_run(&server, "--record");
    let path = recording(&original);
    let file = std::fs::read_to_string(&path).expect("recording");
    let failed: Vec<Value> = file
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["type"] == "request_failed")
        .collect();
    assert_eq!(failed.len(), 1, "one refused request");
    assert_eq!(failed[0]["status"], 529);
    let body: Value = serde_json::from_str(failed[0]["body"].as_str().expect("body")).unwrap();
    assert_eq!(body["error"]["type"], "overloaded_error");
    assert!(!file.contains(KEY));
    // stream-json prints no line for it: the replay still matches the original.
    assert!(
        original.lines.iter().all(|l| l["type"] != "request_failed"),
        "not a stream-json line"
    );
}

#[test]
fn selecting_a_timeline_bar_opens_that_request_or_tool_in_the_json_pane() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use tooloop::tui::app::Focus;
    use tooloop::tui::panes::json::JsonView;
    use tooloop::tui::panes::json::stepper::Link;
    use tooloop::tui::panes::tools::bars::Bar;

    let server = MockServer::start();
    let original = record_run(&server, "--record");
    let path = recording(&original);
    let rec = tooloop::recording::read(&path).expect("reads");
    let mut app = app_for(&original);
    app.panes.json.requests.link(Link::Replay(path.clone()));
    let t0 = tokio::time::Instant::now();
    let timeline = tooloop::recording::timeline::timeline(&rec.entries);
    let end = timeline.last().map_or(0, |t| t.at_ms);
    for t in timeline {
        app.on_agent(t.event, t0 + Duration::from_millis(t.at_ms));
    }
    let now = t0 + Duration::from_millis(end + 10);
    let key = |app: &mut tooloop::tui::app::App, code: KeyCode| {
        app.on_key(KeyEvent::new(code, KeyModifiers::NONE), now)
    };
    app.panes.focus = Focus::Tools;
    // Enter with nothing picked does nothing; the first ← picks the newest bar: the last
    // request (turn 2).
    key(&mut app, KeyCode::Enter);
    assert!(!app.panes.json_open);
    key(&mut app, KeyCode::Left);
    assert_eq!(app.panes.tools.bars.selected, Some(Bar::Request(2)));
    key(&mut app, KeyCode::Enter);
    assert!(app.panes.json_open && app.panes.focus == Focus::Json);
    assert_eq!(app.panes.json.view, JsonView::Request);
    assert_eq!(app.panes.json.requests.current(), Some(2));

    // Back in the tools pane, Enter alone is the pane's own again (the pick is not re-opened
    // until ←/→ pick anew); ← walks to the tool bars: Enter shows the call's input and output
    // as the model saw them.
    app.panes.focus = Focus::Tools;
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.focus, Focus::Tools, "not re-opened");
    key(&mut app, KeyCode::Left);
    let Some(Bar::Tool(id)) = app.panes.tools.bars.selected.clone() else {
        panic!("a tool bar: {:?}", app.panes.tools.bars.selected);
    };
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.json.view, JsonView::Tool);
    let shown: Value = serde_json::from_str(&app.panes.json.export()).expect("JSON");
    assert_eq!(shown["id"], id.as_str());
    assert_eq!(shown["tool_use"]["type"], "tool_use");
    assert_eq!(shown["tool_use"]["id"], id.as_str());
    assert_eq!(shown["tool_result"]["tool_use_id"], id.as_str());
    assert!(shown["tool_result"]["content"].is_string());
    // F3 leaves the tool view for the usual cycle.
    assert_eq!(JsonView::Tool.next(), JsonView::History);

    // The whole-session view (t) holds the same bars here (one prompt); the first bar is
    // the failed request, and Enter shows it with the server's 529.
    app.panes.focus = Focus::Tools;
    key(&mut app, KeyCode::Char('t'));
    assert!(app.panes.tools.whole_session);
    for _ in 0..10 {
        key(&mut app, KeyCode::Left);
    }
    assert_eq!(app.panes.tools.bars.selected, Some(Bar::Request(0)));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.json.view, JsonView::Request);
    let head = app.panes.json.requests.headline().expect("headline");
    assert!(head.starts_with("request 1 of 3"), "{head}");
    assert_eq!(
        app.panes.json.requests.http_failure().map(|h| h.0),
        Some(529)
    );
    // Drawn: the status and the body as the server sent it, in the request and sse views.
    for view in [JsonView::Request, JsonView::Sse] {
        app.panes.json.view = view;
        let screen = draw(&mut app, now);
        assert!(
            screen.contains("// HTTP 529 · the server's error body, as sent:"),
            "{screen}"
        );
        assert!(screen.contains("\"overloaded_error\""), "{screen}");
    }
    // → from there reaches every bar: 3 requests and 3 tools.
    app.panes.focus = Focus::Tools;
    let mut seen = vec![app.panes.tools.bars.selected.clone()];
    for _ in 0..10 {
        key(&mut app, KeyCode::Right);
        if seen.last() != Some(&app.panes.tools.bars.selected) {
            seen.push(app.panes.tools.bars.selected.clone());
        }
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
}

/// A `-p` run in a given HOME and workspace (so a second run can `--continue` the first).
fn run_in(home: &Path, ws: &Path, server: &MockServer, prompt: &str, extra: &[&str]) -> Run {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        prompt,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--output-format",
        "stream-json",
        "--record",
    ];
    args.extend_from_slice(extra);
    let run = Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", KEY)
        .env("HOME", &home.to_string_lossy())
        .env("XDG_CONFIG_HOME", &home.join(".config").to_string_lossy())
        .env(
            "XDG_DATA_HOME",
            &home.join(".local/share").to_string_lossy(),
        )
        .env(
            "XDG_STATE_HOME",
            &home.join(".local/state").to_string_lossy(),
        )
        .env("XDG_CACHE_HOME", &home.join(".cache").to_string_lossy())
        .workspace(ws)
        .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    run
}

/// CLI.md: `t_ms` is "milliseconds since the run started", and each `-p` run printed its
/// own lines from 0. A recording two runs appended to (the second resumed the session)
/// replays as the two outputs one after the other, each line as its run printed it.
#[test]
fn a_resumed_session_replays_each_run_as_it_printed() {
    let server = MockServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, ws) = (dir.path().join("home"), dir.path().join("ws"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    server.enqueue(
        ReplyBuilder::new()
            .text("One.")
            .tool_use("toolu_1", "get_current_time", json!({}))
            .delay_ms(10)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("Done one.").delay_ms(10).build());
    let first = run_in(&home, &ws, &server, "first run", &[]);
    std::thread::sleep(Duration::from_millis(300));
    server.enqueue(ReplyBuilder::new().text("Two.").delay_ms(40).build());
    let second = run_in(&home, &ws, &server, "second run", &["--continue"]);
    let recordings = find(&home, ".record");
    assert_eq!(
        recordings.len(),
        1,
        "one session, one recording: {recordings:?}"
    );

    let (replayed, _) = replay(&recordings[0], &["--speed", "20"]);
    assert_eq!(replayed.code, Some(0), "stderr:\n{}", replayed.stderr);
    let originals: Vec<&Value> = first.lines.iter().chain(&second.lines).collect();
    let types = |v: &[&Value]| -> Vec<String> {
        v.iter()
            .map(|l| l["type"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        replayed
            .lines
            .iter()
            .map(|l| l["type"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>(),
        types(&originals)
    );
    let recorded = recorded_times(&recordings[0]);
    for (a, b) in originals.iter().zip(&replayed.lines) {
        let (ta, tb) = (a["t_ms"].as_u64().unwrap(), b["t_ms"].as_u64().unwrap());
        same_clock(ta, tb, &recorded, a);
    }
    // The second run's lines start again near 0, as that run printed them, after the first
    // run's result line.
    let n = first.lines.len();
    assert_eq!(replayed.lines[n - 1]["type"], "result");
    let restart = replayed.lines[n]["t_ms"].as_u64().unwrap();
    let first_end = replayed.lines[n - 1]["t_ms"].as_u64().unwrap();
    assert!(restart < first_end, "{restart} after {first_end}");
}

/// The whole frame at 120×40, as text.
fn draw(app: &mut tooloop::tui::app::App, now: tokio::time::Instant) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    terminal
        .draw(|f| tooloop::tui::view::draw(app, f, now))
        .expect("draw");
    let buf = terminal.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                + "\n"
        })
        .collect()
}

/// A server that echoes the key in its error body: the raw body kept for the stepper and
/// the recording has it redacted.
#[tokio::test]
async fn an_echoed_key_is_redacted_from_the_raw_error_body() {
    use support::stream::{TEST_KEY, anthropic_start_err};
    use tooloop::provider::ProviderError;
    let server = MockServer::start();
    let e = anthropic_start_err(
        &server,
        Reply::error(
            401,
            "authentication_error",
            &format!("invalid x-api-key {TEST_KEY}"),
        ),
    )
    .await;
    let ProviderError::Http { status, body, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(*status, 401);
    assert!(!body.contains(TEST_KEY), "{body}");
    assert!(body.contains("invalid x-api-key [redacted]"), "{body}");
    assert!(body.contains("\"authentication_error\""), "{body}");
}

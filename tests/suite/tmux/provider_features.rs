//! Web search and images in the real TUI (tmux, 80×24) against the mock: the search's query,
//! result titles and URLs as compact lines, the cited source under the reply, a pasted image
//! path shown as `[image NAME SIZE]` and sent as an image block, and `read_file` on a picture.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::images::PNG;
use support::tmux::Tmux;
use support::web_search::search_reply;
use support::{MockServer, text_reply, tool_reply, tool_results};

fn command(server: &MockServer, home: &std::path::Path, extra: &str) -> String {
    format!(
        "cd '{}' && {} ANTHROPIC_API_KEY=test-key {} --provider anthropic --base-url {} \
         --model claude-sonnet-4-5 --no-session {extra}",
        home.display(),
        support::tmux::isolated_home(home),
        env!("CARGO_BIN_EXE_tooloop"),
        server.anthropic_base()
    )
}

#[test]
fn web_search_shows_its_query_results_and_cited_source_at_80x24() {
    if !support::tmux::available() {
        return;
    }
    let server = MockServer::start();
    server.enqueue(search_reply(
        "東京 tech news",
        &[
            (
                "Apple Ginza reopens",
                "https://www.apple.com/newsroom/ginza",
            ),
            ("Tech news today", "https://news.example/today"),
        ],
        "Apple Ginza reopened on September 26.",
    ));
    let home = tempfile::tempdir().expect("home");
    let t = Tmux::start(
        "websearch-80",
        80,
        24,
        &command(&server, home.path(), "--web-search"),
    )
    .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    t.wait_for("the TUI", |s| s.contains("tools"));
    t.send_line("东京 tech news?");
    let screen = t.wait_for("the answer", |s| s.contains("September 26"));
    println!("{screen}");
    assert!(screen.contains("東京 tech news"), "the query:\n{screen}");
    assert!(
        screen.contains("Apple Ginza reopens"),
        "a result title:\n{screen}"
    );
    assert!(
        screen.contains("apple.com/newsroom/ginza"),
        "the cited URL:\n{screen}"
    );
    let sent = &server.accepted()[0].body["tools"];
    assert!(
        sent.as_array()
            .is_some_and(|t| t.iter().any(|t| t["type"] == "web_search_20250305")),
        "{sent}"
    );
}

#[test]
fn a_pasted_image_path_and_read_file_on_a_picture_at_80x24() {
    if !support::tmux::available() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    std::fs::write(home.path().join("shot.png"), PNG).expect("png");
    let server = MockServer::start();
    server.enqueue(text_reply("One white pixel."));
    server.enqueue(tool_reply(&[(
        "toolu_1",
        "read_file",
        json!({"path": "shot.png"}),
    )]));
    server.enqueue(text_reply("The file holds the same pixel."));
    let t = Tmux::start("images-80", 80, 24, &command(&server, home.path(), ""))
        .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    t.wait_for("the TUI", |s| s.contains("tools"));
    // What a terminal sends when a file is dropped on it: its absolute path.
    let path = home.path().join("shot.png").display().to_string();
    t.type_text("看看 ");
    t.paste(&path);
    let typed = t.wait_for("the image label", |s| s.contains("[image shot.png"));
    println!("{typed}");
    t.keys(&["Enter"]);
    t.wait_for("the first answer", |s| s.contains("One white pixel."));
    let first = &server.accepted()[0].body["messages"][0]["content"];
    assert_eq!(first[1]["type"], "image", "{first}");
    assert_eq!(first[1]["source"]["media_type"], "image/png", "{first}");

    t.send_line("read shot.png");
    let screen = t.wait_for("the second answer", |s| s.contains("same pixel."));
    println!("{screen}");
    assert!(screen.contains("read_file"), "{screen}");
    let results = tool_results(&server.accepted()[2]);
    assert_eq!(results[0].1[1]["type"], "image", "{:?}", results[0].1);
}

//! Images end to end (the binary against the mock, which checks image blocks as the API
//! does): read_file on a picture, `@file` in a prompt, the 5 MB limit, and how
//! OpenAI-compatible APIs get them (tool messages cannot carry images).

use crate::support;

use serde_json::{Value, json};
use support::images::PNG;
use support::openai as oa;
use support::{MockServer, Tooloop, assert_valid_history, tool_reply, tool_results};

/// The start of a JPEG (JFIF) file.
const JPEG: &[u8] = &[
    0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0x00, 0x01,
];

fn workspace(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).expect("write");
    }
    dir
}

fn anthropic(server: &MockServer, dir: &tempfile::TempDir, prompt: &str) -> support::Run {
    let base = server.anthropic_base();
    Tooloop::new(&["-p", prompt, "--base-url", &base, "--output-format", "json"])
        .env("ANTHROPIC_API_KEY", "k")
        .workspace(dir.path())
        .run()
}

#[test]
fn read_file_on_an_image_returns_an_image_block_typed_by_its_bytes() {
    // A JPEG named .png: the media type comes from the bytes (the API refuses a mismatch).
    let dir = workspace(&[("shot.png", PNG), ("photo.png", JPEG)]);
    let server = MockServer::start();
    server.enqueue(tool_reply(&[
        ("toolu_1", "read_file", json!({"path": "shot.png"})),
        ("toolu_2", "read_file", json!({"path": "photo.png"})),
    ]));
    server.enqueue(support::text_reply("A pixel and a photo."));
    let run = anthropic(&server, &dir, "look at the pictures");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_valid_history(run.result());
    let results = tool_results(&server.accepted()[1]);
    let png = &results[0].1;
    assert_eq!(png[0]["type"], "text");
    assert!(
        png[0]["text"].as_str().unwrap_or("").contains("image/png"),
        "{png}"
    );
    assert_eq!(png[1]["type"], "image");
    assert_eq!(png[1]["source"]["media_type"], "image/png");
    assert_eq!(results[1].1[1]["source"]["media_type"], "image/jpeg");
    // The transcript keeps them: the result's history holds the image block.
    let kept = &run.result()["messages"][2]["content"][0]["content"][1];
    assert_eq!(kept["type"], "image", "{kept}");
}

#[test]
fn an_image_over_5_mb_is_refused_with_its_size() {
    let mut big = PNG.to_vec();
    big.resize(5 * 1024 * 1024 + 10, 0);
    let dir = workspace(&[("big.png", &big)]);
    let server = MockServer::start();
    server.enqueue(tool_reply(&[(
        "toolu_1",
        "read_file",
        json!({"path": "big.png"}),
    )]));
    server.enqueue(support::text_reply("Too big."));
    let run = anthropic(&server, &dir, "read big.png");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let results = tool_results(&server.accepted()[1]);
    assert!(results[0].2, "an error result");
    let text = results[0].1.as_str().unwrap_or("");
    assert!(
        text.contains("5242890 bytes") && text.contains("at most 5 MB"),
        "{text}"
    );
}

#[test]
fn at_file_in_the_prompt_attaches_the_image() {
    let dir = workspace(&[("shot.png", PNG)]);
    let server = MockServer::start();
    server.enqueue(support::text_reply("I see one pixel."));
    let run = anthropic(&server, &dir, "what is in @shot.png?");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let sent = &server.accepted()[0].body["messages"][0]["content"];
    assert_eq!(
        sent[0],
        json!({"type": "text", "text": "what is in @shot.png?"})
    );
    assert_eq!(sent[1]["type"], "image");
    assert_eq!(sent[1]["source"]["media_type"], "image/png");
}

#[test]
fn openai_compatible_gets_the_image_in_a_user_message_after_the_tool_message() {
    let dir = workspace(&[("shot.png", PNG)]);
    let server = MockServer::start();
    server.enqueue(oa::calls_reply(&[(
        "call_1",
        "read_file",
        json!({"path": "shot.png"}),
    )]));
    server.enqueue(oa::text_reply("One pixel."));
    let base = oa::base(&server);
    let run = Tooloop::new(&[
        "-p",
        "look",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--output-format",
        "json",
    ])
    .env("OPENAI_API_KEY", oa::TEST_KEY)
    .workspace(dir.path())
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let messages = server.accepted()[1].body["messages"].clone();
    let tool = messages
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "tool"))
        .cloned()
        .unwrap_or(Value::Null);
    assert!(
        tool["content"]
            .as_str()
            .unwrap_or("")
            .ends_with("[image attached below]"),
        "{tool}"
    );
    let last = messages
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(last["role"], "user");
    let url = last["content"][0]["image_url"]["url"]
        .as_str()
        .unwrap_or("");
    assert!(
        url.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{last}"
    );
}

#[test]
fn the_mock_refuses_images_as_the_api_does() {
    use support::images::validate_image;
    let block = |media: &str, data: &str| json!({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}});
    let png = base64_of(PNG);
    assert_eq!(
        validate_image("messages.0.content.1", &block("image/png", &png)),
        Ok(())
    );
    let wrong = validate_image("messages.0.content.1", &block("image/jpeg", &png));
    assert_eq!(
        wrong,
        Err("messages.0.content.1.image.source.base64: The image was specified using the image/jpeg media type, but the image appears to be a image/png image".into())
    );
    let bmp = validate_image("m", &block("image/bmp", &png)).expect_err("bmp");
    assert!(
        bmp.ends_with("Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")
    );
    let mut big = PNG.to_vec();
    big.resize(5 * 1024 * 1024 + 1, 0);
    let big = validate_image("m", &block("image/png", &base64_of(&big))).expect_err("big");
    assert_eq!(
        big,
        "m.image.source.base64: image exceeds 5 MB maximum: 5242881 bytes > 5242880 bytes"
    );
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

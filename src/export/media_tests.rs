//! Exports of what web search and images leave in a conversation.

use serde_json::json;

use super::{Conversation, html::html, markdown::markdown};
use crate::message::{ContentBlock, ImageSource, Message};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn conversation() -> Vec<Message> {
    let image = ImageSource::from_bytes(PNG).expect("png");
    vec![
        Message::user(vec![
            ContentBlock::text("what is this?"),
            ContentBlock::Image {
                source: image.clone(),
            },
        ]),
        Message::assistant(vec![
            ContentBlock::Other(json!({"type": "server_tool_use", "id": "srvtoolu_1",
                "name": "web_search", "input": {"query": "pixels"}})),
            ContentBlock::Text {
                text: "A pixel.".into(),
                citations: vec![json!({"type": "web_search_result_location",
                    "url": "https://px.example/a", "title": "Pixels", "cited_text": "x"})],
            },
            ContentBlock::ToolUse {
                id: "toolu_1".into(),
                name: "read_file".into(),
                input: json!({"path": "a.png"}),
            },
        ]),
        Message::user(vec![ContentBlock::ToolResult {
            tool_use_id: "toolu_1".into(),
            content: "Image: a.png (image/png, 1 KB)".into(),
            is_error: false,
            images: vec![image],
            references: Vec::new(),
        }]),
    ]
}

#[test]
fn html_shows_images_citations_and_searches() {
    let messages = conversation();
    let conv = Conversation {
        messages: &messages,
        ..Default::default()
    };
    let page = html(&conv, None);
    assert_eq!(
        page.matches("<img alt=\"image\"").count(),
        2,
        "prompt and tool result"
    );
    assert!(page.contains("src=\"data:image/png;base64,iVBORw0KGgo"));
    assert!(page.contains("<a class=\"cite\" href=\"https://px.example/a\">[Pixels]</a>"));
    assert!(
        page.contains("web_search &quot;pixels&quot;") || page.contains("web_search \"pixels\"")
    );
    let md = markdown(&conv);
    assert!(
        md.contains("A pixel. ([Pixels](<https://px.example/a>))"),
        "{md}"
    );
    assert!(md.contains("*(image, image/png, 1 KB)*"), "{md}");
}

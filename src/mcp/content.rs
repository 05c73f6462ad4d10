//! MCP content (a prompt's messages, a resource's contents) as the blocks of the user's
//! message: text as text, images as image blocks (checked as an attached image is), a
//! resource headed like an `@file` ([`mention::resource`]). Read from the JSON shape of the
//! spec, so an unknown kind becomes a line, never a panic.

use base64::Engine;
use serde_json::Value;

use crate::message::ContentBlock;
use crate::message::image::{ImageSource, human_size};
use crate::message::markers::mention;

/// A resource's contents (`resources/read`'s `contents`, or a prompt's embedded
/// `resource`): text headed with `shown` (`SERVER:URI`), an image blob as an image.
pub fn resource_blocks(shown: &str, contents: &Value) -> Vec<ContentBlock> {
    let str_of = |k: &str| contents.get(k).and_then(Value::as_str);
    if let Some(text) = str_of("text") {
        let body = text.strip_suffix('\n').unwrap_or(text);
        return vec![ContentBlock::text(mention::resource(
            shown,
            body.lines().count(),
            body,
        ))];
    }
    let mime = str_of("mimeType").unwrap_or("application/octet-stream");
    let bytes =
        str_of("blob").and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
    match bytes.as_deref().map(ImageSource::from_bytes) {
        Some(Ok(source)) => {
            let size = human_size(source.byte_len());
            vec![
                ContentBlock::text(mention::resource_image(shown, &source.media_type, &size)),
                ContentBlock::Image { source },
            ]
        }
        // A blob the model cannot read (a PDF, an archive): said, not sent as noise.
        Some(Err(why)) => vec![ContentBlock::text(mention::refused_block(
            &mention::refused(shown, &format!("it is {mime} data, not text: {why}")),
        ))],
        None => vec![ContentBlock::text(mention::refused_block(
            &mention::refused(shown, "the server sent neither text nor a readable blob"),
        ))],
    }
}

/// One prompt message's content as blocks; `server` names where an embedded resource is
/// from. An assistant's message is marked as such: the prompt as a whole is the user's turn.
pub fn prompt_blocks(server: &str, message: &Value) -> Vec<ContentBlock> {
    let assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
    let content = message.get("content").unwrap_or(&Value::Null);
    let kind = content.get("type").and_then(Value::as_str).unwrap_or("");
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut blocks = match kind {
        "text" => vec![ContentBlock::text(
            str_of(content, "text").unwrap_or_default(),
        )],
        "image" => {
            let data = str_of(content, "data").unwrap_or_default();
            let image = base64::engine::general_purpose::STANDARD
                .decode(data)
                .ok()
                .map(|b| ImageSource::from_bytes(&b));
            match image {
                Some(Ok(source)) => vec![ContentBlock::Image { source }],
                Some(Err(why)) => vec![ContentBlock::text(format!("[image left out: {why}]"))],
                None => vec![ContentBlock::text("[image left out: not base64]")],
            }
        }
        "resource" => {
            let res = content.get("resource").unwrap_or(&Value::Null);
            let uri = str_of(res, "uri").unwrap_or_else(|| "?".into());
            resource_blocks(&format!("{server}:{uri}"), res)
        }
        "resource_link" => {
            let uri = str_of(content, "uri").unwrap_or_else(|| "?".into());
            vec![ContentBlock::text(format!(
                "[resource link {server}:{uri}]"
            ))]
        }
        other => vec![ContentBlock::text(format!("[{other} content left out]"))],
    };
    if assistant && let Some(ContentBlock::Text { text, .. }) = blocks.first_mut() {
        *text = format!("(assistant) {text}");
    }
    blocks.retain(|b| !matches!(b, ContentBlock::Text { text, .. } if text.is_empty()));
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PNG: &str = "iVBORw0KGgo=";

    fn text(b: &ContentBlock) -> &str {
        match b {
            ContentBlock::Text { text, .. } => text,
            _ => "",
        }
    }

    #[test]
    fn resources_are_headed_like_files_and_images_stay_images() {
        let t = resource_blocks("fx:fx://a", &json!({"uri": "fx://a", "text": "one\ntwo\n"}));
        assert_eq!(
            text(&t[0]),
            "Resource fx:fx://a (2 lines), attached by the user:\n\none\ntwo"
        );
        let i = resource_blocks(
            "fx:fx://p",
            &json!({"uri": "fx://p", "blob": PNG, "mimeType": "image/png"}),
        );
        assert!(
            text(&i[0]).starts_with("Resource fx:fx://p (image/png, 1 KB)"),
            "{}",
            text(&i[0])
        );
        assert!(matches!(i[1], ContentBlock::Image { .. }));
        let pdf = resource_blocks(
            "fx:d",
            &json!({"blob": "JVBERi0=", "mimeType": "application/pdf"}),
        );
        assert!(
            text(&pdf[0]).starts_with("[@fx:d was not attached: it is application/pdf"),
            "{}",
            text(&pdf[0])
        );
    }

    #[test]
    fn prompt_messages_become_blocks() {
        let b = prompt_blocks(
            "fx",
            &json!({"role": "user", "content": {"type": "text", "text": "hi"}}),
        );
        assert_eq!(text(&b[0]), "hi");
        let a = prompt_blocks(
            "fx",
            &json!({"role": "assistant", "content": {"type": "text", "text": "ok"}}),
        );
        assert_eq!(text(&a[0]), "(assistant) ok");
        let i = prompt_blocks(
            "fx",
            &json!({"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}),
        );
        assert!(matches!(i[0], ContentBlock::Image { .. }));
        let bad = prompt_blocks(
            "fx",
            &json!({"role": "user", "content": {"type": "image", "data": "%%"}}),
        );
        assert_eq!(text(&bad[0]), "[image left out: not base64]");
        let r = prompt_blocks(
            "fx",
            &json!({"role": "user", "content": {"type": "resource", "resource": {"uri": "fx://a", "text": "x"}}}),
        );
        assert!(text(&r[0]).starts_with("Resource fx:fx://a (1 line)"));
        let odd = prompt_blocks(
            "fx",
            &json!({"role": "user", "content": {"type": "hologram"}}),
        );
        assert_eq!(text(&odd[0]), "[hologram content left out]");
    }
}

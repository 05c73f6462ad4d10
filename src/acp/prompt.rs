//! A `session/prompt`'s content blocks as the one prompt text the agent takes: text as it
//! is, a `resource_link` as an `@file` mention (read as in the TUI), an embedded
//! `resource` as context labelled with its URI, an `image` as a picture the prompt names
//! (written to a private temporary file; the agent attaches image paths as the TUI does).

use std::path::Path;

use agent_client_protocol_schema::v1 as acp;
use base64::Engine as _;

/// What is wrong with a prompt's block (answered as invalid params).
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    #[error("audio is not supported (promptCapabilities.audio is false)")]
    Audio,
    #[error("a content block of an unknown type")]
    Unknown,
    #[error("image data is not base64: {0}")]
    ImageData(base64::DecodeError),
    #[error("unsupported image type {0:?}")]
    ImageType(String),
    #[error("cannot keep the image: {0}")]
    ImageFile(std::io::Error),
}

/// The prompt text, or what is wrong with a block.
pub fn text_of(blocks: &[acp::ContentBlock], workspace: &Path) -> Result<String, BlockError> {
    let mut out = String::new();
    let mut push = |s: &str| {
        if !out.is_empty() && !out.ends_with('\n') && !s.starts_with('\n') {
            out.push(' ');
        }
        out.push_str(s);
    };
    for block in blocks {
        match block {
            acp::ContentBlock::Text(t) => push(&t.text),
            acp::ContentBlock::ResourceLink(link) => push(&mention(&link.uri, workspace)),
            acp::ContentBlock::Resource(r) => match &r.resource {
                acp::EmbeddedResourceResource::TextResourceContents(t) => push(&format!(
                    "\n<context uri=\"{}\">\n{}\n</context>\n",
                    t.uri.replace('"', "%22"),
                    t.text
                )),
                acp::EmbeddedResourceResource::BlobResourceContents(b) => {
                    push(&format!("[binary resource {} not included]", b.uri))
                }
                _ => return Err(BlockError::Unknown),
            },
            acp::ContentBlock::Image(image) => push(&format!("\n{}\n", image_file(image)?)),
            acp::ContentBlock::Audio(_) => return Err(BlockError::Audio),
            _ => return Err(BlockError::Unknown),
        }
    }
    Ok(out)
}

/// `file:///ws/src/a.rs` → `@src/a.rs` (absolute outside the workspace).
fn mention(uri: &str, workspace: &Path) -> String {
    let path = uri.strip_prefix("file://").unwrap_or(uri);
    let path = Path::new(path);
    let shown = path.strip_prefix(workspace).unwrap_or(path);
    format!("@{}", shown.display())
}

/// Writes the image to a file only this user can read and returns its path.
fn image_file(image: &acp::ImageContent) -> Result<String, BlockError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image.data.trim())
        .map_err(BlockError::ImageData)?;
    let ext = match image.mime_type.as_str() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        other => return Err(BlockError::ImageType(other.to_string())),
    };
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("tooloop-acp-{}-{n}.{ext}", std::process::id()));
    use std::os::unix::fs::OpenOptionsExt;
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes));
    written.map_err(BlockError::ImageFile)?;
    Ok(path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_become_one_prompt() {
        let blocks: Vec<acp::ContentBlock> = serde_json::from_value(json!([
            {"type": "text", "text": "explain"},
            {"type": "resource_link", "name": "a.rs", "uri": "file:///ws/src/a.rs"},
            {"type": "resource", "resource": {"uri": "file:///ws/b.txt", "text": "B body"}},
        ]))
        .unwrap();
        let text = text_of(&blocks, Path::new("/ws")).unwrap();
        assert!(text.starts_with("explain @src/a.rs"), "{text}");
        assert!(
            text.contains("<context uri=\"file:///ws/b.txt\">\nB body\n</context>"),
            "{text}"
        );
        let audio: Vec<acp::ContentBlock> =
            serde_json::from_value(json!([{"type": "audio", "data": "", "mimeType": "audio/wav"}]))
                .unwrap();
        assert!(
            text_of(&audio, Path::new("/ws"))
                .unwrap_err()
                .to_string()
                .contains("audio")
        );
        let bad: Vec<acp::ContentBlock> = serde_json::from_value(
            json!([{"type": "image", "data": "%%%", "mimeType": "image/png"}]),
        )
        .unwrap();
        assert!(
            text_of(&bad, Path::new("/ws"))
                .unwrap_err()
                .to_string()
                .contains("base64")
        );
    }
}

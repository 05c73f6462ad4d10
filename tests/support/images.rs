//! Image blocks checked as the Messages API checks them, with its wording: the media type
//! is one of four, the data is base64 of an image of that type (read from the bytes), at
//! most 5 MB — in a message and inside a tool_result.

use base64::Engine;
use serde_json::Value;

const MAX: usize = 5 * 1024 * 1024;

/// A real 1×1 PNG (what tests put in a workspace to read or attach).
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// One image block at `at` (e.g. `messages.0.content.1`).
pub fn validate_image(at: &str, block: &Value) -> Result<(), String> {
    let source = &block["source"];
    if source["type"] != "base64" {
        return Err(format!(
            "{at}.image.source: Input tag '{}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'",
            source["type"].as_str().unwrap_or("")
        ));
    }
    let media = source["media_type"].as_str().unwrap_or("");
    if !matches!(
        media,
        "image/jpeg" | "image/png" | "image/gif" | "image/webp"
    ) {
        return Err(format!(
            "{at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
        ));
    }
    let data = source["data"].as_str().unwrap_or("");
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return Err(format!(
            "{at}.image.source.base64.data: Invalid base64 data"
        ));
    };
    if bytes.len() > MAX {
        return Err(format!(
            "{at}.image.source.base64: image exceeds 5 MB maximum: {} bytes > {MAX} bytes",
            bytes.len()
        ));
    }
    match sniff(&bytes) {
        None => Err(format!("{at}.image.source.base64: Could not process image")),
        Some(real) if real != media => Err(format!(
            "{at}.image.source.base64: The image was specified using the {media} media type, but the image appears to be a {real} image"
        )),
        Some(_) => Ok(()),
    }
}

/// Every image of message `i`: its own image blocks and those inside its tool results.
pub fn validate_blocks(i: usize, role: &str, content: &[Value]) -> Result<(), String> {
    for (j, b) in content.iter().enumerate() {
        match b["type"].as_str().unwrap_or("") {
            "image" if role != "user" => {
                return Err(format!(
                    "messages.{i}.content.{j}: image blocks are only allowed in user messages"
                ));
            }
            "image" => validate_image(&format!("messages.{i}.content.{j}"), b)?,
            "tool_result" => {
                for (k, part) in b["content"].as_array().into_iter().flatten().enumerate() {
                    if part["type"] == "image" {
                        validate_image(
                            &format!("messages.{i}.content.{j}.tool_result.content.{k}"),
                            part,
                        )?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

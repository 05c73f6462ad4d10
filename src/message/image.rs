//! Images for the model: a file's bytes as the API's base64 image source, with the media
//! type read from the bytes (never the file name) and the API's size limit.

use base64::Engine;
use serde::{Deserialize, Serialize};

/// The Messages API's limit per image (the decoded bytes).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// `{"type": "base64", "media_type": "image/png", "data": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSource {
    #[serde(rename = "type")]
    pub kind: String,
    pub media_type: String,
    pub data: String,
}

/// Why a file cannot go to the model as an image.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("the image is {size} bytes ({}); the API takes at most 5 MB per image", human_size(*size))]
    TooLarge { size: usize },
    #[error("not a PNG, JPEG, GIF or WebP image")]
    NotAnImage,
}

/// The media type of PNG, JPEG, GIF and WebP bytes, from their magic numbers.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
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

impl ImageSource {
    /// The image in `bytes`, or why it cannot be sent.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ImageError> {
        let media_type = sniff(bytes).ok_or(ImageError::NotAnImage)?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge { size: bytes.len() });
        }
        Ok(ImageSource {
            kind: "base64".into(),
            media_type: media_type.into(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    }

    /// The decoded size in bytes (from the base64 length; no decoding).
    pub fn byte_len(&self) -> usize {
        let pad = self.data.bytes().rev().take_while(|&b| b == b'=').count();
        (self.data.len() / 4 * 3).saturating_sub(pad)
    }

    /// A `data:` URL (OpenAI's image_url, HTML exports).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.data)
    }
}

/// `120 KB`, `1.4 MB`: sizes as the input line and the JSON pane show them.
pub fn human_size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_decide_the_type_and_the_size() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        let img = ImageSource::from_bytes(png).expect("png");
        assert_eq!(img.media_type, "image/png");
        assert_eq!(img.byte_len(), png.len());
        assert!(
            img.data_url()
                .starts_with("data:image/png;base64,iVBORw0KGgo")
        );
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a..."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"<svg>"), None);
        let mut big = png.to_vec();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        let err = ImageSource::from_bytes(&big).expect_err("too large");
        assert!(err.to_string().contains("5242881 bytes (5.0 MB)"), "{err}");
        assert_eq!(human_size(120 * 1024), "120 KB");
    }
}

//! A content block's JSON, exactly the API's: written from borrowed views (nothing is
//! copied per request) and read through an owned mirror. Written by hand for two reasons:
//! a tool_result with images carries its text and images as one `content` array (the
//! canonical type keeps them apart), and a block of an unknown type is kept verbatim.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::ContentBlock;
use super::image::ImageSource;

fn no_citations(c: &&[Value]) -> bool {
    c.is_empty()
}

fn no_signature(s: &&str) -> bool {
    s.is_empty()
}

fn not_error(e: &bool) -> bool {
    !*e
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Out<'a> {
    Text {
        text: &'a str,
        #[serde(skip_serializing_if = "no_citations")]
        citations: &'a [Value],
    },
    Thinking {
        thinking: &'a str,
        #[serde(skip_serializing_if = "no_signature")]
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: ResultOut<'a>,
        #[serde(skip_serializing_if = "not_error")]
        is_error: bool,
    },
    Image {
        source: &'a ImageSource,
    },
    #[serde(untagged)]
    Other(&'a Value),
}

/// A tool result's `content`: its text as a string (the common case, and the bytes every
/// request before images had), or a text block followed by image blocks, or (a result that
/// loads deferred tools) only `tool_reference` blocks.
struct ResultOut<'a> {
    text: &'a str,
    images: &'a [ImageSource],
    references: &'a [String],
}

#[derive(Serialize)]
struct ToolReference<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_name: &'a str,
}

impl Serialize for ResultOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        if !self.references.is_empty() {
            let mut seq = s.serialize_seq(Some(self.references.len()))?;
            for name in self.references {
                seq.serialize_element(&ToolReference {
                    kind: "tool_reference",
                    tool_name: name,
                })?;
            }
            return seq.end();
        }
        if self.images.is_empty() {
            return s.serialize_str(self.text);
        }
        let mut seq = s.serialize_seq(None)?;
        if !self.text.is_empty() {
            seq.serialize_element(&Out::Text {
                text: self.text,
                citations: &[],
            })?;
        }
        for source in self.images {
            seq.serialize_element(&Out::Image { source })?;
        }
        seq.end()
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text { text, citations } => Out::Text { text, citations },
            ContentBlock::Thinking {
                thinking,
                signature,
            } => Out::Thinking {
                thinking,
                signature,
            },
            ContentBlock::RedactedThinking { data } => Out::RedactedThinking { data },
            ContentBlock::ToolUse { id, name, input } => Out::ToolUse { id, name, input },
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                images,
                references,
            } => Out::ToolResult {
                tool_use_id,
                content: ResultOut {
                    text: content,
                    images,
                    references,
                },
                is_error: *is_error,
            },
            ContentBlock::Image { source } => Out::Image { source },
            ContentBlock::Other(v) => Out::Other(v),
        }
        .serialize(s)
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum In {
    Text {
        text: String,
        #[serde(default)]
        citations: Option<Vec<Value>>,
    },
    Thinking {
        thinking: String,
        #[serde(default)]
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default)]
        content: ResultIn,
        #[serde(default)]
        is_error: bool,
    },
    Image {
        source: ImageSource,
    },
    #[serde(untagged)]
    Other(Value),
}

/// The API takes a tool result's content as a string or as blocks.
#[derive(Deserialize)]
#[serde(untagged)]
enum ResultIn {
    Text(String),
    Blocks(Vec<Value>),
}

impl Default for ResultIn {
    fn default() -> Self {
        ResultIn::Text(String::new())
    }
}

impl ResultIn {
    /// The text blocks joined by newlines, the images, and the tools referenced.
    fn split(self) -> (String, Vec<ImageSource>, Vec<String>) {
        match self {
            ResultIn::Text(s) => (s, Vec::new(), Vec::new()),
            ResultIn::Blocks(blocks) => {
                let images = blocks
                    .iter()
                    .filter(|b| b["type"] == "image")
                    .filter_map(|b| serde_json::from_value(b["source"].clone()).ok())
                    .collect();
                let references: Vec<String> = blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_reference")
                    .filter_map(|b| b["tool_name"].as_str().map(String::from))
                    .collect();
                let mut text = blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n");
                if text.is_empty() {
                    // Only references on the wire: the names are the readable part.
                    text = references.join("\n");
                }
                (text, images, references)
            }
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match In::deserialize(d)? {
            In::Text { text, citations } => ContentBlock::Text {
                text,
                citations: citations.unwrap_or_default(),
            },
            In::Thinking {
                thinking,
                signature,
            } => ContentBlock::Thinking {
                thinking,
                signature,
            },
            In::RedactedThinking { data } => ContentBlock::RedactedThinking { data },
            In::ToolUse { id, name, input } => ContentBlock::ToolUse { id, name, input },
            In::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let (content, images, references) = content.split();
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    images,
                    references,
                }
            }
            In::Image { source } => ContentBlock::Image { source },
            In::Other(v) => ContentBlock::Other(v),
        })
    }
}

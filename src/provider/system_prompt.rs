//! The system prompt as a request carries it: named parts (base, append, environment,
//! instructions), assembled once per session by `crate::prompt`.
//!
//! Each part is its own text block in an Anthropic request, so the JSON pane's request view
//! shows them apart; OpenAI-compatible servers (and the demo) get them joined into one
//! system message. The parts never change between turns, so the request prefix stays
//! byte-identical and prompt caching keeps working.

use std::sync::Arc;

/// One named piece of the system prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemPart {
    /// "base", "append", "environment" or "instructions" (for tests and logs; the model sees
    /// only the text, which carries its own heading).
    pub name: &'static str,
    pub text: String,
}

/// Cheap to clone (one `Arc`); the joined text is computed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemPrompt {
    parts: Arc<[SystemPart]>,
    joined: Arc<str>,
}

/// Between parts in the joined text.
const SEPARATOR: &str = "\n\n";

impl SystemPrompt {
    /// The prompt made of `parts`, empty ones left out.
    pub fn new(parts: Vec<SystemPart>) -> Self {
        let parts: Vec<SystemPart> = parts.into_iter().filter(|p| !p.text.is_empty()).collect();
        let joined = parts
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join(SEPARATOR);
        SystemPrompt {
            parts: parts.into(),
            joined: joined.into(),
        }
    }

    pub fn parts(&self) -> &[SystemPart] {
        &self.parts
    }

    /// The text of the part called `name`, if the prompt has one.
    pub fn part(&self, name: &str) -> Option<&str> {
        self.parts
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.text.as_str())
    }

    /// Every part, separated by a blank line (OpenAI's system message, the demo, estimates).
    pub fn text(&self) -> &str {
        &self.joined
    }

    pub fn is_empty(&self) -> bool {
        self.joined.is_empty()
    }
}

/// A prompt that is only a base prompt (tests, one-off requests such as a summary).
impl From<&str> for SystemPrompt {
    fn from(text: &str) -> Self {
        SystemPrompt::new(vec![SystemPart {
            name: "base",
            text: text.to_string(),
        }])
    }
}

impl From<String> for SystemPrompt {
    fn from(text: String) -> Self {
        SystemPrompt::from(text.as_str())
    }
}

/// `&prompt` works where a `&str` is wanted (estimates, the OpenAI system message).
impl std::ops::Deref for SystemPrompt {
    type Target = str;
    fn deref(&self) -> &str {
        self.text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_join_with_a_blank_line_and_empty_ones_drop() {
        let p = SystemPrompt::new(vec![
            SystemPart {
                name: "base",
                text: "a".into(),
            },
            SystemPart {
                name: "append",
                text: String::new(),
            },
            SystemPart {
                name: "environment",
                text: "b".into(),
            },
        ]);
        assert_eq!(p.text(), "a\n\nb");
        assert_eq!(p.parts().len(), 2);
        assert_eq!(p.part("environment"), Some("b"));
        assert!(SystemPrompt::from("").is_empty());
        assert_eq!(SystemPrompt::from("x"), SystemPrompt::from("x".to_string()));
    }
}

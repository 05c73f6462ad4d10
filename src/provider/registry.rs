//! Which providers exist, and how one is built from plain settings.
//!
//! Adding a provider: write its module (a `Provider` whose stream only decodes the wire
//! format into [`super::StreamEvent`]s; the assembler does the rest) and add one line to
//! the `providers!` list below. The line names the variant of [`ProviderKind`], the name
//! users type (`--provider NAME`, config `provider = "NAME"`) and the constructor.

use std::sync::Arc;
use std::time::Duration;

use super::{Provider, anthropic, demo, openai};

/// What a provider is built from; nothing here knows the command line or the config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderSettings {
    /// The API's base URL (a path prefix is kept); unused by the demo.
    pub base_url: String,
    /// Only ever placed in a request header; never printed.
    pub api_key: Option<String>,
    /// Longest wait for the response head.
    pub head_timeout: Duration,
}

/// Why a provider could not be built. Never retried: the settings must change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the {provider} provider needs an API key: set {env}")]
    MissingKey {
        provider: &'static str,
        env: &'static str,
    },
    #[error("{env} contains characters that cannot be sent in an HTTP header")]
    KeyNotAHeader { env: &'static str },
    /// `reason` says what is wrong with the URL.
    #[error("invalid {provider} base URL {url:?}: {reason}")]
    BaseUrl {
        provider: &'static str,
        url: String,
        reason: String,
    },
}

type Constructor = fn(&ProviderSettings) -> Result<Arc<dyn Provider>, SetupError>;

/// Generates [`ProviderKind`] (with its clap and serde names) and its constructor table
/// from one line per provider, so the list cannot drift apart.
macro_rules! providers {
    ($($variant:ident = $name:literal => $build:expr,)*) => {
        /// A provider, as `--provider` and the config file name it.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
        )]
        pub enum ProviderKind {
            $(
                #[value(name = $name)]
                #[serde(rename = $name)]
                $variant,
            )*
        }

        impl ProviderKind {
            /// Every provider, in registration order.
            pub const ALL: &[ProviderKind] = &[$(ProviderKind::$variant),*];

            /// The name users type.
            pub fn name(self) -> &'static str {
                match self {
                    $(ProviderKind::$variant => $name,)*
                }
            }

            fn constructor(self) -> Constructor {
                match self {
                    $(ProviderKind::$variant => $build,)*
                }
            }
        }
    };
}

providers! {
    Anthropic = "anthropic" => |s| Ok(Arc::new(anthropic::AnthropicProvider::from_settings(s)?)),
    Openai = "openai" => |s| Ok(Arc::new(openai::OpenAiProvider::from_settings(s)?)),
    Demo = "demo" => |_| Ok(Arc::new(demo::DemoProvider::default())),
}

impl ProviderKind {
    /// The kind a name stands for (any case), e.g. from an environment variable.
    pub fn from_name(name: &str) -> Option<ProviderKind> {
        ProviderKind::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Builds the provider `kind` names.
pub fn build(
    kind: ProviderKind,
    settings: &ProviderSettings,
) -> Result<Arc<dyn Provider>, SetupError> {
    (kind.constructor())(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(key: Option<&str>) -> ProviderSettings {
        ProviderSettings {
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key: key.map(String::from),
            head_timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn every_kind_builds_and_names_itself() {
        for &kind in ProviderKind::ALL {
            let p = build(kind, &settings(Some("k"))).expect("builds");
            assert_eq!(p.name(), kind.name());
            assert_eq!(
                ProviderKind::from_name(&kind.name().to_uppercase()),
                Some(kind)
            );
        }
        assert_eq!(ProviderKind::from_name("nope"), None);
    }

    #[test]
    fn setup_errors_say_what_to_fix() {
        let e = build(ProviderKind::Anthropic, &settings(None)).err();
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some("the Anthropic provider needs an API key: set ANTHROPIC_API_KEY")
        );
        let mut bad = settings(Some("k"));
        bad.base_url = "ftp://x".into();
        for kind in [ProviderKind::Anthropic, ProviderKind::Openai] {
            let e = build(kind, &bad)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains("ftp://x"), "{e}");
        }
    }
}

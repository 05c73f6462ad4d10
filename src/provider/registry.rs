//! Which providers exist, and how one is built from plain settings.
//!
//! Adding a provider: write its module (a `Provider` whose stream only decodes the wire
//! format into [`super::StreamEvent`]s; the assembler does the rest) and add one line to
//! the `providers!` list below. The line names the variant of [`ProviderKind`], the name
//! users type (`--provider NAME`, config `provider = "NAME"`), the provider's
//! [`ProviderDefaults`] (model, base URL, the variables holding its key and URL) and the
//! constructor. The config reads the defaults from here: it knows no provider by name.

use std::sync::Arc;

use super::settings::{ProviderDefaults, ProviderSettings, SetupError};
use super::{Provider, anthropic, compatible, demo, openai};

type Constructor = fn(&ProviderSettings) -> Result<Arc<dyn Provider>, SetupError>;

/// Generates [`ProviderKind`] (with its clap and serde names) and its constructor table
/// from one line per provider, so the list cannot drift apart.
macro_rules! providers {
    ($($variant:ident = $name:literal, $defaults:expr => $build:expr,)*) => {
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

            /// Model, base URL and key variable when nothing else names them.
            pub fn defaults(self) -> ProviderDefaults {
                match self {
                    $(ProviderKind::$variant => $defaults,)*
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
    Anthropic = "anthropic", anthropic::DEFAULTS
        => |s| Ok(Arc::new(anthropic::AnthropicProvider::from_settings(s)?)),
    Openai = "openai", openai::DEFAULTS
        => |s| Ok(Arc::new(openai::OpenAiProvider::from_settings(s)?)),
    Deepseek = "deepseek", compatible::DEEPSEEK
        => |s| Ok(Arc::new(compatible::build("deepseek", compatible::DEEPSEEK, s)?)),
    Mistral = "mistral", compatible::MISTRAL
        => |s| Ok(Arc::new(compatible::build("mistral", compatible::MISTRAL, s)?)),
    Demo = "demo", demo::DEFAULTS => |_| Ok(Arc::new(demo::DemoProvider::default())),
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
    use std::time::Duration;

    fn settings(key: Option<&str>) -> ProviderSettings {
        ProviderSettings {
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key: key.map(String::from),
            head_timeout: Duration::from_secs(5),
            prompt_cache: true,
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
    fn defaults_come_from_the_registration_line() {
        let a = ProviderKind::Anthropic.defaults();
        assert_eq!(a.api_key_env, Some("ANTHROPIC_API_KEY"));
        assert!(a.base_url.starts_with("https://") && !a.offline);
        let d = ProviderKind::Demo.defaults();
        assert!(d.offline && d.api_key_env.is_none() && d.base_url.is_empty());
        // Exactly one offline fallback, and it needs no key.
        let offline: Vec<_> = ProviderKind::ALL
            .iter()
            .filter(|k| k.defaults().offline)
            .collect();
        assert_eq!(offline.len(), 1);
    }

    #[test]
    fn deepseek_alone_wants_its_reasoning_back() {
        use crate::provider::ReasoningEcho;
        for &kind in ProviderKind::ALL {
            let echo = kind.defaults().reasoning_echo;
            match kind {
                ProviderKind::Deepseek => {
                    assert_eq!(echo, ReasoningEcho::ToolTurns("reasoning_content"))
                }
                _ => assert_eq!(echo, ReasoningEcho::Never, "{kind}"),
            }
            assert_eq!(
                kind.defaults().server_tools,
                kind == ProviderKind::Anthropic
            );
        }
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

//! The model table: context window, output limit and prices of the models tooloop knows,
//! overridable and extendable from config.toml (`[models."NAME"]`).
//!
//! Prices are USD per million tokens. `input` is the uncached input price; Anthropic bills a
//! cache write at 1.25× input and a cache read at 0.1×; OpenAI has no write surcharge (a
//! write costs the plain input price) and bills cached input at its own rate. A model the
//! table does not know has a 200,000-token window and an unknown cost: [`ModelTable::cost_usd`]
//! returns `None` and front ends show that, never a made-up figure.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::provider::Usage;

/// The window assumed for a model nobody configured.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// The price of Anthropic's server-side web search, USD per 1,000 searches.
pub const DEFAULT_PRICE_WEB_SEARCH: f64 = 10.0;

/// USD per million tokens; web searches per 1,000.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cache_write: f64,
    pub cache_read: f64,
    /// USD per 1,000 server-side web searches (`price_web_search`, default 10).
    pub web_search: f64,
}

impl Prices {
    /// The cost of `usage` in USD.
    pub fn cost(&self, usage: &Usage) -> f64 {
        self.cost_of(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_write_tokens,
            usage.cache_read_tokens,
        ) + usage.web_search_requests as f64 * self.web_search / 1_000.0
    }

    /// The cost in USD of uncached input, output, cache-write and cache-read token counts.
    pub fn cost_of(&self, input: u64, output: u64, cache_write: u64, cache_read: u64) -> f64 {
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per(input, self.input)
            + per(output, self.output)
            + per(cache_write, self.cache_write)
            + per(cache_read, self.cache_read)
    }
}

/// What the table says about one model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    /// The canonical name (the alias, e.g. `claude-sonnet-4-5`), or the name asked for if
    /// the model is unknown.
    pub id: String,
    /// Other names that resolve to this entry (dated ids).
    pub aliases: Vec<String>,
    pub context_window: u64,
    /// The most output tokens one reply may have, if known.
    pub max_output_tokens: Option<u32>,
    /// None: the cost is unknown.
    pub prices: Option<Prices>,
    /// False for a model neither built in nor configured.
    pub known: bool,
}

/// One `[models."NAME"]` table of config.toml. Every key is optional: a key given for a
/// built-in model replaces that value only.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelOverride {
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
    pub price_cache_write: Option<f64>,
    pub price_cache_read: Option<f64>,
    /// USD per 1,000 server-side web searches.
    pub price_web_search: Option<f64>,
}

/// All known models, by canonical name, plus an alias index.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTable {
    models: BTreeMap<String, ModelInfo>,
    aliases: BTreeMap<String, String>,
}

/// (alias, dated ids, window, max output, input, output, cache write, cache read)
type Row = (
    &'static str,
    &'static [&'static str],
    u64,
    u32,
    f64,
    f64,
    f64,
    f64,
);

/// Published list prices (USD per million tokens) and limits.
#[rustfmt::skip]
const BUILTIN: &[Row] = &[
    // Anthropic: cache write = 1.25 × input (5-minute cache), cache read = 0.1 × input.
    ("claude-opus-4-5", &["claude-opus-4-5-20251101"], 200_000, 64_000, 5.0, 25.0, 6.25, 0.50),
    ("claude-opus-4-1", &["claude-opus-4-1-20250805"], 200_000, 32_000, 15.0, 75.0, 18.75, 1.50),
    ("claude-opus-4-0", &["claude-opus-4-20250514", "claude-opus-4"], 200_000, 32_000, 15.0, 75.0, 18.75, 1.50),
    ("claude-sonnet-4-5", &["claude-sonnet-4-5-20250929"], 200_000, 64_000, 3.0, 15.0, 3.75, 0.30),
    ("claude-sonnet-4-0", &["claude-sonnet-4-20250514", "claude-sonnet-4"], 200_000, 64_000, 3.0, 15.0, 3.75, 0.30),
    ("claude-3-7-sonnet-latest", &["claude-3-7-sonnet-20250219"], 200_000, 64_000, 3.0, 15.0, 3.75, 0.30),
    ("claude-haiku-4-5", &["claude-haiku-4-5-20251001"], 200_000, 64_000, 1.0, 5.0, 1.25, 0.10),
    ("claude-3-5-haiku-latest", &["claude-3-5-haiku-20241022"], 200_000, 8_192, 0.80, 4.0, 1.0, 0.08),
    ("claude-3-haiku-20240307", &[], 200_000, 4_096, 0.25, 1.25, 0.30, 0.03),
    // OpenAI: no cache-write surcharge; cached input has its own price.
    ("gpt-5", &["gpt-5-2025-08-07"], 400_000, 128_000, 1.25, 10.0, 1.25, 0.125),
    ("gpt-5-mini", &["gpt-5-mini-2025-08-07"], 400_000, 128_000, 0.25, 2.0, 0.25, 0.025),
    ("gpt-5-nano", &["gpt-5-nano-2025-08-07"], 400_000, 128_000, 0.05, 0.40, 0.05, 0.005),
    ("gpt-4.1", &["gpt-4.1-2025-04-14"], 1_047_576, 32_768, 2.0, 8.0, 2.0, 0.50),
    ("gpt-4.1-mini", &["gpt-4.1-mini-2025-04-14"], 1_047_576, 32_768, 0.40, 1.60, 0.40, 0.10),
    ("gpt-4.1-nano", &["gpt-4.1-nano-2025-04-14"], 1_047_576, 32_768, 0.10, 0.40, 0.10, 0.025),
    ("gpt-4o", &["gpt-4o-2024-08-06", "gpt-4o-2024-11-20"], 128_000, 16_384, 2.50, 10.0, 2.50, 1.25),
    ("gpt-4o-mini", &["gpt-4o-mini-2024-07-18"], 128_000, 16_384, 0.15, 0.60, 0.15, 0.075),
    ("o3", &["o3-2025-04-16"], 200_000, 100_000, 2.0, 8.0, 2.0, 0.50),
    ("o4-mini", &["o4-mini-2025-04-16"], 200_000, 100_000, 1.10, 4.40, 1.10, 0.275),
];

impl ModelTable {
    /// The built-in table.
    pub fn builtin() -> Self {
        let mut table = ModelTable {
            models: BTreeMap::new(),
            aliases: BTreeMap::new(),
        };
        for &(id, dated, window, max_out, input, output, write, read) in BUILTIN {
            for alias in dated {
                table.aliases.insert((*alias).to_string(), id.to_string());
            }
            table.models.insert(
                id.to_string(),
                ModelInfo {
                    id: id.to_string(),
                    aliases: dated.iter().map(|a| a.to_string()).collect(),
                    context_window: window,
                    max_output_tokens: Some(max_out),
                    prices: Some(Prices {
                        input,
                        output,
                        cache_write: write,
                        cache_read: read,
                        web_search: DEFAULT_PRICE_WEB_SEARCH,
                    }),
                    known: true,
                },
            );
        }
        table
    }

    /// This table with config.toml's `[models."NAME"]` tables applied. A name that resolves
    /// to a known model (alias or dated id) changes that model; any other name adds one.
    pub fn with_overrides<'a>(
        mut self,
        overrides: impl IntoIterator<Item = (&'a String, &'a ModelOverride)>,
    ) -> Self {
        for (name, o) in overrides {
            let key = self.canonical(name).unwrap_or_else(|| name.clone());
            let entry = self.models.entry(key.clone()).or_insert_with(|| ModelInfo {
                id: key.clone(),
                aliases: Vec::new(),
                context_window: DEFAULT_CONTEXT_WINDOW,
                max_output_tokens: None,
                prices: None,
                known: true,
            });
            if let Some(w) = o.context_window {
                entry.context_window = w;
            }
            if let Some(m) = o.max_output_tokens {
                entry.max_output_tokens = Some(m);
            }
            entry.prices = merge_prices(entry.prices, o);
        }
        self
    }

    /// The built-in table, built once (front ends without a configured table).
    pub fn builtin_shared() -> &'static ModelTable {
        static TABLE: std::sync::LazyLock<ModelTable> =
            std::sync::LazyLock::new(ModelTable::builtin);
        &TABLE
    }

    /// The canonical name `name` resolves to, if known: exact, alias, or without a trailing
    /// date (`-20250929`, `-2025-04-14`) or `-latest`; a gateway's vendor prefix
    /// (`openai/gpt-4o`) is tried off when the whole name is not known.
    fn canonical(&self, name: &str) -> Option<String> {
        let resolve = |n: &str| {
            if self.models.contains_key(n) {
                Some(n.to_string())
            } else {
                self.aliases.get(n).cloned()
            }
        };
        let bare = |n: &str| resolve(n).or_else(|| resolve(strip_version_suffix(n)?));
        bare(name).or_else(|| bare(name.rsplit_once('/')?.1))
    }

    /// What is known about `name`; an unknown model gets the default window and no prices.
    pub fn lookup(&self, name: &str) -> ModelInfo {
        match self.canonical(name).and_then(|c| self.models.get(&c)) {
            Some(info) => info.clone(),
            None => ModelInfo {
                id: name.to_string(),
                aliases: Vec::new(),
                context_window: DEFAULT_CONTEXT_WINDOW,
                max_output_tokens: None,
                prices: None,
                known: false,
            },
        }
    }

    /// The cost of `usage` on `name` in USD, or None if the model's prices are unknown.
    pub fn cost_usd(&self, name: &str, usage: &Usage) -> Option<f64> {
        self.lookup(name).prices.map(|p| p.cost(usage))
    }

    /// Every known model, sorted by canonical name.
    pub fn iter(&self) -> impl Iterator<Item = &ModelInfo> {
        self.models.values()
    }
}

impl Default for ModelTable {
    fn default() -> Self {
        ModelTable::builtin()
    }
}

/// Applies the price keys of `o`. Input and output must be known (from the table or the
/// override) for a cost to be known; a missing cache price of a model added in config falls
/// back to the input price (what those tokens would cost uncached).
fn merge_prices(base: Option<Prices>, o: &ModelOverride) -> Option<Prices> {
    let input = o.price_input.or(base.map(|p| p.input))?;
    let output = o.price_output.or(base.map(|p| p.output))?;
    Some(Prices {
        input,
        output,
        cache_write: o
            .price_cache_write
            .or(base.map(|p| p.cache_write))
            .unwrap_or(input),
        cache_read: o
            .price_cache_read
            .or(base.map(|p| p.cache_read))
            .unwrap_or(input),
        web_search: o
            .price_web_search
            .or(base.map(|p| p.web_search))
            .unwrap_or(DEFAULT_PRICE_WEB_SEARCH),
    })
}

/// `name` without a trailing `-YYYYMMDD`, `-YYYY-MM-DD` or `-latest`, if it has one.
fn strip_version_suffix(name: &str) -> Option<&str> {
    if let Some(stem) = name.strip_suffix("-latest") {
        return Some(stem);
    }
    let (stem, tail) = name.rsplit_once('-')?;
    if tail.len() == 8 && tail.bytes().all(|b| b.is_ascii_digit()) {
        return Some(stem);
    }
    // -YYYY-MM-DD: three numeric parts.
    let bytes = name.as_bytes();
    if name.len() > 11 && bytes[name.len() - 11] == b'-' {
        let date = &name[name.len() - 10..];
        let parts: Vec<&str> = date.split('-').collect();
        if parts.len() == 3
            && parts[0].len() == 4
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            return Some(&name[..name.len() - 11]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, write: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_write_tokens: write,
            cache_read_tokens: read,
            ..Default::default()
        }
    }

    #[test]
    fn aliases_and_dated_ids_resolve_to_one_entry() {
        let t = ModelTable::builtin();
        for name in [
            "claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-5-20991231",
        ] {
            let m = t.lookup(name);
            assert_eq!(m.id, "claude-sonnet-4-5", "{name}");
            assert_eq!(m.context_window, 200_000);
            assert_eq!(m.max_output_tokens, Some(64_000));
            assert!(m.known);
        }
        assert_eq!(t.lookup("gpt-4.1-2025-04-14").id, "gpt-4.1");
        assert_eq!(t.lookup("gpt-4o-2099-01-01").id, "gpt-4o");
        assert_eq!(
            t.lookup("claude-3-5-haiku-20241022").id,
            "claude-3-5-haiku-latest"
        );
        // A gateway's vendor prefix (OpenRouter-style ids), dated or not.
        assert_eq!(t.lookup("openai/gpt-4o").id, "gpt-4o");
        assert_eq!(t.lookup("openai/gpt-4o-2024-08-06").id, "gpt-4o");
        assert!(
            t.cost_usd("openai/gpt-4o", &usage(1_000_000, 0, 0, 0))
                .is_some()
        );
        assert!(!t.lookup("openai/").known);
    }

    #[test]
    fn cost_uses_all_four_prices() {
        let t = ModelTable::builtin();
        // 1M of each on Sonnet 4.5: 3 + 15 + 3.75 + 0.30.
        let p = t.lookup("claude-sonnet-4-5").prices.expect("known");
        let cost = p.cost_of(1_000_000, 1_000_000, 1_000_000, 1_000_000);
        assert!((cost - 22.05).abs() < 1e-9, "{cost}");
        // Web searches: $10 per 1,000 unless the table says otherwise.
        let searched = Usage {
            web_search_requests: 3,
            ..Default::default()
        };
        assert!((p.cost(&searched) - 0.03).abs() < 1e-12);
        let cost = p.cost_of(1000, 500, 0, 9000);
        assert!((cost - (0.003 + 0.0075 + 0.0027)).abs() < 1e-12, "{cost}");
        let small = usage(1000, 500, 0, 0);
        let cost = t
            .cost_usd("claude-sonnet-4-5-20250929", &small)
            .expect("known");
        assert!((cost - 0.0105).abs() < 1e-12, "{cost}");
    }

    #[test]
    fn unknown_models_have_the_default_window_and_no_cost() {
        let t = ModelTable::builtin();
        let m = t.lookup("llama-local");
        assert!(!m.known);
        assert_eq!(m.context_window, DEFAULT_CONTEXT_WINDOW);
        assert_eq!(m.prices, None);
        assert_eq!(t.cost_usd("llama-local", &usage(10, 10, 0, 0)), None);
    }

    #[test]
    fn config_overrides_change_and_add_models() {
        let mut o = BTreeMap::new();
        o.insert(
            "claude-sonnet-4-5-20250929".to_string(),
            ModelOverride {
                context_window: Some(1_000_000),
                price_input: Some(6.0),
                ..Default::default()
            },
        );
        o.insert(
            "llama-local".to_string(),
            ModelOverride {
                context_window: Some(20_000),
                price_input: Some(0.0),
                price_output: Some(0.0),
                ..Default::default()
            },
        );
        o.insert(
            "half-priced".to_string(),
            ModelOverride {
                price_input: Some(1.0),
                ..Default::default()
            },
        );
        let t = ModelTable::builtin().with_overrides(&o);
        let s = t.lookup("claude-sonnet-4-5");
        assert_eq!(s.context_window, 1_000_000);
        let p = s.prices.expect("prices");
        assert_eq!((p.input, p.output, p.cache_read), (6.0, 15.0, 0.30));
        let l = t.lookup("llama-local");
        assert!(l.known);
        assert_eq!(l.context_window, 20_000);
        assert_eq!(t.cost_usd("llama-local", &usage(5, 5, 5, 5)), Some(0.0));
        // Only an input price: the cost stays unknown rather than guessed.
        assert_eq!(t.cost_usd("half-priced", &usage(5, 5, 0, 0)), None);
        assert!(t.iter().any(|m| m.id == "llama-local"));
    }

    #[test]
    fn override_keys_are_exactly_the_documented_ones() {
        let text = "context_window = 200000\nmax_output_tokens = 64000\nprice_input = 3.0\n\
                    price_output = 15.0\nprice_cache_write = 3.75\nprice_cache_read = 0.30\n";
        let o: ModelOverride = toml::from_str(text).expect("parse");
        assert_eq!(o.price_cache_read, Some(0.30));
        assert!(toml::from_str::<ModelOverride>("price = 1.0").is_err());
    }

    #[test]
    fn version_suffixes() {
        assert_eq!(strip_version_suffix("a-20250101"), Some("a"));
        assert_eq!(strip_version_suffix("gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(strip_version_suffix("x-latest"), Some("x"));
        assert_eq!(strip_version_suffix("gpt-4o"), None);
        assert_eq!(strip_version_suffix("claude-sonnet-4-5"), None);
    }
}

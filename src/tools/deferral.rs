//! Which deferred tools (issue 39; the setting and the search are in mcp/defer.rs and
//! mcp/tool_search.rs) a request offers: every tool but the deferred ones, then those the model
//! found, in the order found. The registry holds it, so it lives beside the registry.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// One deferred tool as the search sees it.
#[derive(Clone, Debug)]
pub struct Entry {
    pub description: String,
    /// Estimated tokens of its definition (JSON bytes / 4, like the context estimate).
    pub tokens: u64,
}

/// Token counts for the context meter and `/context`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeferStats {
    /// Deferred tools found so far (their definitions are sent now).
    pub loaded: usize,
    pub loaded_tokens: u64,
    /// Deferred tools not found yet.
    pub deferred: usize,
    /// What those would cost in every request: what deferral saves.
    pub deferred_tokens: u64,
}

/// The session's deferred tools and which of them the model has found.
#[derive(Debug, Default)]
pub struct Deferral {
    entries: BTreeMap<String, Entry>,
    /// Names found, in the order found: the order they are appended to `tools`.
    loaded: Mutex<Vec<String>>,
    /// The provider loads them itself (Anthropic): every definition is sent with
    /// `defer_loading`, and `tool_search` answers with `tool_reference` blocks.
    by_reference: bool,
}

impl Deferral {
    pub fn new(entries: BTreeMap<String, Entry>) -> Self {
        Deferral {
            entries,
            loaded: Mutex::new(Vec::new()),
            by_reference: false,
        }
    }

    /// For a provider that loads deferred tools itself (see `by_reference`).
    pub fn by_reference(mut self) -> Self {
        self.by_reference = true;
        self
    }

    pub fn loads_by_reference(&self) -> bool {
        self.by_reference
    }

    pub fn entries(&self) -> &BTreeMap<String, Entry> {
        &self.entries
    }

    pub fn is_deferred(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// A deferred tool not found yet: the request leaves it out.
    pub fn is_hidden(&self, name: &str) -> bool {
        self.is_deferred(name) && !self.lock().iter().any(|n| n == name)
    }

    /// The found tools, in the order found.
    pub fn loaded(&self) -> Vec<String> {
        self.lock().clone()
    }

    /// Marks `names` found (unknown and already found ones are skipped); returns those new.
    pub fn load<S: AsRef<str>>(&self, names: &[S]) -> Vec<String> {
        let mut loaded = self.lock();
        let mut new = Vec::new();
        for name in names {
            let name = name.as_ref();
            if self.entries.contains_key(name) && !loaded.iter().any(|n| n == name) {
                loaded.push(name.to_string());
                new.push(name.to_string());
            }
        }
        new
    }

    /// After a compaction: only the tools the kept history still calls stay loaded (the
    /// cache prefix is rebuilt anyway, so this is the one time the list may shrink).
    pub fn keep_only(&self, used: &dyn Fn(&str) -> bool) {
        self.lock().retain(|n| used(n));
    }

    pub fn stats(&self) -> DeferStats {
        let loaded = self.lock();
        let mut s = DeferStats::default();
        for (name, e) in &self.entries {
            if loaded.iter().any(|n| n == name) {
                s.loaded += 1;
                s.loaded_tokens += e.tokens;
            } else {
                s.deferred += 1;
                s.deferred_tokens += e.tokens;
            }
        }
        s
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.loaded.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The tools a request offers: every tool but the deferred ones, then the deferred ones
/// found so far in the order found. By reference (Anthropic), every deferred one after the
/// others, each marked `defer_loading`: the list never changes, whatever is found.
pub fn offered(
    specs: &[crate::message::ToolSpec],
    deferral: Option<&Deferral>,
) -> Vec<crate::message::ToolSpec> {
    let Some(d) = deferral else {
        return specs.to_vec();
    };
    let mut out: Vec<_> = specs
        .iter()
        .filter(|s| !d.is_deferred(&s.name))
        .cloned()
        .collect();
    if d.by_reference {
        out.extend(specs.iter().filter(|s| d.is_deferred(&s.name)).map(|s| {
            crate::message::ToolSpec {
                defer_loading: true,
                ..s.clone()
            }
        }));
        return out;
    }
    for name in d.loaded() {
        if let Some(s) = specs.iter().find(|s| s.name == name) {
            out.push(s.clone());
        }
    }
    out
}

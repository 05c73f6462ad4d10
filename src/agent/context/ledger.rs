//! What a tree of agents spent (DESIGN.md §12): every agent has a node; a request's usage
//! and cost go into its node and every node above it, so a parent's figures include its
//! subagents' as they happen, and a budget read at the root covers the whole tree.

use std::sync::{Arc, Mutex};

use crate::provider::Usage;

/// Tokens and cost so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spend {
    pub usage: Usage,
    /// None once any request went to a model without prices.
    pub cost: Option<f64>,
    /// Whether any request was counted (a cost of 0 before the first one is known).
    pub any: bool,
}

impl Spend {
    fn add(&mut self, usage: Usage, cost: Option<f64>) {
        self.cost = match (self.any, self.cost, cost) {
            (false, _, c) => c,
            (true, Some(a), Some(c)) => Some(a + c),
            _ => None,
        };
        self.any = true;
        self.usage.add(usage);
    }

    /// The cost as reported: 0 before any request, None when a price is unknown.
    pub fn cost_usd(&self) -> Option<f64> {
        if self.any { self.cost } else { Some(0.0) }
    }
}

#[derive(Debug, Default)]
struct Sums {
    /// This agent's requests and its descendants'.
    tree: Spend,
    /// The same, split by the model that answered (`result.usage_by_model`, `/cost`).
    by_model: std::collections::BTreeMap<String, Spend>,
    /// Only its descendants' usage (what a prompt adds to its own `usage`).
    descendants: Usage,
}

/// One agent's node.
#[derive(Debug, Default)]
pub struct Ledger {
    sums: Mutex<Sums>,
    parent: Option<Arc<Ledger>>,
}

impl Ledger {
    /// The node of a top-level agent.
    pub fn root() -> Arc<Ledger> {
        Arc::new(Ledger::default())
    }

    /// A node under `parent` (a subagent's).
    pub fn child(parent: &Arc<Ledger>) -> Arc<Ledger> {
        Arc::new(Ledger {
            sums: Mutex::default(),
            parent: Some(parent.clone()),
        })
    }

    /// Counts one request of this agent to `model`, here and in every node above.
    pub fn add(&self, model: &str, usage: Usage, cost: Option<f64>) {
        let count = |s: &mut Sums| {
            s.tree.add(usage, cost);
            s.by_model
                .entry(model.to_string())
                .or_default()
                .add(usage, cost);
        };
        self.with(count);
        let mut up = self.parent.clone();
        while let Some(node) = up {
            node.with(|s| {
                count(s);
                s.descendants.add(usage);
            });
            up = node.parent.clone();
        }
    }

    /// This agent's spend with its descendants'.
    pub fn tree(&self) -> Spend {
        self.with(|s| s.tree)
    }

    /// This agent's spend with its descendants', by model; the parts add up to [`Self::tree`].
    pub fn by_model(&self) -> std::collections::BTreeMap<String, Spend> {
        self.with(|s| s.by_model.clone())
    }

    /// The usage of this agent's descendants so far.
    pub fn descendants(&self) -> Usage {
        self.with(|s| s.descendants)
    }

    /// The top node's spend: what a budget is measured against.
    pub fn root_spend(&self) -> Spend {
        match &self.parent {
            Some(p) => p.root_spend(),
            None => self.tree(),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Sums) -> T) -> T {
        f(&mut self.sums.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// `now − then`, field by field (usage only grows).
pub fn usage_since(now: Usage, then: Usage) -> Usage {
    Usage {
        input_tokens: now.input_tokens.saturating_sub(then.input_tokens),
        output_tokens: now.output_tokens.saturating_sub(then.output_tokens),
        cache_read_tokens: now.cache_read_tokens.saturating_sub(then.cache_read_tokens),
        cache_write_tokens: now
            .cache_write_tokens
            .saturating_sub(then.cache_write_tokens),
        web_search_requests: now
            .web_search_requests
            .saturating_sub(then.web_search_requests),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(n: u64) -> Usage {
        Usage {
            input_tokens: n,
            output_tokens: 1,
            ..Default::default()
        }
    }

    #[test]
    fn a_childs_spend_reaches_every_node_above() {
        let root = Ledger::root();
        let child = Ledger::child(&root);
        let grandchild = Ledger::child(&child);
        root.add("big", u(100), Some(1.0));
        grandchild.add("small", u(10), Some(0.5));
        assert_eq!(root.tree().usage.input_tokens, 110);
        assert_eq!(root.tree().cost, Some(1.5));
        assert_eq!(root.descendants().input_tokens, 10);
        assert_eq!(child.tree().usage.input_tokens, 10);
        assert_eq!(grandchild.root_spend().cost, Some(1.5));
        assert_eq!(root.by_model()["small"].cost, Some(0.5));
        assert_eq!(root.by_model()["big"].usage.input_tokens, 100);
        child.add("small", u(1), None);
        assert_eq!(
            root.tree().cost,
            None,
            "an unknown price makes the total unknown"
        );
        assert_eq!(Ledger::root().tree().cost_usd(), Some(0.0));
    }
}

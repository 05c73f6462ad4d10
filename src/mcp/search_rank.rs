//! BM25 over deferred tools' names and descriptions, for `tool_search`: local, no network,
//! deterministic (ties go by name). A name's words count twice: the name is what a tool is
//! most reliably about.

use std::collections::HashMap;

/// Lowercase words of `text`, split on anything not a letter or digit; a camelCase word
/// also gives its parts (`listIssues` → `listissues`, `list`, `issues`). Plural `s` is
/// dropped so "issue" finds "issues".
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|r| !r.is_empty())
    {
        out.push(stem(&run.to_lowercase()));
        let mut parts = Vec::new();
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in run.chars() {
            if c.is_uppercase() && prev_lower {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        }
        parts.push(cur);
        if parts.len() > 1 {
            out.extend(parts.iter().map(|p| stem(p)));
        }
    }
    out
}

fn stem(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(base) if base.len() >= 3 && !base.ends_with('s') => base.to_string(),
        _ => word.to_string(),
    }
}

/// Words that say nothing about which tool is meant.
const STOP: &[&str] = &[
    "a", "an", "the", "to", "of", "for", "and", "or", "in", "on", "with", "by", "is", "mcp",
];

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The names in `docs` (name, description) ranked for `query`, best first, at most `limit`;
/// tools matching no word of the query are left out.
pub fn rank<'a>(docs: &[(&'a str, &str)], query: &str, limit: usize) -> Vec<&'a str> {
    let terms: Vec<String> = words(query)
        .into_iter()
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect();
    if terms.is_empty() || docs.is_empty() {
        return Vec::new();
    }
    let bags: Vec<HashMap<String, f64>> = docs
        .iter()
        .map(|(name, desc)| {
            let mut bag = HashMap::new();
            for w in words(name) {
                *bag.entry(w).or_insert(0.0) += 2.0;
            }
            for w in words(desc) {
                *bag.entry(w).or_insert(0.0) += 1.0;
            }
            bag
        })
        .collect();
    let lens: Vec<f64> = bags.iter().map(|b| b.values().sum()).collect();
    let avg = (lens.iter().sum::<f64>() / lens.len() as f64).max(1.0);
    let n = docs.len() as f64;
    let mut scored: Vec<(f64, &'a str)> = Vec::new();
    for (i, bag) in bags.iter().enumerate() {
        let mut score = 0.0;
        for t in &terms {
            let Some(&tf) = bag.get(t) else { continue };
            let df = bags.iter().filter(|b| b.contains_key(t)).count() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * lens[i] / avg));
        }
        // The whole query as the tool's name (or its tail) is what the model meant.
        let name = docs[i].0.to_lowercase();
        if name == query.trim().to_lowercase() || name.ends_with(&format!("__{}", query.trim())) {
            score += 100.0;
        }
        if score > 0.0 {
            scored.push((score, docs[i].0));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(limit).map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_names_and_camel_case() {
        assert_eq!(
            words("mcp__github__listIssues: List issues (GitHub)"),
            [
                "mcp",
                "github",
                "listissue",
                "list",
                "issue",
                "list",
                "issue",
                "github",
                "git",
                "hub"
            ]
        );
        assert_eq!(words("HTTPServer v2 class"), ["httpserver", "v2", "class"]);
    }

    #[test]
    fn the_tool_about_the_query_ranks_first() {
        let docs = [
            (
                "mcp__gh__create_issue",
                "Create a new issue in a GitHub repository",
            ),
            ("mcp__gh__list_issues", "List issues of a repository"),
            (
                "mcp__slack__post_message",
                "Post a message to a Slack channel",
            ),
            ("mcp__db__query", "Run a read-only SQL query"),
        ];
        assert_eq!(
            rank(&docs, "send a slack message", 5)[0],
            "mcp__slack__post_message"
        );
        assert_eq!(
            rank(&docs, "create github issue", 1),
            ["mcp__gh__create_issue"]
        );
        assert_eq!(rank(&docs, "sql", 5), ["mcp__db__query"]);
        assert!(rank(&docs, "weather forecast", 5).is_empty());
        assert!(
            rank(&docs, "the of", 5).is_empty(),
            "stop words alone match nothing"
        );
        assert_eq!(rank(&docs, "issue", 5).len(), 2);
        assert_eq!(
            rank(&docs, "query", 5)[0],
            "mcp__db__query",
            "an exact tail wins"
        );
    }

    #[test]
    fn odd_queries_and_names_never_panic() {
        let long = "x".repeat(10_000);
        let docs = [
            ("mcp__s__ÄÖÜ_ǅungle", "İstanbul ﬁle \u{0} \u{202e}"),
            ("mcp__s__", ""),
        ];
        for q in [
            "",
            "select:",
            "İ",
            "\u{0}",
            "ǅ",
            "__",
            "mcp__s__",
            long.as_str(),
            "ﬁle",
        ] {
            let _ = rank(&docs, q, 5);
        }
        assert!(rank(&[], "x", 5).is_empty());
        assert_eq!(rank(&docs, "istanbul", 0).len(), 0);
    }
}

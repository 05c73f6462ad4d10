//! The model table as text: what `tooloop models` prints and `/model` shows in the TUI.

use crate::models::{ModelInfo, ModelTable};

/// The table for a run: the built-in models with the config file's `[models.*]` overrides,
/// and the configured one (marked).
pub fn for_config(config: &crate::config::Config) -> String {
    format_table(&config.context.models, Some(&config.provider.model))
}

/// One row per known model (sorted by name), plus the current model if the table does not
/// know it; the current one is marked with `*`. Prices are USD per million tokens: input /
/// output, cache write / cache read. Narrow enough for the conversation pane.
pub fn format_table(table: &ModelTable, current: Option<&str>) -> String {
    let current_id = current.map(|c| table.lookup(c));
    let mut rows: Vec<ModelInfo> = table.iter().cloned().collect();
    if let Some(info) = current_id.as_ref().filter(|i| !i.known) {
        rows.push(info.clone());
    }
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|m| {
            let mark = match &current_id {
                Some(c) if c.id == m.id => "* ",
                _ => "  ",
            };
            let pair = |a: fn(&crate::models::Prices) -> f64,
                        b: fn(&crate::models::Prices) -> f64| {
                m.prices.as_ref().map_or_else(
                    || "?".to_string(),
                    |p| format!("{}/{}", price(a(p)), price(b(p))),
                )
            };
            [
                format!("{mark}{}", m.id),
                if m.known {
                    tokens(m.context_window)
                } else {
                    format!("{}?", tokens(m.context_window))
                },
                m.max_output_tokens
                    .map_or_else(|| "?".to_string(), |n| tokens(u64::from(n))),
                pair(|p| p.input, |p| p.output),
                pair(|p| p.cache_write, |p| p.cache_read),
            ]
        })
        .collect();
    let header = ["  MODEL", "WINDOW", "OUT", "IN/OUT $/M", "CACHE W/R"];
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |row: &[&str]| {
        let mut out = String::new();
        for (i, (c, w)) in row.iter().zip(&widths).enumerate() {
            if i == 0 {
                out.push_str(&format!("{c:<w$}"));
            } else {
                out.push_str(&format!("  {c:>w$}"));
            }
        }
        out.trim_end().to_string()
    };
    let mut out = line(&header);
    out.push('\n');
    for row in &cells {
        let refs: Vec<&str> = row.iter().map(String::as_str).collect();
        out.push_str(&line(&refs));
        out.push('\n');
    }
    out
}

/// 3.0 → "3", 0.30 → "0.3", 18.75 → "18.75".
fn price(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// 200000 → "200k", 1047576 → "1.0M", 8192 → "8k".
fn tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    } else if n >= 1000 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_known_models_and_marks_the_current_one() {
        let t = ModelTable::builtin();
        let text = format_table(&t, Some("claude-sonnet-4-5-20250929"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("  MODEL"), "{text}");
        let sonnet = lines
            .iter()
            .find(|l| l.contains("claude-sonnet-4-5"))
            .expect("sonnet row");
        assert!(sonnet.starts_with("* claude-sonnet-4-5 "), "{sonnet}");
        assert!(
            sonnet.contains("200k") && sonnet.contains("64k"),
            "{sonnet}"
        );
        assert!(
            sonnet.contains(" 3/15 ") && sonnet.ends_with("3.75/0.3"),
            "{sonnet}"
        );
        assert_eq!(lines.iter().filter(|l| l.starts_with("* ")).count(), 1);
    }

    #[test]
    fn an_unknown_current_model_is_listed_with_unknowns() {
        let t = ModelTable::builtin();
        let text = format_table(&t, Some("my-local-llm"));
        let row = text
            .lines()
            .find(|l| l.contains("my-local-llm"))
            .expect("row");
        assert!(row.starts_with("* my-local-llm"), "{row}");
        assert!(row.contains("200k?") && row.contains('?'), "{row}");
    }
}

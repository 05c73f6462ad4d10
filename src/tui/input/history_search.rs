//! Ctrl+R in the input: search the prompt history backwards, as shells do. Typing narrows
//! the search, Ctrl+R again goes to an older match, Enter keeps the match for editing, Esc
//! puts back what was typed before.

use crate::tui::strings;

pub struct HistorySearch {
    pub query: String,
    /// Index of the shown match in the history.
    pub hit: Option<usize>,
    /// The input's text before the search (Esc restores it).
    pub original: String,
}

impl HistorySearch {
    pub fn new(original: String) -> Self {
        HistorySearch {
            query: String::new(),
            hit: None,
            original,
        }
    }

    /// The newest prompt before `before` holding the query (any case); None if none does.
    pub fn find(&self, history: &[String], before: usize) -> Option<usize> {
        let q = self.query.to_lowercase();
        history[..before.min(history.len())]
            .iter()
            .rposition(|p| p.to_lowercase().contains(&q))
    }

    /// The input's title while searching.
    pub fn title(&self) -> String {
        strings::history_search(&self.query, self.hit.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_newest_first_then_older() {
        let history: Vec<String> = ["fix the build", "list files", "Fix the tests"]
            .map(String::from)
            .to_vec();
        let mut s = HistorySearch::new(String::new());
        s.query = "fix".into();
        assert_eq!(s.find(&history, history.len()), Some(2));
        assert_eq!(s.find(&history, 2), Some(0));
        assert_eq!(s.find(&history, 0), None);
    }
}

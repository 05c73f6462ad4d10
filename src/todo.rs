//! The session's todo list (issue 27): the model writes it whole with `todo_write`, every
//! front end shows it, the transcript keeps it and compaction carries it verbatim.
//!
//! It is session state, not history: a compaction or a resume must not lose it, so it lives
//! here and history only holds the calls that wrote it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    /// The mark front ends draw before an item: ✓ done, ▸ in progress, ○ pending.
    pub fn mark(self) -> &'static str {
        match self {
            TodoStatus::Completed => "✓",
            TodoStatus::InProgress => "▸",
            TodoStatus::Pending => "○",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

/// Why a list written by the model was refused (the tool's error result says it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TodoError {
    #[error(
        "at most one item may be in_progress, and {0} are: mark the others pending or \
         completed and call todo_write again with the whole list"
    )]
    SeveralInProgress(usize),
    #[error("item {0} has empty content: every item needs a short description")]
    EmptyContent(usize),
}

/// Checks a list before it replaces the current one.
pub fn validate(items: &[TodoItem]) -> Result<(), TodoError> {
    if let Some(i) = items.iter().position(|t| t.content.trim().is_empty()) {
        return Err(TodoError::EmptyContent(i + 1));
    }
    let busy = items
        .iter()
        .filter(|t| t.status == TodoStatus::InProgress)
        .count();
    if busy > 1 {
        return Err(TodoError::SeveralInProgress(busy));
    }
    Ok(())
}

/// Told about every change (the engine turns it into an `AgentEvent::Todos`).
pub type TodoListener = Arc<dyn Fn(&[TodoItem]) + Send + Sync>;

/// The current list, shared by the tool that writes it and the agent that records it.
#[derive(Default)]
pub struct TodoList {
    items: Mutex<Vec<TodoItem>>,
    /// Bumped on every change, so the agent writes a transcript record only when it moved.
    version: AtomicU64,
    listener: Mutex<Option<TodoListener>>,
}

impl TodoList {
    pub fn new() -> Arc<Self> {
        Arc::new(TodoList::default())
    }

    pub fn set_listener(&self, listener: TodoListener) {
        if let Ok(mut l) = self.listener.lock() {
            *l = Some(listener);
        }
    }

    /// The list as it is now: what compaction carries into the new context verbatim.
    pub fn current(&self) -> Vec<TodoItem> {
        self.items.lock().map(|i| i.clone()).unwrap_or_default()
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::SeqCst)
    }

    /// Replaces the list (the model's `todo_write`); refused lists change nothing.
    pub fn replace(&self, items: Vec<TodoItem>) -> Result<(), TodoError> {
        validate(&items)?;
        self.set(items);
        Ok(())
    }

    /// Puts a list in place without checking it (a resumed session's, or none on `/new`),
    /// and tells the listener.
    pub fn set(&self, items: Vec<TodoItem>) {
        if let Ok(mut cur) = self.items.lock() {
            *cur = items.clone();
        }
        self.version.fetch_add(1, Ordering::SeqCst);
        let listener = self.listener.lock().ok().and_then(|l| l.clone());
        if let Some(l) = listener {
            l(&items);
        }
    }

    /// The list as text for the model (after a compaction), one item a line; None when empty.
    pub fn as_context(&self) -> Option<String> {
        let items = self.current();
        if items.is_empty() {
            return None;
        }
        let lines: Vec<String> = items
            .iter()
            .map(|t| format!("- [{}] {}", status_word(t.status), t.content))
            .collect();
        Some(format!(
            "The current todo list (update it with todo_write):\n{}",
            lines.join("\n")
        ))
    }
}

fn status_word(s: TodoStatus) -> &'static str {
    match s {
        TodoStatus::Pending => "pending",
        TodoStatus::InProgress => "in_progress",
        TodoStatus::Completed => "completed",
    }
}

/// Whether a list has items not yet done (front ends show it only then).
pub fn has_open(items: &[TodoItem]) -> bool {
    items.iter().any(|t| t.status != TodoStatus::Completed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(content: &str, status: TodoStatus) -> TodoItem {
        TodoItem {
            content: content.into(),
            status,
        }
    }

    #[test]
    fn one_item_in_progress_at_most() {
        let list = TodoList::new();
        let two = vec![
            item("a", TodoStatus::InProgress),
            item("b", TodoStatus::InProgress),
        ];
        assert_eq!(list.replace(two), Err(TodoError::SeveralInProgress(2)));
        assert!(list.current().is_empty());
        assert_eq!(list.version(), 0);
        let ok = vec![
            item("a", TodoStatus::InProgress),
            item("b", TodoStatus::Pending),
        ];
        list.replace(ok.clone()).expect("valid");
        assert_eq!(list.current(), ok);
        assert_eq!(list.version(), 1);
        assert!(has_open(&ok));
        assert!(!has_open(&[item("x", TodoStatus::Completed)]));
        assert_eq!(
            list.replace(vec![item(" ", TodoStatus::Pending)]),
            Err(TodoError::EmptyContent(1))
        );
    }

    #[test]
    fn the_listener_hears_every_change_and_context_is_verbatim() {
        let list = TodoList::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        list.set_listener(Arc::new(move |items: &[TodoItem]| {
            s.lock().unwrap().push(items.len())
        }));
        assert_eq!(list.as_context(), None);
        list.replace(vec![item("写测试", TodoStatus::InProgress)])
            .expect("valid");
        list.set(Vec::new());
        assert_eq!(*seen.lock().unwrap(), vec![1, 0]);
        list.set(vec![item("写测试", TodoStatus::Completed)]);
        assert_eq!(
            list.as_context().as_deref(),
            Some("The current todo list (update it with todo_write):\n- [completed] 写测试")
        );
    }
}

//! The full-screen TUI (placeholder until built).

pub mod highlight;
pub mod json_view;
pub mod markdown;
pub mod sanitize;
pub mod theme;
pub mod wrap;

use crate::config::Config;

pub async fn run(_config: Config) -> anyhow::Result<i32> {
    anyhow::bail!("the TUI is not built yet; use -p PROMPT for headless mode")
}

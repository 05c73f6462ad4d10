//! What the save key writes (Ctrl+S / F4) and `/export` reads of the JSON pane: the current
//! view as pretty JSON, written owner-only.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{JsonPane, JsonView};

impl JsonPane {
    /// The current view as the text written by the save key.
    pub fn export(&self) -> String {
        let value = match self.view {
            JsonView::History => {
                serde_json::to_value(crate::provider::Messages::Shared(&self.history))
                    .unwrap_or(Value::Null)
            }
            JsonView::Request => self
                .request
                .as_deref()
                .map_or(Value::Null, |b| b.json().clone()),
            JsonView::Sse => Value::Array(
                self.sse
                    .iter()
                    .map(|(e, d)| {
                        let data =
                            serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.clone()));
                        serde_json::json!({"event": e, "data": data})
                    })
                    .collect(),
            ),
            JsonView::Tool => self.tool.as_ref().map_or(Value::Null, |(v, _)| v.clone()),
        };
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }

    /// Writes the current view to `dir` and returns the path. Owner-only (0600), like
    /// transcripts: requests and tool output may hold what the user keeps private.
    pub fn save(&self, dir: &Path, stamp: &str) -> Result<PathBuf, (PathBuf, std::io::Error)> {
        let path = dir.join(format!("{}-{stamp}.json", self.view.name()));
        std::fs::create_dir_all(dir)
            .and_then(|_| {
                let mut opts = std::fs::OpenOptions::new();
                opts.write(true).create(true).truncate(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
                let mut file = opts.open(&path)?;
                crate::paths::set_mode(&path, 0o600)?;
                std::io::Write::write_all(&mut file, self.export().as_bytes())
            })
            .map(|_| path.clone())
            .map_err(|e| (path, e))
    }
}

//! The editor's files: when the client advertises `fs.readTextFile` / `fs.writeTextFile`,
//! read_file, edit_file and write_file reach file content through `fs/read_text_file` and
//! `fs/write_text_file`, so the editor's unsaved buffers win over the disk and its undo
//! history sees the change. The tools have confined the path to the workspace before any
//! of this runs.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use serde_json::{Value, json};

use super::transport::Outbox;
use crate::tools::file_access::{FileAccess, LocalDisk};

/// What the client said it serves (`clientCapabilities.fs`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClientFs {
    pub read: bool,
    pub write: bool,
}

impl ClientFs {
    /// From `initialize`'s params; anything missing or malformed is "not served".
    pub fn from_initialize(params: &Value) -> Self {
        let fs = &params["clientCapabilities"]["fs"];
        ClientFs {
            read: fs["readTextFile"].as_bool().unwrap_or(false),
            write: fs["writeTextFile"].as_bool().unwrap_or(false),
        }
    }

    pub fn any(self) -> bool {
        self.read || self.write
    }
}

/// One session's file access through the client.
pub struct ClientFiles {
    outbox: Arc<Outbox>,
    fs: ClientFs,
    /// Known once the engine has started (the engine names the session).
    session: OnceLock<String>,
    /// The text last read from the editor per file: the "before" of an edit's diff.
    read: Mutex<HashMap<PathBuf, String>>,
    /// Each write's text before and after, until the tool's end takes it for its `diff`
    /// (the disk may not hold either: the editor's buffer is the file).
    written: Mutex<HashMap<PathBuf, (Option<String>, String)>>,
}

impl ClientFiles {
    pub fn new(outbox: Arc<Outbox>, fs: ClientFs) -> Arc<ClientFiles> {
        Arc::new(ClientFiles {
            outbox,
            fs,
            session: OnceLock::new(),
            read: Mutex::new(HashMap::new()),
            written: Mutex::new(HashMap::new()),
        })
    }

    pub fn set_session(&self, id: &str) {
        let _ = self.session.set(id.to_string());
    }

    /// The text before and after the last write to `path` through the editor, once.
    pub fn take_write(&self, path: &Path) -> Option<(Option<String>, String)> {
        self.written.lock().expect("written").remove(path)
    }

    async fn ask(&self, method: &str, mut params: Value) -> io::Result<Value> {
        let session = self
            .session
            .get()
            .ok_or_else(|| io::Error::other("the editor session is not ready"))?;
        params["sessionId"] = json!(session);
        let (_, answer) = self.outbox.request(method, params);
        match answer.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(io::Error::other(format!(
                "the editor refused {method}: {}",
                e.message
            ))),
            Err(_) => Err(io::Error::other(format!("no answer to {method}"))),
        }
    }
}

#[async_trait]
impl FileAccess for ClientFiles {
    async fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let disk = tokio::fs::read(path).await?;
        // Images and other binary files are not editor buffers: the disk has them.
        if !self.fs.read || std::str::from_utf8(&disk).is_err() {
            return Ok(disk);
        }
        let answer = self.ask("fs/read_text_file", json!({"path": path})).await?;
        let text = answer["content"].as_str().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "the editor's fs/read_text_file answer has no \"content\" text",
            )
        })?;
        self.read
            .lock()
            .expect("read")
            .insert(path.to_path_buf(), text.to_string());
        Ok(text.as_bytes().to_vec())
    }

    async fn write(&self, path: &Path, text: &str) -> io::Result<()> {
        if !self.fs.write {
            return LocalDisk.write(path, text).await;
        }
        let seen = self.read.lock().expect("read").remove(path);
        let before = match seen {
            Some(t) => Some(t),
            None => tokio::fs::read_to_string(path).await.ok(),
        };
        self.ask("fs/write_text_file", json!({"path": path, "content": text}))
            .await?;
        self.written
            .lock()
            .expect("written")
            .insert(path.to_path_buf(), (before, text.to_string()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_and_writes_go_to_the_editor_and_the_diff_keeps_its_texts() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "on disk\n").unwrap();
        let (outbox, mut lines) = Outbox::new();
        let outbox = Arc::new(outbox);
        let files = ClientFiles::new(
            outbox.clone(),
            ClientFs {
                read: true,
                write: true,
            },
        );
        files.set_session("s1");
        let editor = tokio::spawn(async move {
            let mut asked = Vec::new();
            for answer in [json!({"content": "in the buffer\n"}), json!(null)] {
                let line: Value = serde_json::from_str(&lines.recv().await.unwrap()).unwrap();
                outbox.resolve(&line["id"], Ok(answer));
                asked.push(line);
            }
            asked
        });
        let read = files.read(&file).await.unwrap();
        assert_eq!(read, b"in the buffer\n");
        files.write(&file, "edited\n").await.unwrap();
        let asked = editor.await.unwrap();
        assert_eq!(asked[0]["method"], "fs/read_text_file");
        assert_eq!(asked[0]["params"]["sessionId"], "s1");
        assert_eq!(asked[1]["method"], "fs/write_text_file");
        assert_eq!(asked[1]["params"]["content"], "edited\n");
        // The editor owns the file: the disk is untouched by the agent.
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "on disk\n");
        assert_eq!(
            files.take_write(&file),
            Some((Some("in the buffer\n".into()), "edited\n".into()))
        );
        assert_eq!(files.take_write(&file), None);
    }

    #[test]
    fn capabilities_are_read_from_initialize() {
        let params = json!({"clientCapabilities": {"fs": {"readTextFile": true}}});
        assert_eq!(
            ClientFs::from_initialize(&params),
            ClientFs {
                read: true,
                write: false
            }
        );
        assert!(!ClientFs::from_initialize(&json!({})).any());
    }
}

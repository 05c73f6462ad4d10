//! Where the file tools read and write text: the local disk, or what a front end puts in its
//! place (an editor over ACP serves its open buffers, unsaved changes included). The tools
//! resolve and confine every path against the workspace first; an access only ever sees
//! paths that passed that check.

use std::io;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

/// How read_file, edit_file and write_file reach a file's content.
#[async_trait]
pub trait FileAccess: Send + Sync {
    /// The file's bytes as the user sees them now (an editor's unsaved buffer wins over
    /// the disk). The tool has checked the path exists, is a file and is not too big.
    async fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Replaces the file's content with `text` (its parent directory exists).
    async fn write(&self, path: &Path, text: &str) -> io::Result<()>;
}

/// The default: the disk, written atomically (a reader never sees half a file).
pub struct LocalDisk;

#[async_trait]
impl FileAccess for LocalDisk {
    async fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        tokio::fs::read(path).await
    }

    async fn write(&self, path: &Path, text: &str) -> io::Result<()> {
        let (path, text) = (path.to_path_buf(), text.to_string());
        tokio::task::spawn_blocking(move || super::atomic::write_atomic(&path, text.as_bytes()))
            .await
            .map_err(io::Error::other)?
    }
}

pub fn local() -> Arc<dyn FileAccess> {
    Arc::new(LocalDisk)
}

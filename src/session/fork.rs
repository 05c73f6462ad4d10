//! Forking a session: a new transcript that starts as a copy of another (every record after
//! the header, so its prompts, rewinds and history come along) under a header that names
//! the parent. The parent file is only read: it stays byte for byte as it was.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::load;
use super::transcript_line::{self, FORMAT, Header, Record};
use crate::protocol::session_error::SessionError;

/// Writes the fork of the transcript at `parent` into `dir`. Returns the new header, path
/// and length (everything in it is complete records).
pub fn create(dir: &Path, parent: &Path) -> Result<(Header, PathBuf, u64), SessionError> {
    let bytes = std::fs::read(parent).map_err(|source| SessionError::Io {
        path: parent.to_path_buf(),
        source,
    })?;
    let loaded = load::parse(&bytes, parent)?;
    let body_start = bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| i + 1);
    let body_end = (loaded.good_len as usize).clamp(body_start, bytes.len());
    let (id, path) = super::store::new_name(dir);
    let header = Header {
        id,
        created: transcript_line::now_rfc3339(),
        workspace: loaded.header.workspace.clone(),
        tooloop_version: env!("CARGO_PKG_VERSION").to_string(),
        format: FORMAT,
        forked_from: Some(loaded.header.id.clone()),
    };
    let mut out = serde_json::to_vec(&Record::Header(header.clone()))?;
    out.push(b'\n');
    out.extend_from_slice(&bytes[body_start..body_end]);
    if out.last() != Some(&b'\n') {
        out.push(b'\n');
    }
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let written = opts.open(&path).and_then(|mut f| {
        crate::paths::set_mode(&path, 0o600)?;
        f.write_all(&out)?;
        f.sync_data()
    });
    written.map_err(|source| SessionError::Io {
        path: path.clone(),
        source,
    })?;
    tracing::info!(parent = %loaded.header.id, session = %header.id, "forked session");
    Ok((header, path, out.len() as u64))
}

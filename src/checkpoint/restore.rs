//! Putting files back as they were before a prompt: every file a tool changed since is
//! written back (content and mode) and every file a tool created since is deleted, except
//! files that differ from what the tool left: those were changed by hand and are conflicts,
//! left alone unless the user says to overwrite them.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::store::{Entry, FileState, Store};

/// One file a rewind would touch.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub path: PathBuf,
    /// How it was before the earliest prompt rewound over (None: it did not exist).
    pub before: Option<FileState>,
    /// How the last tool left it; None in `after_known` when no tool finished with it.
    pub after: Option<FileState>,
    pub after_known: bool,
    /// How it is now.
    pub now: Option<FileState>,
}

impl Item {
    /// The file is not as the last tool left it: someone else changed it since.
    pub fn conflict(&self) -> bool {
        !self.after_known || !same(&self.now, &self.after)
    }

    /// Already as it was before: nothing to do.
    pub fn unchanged(&self) -> bool {
        same(&self.now, &self.before)
    }
}

fn same(a: &Option<FileState>, b: &Option<FileState>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.hash == b.hash && a.mode == b.mode,
        _ => false,
    }
}

/// The files a rewind to just before prompt `to` would touch, in path order.
pub fn plan(entries: &[Entry], to: usize) -> Vec<Item> {
    let mut items: BTreeMap<String, Item> = BTreeMap::new();
    for e in entries {
        match e {
            Entry::Before {
                prompt,
                path,
                state,
            } if *prompt >= to => {
                items.entry(path.clone()).or_insert_with(|| Item {
                    path: PathBuf::from(path),
                    before: state.clone(),
                    after: None,
                    after_known: false,
                    now: None,
                });
            }
            Entry::After {
                prompt,
                path,
                state,
            } if *prompt >= to => {
                if let Some(item) = items.get_mut(path) {
                    item.after = state.clone();
                    item.after_known = true;
                }
            }
            _ => {}
        }
    }
    items
        .into_values()
        .map(|mut item| {
            // Unreadable now (a directory in its place, say): never overwrite that silently.
            item.now = Store::state_of(&item.path).unwrap_or_else(|_| {
                item.after_known = false;
                None
            });
            item
        })
        .collect()
}

/// What a restore did, paths as they were recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    pub restored: Vec<PathBuf>,
    pub deleted: Vec<PathBuf>,
    pub conflicts: Vec<PathBuf>,
    /// Files that could not be put back (disk errors, a missing blob): path and why.
    pub failed: Vec<(PathBuf, String)>,
}

/// Puts every planned file back; conflicts are skipped unless `overwrite`.
pub fn apply(store: &Store, items: &[Item], overwrite: bool) -> Applied {
    let mut out = Applied::default();
    for item in items {
        if item.unchanged() {
            continue;
        }
        if item.conflict() && !overwrite {
            out.conflicts.push(item.path.clone());
            continue;
        }
        let result = match &item.before {
            None => remove(&item.path).map(|()| &mut out.deleted),
            Some(state) => write_back(store, &item.path, state).map(|()| &mut out.restored),
        };
        match result {
            Ok(list) => list.push(item.path.clone()),
            Err(e) => out.failed.push((item.path.clone(), e.to_string())),
        }
    }
    out
}

fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Writes the saved content with its mode through a temp file, so the file is the old one
/// or the restored one, never half of either.
fn write_back(store: &Store, path: &Path, state: &FileState) -> io::Result<()> {
    let bytes = store.read_blob(&state.hash)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    if fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(io::Error::other("a directory is in its place"));
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(
        ".{name}.tooloop-rewind-{:08x}.tmp",
        fastrand::u32(..)
    ));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        crate::paths::set_mode(&tmp, state.mode)?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::tracking::Checkpoints;

    #[test]
    fn edits_are_undone_creations_deleted_and_hand_changes_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::new(&dir.path().join("cp"));
        let cp = Checkpoints::new(store.clone(), "s", 1);
        let w = dir.path().join("w");
        fs::create_dir(&w).expect("mkdir");
        let (edited, created, by_hand) = (w.join("e.txt"), w.join("new.txt"), w.join("h.txt"));
        fs::write(&edited, "old").expect("write");
        fs::write(&by_hand, "old").expect("write");
        for (path, content) in [(&edited, "new"), (&created, "made"), (&by_hand, "tool")] {
            cp.before(path).expect("before");
            fs::write(path, content).expect("write");
            cp.after(path).expect("after");
        }
        fs::write(&by_hand, "the user's").expect("write");
        let entries = store.entries("s").expect("reads");
        let items = plan(&entries, 1);
        assert_eq!(items.len(), 3);
        let done = apply(&store, &items, false);
        assert_eq!(done.restored, vec![edited.clone()]);
        assert_eq!(done.deleted, vec![created.clone()]);
        assert_eq!(done.conflicts, vec![by_hand.clone()]);
        assert_eq!(fs::read_to_string(&edited).expect("read"), "old");
        assert!(!created.exists());
        assert_eq!(fs::read_to_string(&by_hand).expect("read"), "the user's");
        let forced = apply(&store, &plan(&entries, 1), true);
        assert_eq!(forced.restored, vec![by_hand.clone()]);
        assert_eq!(fs::read_to_string(&by_hand).expect("read"), "old");
        // Nothing left to do.
        assert_eq!(apply(&store, &plan(&entries, 1), false), Applied::default());
    }

    #[cfg(unix)]
    #[test]
    fn the_mode_comes_back_too() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::new(&dir.path().join("cp"));
        let cp = Checkpoints::new(store.clone(), "s", 1);
        let f = dir.path().join("run.sh");
        fs::write(&f, "#!/bin/sh\n").expect("write");
        fs::set_permissions(&f, fs::Permissions::from_mode(0o755)).expect("chmod");
        cp.before(&f).expect("before");
        fs::remove_file(&f).expect("rm");
        fs::write(&f, "other").expect("write");
        cp.after(&f).expect("after");
        let done = apply(&store, &plan(&store.entries("s").expect("reads"), 1), false);
        assert_eq!(done.restored, vec![f.clone()]);
        let mode = fs::metadata(&f).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }
}

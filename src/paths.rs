//! Where tooloop keeps its files: the directories `directories` gives for "tooloop"
//! (XDG on Linux, so HOME and XDG_*_HOME are honoured).

use std::io;
use std::path::{Path, PathBuf};

use directories::ProjectDirs;

/// Without a home directory there is nowhere to put tooloop's files.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathsError {
    #[error("cannot find the home directory (is HOME set?)")]
    NoHome,
}

fn project_dirs() -> Result<ProjectDirs, PathsError> {
    ProjectDirs::from("", "", "tooloop").ok_or(PathsError::NoHome)
}

/// `config.toml` in the config directory.
pub fn config_file() -> Result<PathBuf, PathsError> {
    Ok(project_dirs()?.config_dir().join("config.toml"))
}

/// Transcripts: `sessions/` in the data directory.
pub fn sessions_dir() -> Result<PathBuf, PathsError> {
    Ok(project_dirs()?.data_dir().join("sessions"))
}

/// File checkpoints for rewinds: `checkpoints/` in the data directory.
pub fn checkpoints_dir() -> Result<PathBuf, PathsError> {
    Ok(project_dirs()?.data_dir().join("checkpoints"))
}

/// Log files: the state directory, or `logs/` in the data directory where there is no state
/// directory (macOS, Windows).
pub fn log_dir() -> Result<PathBuf, PathsError> {
    let dirs = project_dirs()?;
    Ok(match dirs.state_dir() {
        Some(state) => state.to_path_buf(),
        None => dirs.data_dir().join("logs"),
    })
}

/// Creates `dir` (and its parents) and makes `dir` and every parent up to `owned_from`
/// owner-only (0700), whatever the umask says. Parents above `owned_from` (~/.local/share,
/// say) are left as they are.
pub fn create_private_dir(dir: &Path, owned_from: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut current = Some(dir);
    while let Some(d) = current {
        set_mode(d, 0o700)?;
        if d == owned_from {
            break;
        }
        current = d.parent().filter(|p| p.starts_with(owned_from));
    }
    Ok(())
}

/// The `tooloop` directory a path under it belongs to (the ProjectDirs leaf), so
/// [`create_private_dir`] knows where tooloop's own directories begin.
pub fn tooloop_root(dir: &Path) -> &Path {
    dir.ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "tooloop"))
        .unwrap_or(dir)
}

#[cfg(unix)]
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
pub fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

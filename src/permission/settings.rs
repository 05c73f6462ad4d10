//! The project's permission files: `.tooloop/settings.toml` (meant to be committed) and
//! `.tooloop/settings.local.toml` (not; "always allow" appends to it). Both hold only a
//! `[permissions]` table with `allow`, `ask` and `deny` lists, like the user's config.toml.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::rules::{RuleError, RuleSet};

pub const PROJECT_SOURCE: &str = ".tooloop/settings.toml";
pub const LOCAL_SOURCE: &str = ".tooloop/settings.local.toml";

/// `[permissions]` in any of the three files.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PermissionsSection {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub ask: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    #[serde(default)]
    permissions: PermissionsSection,
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("{}: {source}", path.display())]
    Rule { path: PathBuf, source: RuleError },
}

/// The local file of a workspace.
pub fn local_path(workspace: &Path) -> PathBuf {
    workspace.join(LOCAL_SOURCE)
}

/// The merged rules: the user's section (from config.toml, already read), then the
/// project's two files. A missing file is no rules; a bad one is an error naming it.
pub fn load(
    user: &PermissionsSection,
    user_source: &str,
    workspace: &Path,
) -> Result<RuleSet, SettingsError> {
    let mut set = RuleSet::default();
    let add = |set: &mut RuleSet, s: &PermissionsSection, source: &str, path: &Path| {
        set.add_lists(source, &s.allow, &s.ask, &s.deny)
            .map_err(|source| SettingsError::Rule {
                path: path.to_path_buf(),
                source,
            })
    };
    add(&mut set, user, user_source, Path::new(user_source))?;
    for source in [PROJECT_SOURCE, LOCAL_SOURCE] {
        let path = workspace.join(source);
        let section = read(&path)?;
        add(&mut set, &section, source, &path)?;
    }
    Ok(set)
}

fn read(path: &Path) -> Result<PermissionsSection, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(source) => {
            return Err(SettingsError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str::<SettingsFile>(&text)
        .map(|f| f.permissions)
        .map_err(|e| SettingsError::Parse {
            path: path.to_path_buf(),
            message: e.message().trim().to_string(),
        })
}

/// Appends `rule` to the `allow` list of `path` (created with its directory when missing);
/// a rule already there is not added twice. The rest of the file is kept as it was read.
pub fn append_allow(path: &Path, rule: &str) -> Result<(), SettingsError> {
    let io = |source| SettingsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(e)),
    };
    let mut doc: toml::Table = toml::from_str(&text).map_err(|e| SettingsError::Parse {
        path: path.to_path_buf(),
        message: e.message().trim().to_string(),
    })?;
    let perms = doc
        .entry("permissions")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let Some(perms) = perms.as_table_mut() else {
        return Err(SettingsError::Parse {
            path: path.to_path_buf(),
            message: "`permissions` is not a table".into(),
        });
    };
    let allow = perms
        .entry("allow")
        .or_insert_with(|| toml::Value::Array(Vec::new()));
    let Some(allow) = allow.as_array_mut() else {
        return Err(SettingsError::Parse {
            path: path.to_path_buf(),
            message: "`permissions.allow` is not a list".into(),
        });
    };
    if !allow.iter().any(|v| v.as_str() == Some(rule)) {
        allow.push(toml::Value::String(rule.to_string()));
    }
    let body = toml::to_string(&doc).map_err(|e| SettingsError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let out = format!(
        "# Written by tooloop (\"always allow … in this project\"); not meant to be committed.\n{body}"
    );
    std::fs::write(path, out).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_files_merge_and_always_allow_appends_once() {
        let dir = tempfile::tempdir().expect("dir");
        let ws = dir.path();
        std::fs::create_dir_all(ws.join(".tooloop")).expect("dir");
        std::fs::write(
            ws.join(PROJECT_SOURCE),
            "[permissions]\nallow = [\"bash(git status)\"]\ndeny = [\"read_file(.env)\"]\n",
        )
        .expect("write");
        let user = PermissionsSection {
            ask: vec!["bash(git push:*)".into()],
            ..Default::default()
        };
        append_allow(&local_path(ws), "bash(cargo test:*)").expect("append");
        append_allow(&local_path(ws), "bash(cargo test:*)").expect("append again");
        let set = load(&user, "/u/config.toml", ws).expect("load");
        let rows: Vec<(String, String)> = set
            .iter()
            .map(|r| (r.rule.text.clone(), r.source.clone()))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("bash(git push:*)".into(), "/u/config.toml".into()),
                ("bash(git status)".into(), PROJECT_SOURCE.into()),
                ("read_file(.env)".into(), PROJECT_SOURCE.into()),
                ("bash(cargo test:*)".into(), LOCAL_SOURCE.into()),
            ]
        );
        std::fs::write(
            ws.join(LOCAL_SOURCE),
            "[permissions]\nallow = [\"bash(\"]\n",
        )
        .expect("w");
        let err = load(&user, "u", ws).expect_err("bad rule");
        assert!(err.to_string().contains("settings.local.toml"), "{err}");
        std::fs::write(ws.join(LOCAL_SOURCE), "[permisions]\n").expect("w");
        assert!(load(&user, "u", ws).is_err());
    }
}

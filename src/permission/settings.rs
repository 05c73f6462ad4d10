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

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        path: PathBuf,
        /// From 1, where the file is at fault.
        line: Option<usize>,
        message: String,
    },
    #[error("{}{}: {source}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Rule {
        path: PathBuf,
        line: Option<usize>,
        source: RuleError,
    },
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
    set.add_lists(user_source, &user.allow, &user.ask, &user.deny)
        .map_err(|source| SettingsError::Rule {
            path: PathBuf::from(user_source),
            line: None,
            source,
        })?;
    for source in [PROJECT_SOURCE, LOCAL_SOURCE] {
        let path = workspace.join(source);
        let section = read(&path)?;
        // `parse` checked every rule: this cannot fail.
        set.add_lists(source, &section.allow, &section.ask, &section.deny)
            .map_err(|e| SettingsError::Rule {
                path: path.clone(),
                line: None,
                source: e,
            })?;
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
    parse(&text, path)
}

/// A settings file's `[permissions]`, every rule checked; errors name `path` and the line.
pub fn parse(text: &str, path: &Path) -> Result<PermissionsSection, SettingsError> {
    let file = toml::from_str::<SpannedFile>(text).map_err(|e| toml_error(&e, text, path))?;
    let p = file.permissions;
    check(&p, text, path)?;
    let plain = |l: Vec<toml::Spanned<String>>| l.into_iter().map(|r| r.into_inner()).collect();
    Ok(PermissionsSection {
        allow: plain(p.allow),
        ask: plain(p.ask),
        deny: plain(p.deny),
    })
}

/// Checks the rules of the `[permissions]` table of a file that holds other tables too
/// (config.toml, already parsed): the first bad rule is an error naming `path` and its line.
pub fn check_rules(text: &str, path: &Path) -> Result<(), SettingsError> {
    #[derive(Deserialize)]
    struct AnyFile {
        #[serde(default)]
        permissions: SpannedSection,
    }
    let file = toml::from_str::<AnyFile>(text).map_err(|e| toml_error(&e, text, path))?;
    check(&file.permissions, text, path)
}

fn check(p: &SpannedSection, text: &str, path: &Path) -> Result<(), SettingsError> {
    let line_at = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    for rule in p.allow.iter().chain(&p.ask).chain(&p.deny) {
        if let Err(source) = super::rules::Rule::parse(rule.get_ref()) {
            return Err(SettingsError::Rule {
                path: path.to_path_buf(),
                line: Some(line_at(rule.span().start)),
                source,
            });
        }
    }
    Ok(())
}

/// The file as read, each rule with where it stands (for the error's line).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpannedFile {
    #[serde(default)]
    permissions: SpannedSection,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpannedSection {
    #[serde(default)]
    allow: Vec<toml::Spanned<String>>,
    #[serde(default)]
    ask: Vec<toml::Spanned<String>>,
    #[serde(default)]
    deny: Vec<toml::Spanned<String>>,
}

fn toml_error(e: &toml::de::Error, text: &str, path: &Path) -> SettingsError {
    SettingsError::Parse {
        path: path.to_path_buf(),
        line: e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
        message: e.message().trim().lines().collect::<Vec<_>>().join("; "),
    }
}

/// Appends `rule` to the `allow` list of `path` (created with its directory when missing);
/// a rule already there is not added twice. The rest of the file is kept as it was read.
pub fn append_allow(path: &Path, rule: &str) -> Result<(), SettingsError> {
    append(path, "allow", rule)
}

/// [`append_allow`] for the `deny` list ("always reject … in this project").
pub fn append_deny(path: &Path, rule: &str) -> Result<(), SettingsError> {
    append(path, "deny", rule)
}

fn append(path: &Path, list: &str, rule: &str) -> Result<(), SettingsError> {
    let io = |source| SettingsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(e)),
    };
    let mut doc: toml::Table = toml::from_str(&text).map_err(|e| toml_error(&e, &text, path))?;
    let perms = doc
        .entry("permissions")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let Some(perms) = perms.as_table_mut() else {
        return Err(SettingsError::Parse {
            path: path.to_path_buf(),
            line: None,
            message: "`permissions` is not a table".into(),
        });
    };
    let allow = perms
        .entry(list)
        .or_insert_with(|| toml::Value::Array(Vec::new()));
    let Some(allow) = allow.as_array_mut() else {
        return Err(SettingsError::Parse {
            path: path.to_path_buf(),
            line: None,
            message: format!("`permissions.{list}` is not a list"),
        });
    };
    if !allow.iter().any(|v| v.as_str() == Some(rule)) {
        allow.push(toml::Value::String(rule.to_string()));
    }
    let body = toml::to_string(&doc).map_err(|e| SettingsError::Parse {
        path: path.to_path_buf(),
        line: None,
        message: e.to_string(),
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let out = format!(
        "# Written by tooloop (\"always allow/reject … in this project\"); not meant to be committed.\n{body}"
    );
    std::fs::write(path, out).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file_and_the_line() {
        let path = Path::new(".tooloop/settings.toml");
        let err = |text: &str| parse(text, path).expect_err(text).to_string();
        assert_eq!(
            err("[permissions]\nallow = [\n  \"bash(ls)\",\n  \"bash(\",\n]\n"),
            ".tooloop/settings.toml:4: permission rule \"bash(\": `TOOL(…)` must end with `)` \
             and hold something"
        );
        assert!(err("[permissions]\nallow = 3\n").starts_with(".tooloop/settings.toml:2: "));
        assert!(err("\n\n[permissions\n").starts_with(".tooloop/settings.toml:3: "));
        assert!(err("[permissions]\nalow = []\n").starts_with(".tooloop/settings.toml:2: "));
        // config.toml: other tables beside it, the rule's own line.
        let config = "model = \"m\"\n[permissions]\nallow = [\"bash(ls)\",\n  \"bash(unclosed\"]\n";
        let e = check_rules(config, Path::new("/u/config.toml")).expect_err("bad rule");
        assert!(
            e.to_string()
                .starts_with("/u/config.toml:4: permission rule \"bash(unclosed\""),
            "{e}"
        );
        check_rules("model = \"m\"\n", Path::new("c")).expect("no rules");
        let ok = parse("[permissions]\ndeny = [\"read_file(.env)\"]\n", path).expect("ok");
        assert_eq!(ok.deny, vec!["read_file(.env)".to_string()]);
    }

    #[test]
    fn always_reject_appends_a_deny_rule_beside_the_allow_rules() {
        let dir = tempfile::tempdir().expect("dir");
        let path = local_path(dir.path());
        append_allow(&path, "bash(cargo test:*)").expect("allow");
        append_deny(&path, "bash(rm:*)").expect("deny");
        append_deny(&path, "bash(rm:*)").expect("deny again");
        let set = load(&PermissionsSection::default(), "u", dir.path()).expect("load");
        let rows: Vec<(&str, String)> = set
            .iter()
            .map(|r| (r.kind.as_str(), r.rule.text.clone()))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("allow", "bash(cargo test:*)".to_string()),
                ("deny", "bash(rm:*)".to_string())
            ]
        );
    }

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

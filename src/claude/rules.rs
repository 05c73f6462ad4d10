//! Claude Code's permission rules (`Bash(npm run test:*)`, `Read(./.env)`, `Edit(src/**)`,
//! `WebFetch(domain:example.com)`, `mcp__server__tool`) as tooloop rules, decided by the one
//! `permission::decide` like any other. A rule naming a tool tooloop lacks is unused, never
//! an error.

use std::path::Path;

use crate::hooks::claude_tools as tools;

/// One Claude Code rule, translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mapped {
    /// The tooloop rules it stands for (`Edit(x)` covers edit_file and write_file).
    Rules(Vec<String>),
    /// Not applied, and why (shown by `/permissions` and `tooloop config`).
    Unused(String),
}

/// `rule` as written in a settings file whose project root is `root` (`/x` in a rule is
/// relative to it, `//x` absolute, `~/x` under `home`). `deny`: a rule tooloop cannot
/// match exactly is widened to the whole tool rather than dropped.
pub fn map(rule: &str, deny: bool, home: Option<&Path>) -> Mapped {
    let t = rule.trim();
    let (tool, spec) = match t.find('(') {
        Some(open) => match t[open + 1..].strip_suffix(')') {
            Some(inner) => (&t[..open], Some(inner.trim())),
            None => return Mapped::Unused(format!("{t:?} is not `Tool` or `Tool(…)`")),
        },
        None => (t, None),
    };
    let spec = spec.filter(|s| !s.is_empty() && *s != "*");
    if let Some(server) = tool.strip_prefix("mcp__") {
        // `mcp__server` is every tool of the server, as is `mcp__server__*`.
        let name = if server.contains("__") {
            tool.to_string()
        } else {
            format!("{tool}__*")
        };
        return Mapped::Rules(vec![name]);
    }
    let targets: &[&str] = match tool {
        // Read rules cover every tool that reads files, Edit rules every one that edits.
        "Read" => &["read_file", "grep", "glob", "list_dir"],
        "Edit" | "MultiEdit" => &["edit_file", "write_file"],
        "Write" => &["write_file"],
        // A name that translates, or tooloop's own (lower case); an unknown capitalized
        // name is a Claude Code tool tooloop lacks.
        _ => match tools::to_tooloop(tool) {
            Some(name) if name != tool || !tool.starts_with(|c: char| c.is_ascii_uppercase()) => {
                return one(name, spec, deny);
            }
            _ => return Mapped::Unused(format!("tooloop has no {tool} tool")),
        },
    };
    let Some(spec) = spec else {
        return Mapped::Rules(targets.iter().map(|t| t.to_string()).collect());
    };
    let glob = path_glob(spec, home);
    Mapped::Rules(targets.iter().map(|t| format!("{t}({glob})")).collect())
}

/// A tool that is not about files: `Bash(…)` keeps its command form, `WebFetch(domain:…)`
/// has no counterpart (tooloop's web_fetch rules do not see the URL).
fn one(name: &str, spec: Option<&str>, deny: bool) -> Mapped {
    match (name, spec) {
        (_, None) => Mapped::Rules(vec![name.to_string()]),
        ("bash", Some(s)) => {
            // Claude Code also writes the prefix form as `cmd *`.
            let s = s
                .strip_suffix(" *")
                .map_or(s.to_string(), |p| format!("{p}:*"));
            Mapped::Rules(vec![format!("bash({s})")])
        }
        // Safer to refuse every fetch than to let a denied domain through.
        ("web_fetch", Some(_)) if deny => Mapped::Rules(vec!["web_fetch".into()]),
        ("web_fetch", Some(s)) => Mapped::Unused(format!(
            "web_fetch rules cannot match {s:?} (tooloop matches web_fetch as a whole)"
        )),
        (_, Some(s)) => Mapped::Rules(vec![format!("{name}({s})")]),
    }
}

/// Claude Code's path forms as tooloop globs (relative to the workspace, or absolute):
/// `./x` and `/x` are the project's, `//x` absolute, `~/x` the home's; a pattern without a
/// `/` matches at any depth, as in a .gitignore.
fn path_glob(spec: &str, home: Option<&Path>) -> String {
    if let Some(abs) = spec.strip_prefix("//") {
        return format!("/{abs}");
    }
    if let (Some(rest), Some(h)) = (spec.strip_prefix("~/"), home) {
        return format!("{}/{rest}", h.display());
    }
    let rel = spec
        .strip_prefix("./")
        .or_else(|| spec.strip_prefix('/'))
        .unwrap_or(spec);
    if rel.contains('/') || spec.starts_with("./") || spec.starts_with('/') {
        rel.to_string()
    } else {
        format!("**/{rel}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(rule: &str) -> Vec<String> {
        match map(rule, false, Some(Path::new("/home/u"))) {
            Mapped::Rules(r) => r,
            Mapped::Unused(why) => panic!("{rule}: unused: {why}"),
        }
    }

    #[test]
    fn the_issue_examples_map_onto_tooloop_rules() {
        assert_eq!(rules("Bash(npm run test:*)"), ["bash(npm run test:*)"]);
        assert_eq!(rules("Bash(git diff *)"), ["bash(git diff:*)"]);
        assert_eq!(rules("Bash"), ["bash"]);
        assert_eq!(rules("Bash(*)"), ["bash"]);
        assert_eq!(
            rules("Read(./.env)"),
            [
                "read_file(.env)",
                "grep(.env)",
                "glob(.env)",
                "list_dir(.env)"
            ]
        );
        assert_eq!(
            rules("Edit(src/**)"),
            ["edit_file(src/**)", "write_file(src/**)"]
        );
        assert_eq!(rules("Read(*.pem)")[0], "read_file(**/*.pem)");
        assert_eq!(rules("Read(//etc/passwd)")[0], "read_file(/etc/passwd)");
        assert_eq!(rules("Read(~/.ssh/**)")[0], "read_file(/home/u/.ssh/**)");
        assert_eq!(
            rules("mcp__github__create_issue"),
            ["mcp__github__create_issue"]
        );
        assert_eq!(rules("mcp__github"), ["mcp__github__*"]);
        assert_eq!(rules("TodoWrite"), ["todo_write"]);
        assert_eq!(rules("read_file(src/**)"), ["read_file(src/**)"]);
    }

    #[test]
    fn tools_tooloop_lacks_are_unused_and_domain_denials_widen() {
        assert!(matches!(map("WebSearch", false, None), Mapped::Unused(_)));
        assert!(matches!(map("FooBar(x)", false, None), Mapped::Unused(_)));
        assert!(matches!(
            map("NotebookEdit(x)", true, None),
            Mapped::Unused(_)
        ));
        assert!(matches!(
            map("WebFetch(domain:example.com)", false, None),
            Mapped::Unused(_)
        ));
        assert_eq!(
            map("WebFetch(domain:evil.com)", true, None),
            Mapped::Rules(vec!["web_fetch".into()])
        );
        assert!(matches!(map("Bash(ls", false, None), Mapped::Unused(_)));
        // Every mapped rule is valid tooloop syntax.
        for r in rules("Edit(src/**)")
            .iter()
            .chain(&rules("Bash(npm run test:*)"))
        {
            crate::permission::rules::Rule::parse(r).unwrap();
        }
    }
}

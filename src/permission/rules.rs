//! Permission rules (issue 27): `allow`, `ask` and `deny` lists in the user's config.toml,
//! the project's `.tooloop/settings.toml` and `.tooloop/settings.local.toml`, merged.
//!
//! Grammar: `TOOL` matches every call of the tool (`mcp__fs__*`: a trailing `*` matches any
//! rest of the name); `TOOL(PREFIX:*)` matches a command that starts with PREFIX as whole
//! words; `TOOL(CMD)` that exact command; for tools that touch files, `TOOL(GLOB)` matches
//! when every path of the call matches the glob, relative to the workspace (absolute globs
//! match absolute paths). Words are compared after the shell's quote removal, so
//! `bash(git commit -m:*)` matches `git commit -m "fix it"`.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::shell;
use crate::protocol::approval::RuleRef;

/// What a matching rule does. deny beats ask beats allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    Allow,
    Ask,
    Deny,
}

impl RuleKind {
    pub fn parse(s: &str) -> Option<RuleKind> {
        [RuleKind::Allow, RuleKind::Ask, RuleKind::Deny]
            .into_iter()
            .find(|k| k.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Ask => "ask",
            RuleKind::Deny => "deny",
        }
    }
}

/// A rule that does not follow the grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("permission rule {0:?} is empty")]
    Empty(String),
    #[error(
        "permission rule {0:?}: the tool name may hold letters, digits, `_`, `-` and one \
         trailing `*`"
    )]
    BadTool(String),
    #[error("permission rule {0:?}: `TOOL(…)` must end with `)` and hold something")]
    BadSpec(String),
}

#[derive(Clone, Debug)]
pub struct Rule {
    /// As written.
    pub text: String,
    tool: String,
    /// `mcp__fs__*`: `tool` is the prefix.
    tool_prefix: bool,
    spec: Option<Spec>,
}

#[derive(Clone, Debug)]
struct Spec {
    /// The command form: the words, and whether more may follow (`:*`).
    words: Vec<String>,
    prefix: bool,
    /// The path form, when the text is a valid glob.
    glob: Option<globset::GlobMatcher>,
    absolute: bool,
}

impl Rule {
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(RuleError::Empty(text.into()));
        }
        let (tool, spec) = match t.find('(') {
            Some(open) => {
                let inner = t[open + 1..]
                    .strip_suffix(')')
                    .filter(|s| !s.trim().is_empty())
                    .ok_or_else(|| RuleError::BadSpec(text.into()))?;
                (&t[..open], Some(inner.trim()))
            }
            None => (t, None),
        };
        let (name, tool_prefix) = match tool.strip_suffix('*') {
            Some(p) => (p, true),
            None => (tool, false),
        };
        let ok_name = |s: &str| {
            s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if name.is_empty() || !ok_name(name) {
            return Err(RuleError::BadTool(text.into()));
        }
        let spec = spec.map(|s| {
            let (body, prefix) = match s.strip_suffix(":*") {
                Some(b) => (b.trim_end(), true),
                None => (s, false),
            };
            let parsed = shell::parse(body);
            let words = parsed.commands.into_iter().next().unwrap_or_default();
            let glob = globset::GlobBuilder::new(s)
                .literal_separator(true)
                .build()
                .ok()
                .map(|g| g.compile_matcher());
            Spec {
                words,
                prefix,
                glob,
                absolute: s.starts_with('/'),
            }
        });
        Ok(Rule {
            text: t.to_string(),
            tool: name.to_string(),
            tool_prefix,
            spec,
        })
    }

    fn names(&self, tool: &str) -> bool {
        if self.tool_prefix {
            tool.starts_with(&self.tool)
        } else {
            tool == self.tool
        }
    }

    /// Whether this rule names the tool without a spec (every call).
    pub fn is_whole_tool(&self) -> bool {
        self.spec.is_none()
    }

    /// Whether it matches one simple command (words with reserved words trimmed).
    fn matches_command(&self, tool: &str, words: &[String]) -> bool {
        if !self.names(tool) {
            return false;
        }
        let Some(spec) = &self.spec else {
            return true;
        };
        if spec.words.is_empty() {
            return false;
        }
        if spec.prefix {
            words.len() >= spec.words.len() && words[..spec.words.len()] == spec.words[..]
        } else {
            words == spec.words.as_slice()
        }
    }

    /// Whether it matches every one of the call's paths (already normalized).
    fn matches_paths(&self, tool: &str, paths: &[NormalPath]) -> bool {
        if !self.names(tool) {
            return false;
        }
        let Some(spec) = &self.spec else {
            return true;
        };
        let Some(glob) = &spec.glob else {
            return false;
        };
        !paths.is_empty()
            && paths.iter().all(|p| match (&p.relative, spec.absolute) {
                (_, true) => glob.is_match(&p.absolute),
                (Some(rel), false) => glob.is_match(rel),
                (None, false) => false,
            })
    }
}

/// A path of a call, resolved against the workspace without touching the disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalPath {
    pub absolute: PathBuf,
    /// Relative to the workspace root; None when outside it.
    pub relative: Option<PathBuf>,
}

/// `p` as the tools would read it: `~` is home, relative is under the root, `.` and `..`
/// resolved lexically.
pub fn normalize(root: &Path, home: Option<&Path>, p: &str) -> NormalPath {
    let joined = match (p.strip_prefix('~'), home) {
        (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
            h.join(rest.trim_start_matches('/'))
        }
        _ if Path::new(p).is_absolute() => PathBuf::from(p),
        _ => root.join(p),
    };
    let mut clean = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    let relative = clean.strip_prefix(root).ok().map(Path::to_path_buf);
    NormalPath {
        absolute: clean,
        relative,
    }
}

/// One rule with where it came from.
#[derive(Clone, Debug)]
pub struct SourcedRule {
    pub kind: RuleKind,
    pub rule: Rule,
    pub source: String,
}

impl SourcedRule {
    pub fn as_ref(&self) -> RuleRef {
        RuleRef {
            rule: self.rule.text.clone(),
            source: self.source.clone(),
        }
    }
}

/// Every rule of the three files, in file order (user, project, local).
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    rules: Vec<SourcedRule>,
    /// Rules read but not applied, with their source and why (a Claude Code rule naming a
    /// tool tooloop lacks): listed by `/permissions`, never an error.
    unused: Vec<String>,
}

impl RuleSet {
    pub fn push(&mut self, kind: RuleKind, rule: Rule, source: &str) {
        self.rules.push(SourcedRule {
            kind,
            rule,
            source: source.to_string(),
        });
    }

    /// Parses and adds a file's three lists; the first bad rule is the error.
    pub fn add_lists(
        &mut self,
        source: &str,
        allow: &[String],
        ask: &[String],
        deny: &[String],
    ) -> Result<(), RuleError> {
        for (kind, list) in [
            (RuleKind::Allow, allow),
            (RuleKind::Ask, ask),
            (RuleKind::Deny, deny),
        ] {
            for text in list {
                self.push(kind, Rule::parse(text)?, source);
            }
        }
        Ok(())
    }

    /// Records a rule that was read but is not applied (`SOURCE: KIND RULE (why)`).
    pub fn note_unused(&mut self, text: String) {
        self.unused.push(text);
    }

    pub fn unused(&self) -> &[String] {
        &self.unused
    }

    /// Drops every rule whose source starts with `prefix` (a skill's grants when its
    /// turn ends).
    pub fn remove_sources(&mut self, prefix: &str) {
        self.rules.retain(|r| !r.source.starts_with(prefix));
    }

    /// Drops exactly the rules and unused notes of `source` (a settings file read again).
    pub fn remove_source(&mut self, source: &str) {
        self.rules.retain(|r| r.source != source);
        let prefix = format!("{source}: ");
        self.unused.retain(|u| !u.starts_with(&prefix));
    }

    pub fn iter(&self) -> impl Iterator<Item = &SourcedRule> {
        self.rules.iter()
    }

    /// Every rule as a front end lists it (the protocol's shape).
    pub fn lines(&self) -> Vec<crate::protocol::approval::RuleLine> {
        self.rules
            .iter()
            .map(|r| crate::protocol::approval::RuleLine {
                kind: r.kind.as_str().into(),
                rule: r.rule.text.clone(),
                source: r.source.clone(),
            })
            .collect()
    }

    /// The set [`RuleSet::lines`] listed (a line that no longer parses is left out).
    pub fn from_lines(lines: &[crate::protocol::approval::RuleLine], unused: Vec<String>) -> Self {
        let mut set = RuleSet {
            rules: Vec::new(),
            unused,
        };
        for l in lines {
            if let (Some(kind), Ok(rule)) = (RuleKind::parse(&l.kind), Rule::parse(&l.rule)) {
                set.push(kind, rule, &l.source);
            }
        }
        set
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn of(&self, kind: RuleKind) -> impl Iterator<Item = &SourcedRule> {
        self.rules.iter().filter(move |r| r.kind == kind)
    }

    /// The first rule of `kind` that matches some part of the call (deny and ask: one
    /// part is enough).
    pub fn any_part(&self, kind: RuleKind, call: &CallFacts<'_>) -> Option<&SourcedRule> {
        self.of(kind).find(|r| match &call.command {
            Some(parsed) => {
                r.rule.is_whole_tool() && r.rule.names(call.tool)
                    || parsed
                        .commands
                        .iter()
                        .any(|c| r.rule.matches_command(call.tool, shell::command_words(c)))
            }
            None if !call.paths.is_empty() => {
                // One path is enough for deny/ask: test each alone.
                call.paths
                    .iter()
                    .any(|p| r.rule.matches_paths(call.tool, std::slice::from_ref(p)))
            }
            None => r.rule.is_whole_tool() && r.rule.names(call.tool),
        })
    }

    /// The allow rule(s) that cover the whole call: every part of a command must be
    /// allowed (the first rule is reported); a command with a substitution, an output
    /// redirection outside the workspace or unclosed quotes is never allowed by a rule, not
    /// even by one that names the tool alone.
    pub fn allows(&self, call: &CallFacts<'_>) -> Option<&SourcedRule> {
        match &call.command {
            Some(parsed) => {
                if !call.command_trusted {
                    return None;
                }
                let mut first = None;
                for c in &parsed.commands {
                    let words = shell::command_words(c);
                    if words.is_empty() {
                        continue;
                    }
                    let r = self
                        .of(RuleKind::Allow)
                        .find(|r| r.rule.matches_command(call.tool, words))?;
                    first.get_or_insert(r);
                }
                first
            }
            None if !call.paths.is_empty() => self
                .of(RuleKind::Allow)
                .find(|r| r.rule.matches_paths(call.tool, &call.paths)),
            None => self
                .of(RuleKind::Allow)
                .find(|r| r.rule.is_whole_tool() && r.rule.names(call.tool)),
        }
    }

    /// Whether an allow rule covers one simple command's words (`git status --short`).
    pub fn allows_words(&self, tool: &str, words: &[String]) -> bool {
        self.of(RuleKind::Allow)
            .any(|r| r.rule.matches_command(tool, words))
    }

    /// An allow rule that names this exact command (`bash(rm -rf build)`): the only thing
    /// that lets a guarded delete run without asking.
    pub fn allows_exactly(&self, call: &CallFacts<'_>, raw: &str) -> Option<&SourcedRule> {
        // The rule's words say nothing of redirections: one outside the workspace (or a
        // substitution, an open quote) is never allowed, as for every other rule.
        if !call.command_trusted {
            return None;
        }
        let parsed = shell::parse(raw);
        let words = parsed.commands.first()?;
        if parsed.commands.len() != 1 || parsed.substitution {
            return None;
        }
        self.of(RuleKind::Allow).find(|r| {
            r.rule.names(call.tool)
                && r.rule
                    .spec
                    .as_ref()
                    .is_some_and(|s| !s.prefix && &s.words == words)
        })
    }
}

/// What the rules look at in one call.
pub struct CallFacts<'a> {
    pub tool: &'a str,
    /// A command-running tool's command line, split.
    pub command: Option<shell::Parsed>,
    /// False when the command has a substitution, an output redirection outside the
    /// workspace or cannot be read to its end: no allow rule may match it.
    pub command_trusted: bool,
    pub paths: Vec<NormalPath>,
}

impl<'a> CallFacts<'a> {
    pub fn new(
        tool: &'a str,
        command: Option<&str>,
        paths: &[String],
        root: &Path,
        home: Option<&Path>,
    ) -> Self {
        let command = command.map(shell::parse);
        let command_trusted = command.as_ref().is_some_and(|c| {
            c.complete
                && !c.substitution
                && c.output_targets
                    .iter()
                    .all(|t| harmless_target(t) || inside(root, home, t))
        });
        CallFacts {
            tool,
            command,
            command_trusted,
            paths: paths.iter().map(|p| normalize(root, home, p)).collect(),
        }
    }
}

fn harmless_target(t: &str) -> bool {
    matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

fn inside(root: &Path, home: Option<&Path>, t: &str) -> bool {
    // The shell expands `~user/…` to that user's home (found by the bash_rules fuzzer):
    // only `~` and `~/…` are the home `normalize` knows.
    let other_home = t.starts_with('~') && t != "~" && !t.starts_with("~/");
    !t.contains('$') && !other_home && normalize(root, home, t).relative.is_some()
}

/// The rule "always allow" proposes for a command's first part (see `suggest` for the
/// whole command): its first word, and the second when it reads like a subcommand
/// (`cargo test:*`, `git status:*`, `ls:*`; not `sleep 2`). None when no rule could ever
/// match it (a substitution, nothing to run).
pub fn suggest_prefix(command: &str) -> Option<String> {
    let parsed = shell::parse(command);
    if parsed.substitution || !parsed.complete {
        return None;
    }
    prefix_of(shell::command_words(parsed.commands.first()?))
}

/// The rule's inside for one simple command's words (`cargo test:*`).
pub fn prefix_of(words: &[String]) -> Option<String> {
    let head = words.first()?;
    let mut prefix = vec![head.as_str()];
    if let Some(second) = words.get(1)
        && second.starts_with(|c: char| c.is_ascii_alphabetic())
        && second
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':')
    {
        prefix.push(second);
    }
    let quoted: Vec<String> = prefix.iter().map(|w| quote_word(w)).collect();
    Some(format!("{}:*", quoted.join(" ")))
}

/// A word as the shell would read it back.
fn quote_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

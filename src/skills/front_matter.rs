//! A SKILL.md file: YAML front matter between `---` lines, then the Markdown body. The
//! front matter is real YAML (Claude Code's and the public skills' files use quoted and
//! folded strings, lists and nested `metadata:` maps); unknown keys are kept and ignored.

use yaml_rust::{Yaml, YamlLoader};

/// Most bytes of a SKILL.md read (a body is instructions, not data; files beside it hold
/// the rest).
pub const MAX_FILE_BYTES: usize = 256 * 1024;

/// What the front matter says, as tooloop uses it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: Option<String>,
    pub description: String,
    /// As written (Claude Code's names or tooloop's, rule forms allowed).
    pub allowed_tools: Vec<String>,
    pub disable_model_invocation: bool,
    pub user_invocable: bool,
    pub argument_hint: Option<String>,
    pub model: Option<String>,
}

/// A file that is not a skill: the line (from 1) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadSkill {
    pub line: usize,
    pub message: String,
}

fn bad(line: usize, message: impl Into<String>) -> BadSkill {
    BadSkill {
        line,
        message: message.into(),
    }
}

/// Splits and reads a SKILL.md: (front matter, body, the body's first line number).
pub fn parse(text: &str) -> Result<(FrontMatter, String), BadSkill> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => {
            return Err(bad(
                1,
                "no front matter: the file must start with a `---` line",
            ));
        }
    }
    let mut yaml = String::new();
    let mut closed = None;
    for (i, line) in lines.by_ref().enumerate() {
        if line.trim_end() == "---" {
            closed = Some(i + 2);
            break;
        }
        yaml.push_str(line);
    }
    let Some(end_line) = closed else {
        return Err(bad(1, "the front matter is not closed by a `---` line"));
    };
    let body: String = lines.collect();
    let doc = match YamlLoader::load_from_str(&yaml) {
        Ok(docs) => docs.into_iter().next().unwrap_or(Yaml::Null),
        // Many real files have `description: Use it when: …`, which strict YAML refuses
        // (`: ` inside a plain scalar); read those as plain `key: value` lines.
        Err(e) => lenient(&yaml).ok_or_else(|| {
            // The YAML starts on the file's line 2.
            bad(e.marker().line() + 2, format!("front matter: {e}"))
        })?,
    };
    let map = match doc {
        Yaml::Hash(h) => h,
        Yaml::Null => Default::default(),
        _ => return Err(bad(2, "the front matter must be `key: value` lines")),
    };
    let get = |k: &str| map.get(&Yaml::String(k.into()));
    let string = |k: &str| -> Result<Option<String>, BadSkill> {
        match get(k) {
            None | Some(Yaml::Null) => Ok(None),
            Some(v) => scalar(v)
                .map(Some)
                .ok_or_else(|| bad(end_line, format!("`{k}` must be a string"))),
        }
    };
    let boolean = |k: &str, default: bool| -> Result<bool, BadSkill> {
        match get(k) {
            None | Some(Yaml::Null) => Ok(default),
            Some(Yaml::Boolean(b)) => Ok(*b),
            Some(Yaml::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
            Some(_) => Err(bad(end_line, format!("`{k}` must be true or false"))),
        }
    };
    let allowed_tools = match get("allowed-tools").or_else(|| get("allowed_tools")) {
        None | Some(Yaml::Null) => Vec::new(),
        Some(Yaml::Array(items)) => items.iter().filter_map(scalar).collect(),
        // `Read, Grep, Bash(git add:*)`: commas outside parentheses separate.
        Some(v) => split_list(&scalar(v).unwrap_or_default()),
    };
    let fm = FrontMatter {
        name: string("name")?,
        description: string("description")?.unwrap_or_default(),
        allowed_tools,
        disable_model_invocation: boolean("disable-model-invocation", false)?,
        user_invocable: boolean("user-invocable", true)?,
        argument_hint: string("argument-hint")?,
        model: string("model")?,
    };
    Ok((fm, body))
}

/// Top-level `key: value` lines only (values plain, not starting a flow collection or a
/// quote), as a map; None when the text is anything else.
fn lenient(yaml: &str) -> Option<Yaml> {
    let mut map = yaml_rust::yaml::Hash::new();
    for line in yaml.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t', '-']) {
            return None;
        }
        let (key, value) = line.split_once(':')?;
        let value = value.trim();
        if key.trim().is_empty() || value.starts_with(['[', '{', '"', '\'', '|', '>', '&', '*']) {
            return None;
        }
        let v = match value {
            "true" => Yaml::Boolean(true),
            "false" => Yaml::Boolean(false),
            "" => Yaml::Null,
            v => Yaml::String(v.to_string()),
        };
        map.insert(Yaml::String(key.trim().to_string()), v);
    }
    Some(Yaml::Hash(map))
}

/// A scalar as text (numbers and booleans too: `name: 2048` is a name).
fn scalar(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `a, b(c, d), e` → `a`, `b(c, d)`, `e` (space-separated lists work too).
fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth <= 0 && (c == ',' || (c == ' ' && !cur.contains('('))) {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shapes_public_skills_use() {
        let (fm, body) = parse(
            "---\nname: brand-kit\ndescription: Applies the team's colours: use it when styling anything.\n\
             license: Complete terms in LICENSE.txt\n---\n\n# Brand kit\nBody.\n",
        )
        .unwrap();
        assert_eq!(fm.name.as_deref(), Some("brand-kit"));
        assert!(
            fm.description
                .starts_with("Applies the team's colours: use")
        );
        assert!(fm.user_invocable && !fm.disable_model_invocation);
        assert_eq!(body, "\n# Brand kit\nBody.\n");
        let (fm, _) = parse(
            "---\nname: \"pdf-tools\"\ndescription: >\n  Folded over\n  two lines.\n\
             allowed-tools: Read, Grep, Bash(git add:*, x)\nmetadata:\n  version: 1.0\n  tags: [a, b]\n\
             disable-model-invocation: true\nuser-invocable: false\nargument-hint: \"[file]\"\n---\nB",
        )
        .unwrap();
        assert_eq!(fm.description, "Folded over two lines.\n");
        assert_eq!(fm.allowed_tools, ["Read", "Grep", "Bash(git add:*, x)"]);
        assert!(fm.disable_model_invocation && !fm.user_invocable);
        assert_eq!(fm.argument_hint.as_deref(), Some("[file]"));
        let (fm, _) =
            parse("---\nname: x\nallowed-tools:\n  - Read\n  - Bash(ls:*)\n---\n").unwrap();
        // `: ` inside a plain value is not strict YAML, but real files have it.
        let (fm2, _) =
            parse("---\nname: x\ndescription: Use it when: the user asks\n---\n").unwrap();
        assert_eq!(fm2.description, "Use it when: the user asks");
        assert_eq!(fm.allowed_tools, ["Read", "Bash(ls:*)"]);
    }

    #[test]
    fn bad_files_name_their_line() {
        assert_eq!(parse("# no front matter\n").unwrap_err().line, 1);
        assert_eq!(parse("---\nname: x\n").unwrap_err().line, 1);
        let e = parse("---\nname: x\ndescription: [unclosed\n---\n").unwrap_err();
        assert!(e.line >= 3, "{e:?}");
        assert!(parse("---\n- a list\n---\n").is_err());
        assert!(parse("---\nname: {a: 1}\n---\n").is_err());
        assert!(parse("---\nuser-invocable: maybe\n---\n").is_err());
    }
}

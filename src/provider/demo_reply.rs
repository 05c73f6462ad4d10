//! What the demo model understands and how it answers: words → tool calls, tool results →
//! a short markdown answer.

use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq)]
pub enum Intent {
    ListDir(Option<String>),
    ReadFile(String),
    Grep(String),
    Glob(String),
    Time,
    Fetch(String),
    Bash(String),
}

impl Intent {
    pub fn describe(&self) -> String {
        match self {
            Intent::ListDir(None) => "list the files here".into(),
            Intent::ListDir(Some(p)) => format!("list the files in {p}"),
            Intent::ReadFile(p) => format!("read {p}"),
            Intent::Grep(p) => format!("search the workspace for \"{p}\""),
            Intent::Glob(p) => format!("find files matching {p}"),
            Intent::Time => "check the time".into(),
            Intent::Fetch(u) => format!("fetch {u}"),
            Intent::Bash(c) => format!("run `{c}`"),
        }
    }

    pub fn call(&self) -> (&'static str, Value) {
        match self {
            Intent::ListDir(None) => ("list_dir", json!({})),
            Intent::ListDir(Some(p)) => ("list_dir", json!({ "path": p })),
            Intent::ReadFile(p) => ("read_file", json!({ "path": p })),
            Intent::Grep(p) => ("grep", json!({ "pattern": p })),
            Intent::Glob(p) => ("glob", json!({ "pattern": p })),
            Intent::Time => ("get_current_time", json!({})),
            Intent::Fetch(u) => ("web_fetch", json!({ "url": u })),
            Intent::Bash(c) => ("bash", json!({ "command": c })),
        }
    }
}

const FILLER: &[&str] = &[
    "the", "file", "files", "for", "a", "me", "contents", "of", "in",
];

/// "1 entry", "3 entries".
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// CJK punctuation, which comes without a space after it.
const WIDE_PUNCTUATION: &str = "，。、；：！？（）「」『』";

/// A word as a name: quotes and punctuation off, and the `@` of a mention (`@notes.md`
/// names notes.md, which tooloop attached).
fn clean(word: &str) -> String {
    word.trim_matches(|c: char| "`'\"“”‘’,;:!?()".contains(c))
        .trim_end_matches('.')
        .trim_start_matches('@')
        .to_string()
}

/// The tools a request asks for, in the order it mentions them.
pub fn intents(prompt: &str) -> Vec<Intent> {
    let mut found: Vec<Intent> = Vec::new();
    let mut add = |i: Intent| {
        if !found.contains(&i) {
            found.push(i);
        }
    };
    // Full-width punctuation parts words as a space does: "你好，list files" lists files.
    let words: Vec<&str> = prompt
        .split(|c: char| c.is_whitespace() || WIDE_PUNCTUATION.contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let lower: Vec<String> = words.iter().map(|w| clean(&w.to_lowercase())).collect();
    let arg_after = |i: usize| -> Option<String> {
        words
            .iter()
            .zip(&lower)
            .skip(i + 1)
            .find(|(_, l)| !FILLER.contains(&l.as_str()) && !l.is_empty())
            .map(|(w, _)| clean(w))
    };
    let mut i = 0;
    while i < words.len() {
        let w = lower[i].as_str();
        match w {
            "list" | "ls" => {
                let path = lower
                    .iter()
                    .skip(i + 1)
                    .take(4)
                    .position(|l| l == "in" || l == "under")
                    .and_then(|p| words.get(i + 2 + p))
                    .map(|w| clean(w))
                    .filter(|p| !p.is_empty() && p != "here" && p != "this");
                add(Intent::ListDir(path));
            }
            "read" | "show" | "open" | "cat" => {
                if let Some(p) = arg_after(i) {
                    add(Intent::ReadFile(p));
                }
                // "read a.rs, b.rs and c.rs": every path-like word that follows.
                let mut j = i + 1;
                while j < words.len() {
                    let l = lower[j].as_str();
                    if l == "and" || FILLER.contains(&l) {
                        j += 1;
                        continue;
                    }
                    let w = clean(words[j]);
                    if !(w.contains('.') || w.contains('/')) || w.starts_with("http") {
                        break;
                    }
                    add(Intent::ReadFile(w));
                    j += 1;
                }
            }
            "find" | "grep" | "search" => {
                if let Some(q) = quoted(prompt, i, &words).or_else(|| arg_after(i)) {
                    if q.contains('*') {
                        add(Intent::Glob(q));
                    } else {
                        add(Intent::Grep(q));
                    }
                }
            }
            "glob" => {
                if let Some(p) = arg_after(i) {
                    add(Intent::Glob(p));
                }
            }
            "time" | "date" | "clock" => add(Intent::Time),
            "fetch" | "download" | "get" => {
                if let Some(u) = arg_after(i).filter(|u| u.starts_with("http")) {
                    add(Intent::Fetch(u));
                }
            }
            "run" | "execute" => {
                if let Some(c) = backticked(prompt) {
                    add(Intent::Bash(c));
                } else if let Some(c) = arg_after(i) {
                    add(Intent::Bash(c));
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The first `"…"` or `` `…` `` after word `i`.
fn quoted(prompt: &str, i: usize, words: &[&str]) -> Option<String> {
    let start: usize = words.iter().take(i + 1).map(|w| w.len() + 1).sum();
    let rest = prompt.get(start.min(prompt.len())..)?;
    for q in ['"', '`', '\''] {
        let rest = rest.trim_start();
        if let Some(body) = rest.strip_prefix(q)
            && let Some(end) = body.find(q)
        {
            return Some(body[..end].to_string());
        }
    }
    None
}

fn backticked(prompt: &str) -> Option<String> {
    let start = prompt.find('`')? + 1;
    let end = prompt[start..].find('`')? + start;
    Some(prompt[start..end].to_string()).filter(|c| !c.trim().is_empty())
}

pub fn no_match_reply() -> String {
    "I'm the **offline demo model** built into tooloop — no network, no API key. I understand a \
few requests and answer them with real tools:\n\n\
- \"list files\" (or \"list files in src\") → `list_dir`\n\
- \"read Cargo.toml\" → `read_file`\n\
- \"find TODO\" / \"grep fn main\" → `grep`\n\
- \"what time is it\" → `get_current_time`\n\
- \"run `ls -la`\" → `bash` (asks first)\n\n\
Ask for several at once — \"list files, read README.md and tell me the time\" — and watch \
them run in parallel in the tools pane.\n\n\
To talk to a real model, set `ANTHROPIC_API_KEY` (or `OPENAI_API_KEY`) and restart, or pass \
`--provider anthropic|openai`."
        .to_string()
}

/// A short answer built from the real tool results of the previous turn.
pub fn answer_from_results(results: &[(String, Value, String, bool)]) -> String {
    let mut out = String::from("Here is what I found (offline demo model):\n\n");
    for (name, input, output, is_error) in results {
        let arg = |k: &str| {
            input
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or(".")
                .to_string()
        };
        if *is_error {
            let first = output.lines().next().unwrap_or("");
            out.push_str(&format!("- `{name}` did not succeed: {first}\n\n"));
            continue;
        }
        let lines: Vec<&str> = output.lines().collect();
        match name.as_str() {
            "list_dir" => {
                let shown: Vec<String> = lines.iter().take(12).map(|l| format!("`{l}`")).collect();
                let more = if lines.len() > 12 { ", …" } else { "" };
                out.push_str(&format!(
                    "**Files in `{}`** ({}): {}{more}\n\n",
                    arg("path"),
                    counted(lines.len(), "entry", "entries"),
                    shown.join(", ")
                ));
            }
            "read_file" => {
                let path = arg("path");
                let ext = path.rsplit('.').next().unwrap_or("");
                let body: Vec<&str> = lines
                    .iter()
                    .take(8)
                    .map(|l| l.split_once('\t').map_or(*l, |(_, t)| t))
                    .collect();
                out.push_str(&format!(
                    "**`{path}`** — {} shown by the tool. It begins:\n\n```{ext}\n{}\n```\n\n",
                    counted(lines.len(), "line", "lines"),
                    body.join("\n")
                ));
            }
            "grep" | "glob" => {
                let what = if name == "grep" {
                    "matching lines"
                } else {
                    "paths"
                };
                out.push_str(&format!(
                    "**`{}`**: {} {what}{}\n\n",
                    arg("pattern"),
                    lines.len(),
                    if lines.is_empty() {
                        "."
                    } else {
                        ", the first ones:"
                    }
                ));
                if !lines.is_empty() {
                    let first: Vec<&str> = lines.iter().take(6).copied().collect();
                    out.push_str(&format!("```\n{}\n```\n\n", first.join("\n")));
                }
            }
            "get_current_time" => {
                out.push_str(&format!("**The time**: {}\n\n", output.trim()));
            }
            _ => {
                let tail: Vec<&str> = lines.iter().rev().take(10).rev().copied().collect();
                out.push_str(&format!(
                    "**`{name}`** returned:\n\n```\n{}\n```\n\n",
                    tail.join("\n")
                ));
            }
        }
    }
    out.push_str(
        "Anything else? Open the JSON pane (Ctrl+O) to see these results as the model saw them.",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_things_in_one_request() {
        let got = intents("List files in src, read Cargo.toml and tell me the time");
        assert_eq!(
            got,
            vec![
                Intent::ListDir(Some("src".into())),
                Intent::ReadFile("Cargo.toml".into()),
                Intent::Time
            ]
        );
        assert_eq!(
            intents("find \"fn main\""),
            vec![Intent::Grep("fn main".into())]
        );
        assert_eq!(intents("grep TODO"), vec![Intent::Grep("TODO".into())]);
        assert_eq!(
            intents("run `echo hi` please"),
            vec![Intent::Bash("echo hi".into())]
        );
        assert_eq!(intents("find *.rs"), vec![Intent::Glob("*.rs".into())]);
        assert!(intents("hello there").is_empty());
    }

    #[test]
    fn full_width_punctuation_parts_words() {
        assert_eq!(
            intents("你好，list files and tell me the time。"),
            vec![Intent::ListDir(None), Intent::Time]
        );
        assert_eq!(
            intents("好的：read notes.txt（谢谢）"),
            vec![Intent::ReadFile("notes.txt".into())]
        );
    }

    #[test]
    fn a_mention_names_the_file_not_an_at_path() {
        assert_eq!(
            intents("read @notes.txt and @src/main.rs"),
            vec![
                Intent::ReadFile("notes.txt".into()),
                Intent::ReadFile("src/main.rs".into())
            ]
        );
    }
}

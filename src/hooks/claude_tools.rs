//! Claude Code's tool names and input fields, and tooloop's, both ways: hooks written for
//! Claude Code see `Bash` and `file_path`, its rules and skills name `Read` and `Edit`, and
//! tooloop runs `bash` and `read_file` with `path`.

use serde_json::{Map, Value};

/// (Claude Code's name, tooloop's name). `Edit` and `MultiEdit` both edit a file.
const NAMES: &[(&str, &str)] = &[
    ("Bash", "bash"),
    ("Read", "read_file"),
    ("Edit", "edit_file"),
    ("MultiEdit", "edit_file"),
    ("Write", "write_file"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("LS", "list_dir"),
    ("WebFetch", "web_fetch"),
    ("Task", "task"),
    ("TodoWrite", "todo_write"),
    ("BashOutput", "bash_output"),
    ("KillShell", "kill_shell"),
    ("KillBash", "kill_shell"),
    ("ExitPlanMode", "exit_plan_mode"),
    ("Skill", "skill"),
];

/// Claude Code tools tooloop has no counterpart for (a rule naming one is unused).
const WITHOUT_COUNTERPART: &[&str] = &["WebSearch", "NotebookEdit", "NotebookRead", "SlashCommand"];

/// tooloop's name for a Claude Code tool name; names that are not Claude Code's (tooloop's
/// own, `mcp__…`) come back unchanged. None: a Claude Code tool tooloop lacks.
pub fn to_tooloop(name: &str) -> Option<&str> {
    if WITHOUT_COUNTERPART.contains(&name) {
        return None;
    }
    Some(
        NAMES
            .iter()
            .find(|(c, _)| *c == name)
            .map_or(name, |(_, t)| t),
    )
}

/// Claude Code's name for a tooloop tool (`edit_file` → `Edit`); others unchanged.
pub fn to_claude(name: &str) -> &str {
    NAMES
        .iter()
        .find(|(_, t)| *t == name)
        .map_or(name, |(c, _)| c)
}

/// Field renames between tooloop's input and Claude Code's, per tooloop tool.
fn fields(tool: &str) -> &'static [(&'static str, &'static str)] {
    match tool {
        "read_file" | "edit_file" | "write_file" => &[("path", "file_path")],
        "task" => &[("agent", "subagent_type")],
        _ => &[],
    }
}

/// A tooloop tool input as Claude Code's tool would have received it.
pub fn input_to_claude(tool: &str, input: &Value) -> Value {
    rename(input, fields(tool).iter().map(|(t, c)| (*t, *c)))
}

/// A Claude Code tool input as tooloop's tool takes it.
pub fn input_to_tooloop(tool: &str, input: &Value) -> Value {
    rename(input, fields(tool).iter().map(|(t, c)| (*c, *t)))
}

fn rename<'a>(input: &Value, pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Value {
    let Value::Object(map) = input else {
        return input.clone();
    };
    let mut out: Map<String, Value> = map.clone();
    for (from, to) in pairs {
        if let Some(v) = out.remove(from) {
            out.insert(to.to_string(), v);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_translate_both_ways() {
        assert_eq!(to_tooloop("Bash"), Some("bash"));
        assert_eq!(to_tooloop("MultiEdit"), Some("edit_file"));
        assert_eq!(to_tooloop("mcp__fs__read"), Some("mcp__fs__read"));
        assert_eq!(to_tooloop("WebSearch"), None);
        assert_eq!(to_claude("edit_file"), "Edit");
        assert_eq!(to_claude("todo_write"), "TodoWrite");
        assert_eq!(to_claude("mcp__fs__read"), "mcp__fs__read");
    }

    #[test]
    fn inputs_translate_both_ways() {
        let t = json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"});
        let c = input_to_claude("edit_file", &t);
        assert_eq!(c["file_path"], "src/a.rs");
        assert!(c.get("path").is_none());
        assert_eq!(input_to_tooloop("edit_file", &c), t);
        let b = json!({"command": "ls"});
        assert_eq!(input_to_claude("bash", &b), b);
    }
}

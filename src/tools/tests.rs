//! The registry and the tools' shared helpers.

use super::*;
use serde_json::json;

/// Built-in schemas compile only at a tool's first call: a broken one must fail here.
#[test]
fn every_builtin_schema_compiles() {
    let mut tools: Vec<Arc<dyn Tool>> = ToolRegistry::builtin()
        .tools
        .values()
        .map(|r| r.tool.clone())
        .collect();
    tools.push(Arc::new(todo_write::TodoWrite::new(
        crate::todo::TodoList::new(),
    )));
    tools.push(Arc::new(exit_plan_mode::ExitPlanMode::new(
        exit_plan_mode::PlanSlot::default(),
        Arc::new(|| "plan"),
    )));
    // `task` (built with the agents it can start) is compiled by every subagent test's
    // first call.
    assert!(tools.len() >= 12, "{}", tools.len());
    for t in tools {
        if let Err(e) = schema::Validator::new(&t.input_schema()) {
            panic!("{}: {e}", t.name());
        }
    }
}

/// A registry made from another (a subagent's subset, MCP tools added) shares its
/// validators instead of compiling them again.
#[test]
fn derived_registries_share_validators() {
    let r = ToolRegistry::builtin();
    let sub = r.subset(|n| n == "read_file");
    let (more, _) = r.with_tools(vec![]);
    for other in [&sub, &more] {
        let (a, b) = (r.get("read_file").unwrap(), other.get("read_file").unwrap());
        assert!(Arc::ptr_eq(&a.validator, &b.validator));
    }
}

fn tool(name: &str) -> Arc<dyn Tool> {
    ToolRegistry::builtin()
        .get(name)
        .map(|r| r.tool.clone())
        .expect("built-in")
}

#[test]
fn file_tools_name_every_path_they_touch() {
    assert_eq!(tool("read_file").paths(&json!({"path": "a"})), vec!["a"]);
    assert_eq!(tool("list_dir").paths(&json!({})), vec!["."]);
    assert_eq!(tool("glob").paths(&json!({"pattern": "*"})), vec![""]);
    assert_eq!(
        tool("grep").paths(&json!({"pattern": "x", "path": "src"})),
        vec!["src"]
    );
    assert_eq!(tool("write_file").paths(&json!({"path": "w"})), vec!["w"]);
    assert_eq!(tool("edit_file").paths(&json!({"path": "e"})), vec!["e"]);
    assert!(tool("bash").paths(&json!({"command": "ls"})).is_empty());
    assert!(
        tool("web_fetch")
            .paths(&json!({"url": "http://x"}))
            .is_empty()
    );
}

#[test]
fn only_bash_cancels_its_siblings() {
    for name in ToolRegistry::builtin().names() {
        assert_eq!(
            tool(name).cancels_siblings_on_error(),
            name == "bash",
            "{name}"
        );
    }
}

#[test]
fn tools_that_change_things_preview_the_change() {
    assert_eq!(
        tool("bash").preview(&json!({"command": "make", "timeout_ms": 5})),
        Some(Preview::Command {
            text: "make".into(),
            note: Some("timeout 5 ms".into())
        })
    );
    assert_eq!(
        tool("write_file").preview(&json!({"path": "n", "content": "c"})),
        Some(Preview::NewFile {
            path: "n".into(),
            content: "c".into()
        })
    );
    let Some(Preview::Diff {
        path,
        unified_diff,
        note,
    }) = tool("edit_file").preview(&json!({
        "path": "m.rs", "old_string": "a\nb\nc", "new_string": "a\nB\nc", "replace_all": true
    }))
    else {
        panic!("edit_file previews a diff");
    };
    assert_eq!(path, "m.rs");
    assert_eq!(unified_diff, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    assert_eq!(note.as_deref(), Some("(every occurrence)"));
    for name in [
        "read_file",
        "list_dir",
        "glob",
        "grep",
        "web_fetch",
        "get_current_time",
    ] {
        assert!(tool(name).preview(&json!({})).is_none(), "{name}");
    }
}

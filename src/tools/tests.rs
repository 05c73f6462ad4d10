//! The registry and the tools' shared helpers.

use super::*;
use serde_json::json;

/// Built-in schemas are what the model is shown and no session compiles them (the input
/// types check the calls): a broken one must fail here.
#[test]
fn every_builtin_schema_compiles() {
    let tools = super::input_tests::builtins();
    // `task` (built with the agents it can start): subagent_limits'
    // `task_input_is_checked_against_the_sessions_agents`.
    assert!(tools.len() >= 12, "{}", tools.len());
    for t in tools {
        if let Err(e) = schema::Validator::new(&t.input_schema()) {
            panic!("{}: {e}", t.name());
        }
    }
}

/// A registry made from another (a subagent's subset, MCP tools added) shares its checks
/// (a validator compiled once) instead of making them again.
#[test]
fn derived_registries_share_validators() {
    let r = ToolRegistry::builtin();
    let sub = r.subset(|n| n == "read_file");
    let (more, _) = r.with_tools(vec![]);
    for other in [&sub, &more] {
        let (a, b) = (r.get("read_file").unwrap(), other.get("read_file").unwrap());
        let (InputCheck::Typed(a), InputCheck::Typed(b)) = (&a.check, &b.check) else {
            panic!("a built-in tool is checked through its input type");
        };
        assert!(Arc::ptr_eq(a, b));
    }
    // A tool from outside keeps a compiled validator, shared the same way.
    let (with_mcp, errors) = r.with_tools(vec![Arc::new(input_tests::SchemaOnly)]);
    assert!(errors.is_empty(), "{errors:?}");
    let sub = with_mcp.subset(|n| n == "schema_only");
    match (
        &with_mcp.get("schema_only").unwrap().check,
        &sub.get("schema_only").unwrap().check,
    ) {
        (InputCheck::Schema(a), InputCheck::Schema(b)) => assert!(Arc::ptr_eq(a, b)),
        _ => panic!("a tool without an input type is checked against its schema"),
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

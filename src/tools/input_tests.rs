//! Every built-in tool's input type against its schema: the type is what checks a call, the
//! schema is what the model is shown, so they must accept and refuse the same inputs.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::*;

/// A tool with no input type, like an MCP server's: checked against its compiled schema.
pub struct SchemaOnly;

#[async_trait]
impl Tool for SchemaOnly {
    fn name(&self) -> &str {
        "schema_only"
    }
    fn description(&self) -> &str {
        "test"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::ok("")
    }
}

/// Every built-in tool the registries are made of, `todo_write` and `exit_plan_mode` too
/// (`task`, built with its agents, has its own test in `agent/subagent`).
pub fn builtins() -> Vec<Arc<dyn Tool>> {
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
    tools
}

/// A value the schema of one property accepts.
fn valid(property: &Value) -> Value {
    if let Some(first) = property["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match property["type"].as_str() {
        Some("string") => json!("x"),
        Some("integer") => json!(3),
        Some("boolean") => json!(true),
        Some("array") => json!([valid(&property["items"])]),
        Some("object") => {
            let mut o = serde_json::Map::new();
            for (k, p) in property["properties"].as_object().into_iter().flatten() {
                o.insert(k.clone(), valid(p));
            }
            Value::Object(o)
        }
        other => panic!("no sample value for type {other:?}"),
    }
}

/// Values put in each property in turn: every JSON type, bounds, nested shapes.
fn candidates() -> Vec<Value> {
    vec![
        json!("x"),
        json!(""),
        json!("pending"),
        json!("done"),
        json!(0),
        json!(1),
        json!(-1),
        json!(600001),
        json!(2.5),
        json!(true),
        Value::Null,
        json!([]),
        json!(["x"]),
        json!({}),
        json!([{"content": "a", "status": "pending"}]),
        json!([{"content": "a", "status": "in_progress"}, {"content": "b", "status": "completed"}]),
        json!([{"content": "a", "status": "done"}]),
        json!([{"content": "a"}]),
        json!([{"content": 1, "status": "pending"}]),
        json!([{"content": "a", "status": "pending", "extra": 1}]),
        json!([null]),
    ]
}

fn agree(tool: &dyn Tool, schema: &schema::Validator, check: &input::Check, input: &Value) {
    let by_schema = schema.validate(input);
    let by_type = check(input);
    assert_eq!(
        by_schema.is_ok(),
        by_type.is_ok(),
        "{}: {input}\n schema: {by_schema:?}\n type: {by_type:?}",
        tool.name()
    );
    if let Err(e) = by_type {
        assert!(!e.to_string().is_empty(), "{}: an empty error", tool.name());
    }
}

#[test]
fn every_builtin_input_type_accepts_and_refuses_what_its_schema_does() {
    let mut inputs_tried = 0;
    for tool in builtins() {
        let check = tool
            .input_check()
            .unwrap_or_else(|| panic!("{} has no input type", tool.name()));
        let schema_value = tool.input_schema();
        let schema = schema::Validator::new(&schema_value).expect("compiles");
        let base = valid(&schema_value);
        let properties = schema_value["properties"].as_object().expect("properties");
        agree(tool.as_ref(), &schema, &check, &base);
        agree(tool.as_ref(), &schema, &check, &json!({}));
        // Not an object at all.
        for v in [json!("x"), json!([]), json!(1), Value::Null] {
            agree(tool.as_ref(), &schema, &check, &v);
        }
        // An unknown field.
        let mut extra = base.clone();
        extra["surprise"] = json!(1);
        agree(tool.as_ref(), &schema, &check, &extra);
        for name in properties.keys() {
            // Each field left out (required ones refused, optional ones not).
            let mut without = base.clone();
            without.as_object_mut().expect("object").remove(name);
            agree(tool.as_ref(), &schema, &check, &without);
            for v in candidates() {
                let mut input = base.clone();
                input[name.as_str()] = v;
                agree(tool.as_ref(), &schema, &check, &input);
                inputs_tried += 1;
            }
        }
    }
    assert!(inputs_tried > 500, "{inputs_tried}");
}

/// The one place the type is stricter than the schema: JSON Schema counts `2.0` as an
/// integer, but the tools read integers with `as_u64`, which would have taken it as absent
/// (`limit: 2.0` read 2,000 lines); the type refuses it and says why.
#[test]
fn an_integral_float_is_refused_where_the_schema_took_it() {
    let read = ToolRegistry::builtin();
    let read = read.get("read_file").expect("built-in");
    let e = read
        .validate(&json!({"path": "a", "limit": 2.0}))
        .expect_err("a float")
        .to_string();
    assert_eq!(
        e,
        "/limit: invalid type: floating point `2.0`, expected an integer of at least 1"
    );
}

/// What the model reads for the usual mistakes, through the registry the executor uses.
#[test]
fn a_builtin_tools_error_names_the_field_and_what_it_wanted() {
    let r = ToolRegistry::builtin();
    let e = |tool: &str, input: Value| {
        r.get(tool)
            .expect("built-in")
            .validate(&input)
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(e("read_file", json!({})), "missing field `path`");
    assert_eq!(
        e(
            "edit_file",
            json!({"path": "a", "old_string": "b", "new_string": 3})
        ),
        "/new_string: invalid type: integer `3`, expected a string"
    );
    assert_eq!(
        e("bash", json!({"command": "ls", "timeout": 5})),
        "/timeout: unknown field `timeout`, expected one of `command`, `timeout_ms`, `run_in_background`"
    );
    let todo = todo_write::TodoWrite::new(crate::todo::TodoList::new());
    let check = todo.input_check().expect("typed");
    assert_eq!(
        check(&json!({"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "done"}]}))
            .expect_err("bad status")
            .to_string(),
        "/todos/1/status: unknown variant `done`, expected one of `pending`, `in_progress`, `completed`"
    );
}

//! A small MCP server for tooloop's tests, built on rmcp's server side (built by `cargo test`
//! as the example `mcp_fixture`). stdio by default; `--http PORT_FILE` serves streamable HTTP
//! on 127.0.0.1 and writes the port to PORT_FILE.
//!
//! Tools: `slow_read` (readOnlyHint; sleeps `ms`, default 300), `write_note` (no hints:
//! unsafe; writes `text` to note.txt in its cwd), `fail` (isError), `crash` (the process
//! exits mid-call), `picture` (an image). With MCP_FIXTURE_LOG set, every call, cancellation
//! and start is appended to that file, so tests can see what reached the server, and each
//! call's `_meta.traceparent` as a `traceparent NAME VALUE` line (`none` without one).
//! `MCP_FIXTURE_SYNTHETIC=N` adds N synthetic tools (mcp_synthetic.rs) that answer with
//! their name and arguments.
//!
//! Bad servers (issue 39): `MCP_FIXTURE_NO_TOOLS=1` lists none; `MCP_FIXTURE_SCALAR=1` adds
//! `scalar`, whose input schema is `{"type": "string"}` (not an object);
//! `MCP_FIXTURE_ONCE=PATH` starts only while PATH does not exist (it creates it), so a server
//! that died is not restarted.
//!
//! `grow` adds the tool `grown` and sends `notifications/tools/list_changed`; it also adds
//! a prompt and a resource and sends `prompts/` and `resources/list_changed`.
//!
//! Prompts and resources: mcp_fixture_catalog.rs (`greet`, `review`, `fixture://notes/…`).

#[path = "mcp_fixture_catalog.rs"]
mod catalog;
#[path = "mcp_synthetic.rs"]
mod synthetic;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

#[derive(Clone)]
struct Fixture {
    log: Option<PathBuf>,
}

impl Fixture {
    fn log(&self, line: &str) {
        if let Some(path) = &self.log
            && let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}

fn schema(v: Value) -> Arc<Map<String, Value>> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(Map::new()),
    }
}

fn synthetic_count() -> usize {
    std::env::var("MCP_FIXTURE_SYNTHETIC")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Set by `grow`: `grown` is listed from then on.
static GROWN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn tools() -> Vec<Tool> {
    if std::env::var_os("MCP_FIXTURE_NO_TOOLS").is_some() {
        return Vec::new();
    }
    let mut all = builtin_tools();
    if GROWN.load(std::sync::atomic::Ordering::SeqCst) {
        all.push(
            Tool::new(
                "grown",
                "Appeared later.",
                schema(json!({"type": "object"})),
            )
            .annotate(ToolAnnotations::new().read_only(true)),
        );
    }
    if std::env::var_os("MCP_FIXTURE_SCALAR").is_some() {
        all.push(Tool::new(
            "scalar",
            "Takes a bare string.",
            schema(json!({"type": "string"})),
        ));
    }
    for i in 0..synthetic_count() {
        let (name, description, input) = synthetic::tool(i);
        all.push(Tool::new(name, description, schema(input)));
    }
    all
}

fn builtin_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "slow_read",
            "Reads slowly (read-only).",
            schema(json!({"type": "object", "properties": {"ms": {"type": "integer"}}})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "write_note",
            "Writes text to note.txt.",
            schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            })),
        ),
        Tool::new("fail", "Always fails.", schema(json!({"type": "object"})))
            .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "crash",
            "Crashes the server.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "grow",
            "Adds the tool `grown`, a prompt and a resource (each list_changed).",
            schema(json!({"type": "object"})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "picture",
            "Returns an image.",
            schema(json!({"type": "object"})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
    ]
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_resources_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult {
            tools: tools(),
            ..Default::default()
        })
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        from_json(catalog::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        self.log(&format!(
            "prompt {} {}",
            request.name,
            Value::Object(args.clone())
        ));
        match catalog::get_prompt(&request.name, &args) {
            Ok(v) => Ok(from_json::<GetPromptResult>(v)?.into()),
            Err(why) => Err(McpError::invalid_params(why, None)),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        from_json(catalog::resources())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        from_json(catalog::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.log(&format!("read {}", request.uri));
        match catalog::read(&request.uri) {
            Ok(v) => Ok(from_json::<ReadResourceResult>(v)?.into()),
            Err(why) => Err(McpError::resource_not_found(why, None)),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        self.log(&format!(
            "call {} {}",
            request.name,
            Value::Object(args.clone())
        ));
        // The trace context the client sent (issue 43), or "none".
        self.log(&format!(
            "traceparent {} {}",
            request.name,
            context.meta.get_traceparent().unwrap_or("none")
        ));
        let text = |s: String| Ok(CallToolResult::success(vec![ContentBlock::text(s)]).into());
        match request.name.as_ref() {
            "slow_read" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(300);
                tokio::select! {
                    _ = context.ct.cancelled() => {
                        self.log("cancelled slow_read");
                        text("cancelled".into())
                    }
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {
                        text(format!("read after {ms} ms"))
                    }
                }
            }
            "write_note" => {
                let body = args.get("text").and_then(Value::as_str).unwrap_or("");
                std::fs::write("note.txt", body)
                    .map_err(|e| McpError::internal_error(e.to_string(), None))?;
                text(format!("wrote {} bytes to note.txt", body.len()))
            }
            "fail" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "the tool failed on purpose",
            )])
            .into()),
            "crash" => {
                self.log("crashing");
                std::process::exit(3);
            }
            "grow" => {
                GROWN.store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                catalog::grow();
                let _ = context.peer.notify_prompt_list_changed().await;
                let _ = context.peer.notify_resource_list_changed().await;
                text("grew a tool".into())
            }
            "grown" => text("grown ran".into()),

            "picture" => Ok(CallToolResult::success(vec![ContentBlock::image(
                "iVBORw0KGgo=",
                "image/png",
            )])
            .into()),
            other if (0..synthetic_count()).any(|i| synthetic::tool(i).0 == other) => {
                text(format!("{other} ran with {}", Value::Object(args)))
            }
            other => Err(McpError::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

/// The spec's JSON as rmcp's type (the fixture writes its catalog as JSON).
fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::internal_error(e.to_string(), None))
}

#[tokio::main]
async fn main() {
    let fixture = Fixture {
        log: std::env::var_os("MCP_FIXTURE_LOG").map(PathBuf::from),
    };
    fixture.log("start");
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--http") {
        let Some(port_file) = args.get(2) else {
            eprintln!("usage: mcp_fixture --http PORT_FILE");
            std::process::exit(2);
        };
        serve_http(fixture, port_file).await;
        return;
    }
    if let Some(once) = std::env::var_os("MCP_FIXTURE_ONCE") {
        if std::path::Path::new(&once).exists() {
            eprintln!("this server already ran once");
            std::process::exit(1);
        }
        let _ = std::fs::write(&once, "started");
    }
    if args.get(1).map(String::as_str) == Some("--fail-start") {
        eprintln!("this server refuses to start");
        std::process::exit(1);
    }
    eprintln!("mcp_fixture: serving stdio");
    match fixture.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => eprintln!("mcp_fixture: {e}"),
    }
}

async fn serve_http(fixture: Fixture, port_file: &str) {
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let service = Arc::new(StreamableHttpService::new(
        move || Ok(fixture.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local addr").port();
    std::fs::write(port_file, port.to_string()).expect("write the port file");
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = service.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let service = service.clone();
                async move { Ok::<_, std::convert::Infallible>(service.handle(req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

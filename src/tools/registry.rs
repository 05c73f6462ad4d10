//! The tools a session offers, by name: registering, the definitions sent, checking a
//! call's input before it runs.

use super::*;

/// A tool that cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("tool {name} has an invalid input schema: {source}")]
    InvalidSchema {
        name: String,
        source: schema::SchemaError,
    },
    #[error("a tool named {0} is already registered")]
    Duplicate(String),
}

/// The first string field of the input, cut to a line.
pub fn default_summary(input: &Value) -> String {
    let s = match input {
        Value::Object(map) => map
            .values()
            .find_map(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| input.to_string()),
        other => other.to_string(),
    };
    let line = s.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(60).collect();
    if line.chars().count() > 60 || s.lines().count() > 1 {
        out.push('…');
    }
    out
}

/// How a registered tool's input is checked before it runs.
#[derive(Clone)]
pub enum InputCheck {
    /// By deserializing into the tool's input type (built-in tools).
    Typed(input::Check),
    /// Against its JSON schema, compiled (at registration for a tool from outside, at the
    /// first call for one of ours without an input type).
    Schema(Arc<schema::Validator>),
}

/// A registered tool with its input check.
pub struct Registered {
    pub tool: Arc<dyn Tool>,
    /// Shared by the registries made from this one (MCP additions, subagents' subsets).
    pub check: InputCheck,
}

impl Registered {
    /// Ok, or every violation found in one line the model can act on.
    pub fn validate(&self, input: &Value) -> Result<(), schema::InputError> {
        match &self.check {
            InputCheck::Typed(check) => check(input),
            InputCheck::Schema(v) => v.validate(input),
        }
    }
}

/// The set of tools offered to the model, keyed by name.
#[derive(Default)]
pub struct ToolRegistry {
    pub(super) tools: BTreeMap<String, Registered>,
    /// The specs as every request offers them, and their JSON size, made once: each tool's
    /// schema is a `json!` tree built anew per call, and every request asked for them twice
    /// (the context estimate and the body). A registry never changes once in use.
    specs: std::sync::OnceLock<(Vec<ToolSpec>, usize)>,
    /// Deferred MCP tools (issue 39): registered, so a call runs, but offered to the model
    /// only once `tool_search` found them ([`deferral::offered`]).
    deferral: Option<Arc<deferral::Deferral>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The read-only tools (the engine's set).
    pub fn read_only() -> Self {
        let mut r = Self::new();
        r.register(Arc::new(read_file::ReadFile));
        r.register(Arc::new(list_dir::ListDir));
        r.register(Arc::new(glob::Glob));
        r.register(Arc::new(grep::Grep));
        r.register(Arc::new(web_fetch::WebFetch));
        r.register(Arc::new(get_current_time::GetCurrentTime));
        r
    }

    /// Every built-in tool.
    pub fn builtin() -> Self {
        let mut r = Self::read_only();
        r.register(Arc::new(bash::Bash));
        r.register(Arc::new(bash_output::BashOutput));
        r.register(Arc::new(kill_shell::KillShell));
        r.register(Arc::new(write_file::WriteFile));
        r.register(Arc::new(edit_file::EditFile));
        r
    }

    /// Adds one of tooloop's own tools: checked through its input type, or without one its
    /// schema compiled at the tool's first call (the test `every_builtin_schema_compiles`
    /// compiles them all). Panics only on a duplicate name (a programming error), never on
    /// model input; runtime tools use [`ToolRegistry::try_register`].
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        let check = Self::trusted_check(tool.as_ref());
        if let Err(e) = self.insert(tool, check) {
            panic!("{e}");
        }
    }

    /// The check of one of our own tools: its input type, else its schema compiled lazily.
    fn trusted_check(tool: &dyn Tool) -> InputCheck {
        match tool.input_check() {
            Some(check) => InputCheck::Typed(check),
            None => InputCheck::Schema(Arc::new(schema::Validator::lazy(&tool.input_schema()))),
        }
    }

    /// Adds a tool known only at run time (an MCP server's): its schema came from outside,
    /// so it is compiled now and a bad one is an error, not a panic.
    pub fn try_register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let check = match tool.input_check() {
            Some(check) => InputCheck::Typed(check),
            None => InputCheck::Schema(Arc::new(
                schema::Validator::new(&tool.input_schema()).map_err(|source| {
                    RegistryError::InvalidSchema {
                        name: tool.name().to_string(),
                        source,
                    }
                })?,
            )),
        };
        self.insert(tool, check)
    }

    fn insert(&mut self, tool: Arc<dyn Tool>, check: InputCheck) -> Result<(), RegistryError> {
        let name = tool.name().to_string();
        if self.tools.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        self.tools.insert(name, Registered { tool, check });
        self.specs = std::sync::OnceLock::new();
        Ok(())
    }

    /// A tool already in a registry, with its check (a validator compiled or not yet).
    fn share(&mut self, r: &Registered) {
        // Names are unique in the registry it comes from: this cannot fail.
        let _ = self.insert(r.tool.clone(), r.check.clone());
    }

    /// This registry plus `extra` (an MCP server's tools, known only once it started). The
    /// registry in use is shared and never changes, so this builds a new one; a tool that
    /// cannot join (a duplicate name, a schema that does not compile) is left out and said.
    pub fn with_tools(&self, extra: Vec<Arc<dyn Tool>>) -> (ToolRegistry, Vec<RegistryError>) {
        let mut next = ToolRegistry::new();
        for r in self.tools.values() {
            next.share(r);
        }
        let errors = extra
            .into_iter()
            .filter_map(|t| next.try_register(t).err())
            .collect();
        next.deferral = self.deferral.clone();
        (next, errors)
    }

    /// This registry with some of its tools deferred.
    pub fn with_deferral(mut self, deferral: Arc<deferral::Deferral>) -> Self {
        self.deferral = Some(deferral);
        self
    }

    pub fn deferral(&self) -> Option<&Arc<deferral::Deferral>> {
        self.deferral.as_ref()
    }

    /// This registry plus one of tooloop's own tools made at run time (`task`,
    /// `exit_plan_mode`): trusted like the built-ins, so checked through its input type. A
    /// duplicate name leaves it out and says so.
    pub fn with_builtin(&self, tool: Arc<dyn Tool>) -> (ToolRegistry, Option<RegistryError>) {
        let (mut next, _) = self.with_tools(Vec::new());
        let check = Self::trusted_check(tool.as_ref());
        let error = next.insert(tool, check).err();
        (next, error)
    }

    /// The tools of this registry that `keep` accepts (a subagent's restricted set).
    pub fn subset(&self, keep: impl Fn(&str) -> bool) -> ToolRegistry {
        let mut next = ToolRegistry::new();
        for (name, r) in &self.tools {
            if keep(name) {
                next.share(r);
            }
        }
        next
    }

    /// A call of `name` is on its way (its block started streaming): get its validator ready
    /// (a tool with an input type has nothing to prepare).
    pub fn warm(&self, name: &str) {
        if let Some(Registered {
            check: InputCheck::Schema(v),
            ..
        }) = self.tools.get(name)
        {
            v.warm();
        }
    }

    pub fn get(&self, name: &str) -> Option<&Registered> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools.keys().map(String::as_str)
    }

    /// The one-line summary of a call, as the tool phrases it (any input for an unknown one).
    pub fn summary(&self, name: &str, input: &Value) -> String {
        match self.get(name) {
            Some(r) => r.tool.summary(input),
            None => default_summary(input),
        }
    }

    /// tool_use id → summary for every call in `messages` (a resumed history's tool lines).
    pub fn summaries<M: std::borrow::Borrow<Message>>(
        &self,
        messages: &[M],
    ) -> HashMap<String, String> {
        messages
            .iter()
            .flat_map(|m| &m.borrow().content)
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, name, input } => {
                    Some((id.clone(), self.summary(name, input)))
                }
                _ => None,
            })
            .collect()
    }

    /// The approval preview of a call, if its tool has one.
    pub fn preview(&self, name: &str, input: &Value) -> Option<Preview> {
        self.get(name).and_then(|r| r.tool.preview(input))
    }

    /// The approval preview against the files in `workspace` (a diff of what is there).
    pub fn preview_in(&self, name: &str, input: &Value, workspace: &Workspace) -> Option<Preview> {
        self.get(name)
            .and_then(|r| r.tool.preview_in(input, workspace))
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.spec_list().to_vec()
    }

    /// The specs, made once per registry.
    pub fn spec_list(&self) -> &[ToolSpec] {
        &self.cached_specs().0
    }

    /// Bytes of the specs as JSON (what the context estimate counts), measured once.
    pub fn specs_json_len(&self) -> usize {
        self.cached_specs().1
    }

    fn cached_specs(&self) -> &(Vec<ToolSpec>, usize) {
        self.specs.get_or_init(|| {
            let specs: Vec<ToolSpec> = self
                .tools
                .values()
                .map(|r| ToolSpec {
                    name: r.tool.name().to_string(),
                    description: r.tool.description().to_string(),
                    input_schema: r.tool.input_schema(),
                    defer_loading: false,
                })
                .collect();
            let len = serde_json::to_vec(&specs).map_or(0, |v| v.len());
            (specs, len)
        })
    }
}

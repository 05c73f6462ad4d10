//! The import graph of src/ (issue 10): which part may name which. Read from the source, not
//! from a tool: every `crate::…` and `super::…` path outside comments and strings is an arrow
//! from its file to the file that defines the module it names (`use crate::{a::b, c}`
//! groups included). Doc links and string contents are not arrows; `#[cfg(test)]` modules
//! are (they are compiled too). No exception list: any cycle fails, except the arrows
//! between a module file and the files under its own directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[test]
fn tools_do_not_import_providers() {
    let graph = Graph::read();
    graph.assert_no_arrows("src/tools/", &["src/provider/"]);
}

#[test]
fn the_core_does_not_import_the_command_line_or_the_config() {
    let graph = Graph::read();
    let front = [
        "src/cli.rs",
        "src/config/",
        "src/config_file",
        "src/settings/",
    ];
    graph.assert_no_arrows("src/agent/", &front);
    graph.assert_no_arrows("src/provider/", &front);
}

/// Adding a provider is its module plus one line in the registry: the config reads every
/// provider's defaults (model, base URL, key variable) from that line and names none itself.
#[test]
fn the_config_knows_no_provider_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let registry =
        std::fs::read_to_string(root.join("src/provider/registry.rs")).expect("registry");
    let list = registry
        .split("providers! {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("the providers! invocation");
    let mut registered = Vec::new();
    for line in list.lines() {
        let line = line.trim();
        if let Some((variant, rest)) = line.split_once(" = \"") {
            let name = rest.split('"').next().unwrap_or_default();
            registered.push((variant.to_string(), name.to_string()));
        }
    }
    assert!(registered.len() >= 3, "providers read: {registered:?}");
    // The config and its sections; the file's per-provider tables are spelled out in
    // src/settings/provider_file.rs, the one place that maps them.
    let mut files = Vec::new();
    for dir in ["src/config", "src/settings"] {
        for entry in std::fs::read_dir(root.join(dir)).expect(dir).flatten() {
            if entry.file_name() != "provider_file.rs" {
                files.push(entry.path());
            }
        }
    }
    assert!(files.len() >= 3, "config files read: {files:?}");
    for file in &files {
        let text = std::fs::read_to_string(file).expect("config source");
        for (variant, name) in &registered {
            for needle in [
                format!("ProviderKind::{variant}"),
                format!("\"{name}\""),
                format!("{}_", name.to_uppercase()),
            ] {
                assert!(
                    !text.contains(&needle),
                    "{} names the {name} provider ({needle}): its defaults belong in its \
                     registration line in src/provider/registry.rs",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn the_tui_does_not_import_tools() {
    let graph = Graph::read();
    graph.assert_no_arrows("src/tui/", &["src/tools/"]);
}

/// Panes, overlays, text helpers and the input are leaves of the TUI: they return what
/// happened and the controller (app.rs, update/) acts on it, so none of them names the App
/// or the controller.
#[test]
fn tui_leaves_do_not_import_the_app() {
    let graph = Graph::read();
    let controller = ["src/tui/app.rs", "src/tui/update/", "src/tui/view.rs"];
    for leaf in [
        "src/tui/panes/",
        "src/tui/overlays/",
        "src/tui/text/",
        "src/tui/input/",
    ] {
        graph.assert_no_arrows(leaf, &controller);
    }
}

/// `impl App` lives in app.rs and the controller files under update/ only: an overlay or
/// pane that changes the App is a controller in the wrong room.
#[test]
fn impl_app_only_in_the_controller() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("src/tui"), &mut files);
    let re = regex::Regex::new(r"(?m)^\s*impl(<[^>]*>)?\s+(crate::tui::app::|super::app::)?App\b")
        .unwrap();
    let bad: Vec<String> = files
        .iter()
        .map(|f| rel_path(root, f))
        .filter(|rel| rel != "src/tui/app.rs" && !rel.starts_with("src/tui/update/"))
        .filter(|rel| {
            let text = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
            re.is_match(&strip_comments_and_strings(&text))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "impl App outside app.rs and update/:\n  {}",
        bad.join("\n  ")
    );
}

/// The parts of src/ from the ground floor up (DESIGN.md §13): a part is a top-level
/// folder with its module file (`x/` and `x.rs`) or a top-level file. A file may name only
/// its own part and the parts listed before it. The binary (main.rs) wires everything and is
/// not a part.
const FLOORS: &[&str] = &[
    // The ground: small leaves everyone may use.
    "text",
    "paths",
    "http",
    "interrupt",
    "child_trace_context",
    "todo",
    "logging",
    // The conversation itself.
    "message",
    // Containment, processes and sanitizing.
    "sandbox",
    "process",
    "sanitize",
    // Git worktrees (git operations only: the engine and the task tool decide when).
    "worktree",
    // Providers, and what the protocol's events carry from hooks and background jobs.
    "provider",
    "hooks",
    "background",
    // The protocol: events, commands, the history observer, the types that cross parts.
    "protocol",
    // Tools, consent, MCP, models, prompts.
    "tools",
    "permission",
    "mcp",
    "models",
    "prompt",
    // Claude Code's settings.json (rules, hooks) read as tooloop's own; skills over them.
    "claude",
    "skills",
    // What observes the agent through the protocol's observer.
    "checkpoint",
    "session",
    "recording",
    // The agent: loop, executor, context, subagents, and attaching a session.
    "agent",
    "trace",
    "telemetry",
    // Settings: each part's section (flags, file keys, layering), then the command line and
    // the config file that gather them, the Config of sections, the engine main builds.
    "settings",
    "cli",
    "config_file",
    "config",
    "engine",
    // Front ends.
    "export",
    "headless",
    "acp",
    "tui",
    "replay",
];

/// Every import runs down the floors: no file names a part above its own, directly or by
/// re-exporting one (a `pub use crate::…` is an arrow like any other). Every part of src/
/// is on the list and the list names only parts that exist.
#[test]
fn every_import_runs_down_the_floors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut parts = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("src"))
        .expect("read src/")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let part = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        if part != "lib" && part != "main" {
            parts.insert(part);
        }
    }
    let listed: BTreeSet<String> = FLOORS.iter().map(|p| p.to_string()).collect();
    assert_eq!(listed.len(), FLOORS.len(), "a part listed twice in FLOORS");
    let unlisted: Vec<&String> = parts.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "parts of src/ not on a floor: {unlisted:?}"
    );
    let missing: Vec<&String> = listed.difference(&parts).collect();
    assert!(
        missing.is_empty(),
        "FLOORS names parts that do not exist: {missing:?}"
    );
    let bad = Graph::read().upward(FLOORS);
    assert!(
        bad.is_empty(),
        "imports that run up the floors (DESIGN.md §13):\n  {}",
        bad.join("\n  ")
    );
}

/// The guard itself: in a small tree of its own, a low part that names a part above it (by
/// `use`, by a path in code, by `pub use` re-export, or by `super::super::` out of a folder)
/// is reported; the same tree with the arrows turned down is not.
#[test]
fn the_guard_catches_an_upward_import() {
    let tree = |low: &str, deep: &str| {
        let dir = tempfile::tempdir().expect("a temporary tree");
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("src/lib.rs", "pub mod low;\npub mod high;\npub mod deep;\n");
        write("src/low.rs", low);
        write(
            "src/high/mod.rs",
            "mod x;\npub use x::X;\nuse crate::low::L;\n",
        );
        write(
            "src/high/x.rs",
            "pub struct X;\nuse super::super::low::L;\n",
        );
        write("src/deep/mod.rs", "pub mod inner;\n");
        write("src/deep/inner.rs", deep);
        let graph = Graph::read_from(dir.path());
        graph.upward(&["low", "deep", "high"])
    };
    assert_eq!(
        tree("pub struct L;\n", "use crate::low::L;\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        tree("pub struct L;\nuse crate::high::x::X;\n", ""),
        ["src/low.rs (low) -> src/high/x.rs (high)"]
    );
    assert_eq!(
        tree("pub struct L;\npub use crate::high::X;\n", ""),
        ["src/low.rs (low) -> src/high/mod.rs (high)"]
    );
    assert_eq!(
        tree("pub struct L;\nfn f() { let _ = crate::high::X; }\n", ""),
        ["src/low.rs (low) -> src/high/mod.rs (high)"]
    );
    assert_eq!(
        tree("pub struct L;\n", "use super::super::high::X;\n"),
        ["src/deep/inner.rs (deep) -> src/high/mod.rs (high)"]
    );
}

/// The protocol (AgentCommand / AgentEvent) sits low: everything it reaches, however
/// indirectly, lies on its floor or below; and it re-exports nothing (everyone imports a
/// type from where it lives).
#[test]
fn the_protocol_is_a_leaf() {
    let graph = Graph::read();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("src/protocol"), &mut files);
    let protocol: Vec<String> = files.iter().map(|f| rel_path(root, f)).collect();
    assert!(protocol.len() >= 3, "the protocol's files: {protocol:?}");
    let mut seen = BTreeSet::new();
    let mut stack = protocol.clone();
    while let Some(f) = stack.pop() {
        if seen.insert(f.clone()) {
            stack.extend(graph.edges.get(&f).into_iter().flatten().cloned());
        }
    }
    let floor = |f: &str| part_of(f).and_then(|p| FLOORS.iter().position(|q| *q == p));
    let own = FLOORS
        .iter()
        .position(|p| *p == "protocol")
        .expect("protocol on a floor");
    let bad: Vec<&String> = seen
        .iter()
        .filter(|f| floor(f).is_none_or(|n| n > own))
        .collect();
    assert!(bad.is_empty(), "src/protocol/ reaches {bad:?}");
    for file in &protocol {
        let text = std::fs::read_to_string(root.join(file)).expect("a protocol file");
        let reexports: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("pub use"))
            .collect();
        assert!(reexports.is_empty(), "{file} re-exports: {reexports:?}");
    }
}

#[test]
fn no_import_cycles_between_files() {
    let graph = Graph::read();
    let cycles = graph.cycles();
    assert!(
        cycles.is_empty(),
        "import cycles (a module file and its own children excepted):\n{}",
        cycles
            .iter()
            .map(|c| format!("  {}", c.join("\n  ")))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Library errors are typed (thiserror); a plain `String` error is kept only where the
/// message is the whole error (a tool's answer to the model, a hook's reason). Issue 10
/// set the ceiling at 10.
#[test]
fn few_string_errors_are_left() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("src"), &mut files);
    let re = regex::Regex::new(r"Result<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*,\s*String>").unwrap();
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let shown = rel_path(root, f);
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim_start().starts_with("//") && re.is_match(l))
                .map(|(i, _)| format!("{shown}:{}", i + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.len() <= 10,
        "{} functions return Result<_, String> (at most 10):\n  {}",
        found.len(),
        found.join("\n  ")
    );
}

/// The guard itself: in a small tree of its own, a cycle between two sibling files (one
/// `x.rs` naming the other through `super::`, the other through `crate::`) is reported, an
/// arrow between a module file and its own child is not, and `super` in a non-`mod.rs` file
/// lands on the sibling, not on the crate root.
#[test]
fn the_guard_catches_a_sibling_cycle() {
    let dir = tempfile::tempdir().expect("a temporary tree");
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("src/lib.rs", "pub mod part;\npub mod leaf;\n");
    write(
        "src/part/mod.rs",
        "mod a;\nmod b;\nmod c;\npub use c::Out;\npub struct Shared;\n",
    );
    write("src/part/a.rs", "use super::b::B;\npub struct A;\n");
    write("src/part/b.rs", "use crate::part::a::A;\npub struct B;\n");
    // c names its parent module file and the parent re-exports c: parent and child.
    write(
        "src/part/c.rs",
        "use super::Shared;\nuse crate::leaf::L;\npub struct Out;\n",
    );
    write("src/leaf.rs", "mod inner;\npub struct L;\n");
    write("src/leaf/inner.rs", "use super::L;\n");
    let graph = Graph::read_from(dir.path());
    let arrows_of =
        |f: &str| -> Vec<String> { graph.arrows(f).map(|(_, t)| t.clone()).collect::<Vec<_>>() };
    assert_eq!(arrows_of("src/part/a.rs"), ["src/part/b.rs"]);
    assert_eq!(arrows_of("src/leaf/inner.rs"), ["src/leaf.rs"]);
    let cycles = graph.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let files: Vec<&str> = cycles[0]
        .iter()
        .map(|line| line.split(" -> ").next().unwrap())
        .collect();
    assert_eq!(files, ["src/part/a.rs", "src/part/b.rs"]);
}

#[test]
fn the_reader_sees_grouped_imports_and_skips_comments_and_strings() {
    let src = "use crate::{a::b, c::{d, e::F}};\n// crate::x\n/* crate::y */\n\
               let s = \"crate::z\"; let r = r#\"crate::w\"#;\nfn f() { crate::g::h(); }\n\
               /// [`crate::doc`]\nuse super::sib;\n";
    let mut paths = paths_in(src);
    paths.sort();
    let want: Vec<Vec<String>> = vec![
        vec!["crate", "a", "b"],
        vec!["crate", "c", "d"],
        vec!["crate", "c", "e", "F"],
        vec!["crate", "g", "h"],
        vec!["super", "sib"],
    ]
    .into_iter()
    .map(|p| p.into_iter().map(String::from).collect())
    .collect();
    assert_eq!(paths, want);
}

struct Graph {
    /// File → the files it names (both as paths like "src/agent/mod.rs").
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn read() -> Graph {
        Graph::read_from(Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// The graph of `root/src/` (a crate's tree; the guard's own test passes a small one).
    fn read_from(root: &Path) -> Graph {
        let mut files = Vec::new();
        collect(&root.join("src"), &mut files);
        // Module path (["agent", "executor"]) → file, for every file of the library.
        let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
        for f in &files {
            let rel = rel_path(root, f);
            if let Some(m) = module_of(&rel) {
                modules.insert(m, rel);
            }
        }
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, file) in &modules {
            let text = std::fs::read_to_string(root.join(file)).expect("read a source file");
            // `super` is the parent of this file's own module, whether the file is
            // `x/mod.rs` or `x.rs`: both are module `x`, so each `super` pops one segment.
            let here = module.clone();
            for path in paths_in(&text) {
                let absolute = match path[0].as_str() {
                    "crate" => path[1..].to_vec(),
                    _ => {
                        // super::… from this file's own module.
                        let mut base = here.clone();
                        let mut rest = &path[..];
                        while rest.first().is_some_and(|s| s == "super") {
                            base.pop();
                            rest = &rest[1..];
                        }
                        base.extend(rest.iter().cloned());
                        base
                    }
                };
                if let Some(target) = resolve(&modules, &absolute)
                    && target != *file
                {
                    edges.entry(file.clone()).or_default().insert(target);
                }
            }
        }
        Graph { edges }
    }

    /// The arrows from a part to one listed after it in `floors` (or not listed), as
    /// "from (part) -> to (part)".
    fn upward(&self, floors: &[&str]) -> Vec<String> {
        let floor = |f: &str| part_of(f).and_then(|p| floors.iter().position(|q| *q == p));
        let mut bad = Vec::new();
        for (from, targets) in &self.edges {
            let Some(here) = floor(from) else { continue };
            // The crate root only declares the parts; a path that lands on it is a
            // `super::` out of an inline `mod tests` (the reader sees files, not inline
            // modules), not an arrow to a part.
            for to in targets.iter().filter(|t| part_of(t).is_some()) {
                if floor(to).is_none_or(|there| there > here) {
                    let name = |f: &str| part_of(f).unwrap_or_default();
                    bad.push(format!("{from} ({}) -> {to} ({})", name(from), name(to)));
                }
            }
        }
        bad
    }

    fn arrows<'a>(&'a self, from: &'a str) -> impl Iterator<Item = (&'a String, &'a String)> {
        self.edges
            .iter()
            .filter(move |(f, _)| f.starts_with(from))
            .flat_map(|(f, ts)| ts.iter().map(move |t| (f, t)))
    }

    fn assert_no_arrows(&self, from: &str, to: &[&str]) {
        let bad: Vec<String> = self
            .arrows(from)
            .filter(|(_, t)| to.iter().any(|p| t.starts_with(p)))
            .map(|(f, t)| format!("{f} -> {t}"))
            .collect();
        assert!(bad.is_empty(), "forbidden imports:\n  {}", bad.join("\n  "));
    }

    /// Strongly connected components of more than one file, after dropping the arrows
    /// between a module file (x/mod.rs) and the files under its directory.
    fn cycles(&self) -> Vec<Vec<String>> {
        let nodes: Vec<&String> = self
            .edges
            .keys()
            .chain(self.edges.values().flatten())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let index: BTreeMap<&String, usize> =
            nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut adj = vec![Vec::new(); nodes.len()];
        for (f, ts) in &self.edges {
            for t in ts {
                if !parent_and_child(f, t) {
                    adj[index[f]].push(index[t]);
                }
            }
        }
        tarjan(&adj)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                // Each file with the arrows it has inside the cycle, so the fix is visible.
                c.iter()
                    .map(|&i| {
                        let inside: Vec<&str> = adj[i]
                            .iter()
                            .filter(|j| c.contains(j))
                            .map(|&j| nodes[j].as_str())
                            .collect();
                        format!("{} -> [{}]", nodes[i], inside.join(", "))
                    })
                    .collect()
            })
            .collect()
    }
}

/// The part a file belongs to: "src/agent/x.rs" and "src/agent.rs" → "agent"; None for
/// the crate root (lib.rs, main.rs), which only declares the parts.
fn part_of(file: &str) -> Option<String> {
    let inner = file.strip_prefix("src/")?;
    let first = inner.split('/').next()?;
    let part = first.strip_suffix(".rs").unwrap_or(first);
    (part != "lib" && part != "main").then(|| part.to_string())
}

/// True when one of the two is a module file (`dir/mod.rs`, or `dir.rs` beside a `dir/`)
/// and the other lies under that module's directory.
fn parent_and_child(a: &str, b: &str) -> bool {
    let under = |m: &str, f: &str| {
        let dir = match m.strip_suffix("mod.rs") {
            Some(dir) => dir.to_string(),
            None => match m.strip_suffix(".rs") {
                Some(stem) if m != "src/lib.rs" => format!("{stem}/"),
                _ => return false,
            },
        };
        f.starts_with(&dir) && f != m
    };
    under(a, b) || under(b, a)
}

fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct S<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut S, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.adj[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort();
            s.out.push(comp);
        }
    }
    let n = adj.len();
    let mut s = S {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read src/")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn rel_path(root: &Path, f: &Path) -> String {
    f.strip_prefix(root)
        .expect("under the root")
        .to_string_lossy()
        .replace('\\', "/")
}

/// "src/agent/executor.rs" → ["agent", "executor"]; "src/agent/mod.rs" → ["agent"];
/// "src/lib.rs" → []. The binary (src/main.rs) is not part of the library's graph.
fn module_of(rel: &str) -> Option<Vec<String>> {
    let inner = rel.strip_prefix("src/")?.strip_suffix(".rs")?;
    if inner == "main" {
        return None;
    }
    if inner == "lib" {
        return Some(Vec::new());
    }
    let mut parts: Vec<String> = inner.split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// The file of the longest module prefix of `path`.
fn resolve(modules: &BTreeMap<Vec<String>, String>, path: &[String]) -> Option<String> {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]))
        .cloned()
}

/// Every `crate::…` / `super::…` path in `src`, group imports expanded, comments and string
/// literals skipped.
fn paths_in(src: &str) -> Vec<Vec<String>> {
    let code = strip_comments_and_strings(src);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
        let head = ["crate::", "super::"]
            .into_iter()
            .find(|h| bytes[i..].starts_with(h.as_bytes()));
        match head {
            Some(h) if starts_word => {
                let root = h.trim_end_matches(':').to_string();
                i = parse_tree(&code, i + h.len(), vec![root], &mut out);
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses `a::b::{c, d::e}` at `i` with `prefix` already read; pushes the full paths and
/// returns where it stopped.
fn parse_tree(code: &str, mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let bytes = code.as_bytes();
    let mut path = prefix;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            i += 1;
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    return i + 1;
                }
                let before = i;
                i = parse_tree(code, i, path.clone(), out);
                if i == before {
                    i += 1;
                }
            }
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if i == start {
            break;
        }
        let seg = &code[start..i];
        if seg != "self" {
            path.push(seg.to_string());
        }
        if bytes[i..].starts_with(b"::") {
            i += 2;
        } else {
            break;
        }
    }
    if path.len() > 1 {
        out.push(path);
    }
    i
}

/// `src` with comments and string/char literals blanked out (lengths kept).
fn strip_comments_and_strings(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(b' ');
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') || (i > 0 && is_ident(b[i - 1])) {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let mut k = j + 1;
            while k < b.len() && !b[k..].starts_with(&close) {
                k += 1;
            }
            let end = (k + close.len()).min(b.len());
            out.extend(std::iter::repeat_n(b' ', end - i));
            i = end;
        } else if b[i] == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                let step = if b[i] == b'\\' { 2 } else { 1 };
                for _ in 0..step.min(b.len() - i) {
                    out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // 'x' (a lifetime like 'a has no closing quote two bytes on)
            out.extend_from_slice(b"   ");
            i += 3;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            let mut k = i + 2;
            while k < b.len() && b[k] != b'\'' {
                k += 1;
            }
            out.extend(std::iter::repeat_n(b' ', k + 1 - i));
            i = k + 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out.truncate(b.len());
    String::from_utf8_lossy(&out).into_owned()
}

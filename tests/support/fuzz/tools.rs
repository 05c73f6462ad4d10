//! `tool_input`: arbitrary JSON against every built-in tool: schema validation, `paths()`,
//! `preview()`, `summary()`, `timeout()`, concurrency safety; and every path argument
//! through the workspace confinement, checked against what the operating system would
//! open.
//!
//! Input: JSON (any value), or, when the bytes are not JSON, one object whose every string
//! field (`path`, `pattern`, `command`, …) holds the bytes as text, so path fuzzing works
//! on raw bytes too.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};
use tooloop::tools::{ToolRegistry, Workspace};

use super::MAX_INPUT;

/// A workspace with a way out in every form: a symlink to a directory outside, a dangling
/// one pointing outside, a symlink loop, and plain files and directories.
pub struct Fixture {
    pub workspace: Workspace,
    pub outside: PathBuf,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let r = root.path();
        std::fs::create_dir_all(r.join("sub/deeper")).expect("mkdir");
        std::fs::write(r.join("sub/a.txt"), "a").expect("write");
        std::fs::write(r.join("file.txt"), "f").expect("write");
        std::fs::write(outside.path().join("secret"), "s").expect("write");
        std::os::unix::fs::symlink(outside.path(), r.join("etc_link")).expect("symlink");
        std::os::unix::fs::symlink(r.join("sub"), r.join("in_link")).expect("symlink");
        std::os::unix::fs::symlink(outside.path().join("nothing"), r.join("dangling"))
            .expect("symlink");
        std::os::unix::fs::symlink(r.join("loop"), r.join("loop")).expect("symlink");
        let workspace = Workspace::new(r, false).expect("workspace");
        Fixture {
            workspace,
            outside: outside.path().canonicalize().expect("canonical"),
            _dirs: (root, outside),
        }
    })
}

fn registry() -> &'static ToolRegistry {
    static REGISTRY: OnceLock<ToolRegistry> = OnceLock::new();
    REGISTRY.get_or_init(ToolRegistry::builtin)
}

pub fn tool_input(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let input: Value = serde_json::from_slice(data).unwrap_or_else(|_| {
        let s = String::from_utf8_lossy(data);
        json!({"path": s, "pattern": s, "command": s, "url": s, "content": s,
               "old_string": s, "new_string": s, "timezone": s, "glob": s})
    });
    let fx = fixture();
    let registry = registry();
    for name in registry.names() {
        let registered = registry.get(name).expect("listed");
        let tool = Arc::clone(&registered.tool);
        if let Err(e) = registered.validate(&input) {
            assert!(!e.to_string().is_empty(), "{name}: an empty schema error");
        }
        let summary = tool.summary(&input);
        assert!(
            !summary.contains('\n'),
            "{name}: summary {summary:?} is not one line"
        );
        let _ = tool.preview(&input);
        let _ = tool.timeout(&input);
        let _ = tool.is_concurrency_safe(&input);
        for path in tool.paths(&input) {
            confined(&fx.workspace, &path);
        }
    }
    let _ = registry.summaries(&[tooloop::message::Message::assistant(vec![
        tooloop::message::ContentBlock::ToolUse {
            id: "t".into(),
            name: "read_file".into(),
            input: input.clone(),
        },
    ])]);
    // Every string anywhere in the input is a path some tool might be given.
    each_string(&input, &mut |s| confined(&fx.workspace, s));
}

fn each_string(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|v| each_string(v, f)),
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            f(k);
            each_string(v, f)
        }),
        _ => {}
    }
}

/// A path the workspace accepts must be one the OS opens inside the root: checked by
/// resolving the accepted path the way the kernel will (symlinks in its existing part
/// followed) without trusting `Workspace`'s own walk.
pub fn confined(ws: &Workspace, path: &str) {
    let inside = ws.is_inside(path);
    match ws.resolve(path) {
        Ok(resolved) => {
            assert!(
                inside,
                "{path:?} resolves ({resolved:?}) but is_inside says no"
            );
            assert!(
                !resolved
                    .components()
                    .any(|c| matches!(c, Component::ParentDir | Component::CurDir)),
                "{path:?} resolved to {resolved:?}, which the OS would walk differently"
            );
            match os_target(&resolved) {
                Some(real) => assert!(
                    real.starts_with(ws.root()),
                    "confinement accepted {path:?} as {resolved:?}, but the OS opens {real:?}, \
                     outside the workspace {:?}",
                    ws.root()
                ),
                None => panic!(
                    "confinement accepted {path:?} as {resolved:?}, which leads through a \
                     dangling symlink"
                ),
            }
        }
        Err(e) => {
            assert!(!inside, "{path:?} is refused ({e}) but is_inside says yes");
            assert!(e.to_string().starts_with("Error: "), "{e}");
        }
    }
}

/// Where the OS ends up for `path` (absolute, no `..`): its longest existing prefix with
/// every symlink followed, then the part that does not exist yet. None when the existing
/// part is a symlink that leads nowhere (writing there would create its target).
fn os_target(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    let mut tail = Vec::new();
    while existing.symlink_metadata().is_err() {
        tail.push(existing.file_name()?);
        existing = existing.parent()?;
    }
    let mut real = existing.canonicalize().ok()?;
    for part in tail.iter().rev() {
        real.push(part);
    }
    Some(real)
}

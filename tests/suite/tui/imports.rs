//! The front end learns about tools only from agent events: nothing under src/tui/ names
//! the tools module, and nothing outside src/tools/ decides by a tool's name.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable dir").flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its `#[cfg(test)] mod tests` tail (tests may build tools).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable file");
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[test]
fn the_tui_imports_nothing_from_the_tools() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/tui"), &mut files);
    assert!(files.len() > 10);
    for f in files {
        let c = code(&f);
        assert!(
            !c.contains("crate::tools") && !c.contains("tooloop::tools"),
            "{} reaches into src/tools/",
            f.display()
        );
    }
}

#[test]
fn no_decision_outside_the_tools_matches_a_tool_or_field_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![
        root.join("src/agent/executor.rs"),
        root.join("src/agent/tool_call.rs"),
        root.join("src/permission.rs"),
    ];
    rust_files(&root.join("src/tui"), &mut files);
    for f in files {
        let c = code(&f);
        for name in [
            "\"bash\"",
            "\"edit_file\"",
            "\"write_file\"",
            "\"path\"",
            "\"command\"",
        ] {
            // The highlighter knows bash as a language, not as a tool.
            if name == "\"bash\"" && f.ends_with("highlight.rs") {
                continue;
            }
            assert!(!c.contains(name), "{} matches on {name}", f.display());
        }
    }
}

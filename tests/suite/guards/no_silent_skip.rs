//! No test passes without having run: a test that returns early because the machine lacks
//! something must ask through `env_support` (which fails under CI and skips visibly
//! elsewhere), never probe by itself and return as passed.
//!
//! Grep-level: in every `#[test]` / `#[tokio::test]` function under tests/, an early `return`
//! at the top of its body (`if COND { …; return; }` or `let … = EXPR else { return }`) must
//! have a gate in COND / EXPR: one of env_support's (`landlock()`, `landlock_abi(…)`,
//! `tmux()`, `tmux::available()`, `require(…)`), or a helper of tests/ whose own first lines
//! call one (`have_tmux()`, `Screen::start(…)`, `sandboxed(…)`).

use std::path::{Path, PathBuf};

/// Calls that are the gate itself.
const GATES: &[&str] = &[
    "landlock()",
    "landlock_abi(",
    "tmux()",
    "available()",
    "require(",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read tests/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Brace depth change of a line, braces inside string and char literals not counted.
fn depth_change(line: &str) -> i32 {
    let code = line.split("//").next().unwrap_or("");
    let (mut d, mut in_str, mut prev) = (0, false, ' ');
    for c in code.chars() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '{' if !in_str && prev != '\'' => d += 1,
            '}' if !in_str && prev != '\'' => d -= 1,
            _ => {}
        }
        prev = c;
    }
    d
}

/// `text` without the contents of its string literals.
fn without_strings(text: &str) -> String {
    let (mut out, mut in_str, mut prev) = (String::new(), false, ' ');
    for c in text.chars() {
        if c == '"' && prev != '\\' {
            in_str = !in_str;
            out.push(c);
        } else if !in_str {
            out.push(c);
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    out
}

/// A bare `return` (`return;`, `return }`): what a skipped test does. A return with a value
/// belongs to a closure or a helper, not to the test.
fn has_early_return(text: &str) -> bool {
    let code = without_strings(text);
    code.match_indices("return").any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + "return".len()..].trim_start().chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && matches!(after, Some(';' | '}'))
    })
}

/// The conditions of the early returns at the top level of each test function in `source`:
/// (test name, the statement's text).
fn early_returns(source: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let attr = lines[i].trim_start();
        if !(attr.starts_with("#[test]") || attr.starts_with("#[tokio::test")) {
            i += 1;
            continue;
        }
        // The fn line, then its body until the brace that closes it.
        let Some(fn_at) = (i..lines.len()).find(|&k| lines[k].contains("fn ")) else {
            break;
        };
        let name = lines[fn_at]
            .split("fn ")
            .nth(1)
            .and_then(|r| r.split('(').next())
            .unwrap_or("?")
            .to_string();
        let mut depth = depth_change(lines[fn_at]);
        let mut k = fn_at + 1;
        while k < lines.len() && depth > 0 {
            let line = lines[k];
            let at_top = depth == 1;
            let t = line.trim_start();
            if at_top && (t.starts_with("if ") || t.starts_with("let ")) {
                // The statement: up to where its block closes back to the top level.
                let mut stmt = String::new();
                let mut d = depth;
                let mut j = k;
                loop {
                    stmt.push_str(lines[j].trim());
                    stmt.push(' ');
                    d += depth_change(lines[j]);
                    if d <= 1 && (lines[j].contains('}') || lines[j].trim_end().ends_with(';')) {
                        break;
                    }
                    j += 1;
                    if j >= lines.len() || j > k + 12 {
                        break;
                    }
                }
                if has_early_return(&stmt) {
                    out.push((name.clone(), stmt));
                }
            }
            depth += depth_change(line);
            k += 1;
        }
        i = k;
    }
    out
}

/// The part of an early-return statement that decides: the condition or the let's value.
fn condition(stmt: &str) -> &str {
    let cut = stmt
        .find(" else {")
        .or_else(|| stmt.find('{'))
        .unwrap_or(stmt.len());
    &stmt[..cut]
}

/// Names called in `text` (`name(`), without their path.
fn called(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices('(') {
        let name: String = text[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// Whether `cond` asks the gate, directly or through helpers of `sources` whose first lines
/// do (followed three calls deep: `acp_client()` asks it through `node_package(`).
fn gated(cond: &str, sources: &[String]) -> bool {
    gated_within(cond, sources, 3)
}

fn gated_within(cond: &str, sources: &[String], depth: usize) -> bool {
    if GATES.iter().any(|g| cond.contains(g)) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    called(cond).iter().any(|name| {
        sources.iter().any(|src| {
            let lines: Vec<&str> = src.lines().collect();
            lines.iter().enumerate().any(|(i, l)| {
                l.contains(&format!("fn {name}("))
                    && gated_within(
                        &lines[i + 1..(i + 12).min(lines.len())].join("\n"),
                        sources,
                        depth - 1,
                    )
            })
        })
    })
}

/// Every test's early return that does not go through the gate, as `file: test: statement`.
fn silent_skips(files: &[(String, String)]) -> Vec<String> {
    let sources: Vec<String> = files.iter().map(|(_, s)| s.clone()).collect();
    let mut out = Vec::new();
    for (file, source) in files {
        for (test, stmt) in early_returns(source) {
            if !gated(condition(&stmt), &sources) {
                out.push(format!("{file}: {test}: {}", stmt.trim()));
            }
        }
    }
    out
}

#[test]
fn no_test_returns_early_on_a_probe_of_its_own() {
    let mut paths = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut paths,
    );
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("read");
            (p.display().to_string(), text)
        })
        .collect();
    // The scan sees the gated skips (so it would see an ungated one among them).
    let gated_skips: usize = files.iter().map(|(_, s)| early_returns(s).len()).sum();
    assert!(gated_skips >= 40, "only {gated_skips} early returns found");
    let silent = silent_skips(&files);
    assert!(
        silent.is_empty(),
        "tests that return as passed on a probe of their own (use env_support):\n{}",
        silent.join("\n")
    );
}

#[test]
fn the_guard_sees_a_new_silent_skip() {
    let helper = "fn have_tmux() -> bool {\n    tmux::available()\n}\n".to_string();
    let case = |body: &str| {
        let test = format!("#[test]\nfn probe() {{\n{body}\n    assert!(true);\n}}\n");
        silent_skips(&[("t.rs".into(), test), ("h.rs".into(), helper.clone())])
    };
    // The skip this guard was written for, and variants of it.
    let old = "    if let Err(why) = tooloop::sandbox::support() {\n        \
               eprintln!(\"skipped: {why}\");\n        return;\n    }";
    assert_eq!(case(old).len(), 1, "{:?}", case(old));
    assert_eq!(
        case("    if std::process::Command::new(\"tmux\").output().is_err() { return; }").len(),
        1
    );
    assert_eq!(
        case("    let Ok(abi) = tooloop::sandbox::support() else {\n        return;\n    };").len(),
        1
    );
    // Through the gate, directly or by a helper that asks it: not a silent skip.
    assert!(case("    if env_support::landlock().is_none() {\n        return;\n    }").is_empty());
    assert!(case("    if !have_tmux() {\n        return;\n    }").is_empty());
    // An early return inside a loop or a closure is not a skip of the test.
    assert!(
        case("    for x in 0..3 {\n        if x == 1 {\n            return;\n        }\n    }")
            .is_empty()
    );
}

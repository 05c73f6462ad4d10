//! write_file and edit_file on real files, and escape attempts for every file tool:
//! refused, and nothing written outside the workspace.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use tooloop::tools::edit_file::EditFile;
use tooloop::tools::read_file::ReadFile;
use tooloop::tools::write_file::WriteFile;
use tooloop::tools::{Tool, ToolContext, ToolOutput, Workspace};

struct Fixture {
    _outer: tempfile::TempDir,
    outer: PathBuf,
    root: PathBuf,
    ctx: ToolContext,
}

/// outer/ holds the workspace ws/ and things that must stay untouched: secret.txt and
/// outside/x.txt. Inside ws/: link_out -> ../secret.txt, dir_out -> ../outside,
/// dangling -> ../not_there.txt.
fn fixture() -> Fixture {
    let outer_dir = tempfile::tempdir().expect("tempdir");
    let outer = outer_dir.path().canonicalize().expect("canonical");
    let root = outer.join("ws");
    fs::create_dir_all(&root).expect("mkdir ws");
    fs::write(outer.join("secret.txt"), "secret\n").expect("write");
    fs::create_dir(outer.join("outside")).expect("mkdir outside");
    fs::write(outer.join("outside/x.txt"), "outside x\n").expect("write");
    symlink(outer.join("secret.txt"), root.join("link_out")).expect("symlink");
    symlink(outer.join("outside"), root.join("dir_out")).expect("symlink");
    symlink(outer.join("not_there.txt"), root.join("dangling")).expect("symlink");
    let ws = Workspace::new(&root, false).expect("workspace");
    Fixture {
        _outer: outer_dir,
        outer,
        root,
        ctx: ToolContext::for_workspace(Arc::new(ws)),
    }
}

impl Fixture {
    async fn run(&self, tool: &dyn Tool, input: Value) -> ToolOutput {
        tool.run(input, self.ctx.clone()).await
    }

    /// Every file outside ws/ with its content (symlinks are not followed).
    fn outside_snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.outer.clone()];
        while let Some(dir) = stack.pop() {
            for e in fs::read_dir(&dir).expect("ls").flatten() {
                let p = e.path();
                if p == self.root {
                    continue;
                }
                let t = e.file_type().expect("type");
                if t.is_dir() {
                    stack.push(p);
                } else {
                    out.insert(p.clone(), fs::read(&p).unwrap_or_default());
                }
            }
        }
        out
    }
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).expect("read")
}

#[tokio::test]
async fn escapes_are_refused_for_read_write_and_edit() {
    let f = fixture();
    let before = f.outside_snapshot();
    let passwd_before = fs::read("/etc/passwd").ok();
    let absolute_outside = f.outer.join("abs.txt").display().to_string();
    let escapes = [
        "../secret.txt",
        "../new.txt",
        "/etc/passwd",
        absolute_outside.as_str(),
        "sub/../../escape.txt",
        "link_out",
        "dir_out/x.txt",
        "dir_out/new.txt",
        "dir_out/deeper/new.txt",
        "dangling",
    ];
    for path in escapes {
        let r = f.run(&ReadFile, json!({"path": path})).await;
        let w = f
            .run(&WriteFile, json!({"path": path, "content": "pwned\n"}))
            .await;
        let e = f
            .run(
                &EditFile,
                json!({"path": path, "old_string": "secret", "new_string": "pwned"}),
            )
            .await;
        for (tool, out) in [("read_file", r), ("write_file", w), ("edit_file", e)] {
            assert!(
                out.is_error,
                "{tool} {path} was not refused: {}",
                out.content
            );
            assert!(
                out.content.contains("outside the workspace root")
                    || out.content.contains("symlink"),
                "{tool} {path}: the refusal names the rule: {}",
                out.content
            );
        }
    }
    assert_eq!(
        f.outside_snapshot(),
        before,
        "nothing outside the workspace changed"
    );
    assert!(!f.outer.join("not_there.txt").exists());
    assert!(!f.outer.join("outside/deeper").exists());
    assert_eq!(fs::read("/etc/passwd").ok(), passwd_before);
    // The workspace itself only holds what the fixture put there.
    let mut names: Vec<String> = fs::read_dir(&f.root)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["dangling", "dir_out", "link_out"]);
}

#[tokio::test]
async fn symlinks_inside_the_workspace_are_followed_and_kept() {
    let f = fixture();
    fs::write(f.root.join("real.txt"), "one\n").expect("write");
    symlink(f.root.join("real.txt"), f.root.join("alias.txt")).expect("symlink");
    let out = f
        .run(&WriteFile, json!({"path": "alias.txt", "content": "two\n"}))
        .await;
    assert_eq!(
        out,
        ToolOutput::ok("Overwrote real.txt (4 bytes; it had 4 bytes)")
    );
    assert_eq!(read(&f.root.join("real.txt")), "two\n");
    assert!(
        f.root
            .join("alias.txt")
            .symlink_metadata()
            .expect("meta")
            .file_type()
            .is_symlink()
    );
}

#[tokio::test]
async fn write_file_creates_parents_and_reports_created_or_overwrote() {
    let f = fixture();
    let out = f
        .run(
            &WriteFile,
            json!({"path": "a/b/c.txt", "content": "héllo\n"}),
        )
        .await;
    assert_eq!(out, ToolOutput::ok("Created a/b/c.txt (7 bytes)"));
    assert_eq!(read(&f.root.join("a/b/c.txt")), "héllo\n");
    let out = f
        .run(&WriteFile, json!({"path": "a/b/c.txt", "content": ""}))
        .await;
    assert_eq!(
        out,
        ToolOutput::ok("Overwrote a/b/c.txt (0 bytes; it had 7 bytes)")
    );
    assert_eq!(read(&f.root.join("a/b/c.txt")), "");
    // The temp file of the atomic write is gone.
    let names: Vec<_> = fs::read_dir(f.root.join("a/b"))
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["c.txt"]);
    let out = f
        .run(&WriteFile, json!({"path": "a", "content": "x"}))
        .await;
    assert!(
        out.is_error && out.content.contains("is a directory"),
        "{}",
        out.content
    );
    assert!(f.root.join("a").is_dir());
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"path": path, "old_string": old, "new_string": new})
}

#[tokio::test]
async fn edit_file_replaces_a_unique_string_and_shows_a_diff() {
    let f = fixture();
    fs::write(
        f.root.join("m.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n",
    )
    .expect("write");
    let out = f.run(&EditFile, edit("m.rs", "\"hi\"", "\"hello\"")).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        read(&f.root.join("m.rs")),
        "fn main() {\n    println!(\"hello\");\n}\n"
    );
    assert_eq!(
        out.content,
        "Edited m.rs: replaced 1 occurrence\n--- a/m.rs\n+++ b/m.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    println!(\"hi\");\n+    println!(\"hello\");\n }"
    );
}

#[tokio::test]
async fn edit_file_absent_ambiguous_and_replace_all() {
    let f = fixture();
    let p = f.root.join("t.txt");
    fs::write(&p, "a x\nb x\nc x\n").expect("write");
    let out = f.run(&EditFile, edit("t.txt", "y", "z")).await;
    assert!(
        out.is_error && out.content.contains("not found in t.txt"),
        "{}",
        out.content
    );
    let out = f.run(&EditFile, edit("t.txt", "x", "z")).await;
    assert!(out.is_error, "{}", out.content);
    assert!(out.content.contains("occurs 3 times"), "{}", out.content);
    assert_eq!(
        read(&p),
        "a x\nb x\nc x\n",
        "a refused edit changes nothing"
    );
    let out = f
        .run(
            &EditFile,
            json!({"path": "t.txt", "old_string": "x", "new_string": "z", "replace_all": true}),
        )
        .await;
    assert!(
        !out.is_error
            && out
                .content
                .starts_with("Edited t.txt: replaced 3 occurrences"),
        "{}",
        out.content
    );
    assert_eq!(read(&p), "a z\nb z\nc z\n");
}

#[tokio::test]
async fn edit_file_refuses_empty_identical_missing_and_non_utf8() {
    let f = fixture();
    fs::write(f.root.join("t.txt"), "abc\n").expect("write");
    let e = f.run(&EditFile, edit("t.txt", "", "x")).await;
    assert!(
        e.is_error && e.content.contains("old_string is empty"),
        "{}",
        e.content
    );
    let e = f.run(&EditFile, edit("t.txt", "abc", "abc")).await;
    assert!(
        e.is_error && e.content.contains("identical"),
        "{}",
        e.content
    );
    let e = f.run(&EditFile, edit("nope.txt", "a", "b")).await;
    assert!(
        e.is_error && e.content.contains("does not exist"),
        "{}",
        e.content
    );
    assert!(!f.root.join("nope.txt").exists());
    let latin1 = b"caf\xe9 au lait\n";
    fs::write(f.root.join("l1.txt"), latin1).expect("write");
    let e = f.run(&EditFile, edit("l1.txt", "lait", "milk")).await;
    assert!(
        e.is_error && e.content.contains("not valid UTF-8"),
        "{}",
        e.content
    );
    assert_eq!(fs::read(f.root.join("l1.txt")).expect("read"), latin1);
}

#[tokio::test]
async fn edit_file_keeps_crlf_line_endings() {
    let f = fixture();
    let p = f.root.join("w.txt");
    fs::write(&p, "one\r\ntwo\r\nthree\r\n").expect("write");
    // old_string written with \n, as a model would, matches the CRLF text.
    let out = f
        .run(
            &EditFile,
            edit("w.txt", "one\ntwo\n", "uno\ndos\ndos bis\n"),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains("CRLF line endings kept"),
        "{}",
        out.content
    );
    assert!(
        out.content
            .contains("-one\n-two\n+uno\n+dos\n+dos bis\n three"),
        "{}",
        out.content
    );
    assert_eq!(read(&p), "uno\r\ndos\r\ndos bis\r\nthree\r\n");

    // Mixed endings: the CRLF part is matched when old_string's \n is taken as \r\n.
    let m = f.root.join("mixed.txt");
    fs::write(&m, "lf line\ncr a\r\ncr b\r\n").expect("write");
    let out = f
        .run(&EditFile, edit("mixed.txt", "cr a\ncr b", "CR A\nCR B"))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(read(&m), "lf line\nCR A\r\nCR B\r\n");
}

#[tokio::test]
async fn allow_outside_workspace_lifts_confinement() {
    let f = fixture();
    let open = Workspace::new(&f.root, true).expect("workspace");
    let ctx = ToolContext::for_workspace(Arc::new(open));
    let out = WriteFile
        .run(
            json!({"path": "../lifted.txt", "content": "ok\n"}),
            ctx.clone(),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(read(&f.outer.join("lifted.txt")), "ok\n");
    let out = ReadFile.run(json!({"path": "link_out"}), ctx).await;
    assert_eq!(out, ToolOutput::ok("     1\tsecret"));
}

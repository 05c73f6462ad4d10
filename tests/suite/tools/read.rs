//! The read-only tools against real files in a temp dir (and web_fetch against a real HTTP
//! server on 127.0.0.1).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tooloop::tools::{Tool, ToolContext, ToolOutput, Workspace};
use tooloop::tools::{get_current_time, glob, grep, list_dir, read_file, web_fetch};

fn workspace() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = Workspace::new(dir.path(), false).expect("workspace");
    (dir, ToolContext::for_workspace(Arc::new(ws)))
}

fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    fs::write(p, content).expect("write");
}

async fn run(tool: &dyn Tool, input: Value, ctx: &ToolContext) -> ToolOutput {
    tool.run(input, ctx.clone()).await
}

fn ok(out: ToolOutput) -> String {
    assert!(!out.is_error, "expected success, got: {}", out.content);
    out.content
}

fn err(out: ToolOutput) -> String {
    assert!(out.is_error, "expected an error, got: {}", out.content);
    out.content
}

#[tokio::test]
async fn read_file_numbers_lines_like_cat_n() {
    let (d, ctx) = workspace();
    write(d.path(), "a.txt", "first\nsecond\r\nthird\n");
    let out = ok(run(&read_file::ReadFile, json!({"path": "a.txt"}), &ctx).await);
    assert_eq!(out, "     1\tfirst\n     2\tsecond\n     3\tthird");
    // The exact format the demo model parses: number right-aligned in 6, a tab, the text.
    for (i, line) in out.lines().enumerate() {
        assert_eq!(
            line.split_once('\t').expect("tab").0.trim(),
            (i + 1).to_string()
        );
    }
}

#[tokio::test]
async fn read_file_offset_limit_and_continuation_note() {
    let (d, ctx) = workspace();
    let body: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    write(d.path(), "ten.txt", body);
    let out = ok(run(
        &read_file::ReadFile,
        json!({"path": "ten.txt", "offset": 4, "limit": 3}),
        &ctx,
    )
    .await);
    assert_eq!(
        out,
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n… 4 more lines; use offset=7 to read on"
    );
    let out = ok(run(
        &read_file::ReadFile,
        json!({"path": "ten.txt", "offset": 10}),
        &ctx,
    )
    .await);
    assert_eq!(out, "    10\tline 10");
    let out = run(
        &read_file::ReadFile,
        json!({"path": "ten.txt", "offset": 11}),
        &ctx,
    )
    .await;
    assert!(out.content.contains("past the end"), "{}", out.content);
}

#[tokio::test]
async fn read_file_default_limit_is_2000_lines_and_long_lines_are_cut() {
    let (d, ctx) = workspace();
    let body: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    write(d.path(), "long.txt", body);
    let mut big = ctx.clone();
    big.max_output_bytes = 1_000_000;
    let out = ok(run(&read_file::ReadFile, json!({"path": "long.txt"}), &big).await);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2001);
    assert_eq!(lines[1999], "  2000\t2000");
    assert_eq!(lines[2000], "… 500 more lines; use offset=2001 to read on");

    write(d.path(), "wide.txt", "x".repeat(2500));
    let out = ok(run(&read_file::ReadFile, json!({"path": "wide.txt"}), &ctx).await);
    assert!(
        out.ends_with(&format!(
            "{}… [line cut: 500 more characters]",
            "x".repeat(10)
        )),
        "{}",
        &out[out.len() - 60..]
    );
}

#[tokio::test]
async fn read_file_refuses_binary_non_utf8_huge_and_directories() {
    let (d, ctx) = workspace();
    // Binary that is no image (PNG, JPEG, GIF and WebP files are images: tests/suite/agent/images.rs).
    write(d.path(), "blob.bin", b"\x7fELF\x02\x01\x01\0\0\0\0\0");
    write(d.path(), "latin1.txt", b"caf\xe9\n");
    write(d.path(), "sub/x", "x");
    let huge = fs::File::create(d.path().join("huge.log")).expect("create");
    huge.set_len(11 * 1024 * 1024).expect("sparse file");
    let cases = [
        ("blob.bin", "binary"),
        ("latin1.txt", "not valid UTF-8"),
        ("huge.log", "10 MiB"),
        ("sub", "use list_dir"),
        ("missing.txt", "cannot read missing.txt"),
    ];
    for (path, expect) in cases {
        let e = err(run(&read_file::ReadFile, json!({"path": path}), &ctx).await);
        assert!(e.contains(expect), "{path}: {e}");
    }
}

#[tokio::test]
async fn list_dir_sorts_marks_dirs_and_symlinks() {
    let (d, ctx) = workspace();
    write(d.path(), "b.txt", "b");
    write(d.path(), "a.txt", "a");
    write(d.path(), "src/main.rs", "fn main() {}");
    write(d.path(), ".hidden", "h");
    std::os::unix::fs::symlink("a.txt", d.path().join("link")).expect("symlink");
    std::os::unix::fs::symlink("src", d.path().join("srclink")).expect("symlink");
    let out = ok(run(&list_dir::ListDir, json!({}), &ctx).await);
    assert_eq!(
        out,
        ".hidden\na.txt\nb.txt\nlink -> a.txt\nsrc/\nsrclink/ -> src"
    );
    let out = ok(run(&list_dir::ListDir, json!({"path": "src"}), &ctx).await);
    assert_eq!(out, "main.rs");
    let e = err(run(&list_dir::ListDir, json!({"path": "a.txt"}), &ctx).await);
    assert!(e.contains("not a directory"), "{e}");
    let e = err(run(&list_dir::ListDir, json!({"path": ".."}), &ctx).await);
    assert!(e.contains("outside the workspace root"), "{e}");
}

#[tokio::test]
async fn list_dir_caps_entries_with_a_note() {
    let (d, ctx) = workspace();
    for i in 0..1005 {
        write(d.path(), &format!("many/f{i:04}"), "");
    }
    let out = ok(run(&list_dir::ListDir, json!({"path": "many"}), &ctx).await);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[0], "f0000");
    assert_eq!(lines[999], "f0999");
    assert!(
        lines[1000].starts_with("… 5 more entries"),
        "{}",
        lines[1000]
    );
}

fn project(root: &Path) {
    write(root, ".gitignore", "target/\n*.log\n");
    write(
        root,
        "src/main.rs",
        "fn main() {\n    // TODO: greet\n    println!(\"hi\");\n}\n",
    );
    write(root, "src/lib.rs", "pub mod todo; // todo list\n");
    write(root, "src/deep/mod.rs", "// nothing here\n");
    write(root, "target/debug/gen.rs", "// TODO generated\n");
    write(root, "debug.log", "TODO in a log\n");
    write(root, "blob.bin", b"TODO\0\0binary");
    write(root, "README.md", "# TODO list\n");
    write(root, ".github/ci.yml", "# TODO ci\n");
}

#[tokio::test]
async fn glob_matches_relative_paths_and_honours_gitignore() {
    let (d, ctx) = workspace();
    project(d.path());
    let out = ok(run(&glob::Glob, json!({"pattern": "**/*.rs"}), &ctx).await);
    assert_eq!(out, "src/deep/mod.rs\nsrc/lib.rs\nsrc/main.rs");
    let out = ok(run(&glob::Glob, json!({"pattern": "*.rs", "path": "src"}), &ctx).await);
    assert_eq!(out, "src/lib.rs\nsrc/main.rs");
    let out = ok(run(&glob::Glob, json!({"pattern": "*.log"}), &ctx).await);
    assert!(out.starts_with("No files match"), "{out}");
    let out = ok(run(&glob::Glob, json!({"pattern": "*.yml"}), &ctx).await);
    assert!(out.contains("try **/*.yml"), "{out}");
    let out = ok(run(&glob::Glob, json!({"pattern": "**/*.yml"}), &ctx).await);
    assert_eq!(out, ".github/ci.yml");
    let e = err(run(&glob::Glob, json!({"pattern": "a[", "path": "src"}), &ctx).await);
    assert!(e.contains("invalid glob"), "{e}");
    let e = err(run(&glob::Glob, json!({"pattern": "*", "path": "../"}), &ctx).await);
    assert!(e.contains("outside the workspace root"), "{e}");
}

#[tokio::test]
async fn glob_caps_results_with_a_note() {
    let (d, ctx) = workspace();
    for i in 0..1010 {
        write(d.path(), &format!("g/{i:04}.txt"), "");
    }
    let out = ok(run(&glob::Glob, json!({"pattern": "g/*.txt"}), &ctx).await);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert!(
        lines[1000].contains("10 more matches not shown (1010 in all)"),
        "{}",
        lines[1000]
    );
}

#[tokio::test]
async fn grep_finds_lines_honours_gitignore_and_skips_binary() {
    let (d, ctx) = workspace();
    project(d.path());
    let out = ok(run(&grep::Grep, json!({"pattern": "TODO"}), &ctx).await);
    assert_eq!(
        out,
        ".github/ci.yml:1:# TODO ci\nREADME.md:1:# TODO list\nsrc/main.rs:2:    // TODO: greet"
    );
    let out = ok(run(
        &grep::Grep,
        json!({"pattern": "todo", "case_insensitive": true, "glob": "*.rs"}),
        &ctx,
    )
    .await);
    assert_eq!(
        out,
        "src/lib.rs:1:pub mod todo; // todo list\nsrc/main.rs:2:    // TODO: greet"
    );
    let out = ok(run(
        &grep::Grep,
        json!({"pattern": "^pub", "path": "src/lib.rs"}),
        &ctx,
    )
    .await);
    assert_eq!(out, "src/lib.rs:1:pub mod todo; // todo list");
    // An explicit path is searched even when .gitignore lists it.
    let out = ok(run(
        &grep::Grep,
        json!({"pattern": "TODO", "path": "debug.log"}),
        &ctx,
    )
    .await);
    assert_eq!(out, "debug.log:1:TODO in a log");
    let out = ok(run(&grep::Grep, json!({"pattern": "binary"}), &ctx).await);
    assert!(
        out.starts_with("No matches") && out.contains("1 binary files skipped"),
        "{out}"
    );
    let out = ok(run(
        &grep::Grep,
        json!({"pattern": "fn", "glob": "src/deep/*"}),
        &ctx,
    )
    .await);
    assert!(out.starts_with("No matches"), "{out}");
}

#[tokio::test]
async fn grep_reports_invalid_regex_and_escapes() {
    let (d, ctx) = workspace();
    project(d.path());
    let e = err(run(&grep::Grep, json!({"pattern": "fn (main"}), &ctx).await);
    assert!(
        e.contains("invalid regex") && e.contains("unclosed group"),
        "{e}"
    );
    let e = err(run(
        &grep::Grep,
        json!({"pattern": "root", "path": "/etc"}),
        &ctx,
    )
    .await);
    assert!(e.contains("outside the workspace root"), "{e}");
}

#[tokio::test]
async fn grep_caps_matches_with_a_note() {
    let (d, ctx) = workspace();
    let body: String = (0..150).map(|i| format!("hit {i}\n")).collect();
    write(d.path(), "a.txt", &body);
    write(d.path(), "b.txt", &body);
    let out = ok(run(&grep::Grep, json!({"pattern": "hit"}), &ctx).await);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 201);
    assert_eq!(lines[199], "b.txt:50:hit 49");
    assert_eq!(
        lines[200],
        "… 100 more matches not shown (300 matches in 2 files); narrow the search with path or glob"
    );
}

#[tokio::test]
async fn get_current_time_names_zone_and_weekday() {
    let (_d, ctx) = workspace();
    let out = ok(run(
        &get_current_time::GetCurrentTime,
        json!({"timezone": "UTC"}),
        &ctx,
    )
    .await);
    let re = regex::Regex::new(
        r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00 \(UTC, (Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\)$",
    )
    .expect("regex");
    assert!(re.is_match(&out), "{out}");
    let out = ok(run(&get_current_time::GetCurrentTime, json!({}), &ctx).await);
    assert!(out.contains("day)"), "{out}");
    let e = err(run(
        &get_current_time::GetCurrentTime,
        json!({"timezone": "Nowhere/Atlantis"}),
        &ctx,
    )
    .await);
    assert!(e.contains("Nowhere/Atlantis"), "{e}");
}

/// A tiny HTTP/1.1 server: one response per connection, chosen by path.
async fn http_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut req = Vec::new();
                let mut buf = [0u8; 1024];
                while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => req.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&req);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let (status, ctype, body): (&str, &str, Vec<u8>) = match path.as_str() {
                    "/text" => ("200 OK", "text/plain; charset=utf-8", b"hello from 127.0.0.1\n".to_vec()),
                    "/page" => (
                        "200 OK",
                        "text/html",
                        b"<html><script>var x=1;</script><h1>Title</h1><p>Body &amp; soul</p></html>".to_vec(),
                    ),
                    "/json" => ("200 OK", "application/json", br#"{"ok":true}"#.to_vec()),
                    "/png" => ("200 OK", "image/png", b"\x89PNG\r\n\x1a\n\0\0".to_vec()),
                    "/hang" => {
                        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                        return;
                    }
                    "/big" => {
                        // No content-length: the body streams until we stop reading.
                        let _ = sock
                            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n")
                            .await;
                        let chunk = vec![b'a'; 16 * 1024];
                        for _ in 0..640 {
                            if sock.write_all(&chunk).await.is_err() {
                                return;
                            }
                        }
                        return;
                    }
                    _ => ("404 Not Found", "text/plain", b"no such page".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}")
}

fn fetch_ctx() -> (tempfile::TempDir, ToolContext) {
    let (d, mut ctx) = workspace();
    ctx.http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    ctx.max_output_bytes = 1_000_000;
    (d, ctx)
}

#[tokio::test]
async fn web_fetch_gets_text_and_strips_html() {
    let base = http_server().await;
    let (_d, ctx) = fetch_ctx();
    let wf = web_fetch::WebFetch;
    let out = ok(run(&wf, json!({"url": format!("{base}/text")}), &ctx).await);
    assert!(
        out.starts_with(&format!("{base}/text — HTTP 200, text/plain")),
        "{out}"
    );
    assert!(out.ends_with("hello from 127.0.0.1\n"), "{out}");
    let out = ok(run(&wf, json!({"url": format!("{base}/page")}), &ctx).await);
    assert!(
        out.contains("Title") && out.contains("Body & soul"),
        "{out}"
    );
    assert!(!out.contains("var x") && !out.contains("<p>"), "{out}");
    let out = ok(run(&wf, json!({"url": format!("{base}/json")}), &ctx).await);
    assert!(out.ends_with(r#"{"ok":true}"#), "{out}");
}

#[tokio::test]
async fn web_fetch_refuses_non_text_bad_schemes_and_reports_status() {
    let base = http_server().await;
    let (_d, ctx) = fetch_ctx();
    let wf = web_fetch::WebFetch;
    let e = err(run(&wf, json!({"url": format!("{base}/png")}), &ctx).await);
    assert!(e.contains("image/png") && e.contains("not text"), "{e}");
    let e = err(run(&wf, json!({"url": format!("{base}/missing")}), &ctx).await);
    assert!(e.contains("HTTP 404") && e.contains("no such page"), "{e}");
    let e = err(run(&wf, json!({"url": "file:///etc/passwd"}), &ctx).await);
    assert!(e.contains("only http and https"), "{e}");
    let e = err(run(&wf, json!({"url": "not a url"}), &ctx).await);
    assert!(e.contains("not a valid URL"), "{e}");
}

#[tokio::test]
async fn web_fetch_stops_at_the_size_cap() {
    let base = http_server().await;
    let (_d, ctx) = fetch_ctx();
    let out = ok(run(
        &web_fetch::WebFetch,
        json!({"url": format!("{base}/big"), "max_bytes": 50_000}),
        &ctx,
    )
    .await);
    let body = |out: &str| {
        let start = out.find("\n\n").expect("header") + 2;
        let end = out.rfind("\n[body cut").expect("cut note");
        out[start..end].to_string()
    };
    assert_eq!(body(&out), "a".repeat(50_000));
    assert!(
        out.ends_with("[body cut at 50000 bytes; raise max_bytes to read more]"),
        "{out:.100}"
    );
    let out = ok(run(
        &web_fetch::WebFetch,
        json!({"url": format!("{base}/big")}),
        &ctx,
    )
    .await);
    assert_eq!(body(&out).len(), web_fetch::DEFAULT_MAX_BYTES);
}

#[tokio::test]
async fn web_fetch_stops_when_cancelled() {
    let base = http_server().await;
    let (_d, ctx) = fetch_ctx();
    let cancel = ctx.cancel.clone();
    let task = tokio::spawn({
        let ctx = ctx.clone();
        async move {
            run(
                &web_fetch::WebFetch,
                json!({"url": format!("{base}/hang")}),
                &ctx,
            )
            .await
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    cancel.cancel();
    let out = tokio::time::timeout(std::time::Duration::from_secs(5), task)
        .await
        .expect("returns promptly after cancel")
        .expect("join");
    assert!(
        out.is_error && out.content.contains("cancelled"),
        "{}",
        out.content
    );
}

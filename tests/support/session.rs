//! A sandbox for running the real binary: HOME and the XDG directories in a temp dir, API
//! keys and tooloop's own variables cleared, a workspace of its own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tooloop::message::{Message, validate_history};

pub struct Sandbox {
    pub root: tempfile::TempDir,
    pub workspace: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let root = tempfile::tempdir().expect("temp dir");
        let workspace = root.path().join("work");
        std::fs::create_dir_all(&workspace).expect("workspace");
        std::fs::create_dir_all(root.path().join("home")).expect("home");
        std::fs::write(workspace.join("notes.txt"), "hello\n").expect("a file");
        Sandbox { root, workspace }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.path("data/tooloop/sessions")
    }

    pub fn config_file(&self) -> PathBuf {
        self.path("config/tooloop/config.toml")
    }

    /// The binary, with the sandbox's environment and workspace as current directory.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tooloop"));
        c.current_dir(&self.workspace)
            .env("HOME", self.path("home"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env("XDG_CACHE_HOME", self.path("cache"))
            // -p reads piped stdin as context: never the test runner's stdin.
            .stdin(std::process::Stdio::null());
        for var in [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "TOOLOOP_LOG",
            "TOOLOOP_CONFIG",
            "TOOLOOP_MODEL",
            "TOOLOOP_PROVIDER",
        ] {
            c.env_remove(var);
        }
        c
    }

    /// A headless demo run with `--output-format json`: its exit code, result and stderr.
    pub fn demo(&self, prompt: &str, extra: &[&str]) -> Run {
        let out = self
            .cmd()
            .args([
                "--provider",
                "demo",
                "--output-format",
                "json",
                "-p",
                prompt,
            ])
            .args(extra)
            .output()
            .expect("runs");
        Run::from(out)
    }

    /// The session files, oldest first (their names sort by time).
    pub fn session_files(&self) -> Vec<PathBuf> {
        let Ok(rd) = std::fs::read_dir(self.sessions_dir()) else {
            return Vec::new();
        };
        let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        v.sort();
        v
    }

    /// Every regular file under the sandbox.
    pub fn all_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.push(p);
                }
            }
        }
        let mut v = Vec::new();
        walk(self.root.path(), &mut v);
        v
    }
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    /// The `result` object (the last stdout line).
    pub fn result(&self) -> Value {
        let line = self
            .stdout
            .lines()
            .last()
            .unwrap_or_else(|| panic!("no stdout; code {} stderr {}", self.code, self.stderr));
        serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The result's history, checked against the invariants.
    pub fn messages(&self) -> Vec<Message> {
        let messages: Vec<Message> =
            serde_json::from_value(self.result()["messages"].clone()).expect("messages");
        validate_history(&messages).expect("history is valid");
        messages
    }
}

/// The session id of a transcript file (the header's `id`).
pub fn session_id(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("transcript");
    let header: Value = serde_json::from_str(text.lines().next().expect("header")).expect("json");
    header["id"].as_str().expect("id").to_string()
}

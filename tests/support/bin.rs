//! Runs the real `tooloop` binary headless, isolated from the user's environment and files.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Variables a developer's shell may set that would leak into a test run.
const CLEARED_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_MODEL",
    "OPENAI_MODEL",
    "DEEPSEEK_API_KEY",
    "DEEPSEEK_BASE_URL",
    "MISTRAL_API_KEY",
    "MISTRAL_BASE_URL",
    "RUST_LOG",
    // Telemetry: a developer's collector must not receive the tests' runs.
    "TOOLOOP_TELEMETRY",
    "TOOLOOP_TELEMETRY_LOG_PROMPTS",
    "OTEL_SDK_DISABLED",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_SERVICE_NAME",
    "TRACEPARENT",
    "TRACESTATE",
];

/// A finished run.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// stdout lines that parsed as JSON (all of them, for stream-json).
    pub lines: Vec<Value>,
    /// The temp dir used as HOME / XDG dirs; kept alive for inspection.
    pub home: tempfile::TempDir,
    /// The workspace the run used (cwd and `--workspace`).
    pub workspace: PathBuf,
}

impl Run {
    /// The `result` line (the last one of stream-json, the only one of json).
    pub fn result(&self) -> &Value {
        self.lines
            .iter()
            .rev()
            .find(|l| l["type"] == "result")
            .unwrap_or_else(|| {
                panic!(
                    "no result line\nstdout:\n{}\nstderr:\n{}",
                    self.stdout, self.stderr
                )
            })
    }

    /// The `type` of every line, in order.
    pub fn types(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|l| l["type"].as_str().unwrap_or("").to_string())
            .collect()
    }

    pub fn of_type(&self, ty: &str) -> Vec<&Value> {
        self.lines.iter().filter(|l| l["type"] == ty).collect()
    }

    /// The first tool call's output, which must be an error (a hook or rule refused it).
    pub fn first_tool_error(&self) -> &str {
        let end = self.of_type("tool_end")[0];
        assert_eq!(end["is_error"], true, "{end}");
        end["output"].as_str().unwrap()
    }
}

/// How to run the binary. `Tooloop::new(&["-p", "hi"]).env("ANTHROPIC_API_KEY", "k").run()`.
pub struct Tooloop {
    args: Vec<String>,
    env: Vec<(String, String)>,
    workspace: Option<PathBuf>,
    stdin: Option<String>,
    timeout: Duration,
}

impl Tooloop {
    pub fn new(args: &[&str]) -> Self {
        Tooloop {
            args: args.iter().map(|s| s.to_string()).collect(),
            env: Vec::new(),
            workspace: None,
            stdin: None,
            timeout: Duration::from_secs(60),
        }
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The working directory (and `--workspace`); default an empty dir inside the temp HOME.
    pub fn workspace(mut self, dir: &Path) -> Self {
        self.workspace = Some(dir.to_path_buf());
        self
    }

    pub fn stdin(mut self, text: &str) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// The run is killed (and the test fails) after this long.
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }

    /// Starts the process; finish it with [`wait`] (e.g. after sending SIGINT).
    pub fn spawn(self) -> Spawned {
        let home = tempfile::tempdir().expect("temp HOME");
        let workspace = self.workspace.clone().unwrap_or_else(|| {
            let w = home.path().join("workspace");
            std::fs::create_dir_all(&w).expect("workspace dir");
            w
        });
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tooloop"));
        for key in CLEARED_ENV {
            cmd.env_remove(key);
        }
        let h = home.path();
        cmd.env("HOME", h)
            .env("XDG_CONFIG_HOME", h.join(".config"))
            .env("XDG_DATA_HOME", h.join(".local/share"))
            .env("XDG_STATE_HOME", h.join(".local/state"))
            .env("XDG_CACHE_HOME", h.join(".cache"))
            .env("NO_COLOR", "1")
            .current_dir(&workspace)
            .args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn tooloop");
        if let Some(text) = &self.stdin {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(text.as_bytes()).expect("write stdin");
        }
        Spawned {
            child,
            home,
            workspace,
            timeout: self.timeout,
        }
    }

    pub fn run(self) -> Run {
        self.spawn().wait()
    }
}

pub struct Spawned {
    pub child: Child,
    home: tempfile::TempDir,
    workspace: PathBuf,
    timeout: Duration,
}

impl Spawned {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for exit (killing the process after the timeout) and collects its output.
    pub fn wait(mut self) -> Run {
        use std::io::Read;
        let mut out = self.child.stdout.take().expect("stdout");
        let mut err = self.child.stderr.take().expect("stderr");
        let out_t = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        });
        let err_t = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break Some(s);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stdout = out_t.join().unwrap_or_default();
        let stderr = err_t.join().unwrap_or_default();
        assert!(
            status.is_some(),
            "tooloop did not exit within {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            self.timeout
        );
        let lines = stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        Run {
            code: status.and_then(|s| s.code()),
            stdout,
            stderr,
            lines,
            home: self.home,
            workspace: self.workspace,
        }
    }
}

/// Asserts `validate_history` holds for the `messages` of a result line.
pub fn assert_valid_history(result: &Value) {
    let messages: Vec<tooloop::message::Message> =
        serde_json::from_value(result["messages"].clone()).expect("result.messages parses");
    if let Err(e) = tooloop::message::validate_history(&messages) {
        panic!("invalid history: {e}\n{:#}", result["messages"]);
    }
}

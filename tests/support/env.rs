//! The one gate for tests that need something of the machine (Landlock, tmux): such a test
//! never passes without having run.
//!
//! - `require(key, probe)` runs `probe`; `Ok(v)` gives `Some(v)` and the test goes on.
//! - When the capability is missing and `CI` is set (to anything but `false`/`0`) or
//!   `TOOLOOP_REQUIRE_ALL=1`, the test **fails**, naming itself, the capability and why.
//! - Elsewhere it returns `None` after a `SKIPPED …` line written straight to stderr (not
//!   through `eprintln!`, which the test harness captures and hides for passing tests), so a
//!   local `cargo test` shows every skip.
//! - `TOOLOOP_PRETEND_MISSING=landlock,tmux` makes the named capabilities read as missing
//!   (the probe is not run): how tests/environment.rs checks this gate, and how to see what
//!   CI would say on a machine that has them. Only test support reads it; tooloop never does.
//!
//! `support::env` in the suite; tests/environment.rs, its own binary, includes this file by
//! path.
#![allow(dead_code)]

use std::io::Write;

/// Capabilities the tests gate on, by the key `require` and `TOOLOOP_PRETEND_MISSING` use.
pub const LANDLOCK: &str = "landlock";
pub const TMUX: &str = "tmux";
pub const ACP_CLIENT: &str = "acp-client";
pub const MCP_EVERYTHING: &str = "mcp-everything";

/// Whether a missing capability fails the test: under CI, or when asked for locally.
pub fn strict() -> bool {
    let on = |name: &str| {
        std::env::var(name)
            .map(|v| !matches!(v.trim(), "" | "0" | "false" | "no"))
            .unwrap_or(false)
    };
    on("CI") || on("TOOLOOP_REQUIRE_ALL")
}

/// True when `TOOLOOP_PRETEND_MISSING` names `key` (case-insensitive, comma-separated).
pub fn pretended_missing(key: &str) -> bool {
    std::env::var("TOOLOOP_PRETEND_MISSING")
        .is_ok_and(|v| v.split(',').any(|k| k.trim().eq_ignore_ascii_case(key)))
}

/// `binary::test_name` of the running test (libtest names each test's thread after it).
pub fn test_name() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| match s.rsplit_once('-') {
            // Cargo names test binaries `name-<16 hex digits>`.
            Some((name, hash))
                if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                name.to_string()
            }
            _ => s,
        })
        .unwrap_or_else(|| "test".into());
    let thread = std::thread::current();
    match thread.name() {
        Some(name) if name != "main" => format!("{binary}::{name}"),
        _ => binary,
    }
}

/// `Some(value)` when `probe` finds the capability `key`; else fails the test (strict) or
/// skips it visibly (`None`). The probe's `Err` says what is missing, for the message.
pub fn require<T>(key: &str, probe: impl FnOnce() -> Result<T, String>) -> Option<T> {
    let why = if pretended_missing(key) {
        "TOOLOOP_PRETEND_MISSING names it".to_string()
    } else {
        match probe() {
            Ok(v) => return Some(v),
            Err(why) => why,
        }
    };
    let test = test_name();
    if strict() {
        panic!(
            "{test} needs {key}, which is missing here: {why}. Under CI=true or \
             TOOLOOP_REQUIRE_ALL=1 a missing capability fails the test instead of skipping it."
        );
    }
    // Straight to the process's stderr: the harness captures eprintln! of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {key} is missing here: {why} (CI=true or TOOLOOP_REQUIRE_ALL=1 \
         would fail it)"
    );
    None
}

/// The Landlock ABI this kernel offers, or None (see `require`).
pub fn landlock() -> Option<i32> {
    require(LANDLOCK, || {
        tooloop::sandbox::support().map_err(|e| e.to_string())
    })
}

/// The Landlock ABI when it is at least `min` (`feature` names what that ABI adds), or None
/// (see `require`: an older kernel fails the test under CI like a missing Landlock).
pub fn landlock_abi(min: i32, feature: &str) -> Option<i32> {
    let abi = landlock()?;
    require(&format!("{LANDLOCK}-abi-{min}"), || {
        if abi >= min {
            Ok(abi)
        } else {
            Err(format!(
                "Landlock ABI {abi} has no {feature} (ABI {min} needed)"
            ))
        }
    })
}

/// `tmux -V` runs here (see `require`).
pub fn tmux() -> bool {
    require(TMUX, || {
        match std::process::Command::new("tmux").arg("-V").output() {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!("`tmux -V` exited with {}", o.status)),
            Err(e) => Err(format!("`tmux -V` did not run: {e}")),
        }
    })
    .is_some()
}

/// Node and the official ACP client installed in tests/acp_client (`npm ci` there; CI does
/// it in .ci/run): the folder of the client's script, or None (see `require`).
pub fn acp_client() -> Option<std::path::PathBuf> {
    node_package(
        ACP_CLIENT,
        "tests/acp_client",
        "@agentclientprotocol/sdk/package.json",
    )
}

/// Node and the MCP reference server `server-everything` installed in tests/mcp_everything
/// (`npm ci` there; CI does it in .ci/run): that folder, or None (see `require`).
pub fn mcp_everything() -> Option<std::path::PathBuf> {
    node_package(
        MCP_EVERYTHING,
        "tests/mcp_everything",
        "@modelcontextprotocol/server-everything/package.json",
    )
}

/// `folder` (under the crate) when node runs and `npm ci` there installed `file`.
fn node_package(key: &str, folder: &str, file: &str) -> Option<std::path::PathBuf> {
    require(key, || {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        match std::process::Command::new("node").arg("--version").output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => return Err(format!("`node --version` exited with {}", o.status)),
            Err(e) => return Err(format!("`node --version` did not run: {e}")),
        }
        if !dir.join("node_modules").join(file).is_file() {
            return Err(format!(
                "{} has no node_modules: run `npm ci` there",
                dir.display()
            ));
        }
        Ok(dir)
    })
}

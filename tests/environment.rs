//! What this machine offers the tests that need it (Landlock for the sandbox tests, tmux for
//! the TUI end-to-end tests), and the gate those tests share (`tests/support/env.rs`): under
//! `CI=true` or `TOOLOOP_REQUIRE_ALL=1` a missing capability fails the test naming it;
//! elsewhere the test is skipped with a visible `SKIPPED` line.
//!
//! `.ci/run` runs the first two tests up front (`--nocapture`) so the log says which Landlock
//! ABI the sandbox tests ran against before anything else is built.

#[path = "support/env.rs"]
mod env_support;

use std::process::{Command, Output};

#[test]
fn landlock_is_here() {
    if let Some(abi) = env_support::landlock() {
        println!("Landlock ABI {abi}: the sandbox tests run confined commands");
    }
}

#[test]
fn tmux_is_here() {
    if env_support::tmux() {
        let v = Command::new("tmux").arg("-V").output().expect("tmux -V");
        println!(
            "{}: the TUI end-to-end tests run",
            String::from_utf8_lossy(&v.stdout).trim()
        );
    }
}

/// Reruns one test of this binary in a child process with `env` set on top of a copy of
/// this environment from which every switch of the gate was removed.
fn rerun(test: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
    cmd.args(["--exact", test, "--nocapture", "--test-threads", "1"]);
    for var in ["CI", "TOOLOOP_REQUIRE_ALL", "TOOLOOP_PRETEND_MISSING"] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.output().expect("rerun the test binary")
}

fn text(out: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_missing_capability_fails_under_ci_naming_the_test() {
    for env in [
        [("CI", "true"), ("TOOLOOP_PRETEND_MISSING", "landlock")],
        [
            ("TOOLOOP_REQUIRE_ALL", "1"),
            ("TOOLOOP_PRETEND_MISSING", "landlock"),
        ],
    ] {
        let out = rerun("landlock_is_here", &env);
        let all = text(&out);
        assert!(!out.status.success(), "{env:?} must fail: {all}");
        assert!(
            all.contains("environment::landlock_is_here needs landlock, which is missing here"),
            "{all}"
        );
        assert!(all.contains("test result: FAILED"), "{all}");
    }
}

#[test]
fn a_missing_capability_skips_visibly_elsewhere() {
    for env in [
        [("CI", "false"), ("TOOLOOP_PRETEND_MISSING", "tmux")],
        [("CI", ""), ("TOOLOOP_PRETEND_MISSING", "landlock,tmux")],
    ] {
        let out = rerun("tmux_is_here", &env);
        let all = text(&out);
        assert!(out.status.success(), "{env:?} must pass: {all}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("SKIPPED environment::tmux_is_here: tmux is missing here"),
            "{all}"
        );
        // The test reported nothing of tmux: it did not run past the gate.
        assert!(!all.contains("the TUI end-to-end tests run"), "{all}");
    }
}

/// The skip line goes to the process's stderr even when the harness captures output (no
/// --nocapture): a local run shows every skip.
#[test]
fn the_skip_line_is_not_captured() {
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "landlock_is_here"])
        .env_remove("CI")
        .env_remove("TOOLOOP_REQUIRE_ALL")
        .env("TOOLOOP_PRETEND_MISSING", "LandLock")
        .output()
        .expect("rerun");
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("SKIPPED environment::landlock_is_here"),
        "{all}"
    );
}

#[test]
fn only_the_named_capability_is_pretended_missing() {
    let out = rerun(
        "landlock_is_here",
        &[("TOOLOOP_PRETEND_MISSING", "tmux"), ("CI", "true")],
    );
    let all = text(&out);
    // Landlock itself decides: present → runs and says its ABI; absent → fails under CI
    // with the kernel's own reason, never the pretend switch's.
    assert!(!all.contains("TOOLOOP_PRETEND_MISSING names it"), "{all}");
    match tooloop::sandbox::support() {
        Ok(abi) => assert!(all.contains(&format!("Landlock ABI {abi}")), "{all}"),
        Err(_) => assert!(!out.status.success(), "{all}"),
    }
}

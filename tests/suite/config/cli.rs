//! `tooloop config path|init` and config file errors through the real binary.

use crate::support;

use support::session::Sandbox;

#[test]
fn config_path_names_the_file_the_logs_and_the_sessions() {
    let sb = Sandbox::new();
    let out = sb.cmd().args(["config", "path"]).output().expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let root = sb.root.path().display().to_string();
    assert!(
        text.contains(&format!(
            "config: {root}/config/tooloop/config.toml (not created yet"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("logs: {root}/state/tooloop\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!("sessions: {root}/data/tooloop/sessions\n")),
        "{text}"
    );
}

#[test]
fn config_init_writes_a_default_once() {
    let sb = Sandbox::new();
    let out = sb.cmd().args(["config", "init"]).output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_to_string(sb.config_file()).expect("written");
    assert_eq!(written, tooloop::config_file::DEFAULT_CONFIG);
    std::fs::write(sb.config_file(), "model = \"mine\"\n").expect("edit");
    let again = sb.cmd().args(["config", "init"]).output().expect("runs");
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let kept = std::fs::read_to_string(sb.config_file()).expect("kept");
    assert_eq!(kept, "model = \"mine\"\n", "not overwritten");
    let path = sb.cmd().args(["config", "path"]).output().expect("runs");
    assert!(!String::from_utf8_lossy(&path.stdout).contains("not created yet"));
    // The written default is a valid config for a run.
    std::fs::write(sb.config_file(), tooloop::config_file::DEFAULT_CONFIG).expect("reset");
    let run = sb.demo("hi", &["--no-session"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn run_with_config(text: &str) -> (Sandbox, support::session::Run) {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.config_file().parent().expect("dir")).expect("mkdir");
    std::fs::write(sb.config_file(), text).expect("write");
    let run = sb.demo("hi", &["--no-session"]);
    (sb, run)
}

#[test]
fn an_unknown_key_is_an_error_naming_file_line_and_key() {
    let (sb, run) = run_with_config("model = \"m\"\n\n[tools]\ncolour = \"red\"\n");
    assert_eq!(run.code, 2);
    let want = format!(
        "{}:4: key `tools.colour`: unknown field `colour`",
        sb.config_file().display()
    );
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}

#[test]
fn a_wrong_type_is_an_error_naming_file_line_and_key() {
    let (sb, run) = run_with_config("# mine\nmax_turns = \"many\"\n");
    assert_eq!(run.code, 2);
    let want = format!(
        "{}:2: key `max_turns`: invalid type",
        sb.config_file().display()
    );
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}

#[test]
fn a_bad_permission_rule_is_an_error_naming_file_and_line() {
    let (sb, run) = run_with_config(
        "model = \"m\"\n\n[permissions]\nallow = [\n  \"bash(ls)\",\n  \"bash(unclosed\",\n]\n",
    );
    assert_eq!(run.code, 2);
    let want = format!(
        "{}:6: permission rule \"bash(unclosed\": `TOOL(…)` must end with `)`",
        sb.config_file().display()
    );
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}

#[test]
fn a_named_config_file_must_exist() {
    let sb = Sandbox::new();
    let run = sb.demo("hi", &["--config", "/nonexistent/tooloop.toml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("/nonexistent/tooloop.toml does not exist"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_file_sets_max_turns_and_the_flag_beats_it() {
    let prompt = "read notes.txt";
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.config_file().parent().expect("dir")).expect("mkdir");
    std::fs::write(sb.config_file(), "max_turns = 1\n").expect("write");
    let capped = sb.demo(prompt, &["--no-session"]);
    assert_eq!(capped.code, 3, "{}", capped.stderr);
    assert_eq!(capped.result()["reason"], "max_turns");
    let flag = sb.demo(prompt, &["--no-session", "--max-turns", "4"]);
    assert_eq!(flag.code, 0, "{}", flag.stderr);
    assert_eq!(flag.result()["reason"], "completed");
}

#[test]
fn a_bad_log_filter_is_a_usage_error() {
    let sb = Sandbox::new();
    let run = sb.demo("hi", &["--no-session", "--log-level", "tooloop=loud"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("log filter"), "{}", run.stderr);
    let env = sb
        .cmd()
        .env("TOOLOOP_LOG", "tooloop=debug")
        .args(["--provider", "demo", "--no-session", "-p", "hi"])
        .output()
        .expect("runs");
    assert!(env.status.success());
    let log = sb
        .all_files()
        .into_iter()
        .find(|f| f.to_string_lossy().ends_with(".log"))
        .expect("a log file");
    let text = std::fs::read_to_string(log).expect("read");
    assert!(text.contains("tooloop starts"), "{text}");
}

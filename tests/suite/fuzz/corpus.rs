//! The fuzz targets' checks (tests/support/fuzz) run by the ordinary test suite, on stable:
//! over every committed corpus file in fuzz/corpus/TARGET/, and over each crash a fuzzer
//! found (one named test per crash, its minimized input inline), so CI keeps them fixed
//! without running a fuzzer. FUZZING.md lists the crashes and their fixes.

use crate::support;

use std::path::Path;

use support::fuzz::{acp, claude, files, git, mcp_content, readers, rules, sse, text, tools};

/// Runs `check` over every file in fuzz/corpus/`target`, naming the file that fails.
fn corpus(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "{} is empty", dir.display());
    for path in entries {
        let data = std::fs::read(&path).expect("corpus file");
        let result = std::panic::catch_unwind(|| check(&data));
        assert!(result.is_ok(), "{} fails its check", path.display());
    }
}

#[test]
fn corpus_anthropic_sse() {
    corpus("anthropic_sse", sse::anthropic_sse);
}

#[test]
fn corpus_openai_sse() {
    corpus("openai_sse", sse::openai_sse);
}

#[test]
fn corpus_tool_input() {
    corpus("tool_input", tools::tool_input);
}

#[test]
fn corpus_transcript_load() {
    corpus("transcript_load", files::transcript_load);
}

#[test]
fn corpus_recording_load() {
    corpus("recording_load", files::recording_load);
}

#[test]
fn corpus_claude_settings() {
    corpus("claude_settings", claude::claude_settings);
}

#[test]
fn corpus_git_porcelain() {
    corpus("git_porcelain", git::git_porcelain);
}

#[test]
fn corpus_skill_front_matter() {
    corpus("skill_front_matter", claude::skill_front_matter);
}

#[test]
fn corpus_bash_rules() {
    corpus("bash_rules", rules::bash_rules);
}

#[test]
fn corpus_config_parse() {
    corpus("config_parse", files::config_parse);
}

#[test]
fn corpus_markdown_wrap() {
    corpus("markdown_wrap", text::markdown_wrap);
}

#[test]
fn corpus_html_text() {
    corpus("html_text", readers::html_text);
}

#[test]
fn corpus_hook_decision() {
    corpus("hook_decision", readers::hook_decision);
}

#[test]
fn corpus_agent_definition() {
    corpus("agent_definition", readers::agent_definition);
}

#[test]
fn corpus_command_file() {
    corpus("command_file", readers::command_file);
}

#[test]
fn corpus_mcp_result() {
    corpus("mcp_result", readers::mcp_result);
}

#[test]
fn corpus_mcp_content() {
    corpus("mcp_content", mcp_content::mcp_content);
}

#[test]
fn corpus_stdin_message() {
    corpus("stdin_message", readers::stdin_message);
}

#[test]
fn corpus_acp_jsonrpc() {
    corpus("acp_jsonrpc", acp::acp_jsonrpc);
}

#[test]
fn corpus_sanitize() {
    corpus("sanitize", text::sanitize_all);
}

/// tool_input, crash 1: get_current_time's summary kept a newline of the model's
/// `timezone`, so a tool row could span two lines. Fixed: `one_line` like every other tool.
#[test]
fn regression_tool_input_summary_newline() {
    tools::tool_input(b"{\"patter{\"patn\":\"**/\n.2s\",\"hp\":ath\",\x1en_link\"\"}dangli");
    tools::tool_input(br#"{"timezone": "Europe/Paris\nsecond line"}"#);
}

/// tool_input, crash 2 (found while writing the check, then by the fuzzer): a symlink
/// behind `missing/..` escaped the workspace confinement.
#[test]
fn regression_tool_input_symlink_behind_dotdot() {
    tools::tool_input(b"nope/../etc_link/secret");
    tools::tool_input(br#"{"path": "sub/nope/../../dangling"}"#);
}

/// markdown_wrap, crash 1: "❤️" (a char plus U+FE0F) is two columns but was measured as
/// one, so a line overflowed the pane and lost its end. Fixed: wrap by grapheme cluster.
#[test]
fn regression_markdown_wrap_emoji_presentation() {
    text::markdown_wrap("\u{0}❤\u{fe0f}❤\u{fe0f}❤\u{fe0f} a\u{fe0f} b".as_bytes());
    text::markdown_wrap("\u{1}|a|b|\n|-|-|\n|❤\u{fe0f}❤\u{fe0f}|x|\n".as_bytes());
}

/// markdown_wrap, crash 2: the harness's own width arithmetic overflowed u16 for a first
/// byte of 220 or more (a bug in the check, not in tooloop); widths up to 300 are covered.
#[test]
fn regression_markdown_wrap_width_byte() {
    for first in [219u8, 220, 255] {
        let mut data = vec![first];
        data.extend_from_slice("`中`\n&#27;[31m &#x202e; &#9;x".as_bytes());
        text::markdown_wrap(&data);
    }
}

/// markdown_wrap, crash 8 (`fuzz/crashes/markdown_wrap-hangul-choseong-pair`, 54 s into its
/// run): two Hangul leading consonants are one four-column cluster; in a 5-column pane a
/// quote's continuation line put it after "│ " (six columns) and ratatui dropped it.
/// Fixed: no hanging indent when it leaves less room than the widest cluster.
#[test]
fn regression_markdown_wrap_cluster_wider_than_the_room_after_a_quote_bar() {
    text::markdown_wrap(include_bytes!(
        "../../../fuzz/crashes/markdown_wrap-hangul-choseong-pair"
    ));
    // The same, small: width byte 4 is a 5-column pane.
    text::markdown_wrap("\u{4}> ab \u{1100}\u{1151} cd".as_bytes());
    text::markdown_wrap("\u{4}- ab \u{1100}\u{1151} cd".as_bytes());
}

/// markdown_wrap, crash 9 (`fuzz/crashes/markdown_wrap-space-spacing-mark`, 13 minutes
/// into its fourth run): a space and the Khmer spacing mark U+17C5 are one two-column
/// cluster; the wrapper broke the line at that space and dropped it, and the mark, drawn
/// alone one column wide, overflowed a 3-column pane. Fixed: wrap points are whole
/// clusters of spaces.
#[test]
fn regression_markdown_wrap_space_joined_to_a_spacing_mark() {
    text::markdown_wrap(include_bytes!(
        "../../../fuzz/crashes/markdown_wrap-space-spacing-mark"
    ));
    // The same, small: width byte 2 is a 3-column pane.
    text::markdown_wrap("\u{2}ab \u{17c5}\u{1851}\u{fffd}\u{fffd}".as_bytes());
}

/// bash_rules (seed `redirect_0`, before any fuzzing): the exact-rule path, the one way a
/// guarded delete runs without asking, matched a command's words and ignored its output
/// redirection: `bash(rm -r /tmp/scratch)` let `rm -r /tmp/scratch > ~/.bashrc` run.
#[test]
fn regression_bash_rules_exact_rule_ignored_a_redirection_outside() {
    let mut data = vec![1u8, 0];
    data.extend_from_slice(b"echo hi");
    rules::bash_rules(&data);
}

/// bash_rules (seed `redirect_1`, before any fuzzing): `~u/x` as an output target was taken
/// for a path inside the workspace, but the shell expands it to user u's home:
/// `cargo test &>~u/x` was allowed by the rule `bash`.
#[test]
fn regression_bash_rules_tilde_user_target_is_outside() {
    let mut data = vec![1u8, 37];
    data.extend_from_slice(b"cargo test -- --nocapture");
    rules::bash_rules(&data);
}

/// Crash 7: a bad rule in `.tooloop/settings.toml` was reported without its line. The
/// harness's check (every settings error is `path:line: …`, the line inside the file) and
/// the line of this one, the fourth.
#[test]
fn regression_config_parse_settings_error_names_its_line() {
    let text = "[permissions]\nallow = [\n  \"bash(ls:*)\",\n  \"bash(\",\n]\n";
    files::config_parse(text.as_bytes());
    let e = tooloop::permission::settings::parse(text, Path::new(".tooloop/settings.toml"))
        .expect_err("a bad rule")
        .to_string();
    assert!(e.starts_with(".tooloop/settings.toml:4:"), "{e}");
}

/// agent_definition, crash 10 (fuzzer, first seconds of its first run): a CRLF body. The
/// parser reads lines as `str::lines` does (the prompt has `\n`), which the check's "from
/// the file" did not allow for: a bug in the check, not in tooloop.
#[test]
fn regression_agent_definition_crlf_prompt() {
    readers::agent_definition(
        b"---\nname: reviewer\ndescription: review\n---\nYou \0\0iew c\xff\r\n\nYou co\xf4e.\n",
    );
}

/// mcp_result, crash 11 (fuzzer, its first input): `{"content":[{"type":"text","text":""}]}`
/// became an empty tool result (which the API refuses as an empty text block). Fixed: empty
/// blocks say nothing, so the output says the tool returned no content.
#[test]
fn regression_mcp_result_empty_text_block() {
    readers::mcp_result(br#"{"content":[{"type":"text","text":""}]}"#);
    readers::mcp_result(br#"{"content":[{"type":"text","text":""}],"isError":true}"#);
}

/// git_porcelain, crash 12 (fuzzer, first seconds): a rename whose source field is empty
/// is kept without a source (as tooloop should: the file still changed), but the check's
/// writer wrote it back with no source field, so its next entry was read as the source: a
/// bug in the check, not in tooloop. Fixed: the writer keeps the empty field.
#[test]
fn regression_git_porcelain_rename_without_source() {
    git::git_porcelain(b"\x01R  new name.r2\0\0\0d name.rs\0C  copy.rs\0orig.rs\0UU both.rs\0");
}

/// acp_jsonrpc, crash 13 (fuzzer, 2 minutes into its first run): a request whose id is
/// `999999168.9999999991` was answered with the id `999999169.0`: serde_json's fast float
/// reading does not always give back the number it printed, so a client could not match
/// the answer to its request. Fixed: serde_json's `float_roundtrip`.
#[test]
fn regression_acp_jsonrpc_fractional_id() {
    acp::acp_jsonrpc(include_bytes!(
        "../../../fuzz/crashes/acp_jsonrpc-fractional-id"
    ));
    acp::acp_jsonrpc(br#"{"jsonrpc":"2.0","id":0.1,"method":"initialize","params":{}}"#);
}

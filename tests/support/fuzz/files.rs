//! `transcript_load`, `recording_load`, `config_parse`: files tooloop reads back, damaged in
//! any way (truncated, interleaved, invalid UTF-8). Each loads to something valid or fails
//! with an error that names the file (and the line, where there is one); never a panic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::{ConfigFileError, FileConfig};
use tooloop::export::Conversation;
use tooloop::message::validate_history;
use tooloop::protocol::session_error::SessionError;
use tooloop::session::load;

use super::MAX_INPUT;

pub fn transcript_load(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let path = Path::new("fuzz.jsonl");
    let mut loaded = match load::parse(data, path) {
        Ok(l) => l,
        Err(SessionError::BadLine { line, problem, .. }) => {
            let lines = data.split(|&b| b == b'\n').count();
            assert!(
                (1..=lines).contains(&line),
                "line {line} of {lines}: {problem}"
            );
            assert!(!problem.is_empty());
            return;
        }
        Err(e @ SessionError::Empty { .. }) => {
            assert!(e.to_string().starts_with("fuzz.jsonl"), "{e}");
            return;
        }
        Err(e) => panic!("an error that names no line: {e}"),
    };
    assert!(loaded.good_len as usize <= data.len());
    // What `--resume` does next (agent::attach::attach_with): repair, then the history is used.
    let mut messages = std::mem::take(&mut loaded.messages);
    match load::repair(&mut messages) {
        Ok(_) => {
            if let Err(e) = validate_history(&messages) {
                panic!("repair accepted an invalid history: {e}\n{messages:#?}");
            }
        }
        Err(e) => assert!(e.to_string().contains("damaged"), "{e}"),
    }
    loaded.messages = messages;
    // The rewind list and both exports read the same untrusted file.
    let _ = tooloop::session::rewind::timeline(&loaded, &[]);
    let conv = Conversation {
        title: "fuzz".into(),
        about: vec![loaded.header.workspace.clone()],
        earlier: &loaded.earlier,
        messages: &loaded.messages,
        agents: &loaded.agents,
    };
    let _ = tooloop::export::markdown::markdown(&conv);
    let html = tooloop::export::html::html(&conv, None);
    assert!(
        !html.contains("<script>alert"),
        "unescaped script in the HTML export"
    );
}

fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("tempdir"))
        .path()
}

/// Byte 0: odd = gzip the rest first; byte 1 (when gzipped): where to cut the compressed
/// stream (0: not cut), as a crash mid-write would.
pub fn recording_load(data: &[u8]) {
    if data.len() < 2 || data.len() > MAX_INPUT {
        return;
    }
    let body = &data[2..];
    let bytes = if data[0] % 2 == 1 {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(body).expect("in memory");
        let mut z = gz.finish().expect("in memory");
        if data[1] != 0 {
            let keep = z.len() * usize::from(data[1]) / 256;
            z.truncate(keep);
        }
        z
    } else {
        body.to_vec()
    };
    let path: PathBuf = scratch().join("fuzz.record.jsonl");
    std::fs::write(&path, &bytes).expect("scratch file");
    let rec = match tooloop::recording::reader::read(&path) {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    for entry in &rec.entries {
        let _ = entry.kind.event();
    }
    let _ = rec.header();
    let timeline = tooloop::recording::timeline::timeline(&rec.entries);
    let _ = tooloop::export::timeline_svg::svg(&timeline);
    let n = tooloop::recording::index::count_requests(&path).expect("readable");
    for ordinal in [0, n.saturating_sub(1), n] {
        let _ = tooloop::recording::index::load_request(&path, ordinal).expect("readable");
    }
}

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _key: &str) -> Option<String> {
        None
    }
}

/// config.toml as the user wrote it (invalid UTF-8 is an error before parsing, as in
/// `FileConfig::load`), then the whole resolution a run does with it.
/// The same text as `.tooloop/settings.toml`: its rules, or an error naming the file and
/// a line of it.
fn settings_parse(text: &str) {
    let path = Path::new(".tooloop/settings.toml");
    match tooloop::permission::settings::parse(text, path) {
        Ok(section) => {
            let mut set = tooloop::permission::rules::RuleSet::default();
            set.add_lists("fuzz", &section.allow, &section.ask, &section.deny)
                .expect("parse checked every rule");
        }
        Err(e) => names_its_line(&e.to_string(), ".tooloop/settings.toml", text),
    }
}

/// An error shown as `FILE:LINE: …`, with LINE a line of `text`.
fn names_its_line(shown: &str, file: &str, text: &str) {
    let line: usize = shown
        .strip_prefix(file)
        .and_then(|r| r.strip_prefix(':'))
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an error without the file and line: {shown}"));
    let lines = text.split('\n').count();
    assert!(
        (1..=lines).contains(&line),
        "line {line} of {lines}: {shown}"
    );
}

pub fn config_parse(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    settings_parse(text);
    let path = Path::new("config.toml");
    let file = match FileConfig::parse(text, path) {
        Ok(f) => f,
        Err(e @ ConfigFileError::Invalid { .. }) => {
            let ConfigFileError::Invalid { line, .. } = &e else {
                unreachable!()
            };
            let shown = e.to_string();
            assert!(shown.starts_with("config.toml"), "{shown}");
            let Some(line) = line else {
                panic!("an error without its line: {shown}");
            };
            let lines = text.split('\n').count();
            assert!(
                (1..=lines).contains(line),
                "line {line} of {lines}: {shown}"
            );
            return;
        }
        // A `[permissions]` rule off the grammar names the file and the rule's line.
        Err(e @ ConfigFileError::Rule(_)) => {
            return names_its_line(&e.to_string(), "config.toml", text);
        }
        Err(e) => panic!("unexpected error kind: {e}"),
    };
    match Config::resolve_with(&Cli::default(), &NoEnv, &file) {
        Ok(_) => {}
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

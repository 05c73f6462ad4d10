//! `tooloop export` as main runs it: load the transcript (and the recording, for the
//! timeline), render, write to stdout or `-o FILE`.

use std::io::Write;
use std::path::Path;

use super::{Conversation, html, markdown, timeline_svg};
use crate::cli::ExportFormat;
use crate::recording::RecordError;

/// Returns the exit status (2: no such session or unreadable).
pub fn run(session: &str, format: ExportFormat, output: Option<&Path>) -> i32 {
    match render(session, format) {
        Ok(text) => match write(output, &text) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("tooloop: {e}");
                1
            }
        },
        Err(e) => {
            eprintln!("tooloop: {e}");
            2
        }
    }
}

/// The export of `session` (an id, prefix, transcript or recording path).
pub fn render(session: &str, format: ExportFormat) -> Result<String, RecordError> {
    let source = crate::recording::source::resolve(session)?;
    let transcript = source
        .transcript
        .as_deref()
        .ok_or_else(|| RecordError::NoTranscript(session.to_string()))?;
    render_transcript(transcript, source.recording.as_deref(), format)
}

/// The export of the transcript at `transcript` (and its recording's timeline, for HTML):
/// what `tooloop export` prints and the TUI's `/export` writes, so the two always agree
/// (messages a compaction replaced included).
pub fn render_transcript(
    transcript: &Path,
    recording: Option<&Path>,
    format: ExportFormat,
) -> Result<String, RecordError> {
    let loaded = crate::session::load::read(transcript)?;
    let conv = Conversation {
        title: format!("tooloop session {}", loaded.header.id),
        about: vec![
            format!("created {}", loaded.header.created),
            format!("workspace {}", loaded.header.workspace),
            format!(
                "{} prompts, {} messages",
                loaded.prompts.len(),
                loaded.earlier.len() + loaded.messages.len()
            ),
        ],
        earlier: &loaded.earlier,
        messages: &loaded.messages,
        agents: &loaded.agents,
    };
    Ok(match format {
        ExportFormat::Md => markdown(&conv),
        ExportFormat::Html => {
            let svg = match recording {
                Some(path) => {
                    let rec = crate::recording::read(path).map_err(|e| RecordError::io(path, e))?;
                    Some(timeline_svg::svg(&crate::recording::timeline::timeline(
                        &rec.entries,
                    )))
                }
                None => None,
            };
            html(&conv, svg.as_deref())
        }
    })
}

fn write(output: Option<&Path>, text: &str) -> Result<(), String> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display())),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // `tooloop export ID | head`: the reader had enough; exit quietly, as
                // other CLI tools do (issue 41, item 19).
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| e.to_string()),
            }
        }
    }
}

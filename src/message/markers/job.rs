//! The notice a background job that ended while the model was not looking leaves in the
//! next user message ("background job b1 (npm test) exited with code 0; last lines: …").

const HEAD: &str = "background job ";

/// The notice for job `id` running `command`, which is now `state`, with its last lines.
pub fn notice(id: &str, command: &str, state: &str, last_lines: &[String]) -> String {
    let tail = if last_lines.is_empty() {
        "; no output".to_string()
    } else {
        format!("; last lines:\n{}", last_lines.join("\n"))
    };
    format!("{HEAD}{id} ({command}) {state}{tail}")
}

/// The job's id, if `text` is such a notice.
pub fn parse(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(HEAD)?;
    let (id, rest) = rest.split_once(" (")?;
    // The command may hold anything, newlines too: what follows it is ours.
    let ends = rest.contains("; no output") || rest.contains("; last lines:");
    (!id.is_empty() && !id.contains(char::is_whitespace) && rest.contains(") ") && ends)
        .then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_reads_back_as_its_job() {
        let n = notice("b1", "npm test", "exited with code 0", &["ok".into()]);
        assert_eq!(
            n,
            "background job b1 (npm test) exited with code 0; last lines:\nok"
        );
        assert_eq!(parse(&n), Some("b1"));
        let quiet = notice("b2", "sleep 1", "exited with code 0", &[]);
        assert_eq!(parse(&quiet), Some("b2"));
        let two = notice("b3", "echo a\necho b", "killed", &[]);
        assert_eq!(parse(&two), Some("b3"));
        assert_eq!(
            parse("background job b1 (x) is what I want to discuss"),
            None
        );
    }
}

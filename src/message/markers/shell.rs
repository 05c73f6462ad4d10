//! A `!command` the user ran: the model reads the command and its output as a user
//! message with this header; a resumed conversation shows the command as typed and the
//! first lines of its output.

const HEADER: &str = "[The user ran a shell command in the workspace]";
const STOPPED: &str = "[stopped by the user]";
/// Output lines a resumed conversation shows under the command.
const SHOWN_LINES: usize = 10;

/// The user message for `command`, which printed `output` (and was stopped, if `stopped`).
pub fn render(command: &str, output: &str, stopped: bool) -> String {
    let mut text = format!("{HEADER}\n$ {command}\n{}", output.trim_end());
    if stopped {
        text.push('\n');
        text.push_str(STOPPED);
    }
    text
}

/// The command as typed (`!ls`) and the first lines of its output; None for any other text.
pub fn parse(text: &str) -> Option<(String, String)> {
    let rest = text.strip_prefix(HEADER)?.strip_prefix("\n$ ")?;
    let mut lines = rest.lines();
    let command = lines.next()?;
    let output: Vec<&str> = lines.collect();
    let mut shown = output[..output.len().min(SHOWN_LINES)].join("\n");
    if output.len() > SHOWN_LINES {
        shown.push_str(&format!("\n… {} more lines", output.len() - SHOWN_LINES));
    }
    Some((format!("!{command}"), shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_and_its_output_read_back() {
        let t = render("ls", "a.txt\nb.txt\n", false);
        assert_eq!(
            t,
            "[The user ran a shell command in the workspace]\n$ ls\na.txt\nb.txt"
        );
        assert_eq!(parse(&t), Some(("!ls".into(), "a.txt\nb.txt".into())));
        let stopped = render("sleep 9", "x", true);
        assert!(stopped.ends_with("\n[stopped by the user]"), "{stopped}");
        assert_eq!(
            parse(&stopped),
            Some(("!sleep 9".into(), "x\n[stopped by the user]".into()))
        );
        let long: String = (0..15).map(|i| format!("{i}\n")).collect();
        let (_, shown) = parse(&render("seq 15", &long, false)).unwrap();
        assert!(shown.ends_with("9\n… 5 more lines"), "{shown}");
        assert_eq!(parse("$ ls"), None);
    }
}

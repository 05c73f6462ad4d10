//! A unified diff as the approval box shows it: one styled line per change, numbered as in
//! the file, the file's indentation kept.

use ratatui::text::{Line, Span};

use crate::sanitize::sanitize;
use crate::tui::theme::Theme;

/// A unified diff's body, one styled line per change, each with its line number in the file
/// (the new file's for kept and added lines, the old one's for removed lines) read from the
/// hunk headers. File headers (before the first hunk) are left out: the path is the first
/// line already; a `⋮` line separates hunks.
pub fn lines(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    // (number, sign, text); number None for the hunk separator.
    let mut rows: Vec<(Option<usize>, char, &str)> = Vec::new();
    let (mut old_no, mut new_no) = (0usize, 0usize);
    let mut hunks = 0;
    for l in diff.lines() {
        if let Some(header) = l.strip_prefix("@@") {
            (old_no, new_no) = hunk_starts(header);
            if hunks > 0 {
                rows.push((None, '⋮', ""));
            }
            hunks += 1;
            continue;
        }
        if hunks == 0 || l.starts_with('\\') {
            continue;
        }
        let sign = l.chars().next().unwrap_or(' ');
        let text = l.get(1..).unwrap_or("");
        let n = match sign {
            '-' => {
                old_no += 1;
                old_no - 1
            }
            '+' => {
                new_no += 1;
                new_no - 1
            }
            _ => {
                old_no += 1;
                new_no += 1;
                new_no - 1
            }
        };
        rows.push((Some(n), sign, text));
    }
    let width = rows
        .iter()
        .filter_map(|r| r.0)
        .max()
        .unwrap_or(0)
        .to_string()
        .len();
    rows.into_iter()
        .map(|(n, sign, text)| {
            let Some(n) = n else {
                return Line::styled(format!("{:>width$} ⋮", ""), theme.dim);
            };
            let (sign, st) = match sign {
                '-' => ("-", theme.error),
                '+' => ("+", theme.ok),
                _ => (" ", theme.text),
            };
            Line::from(vec![
                Span::styled(format!("{n:>width$} "), theme.dim),
                Span::styled(format!("{sign} {}", sanitize(text)), st),
            ])
        })
        .collect()
}

/// The first old and new line numbers of a hunk header (`@@ -7,7 +7,8 @@`); 1 when unreadable.
fn hunk_starts(header: &str) -> (usize, usize) {
    let start = |mark: char| {
        header
            .split_whitespace()
            .find_map(|w| w.strip_prefix(mark))
            .and_then(|w| w.split(',').next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1)
            .max(1)
    };
    (start('-'), start('+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn diff_lines_skip_headers_but_keep_changed_lines_that_look_like_them() {
        let diff = "--- a/x.sql\n+++ b/x.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n keep\n\\ No newline at end of file\n";
        let got = text(&lines(diff, &Theme::default()));
        assert_eq!(
            got,
            vec!["1 - -- old comment", "1 + ++ new comment", "2   keep"]
        );
    }

    #[test]
    fn diff_lines_are_numbered_from_the_hunk_headers_and_keep_indentation() {
        let diff =
            "@@ -8,3 +8,3 @@\n     a();\n-    b();\n+    c();\n@@ -98,2 +98,3 @@\n }\n+// end\n";
        let got = text(&lines(diff, &Theme::default()));
        assert_eq!(
            got,
            vec![
                " 8       a();",
                " 9 -     b();",
                " 9 +     c();",
                "   ⋮",
                "98   }",
                "99 + // end",
            ]
        );
    }
}

//! Deciding whether bytes are text, and shaping long lines for the model.

/// Files larger than this are refused by the file tools (a model cannot use them whole).
pub const MAX_TEXT_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// How far into a file we look for a NUL byte, like git and ripgrep do.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// A NUL byte near the start marks a file as binary.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// Why bytes are not text; the Display text is written for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotText {
    #[error(
        "Error: {path} looks like a binary file (it contains NUL bytes); only text files can \
         be read or edited"
    )]
    Binary { path: String },
    #[error(
        "Error: {path} is not valid UTF-8 text (invalid byte at offset {offset}); only UTF-8 \
         text files can be read or edited"
    )]
    NotUtf8 { path: String, offset: usize },
}

/// The bytes as UTF-8 text, or why they are not text.
pub fn as_text<'a>(bytes: &'a [u8], shown_path: &str) -> Result<&'a str, NotText> {
    if looks_binary(bytes) {
        return Err(NotText::Binary {
            path: shown_path.to_string(),
        });
    }
    std::str::from_utf8(bytes).map_err(|e| NotText::NotUtf8 {
        path: shown_path.to_string(),
        offset: e.valid_up_to(),
    })
}

/// The line cut to `max` characters, with a marker saying how many were dropped.
pub fn cut_line(line: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(max) {
        None => line.into(),
        Some((end, _)) => {
            let dropped = line[end..].chars().count();
            format!("{}… [line cut: {dropped} more characters]", &line[..end]).into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_and_utf8_are_told_apart() {
        assert!(looks_binary(b"ab\0cd"));
        assert!(!looks_binary(b"plain text"));
        let mut late_nul = vec![b'a'; BINARY_SNIFF_BYTES];
        late_nul.push(0);
        assert!(!looks_binary(&late_nul));
        assert_eq!(as_text("héllo".as_bytes(), "f"), Ok("héllo"));
        let e = as_text(b"ok\xff\xfe", "f.txt").expect_err("latin-1");
        assert_eq!(
            e,
            NotText::NotUtf8 {
                path: "f.txt".into(),
                offset: 2
            }
        );
        let e = e.to_string();
        assert!(
            e.contains("not valid UTF-8") && e.contains("offset 2"),
            "{e}"
        );
        let e = as_text(b"\0\0", "f.bin").expect_err("binary").to_string();
        assert!(e.contains("binary"), "{e}");
    }

    #[test]
    fn long_lines_are_cut_at_char_boundaries() {
        assert_eq!(cut_line("short", 10), "short");
        assert_eq!(cut_line("ééééé", 2), "éé… [line cut: 3 more characters]");
    }
}

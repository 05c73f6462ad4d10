//! The text blocks an `@path` in a prompt adds: a file or a directory listing headed with
//! its path (an MCP resource, `@SERVER:URI`, headed with that), or a bracketed note that it
//! was not attached. A resumed conversation shows each as one line ([`label`]), not the file.

const ATTACHED: &str = ", attached by the user:";
const NOT_ATTACHED: &str = " was not attached: ";

/// A text file's block: its path, its line count, its text.
pub fn file(shown: &str, lines: usize, body: &str) -> String {
    let s = if lines == 1 { "" } else { "s" };
    format!("File {shown} ({lines} line{s}){ATTACHED}\n\n{body}")
}

/// A directory's block: its path, its entry count, the listing.
pub fn directory(shown: &str, entries: usize, listing: &str) -> String {
    let dir = shown.trim_end_matches('/');
    let ies = if entries == 1 { "y" } else { "ies" };
    format!("Directory {dir}/ ({entries} entr{ies}){ATTACHED}\n\n{listing}")
}

/// An MCP resource's text block (`@SERVER:URI`): where it is from, its line count, its text.
pub fn resource(shown: &str, lines: usize, body: &str) -> String {
    let s = if lines == 1 { "" } else { "s" };
    format!("Resource {shown} ({lines} line{s}){ATTACHED}\n\n{body}")
}

/// The line before an MCP resource's image (the image block follows it).
pub fn resource_image(shown: &str, media_type: &str, size: &str) -> String {
    format!("Resource {shown} ({media_type}, {size}){ATTACHED}")
}

/// Why `@written` was not attached, as the user is told; [`refused_block`] is what the model
/// reads.
pub fn refused(written: &str, why: &str) -> String {
    format!("@{written}{NOT_ATTACHED}{why}")
}

/// The block for a [`refused`] notice.
pub fn refused_block(notice: &str) -> String {
    format!("[{notice}]")
}

/// One line for a block this module wrote ("attached src/ (3 entries)", or the refusal);
/// None for any other text.
pub fn label(text: &str) -> Option<String> {
    let head = text.lines().next()?;
    if let Some(what) = head.strip_suffix(ATTACHED)
        && ["File ", "Directory ", "Resource "]
            .iter()
            .any(|kind| what.starts_with(kind))
    {
        return Some(format!("attached {}", what.split_once(' ')?.1));
    }
    let refused = text.strip_prefix('[')?.strip_suffix(']')?;
    (refused.starts_with('@') && refused.contains(NOT_ATTACHED)).then(|| refused.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_reads_back_as_one_line() {
        let f = file("src/main.rs", 2, "fn main() {}\n");
        assert_eq!(
            f,
            "File src/main.rs (2 lines), attached by the user:\n\nfn main() {}\n"
        );
        assert_eq!(label(&f).as_deref(), Some("attached src/main.rs (2 lines)"));
        let one = file("a", 1, "x");
        assert_eq!(label(&one).as_deref(), Some("attached a (1 line)"));
        let d = directory("src/", 1, "main.rs");
        assert_eq!(
            d,
            "Directory src/ (1 entry), attached by the user:\n\nmain.rs"
        );
        assert_eq!(label(&d).as_deref(), Some("attached src/ (1 entry)"));
        let r = resource("fx:fx://notes", 1, "hello");
        assert_eq!(
            r,
            "Resource fx:fx://notes (1 line), attached by the user:\n\nhello"
        );
        assert_eq!(
            label(&r).as_deref(),
            Some("attached fx:fx://notes (1 line)")
        );
        let i = resource_image("fx:fx://dot", "image/png", "1 KB");
        assert_eq!(
            label(&i).as_deref(),
            Some("attached fx:fx://dot (image/png, 1 KB)")
        );
        let notice = refused("big.log", "it is 2 MB");
        let block = refused_block(&notice);
        assert_eq!(block, "[@big.log was not attached: it is 2 MB]");
        assert_eq!(label(&block), Some(notice));
    }

    #[test]
    fn a_prompt_is_not_taken_for_one() {
        assert_eq!(label("File this bug, please"), None);
        assert_eq!(label("[@x] is my handle"), None);
        assert_eq!(label("[x was not attached: y]"), None);
    }
}

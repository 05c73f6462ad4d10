//! What edit_file searches and replaces, line endings considered (the edit itself and its
//! approval preview share it).

/// What to search and replace. A file that uses CRLF throughout is edited in a \n view
/// (so old_string written with \n matches) and written back with CRLF. A file with mixed
/// endings is matched as it is, or — when that fails — with old_string's \n taken as \r\n.
pub struct Replacement {
    pub content: String,
    pub old: String,
    pub new: String,
    /// The file uses CRLF throughout: it is edited in a \n view and written back with CRLF.
    pub crlf: bool,
}

impl Replacement {
    pub fn plan(text: &str, old: &str, new: &str) -> Self {
        let lf = text.matches('\n').count();
        let crlf = text.matches("\r\n").count();
        if crlf > 0 && crlf == lf {
            return Replacement {
                content: text.replace("\r\n", "\n"),
                old: old.replace("\r\n", "\n"),
                new: new.replace("\r\n", "\n"),
                crlf: true,
            };
        }
        let as_crlf = |s: &str| s.replace("\r\n", "\n").replace('\n', "\r\n");
        if crlf > 0 && !text.contains(old) && text.contains(&as_crlf(old)) {
            return Replacement {
                content: text.to_string(),
                old: as_crlf(old),
                new: as_crlf(new),
                crlf: false,
            };
        }
        Replacement {
            content: text.to_string(),
            old: old.to_string(),
            new: new.to_string(),
            crlf: false,
        }
    }
}

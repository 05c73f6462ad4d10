//! Images attached to a prompt: `@shot.png`, or a path to an image file as terminals paste
//! it on drag and drop (`/home/me/Desktop/shot.png`, `'/path with spaces/a.png'`,
//! `/path\ with\ spaces/a.png`, `file:///…`). The prompt's text is sent as typed; each
//! image follows it as an image block. The user named the file, so it may lie outside the
//! workspace (a screenshot on the desktop); the model gets only the picture.

use std::path::{Path, PathBuf};

use crate::message::image::{ImageSource, human_size, sniff};

/// Why a path may not be read (a permission rule's refusal), or None: images and
/// `@files` ([`super::mentions`]) are checked alike.
pub type DenyCheck<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// An image file the prompt names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// The file name, as the input line shows it (`shot.png`).
    pub name: String,
    pub path: PathBuf,
    pub size: usize,
}

impl Attachment {
    /// `[image shot.png 120 KB]`.
    pub fn label(&self) -> String {
        format!("[image {} {}]", self.name, human_size(self.size))
    }
}

pub(super) use crate::text::words;

/// The path a word names, if it is written as one: `@name`, an absolute path, `~/…`,
/// `./…`, or a `file://` URL.
fn path_of(word: &str, root: &Path) -> Option<PathBuf> {
    if let Some(rest) = word.strip_prefix('@') {
        return (!rest.is_empty()).then(|| root.join(rest));
    }
    if let Some(rest) = word.strip_prefix("file://") {
        return Some(PathBuf::from(rest));
    }
    if let Some(rest) = word.strip_prefix("~/") {
        return std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest));
    }
    if word.starts_with('/') || word.starts_with("./") {
        return Some(root.join(word));
    }
    None
}

/// The image files `prompt` names (read only as far as their first bytes).
pub fn find(prompt: &str, root: &Path) -> Vec<Attachment> {
    let mut found: Vec<Attachment> = Vec::new();
    for word in words(prompt) {
        // `look at @shot.png?`: the word as typed, else without trailing punctuation.
        let trimmed = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        let Some((path, meta)) = [word.as_str(), trimmed]
            .into_iter()
            .filter_map(|w| path_of(w, root))
            .find_map(|p| std::fs::metadata(&p).ok().map(|m| (p, m)))
        else {
            continue;
        };
        if !meta.is_file() || found.iter().any(|a| a.path == path) {
            continue;
        }
        let mut head = [0u8; 16];
        let n = std::fs::File::open(&path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .unwrap_or(0);
        if sniff(&head[..n]).is_some() {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| word.clone());
            found.push(Attachment {
                name,
                path,
                size: meta.len() as usize,
            });
        }
    }
    found
}

/// The image blocks for `prompt`, and a notice for each image that cannot be sent (one a
/// permission rule denies to `read_file` included: naming a file does not lift a rule).
pub fn load(prompt: &str, root: &Path, denied: DenyCheck) -> (Vec<ImageSource>, Vec<String>) {
    let mut images = Vec::new();
    let mut notices = Vec::new();
    for a in find(prompt, root) {
        let real = a.path.canonicalize().unwrap_or_else(|_| a.path.clone());
        if let Some(why) = denied(&a.path).or_else(|| denied(&real)) {
            notices.push(format!("{} not attached: {why}", a.name));
            continue;
        }
        match std::fs::read(&a.path)
            .map_err(|e| e.to_string())
            .and_then(|b| ImageSource::from_bytes(&b).map_err(|e| e.to_string()))
        {
            Ok(image) => {
                notices.push(format!("attached {} (an image)", a.name));
                images.push(image)
            }
            Err(e) => notices.push(format!("{} not attached: {e}", a.name)),
        }
    }
    (images, notices)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn at_names_and_pasted_paths_attach_images_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::write(root.join("shot.png"), PNG).expect("png");
        std::fs::create_dir(root.join("with space")).expect("dir");
        std::fs::write(root.join("with space/b.png"), PNG).expect("png");
        std::fs::write(root.join("notes.png"), "not an image").expect("text");
        let abs = root.join("with space/b.png").display().to_string();
        let escaped = abs.replace(" ", "\\ ");
        let prompt = format!("look at @shot.png, and '{abs}', also {escaped} and @notes.png?");
        let found = find(&prompt, root);
        let names: Vec<&str> = found.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            ["shot.png", "b.png"],
            "the same file once; text is no image"
        );
        assert_eq!(found[0].label(), "[image shot.png 1 KB]");
        let (images, notices) = load(&prompt, root, &|_| None);
        assert_eq!(images.len(), 2);
        assert_eq!(
            notices,
            ["attached shot.png (an image)", "attached b.png (an image)"],
            "the user is told what was attached"
        );
        assert!(find("email me @ noon, see /etc/hostname", root).is_empty());
    }
}

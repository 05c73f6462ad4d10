//! Files and directories a prompt names with `@path`: a text file goes to the model as a
//! text block headed with its path, a directory as its listing. Images named the same way
//! are [`super::attachments`]' (they become image blocks); this module skips them.
//!
//! As for images, the user named the file, so it may lie outside the workspace; but a path
//! a permission rule denies to `read_file` is never read, whichever way it was written
//! (a symlink is checked at both ends).

use std::path::{Path, PathBuf};

use crate::message::ContentBlock;
use crate::message::image::{human_size, sniff};
use crate::message::markers::mention;

/// The largest file an `@` attaches whole (about 25k tokens); larger ones are left to
/// `read_file`, which reads parts.
pub const MAX_MENTION_BYTES: u64 = 100 * 1024;
/// Entries a directory listing shows at most.
const MAX_LISTING: usize = 500;

pub use super::attachments::DenyCheck;

/// Why an `@path` was not attached; the text is for the user and the model alike.
#[derive(Debug, thiserror::Error)]
pub enum NotAttached {
    /// A permission rule's refusal, as the rule check words it.
    #[error("{0}")]
    Denied(String),
    #[error("it is {size}, more than the {limit} an @file may hold (ask for the part you need)")]
    TooLarge { size: String, limit: String },
    #[error("it is a binary file, not text")]
    Binary,
    #[error("it is not UTF-8 text")]
    NotUtf8,
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The refusal a permission rule gives `read_file` on `path`, if any: what an `@` (or an
/// attached image) may not read either.
pub fn read_denied(
    policy: &crate::permission::PermissionPolicy,
    root: &Path,
    path: &Path,
) -> Option<String> {
    let paths = [path.display().to_string()];
    let call = crate::permission::decide::Call {
        tool: "read_file",
        effect: crate::tools::Effect::ReadOnly,
        command: None,
        paths: &paths,
        inside_workspace: path.starts_with(root),
        sandboxed: false,
    };
    let decided = policy.decide(&call, root);
    match (decided.verdict, decided.rule) {
        // Said to the user as much as to the model: the rule, not "read_file was not run".
        (crate::permission::Verdict::Deny(_), Some(r)) => Some(format!(
            "the permission rule deny `{}` in {} forbids reading it",
            r.rule, r.source
        )),
        (crate::permission::Verdict::Deny(why), None) => Some(why),
        _ => None,
    }
}

/// The `@words` of a prompt, as written (without the `@`), each once. An address like
/// `me@host` is not one: the `@` must start the word.
pub fn mentioned(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in super::attachments::words(prompt) {
        let Some(rest) = word.strip_prefix('@') else {
            continue;
        };
        if !rest.is_empty() && !out.iter().any(|w| w == rest) {
            out.push(rest.to_string());
        }
    }
    out
}

/// The path an `@word` names: relative to the workspace, or absolute, or under `~/`.
pub fn resolve(word: &str, root: &Path) -> PathBuf {
    if let Some(rest) = word.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    root.join(word)
}

/// The blocks for the `@`-named files and directories of `prompt`, and a notice for each
/// one that cannot be attached (the model gets the notice too, so it does not think it
/// has the file).
pub fn load(prompt: &str, root: &Path, denied: DenyCheck) -> (Vec<ContentBlock>, Vec<String>) {
    let mut blocks = Vec::new();
    let mut notices = Vec::new();
    for word in mentioned(prompt) {
        // `look at @notes.md.`: the word as typed, else without trailing punctuation.
        let trimmed = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        let Some((written, path)) = [word.as_str(), trimmed]
            .into_iter()
            .filter(|w| !w.is_empty())
            .map(|w| (w, resolve(w, root)))
            .find(|(_, p)| p.exists())
        else {
            continue;
        };
        match attach(written, &path, root, denied) {
            Ok(Some(text)) => blocks.push(ContentBlock::text(text)),
            Ok(None) => {}
            Err(why) => {
                let text = mention::refused(written, &why.to_string());
                blocks.push(ContentBlock::text(mention::refused_block(&text)));
                notices.push(text);
            }
        }
    }
    (blocks, notices)
}

/// The text block for one path; Ok(None) for an image (attached elsewhere).
fn attach(
    written: &str,
    path: &Path,
    root: &Path,
    denied: DenyCheck,
) -> Result<Option<String>, NotAttached> {
    let real = path.canonicalize()?;
    if let Some(why) = denied(path).or_else(|| denied(&real)) {
        return Err(NotAttached::Denied(why));
    }
    let shown = match real.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => written.to_string(),
    };
    let meta = std::fs::metadata(&real)?;
    if meta.is_dir() {
        return listing(&real, &shown).map(Some);
    }
    if meta.len() > MAX_MENTION_BYTES {
        return Err(NotAttached::TooLarge {
            size: human_size(meta.len() as usize),
            limit: human_size(MAX_MENTION_BYTES as usize),
        });
    }
    let bytes = std::fs::read(&real)?;
    if sniff(&bytes[..bytes.len().min(16)]).is_some() {
        return Ok(None);
    }
    let text = crate::tools::text::as_text(&bytes, &shown).map_err(|e| match e {
        crate::tools::text::NotText::Binary { .. } => NotAttached::Binary,
        crate::tools::text::NotText::NotUtf8 { .. } => NotAttached::NotUtf8,
    })?;
    let lines = text.lines().count();
    let body = text.strip_suffix('\n').unwrap_or(text);
    Ok(Some(mention::file(&shown, lines, body)))
}

/// A directory's entries, sorted, directories marked with `/`.
fn listing(dir: &Path, shown: &str) -> Result<String, NotAttached> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    let total = names.len();
    let mut body = names
        .into_iter()
        .take(MAX_LISTING)
        .collect::<Vec<_>>()
        .join("\n");
    if total > MAX_LISTING {
        body.push_str(&format!("\n… {} more", total - MAX_LISTING));
    }
    Ok(mention::directory(shown, total, &body))
}

/// Files the prompt names (`@notes.md`, `@src/`) and images (`@shot.png`, a pasted path)
/// follow its text; nothing a deny rule keeps from read_file is read. Each file attached
/// gets the line a resumed session shows for it; each refusal a notice.
pub(super) fn attach_to_prompt(
    agent: &super::Agent,
    prompt: &str,
    content: &mut Vec<crate::message::ContentBlock>,
) {
    use crate::message::ContentBlock;
    let root = agent.exec.workspace.root().to_path_buf();
    let policy = agent.exec.policy.clone();
    let denied = |p: &Path| read_denied(&policy, &root, p);
    let (files, mut notices) = load(prompt, &root, &denied);
    let (images, image_notices) = super::attachments::load(prompt, &root, &denied);
    notices.extend(image_notices);
    let attached = files.iter().filter_map(|b| match b {
        ContentBlock::Text { text, .. } => {
            crate::message::markers::mention::label(text).filter(|label| !label.starts_with('@'))
        }
        _ => None,
    });
    let notices: Vec<String> = attached.chain(notices).collect();
    for text in notices {
        agent
            .exec
            .events
            .send(crate::protocol::AgentEvent::Notice { text });
    }
    content.extend(files);
    content.extend(
        images
            .into_iter()
            .map(|source| ContentBlock::Image { source }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(b: &ContentBlock) -> &str {
        match b {
            ContentBlock::Text { text, .. } => text,
            _ => "",
        }
    }

    #[test]
    fn mentions_are_at_words_only() {
        assert_eq!(
            mentioned("see @src/main.rs and @'a b.txt' mail me@host, @src/main.rs again @"),
            ["src/main.rs", "a b.txt"]
        );
        assert!(mentioned("no mentions here").is_empty());
    }

    #[test]
    fn files_directories_and_refusals() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("root");
        std::fs::create_dir(root.join("src")).expect("dir");
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n// 你好\n").expect("w");
        std::fs::write(root.join("blob.bin"), b"\0\x01\x02").expect("w");
        std::fs::write(root.join("shot.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").expect("w");
        std::fs::write(root.join(".env"), "SECRET=1\n").expect("w");
        let big = vec![b'a'; MAX_MENTION_BYTES as usize + 1];
        std::fs::write(root.join("big.log"), big).expect("w");
        let deny_env = |p: &Path| {
            p.ends_with(".env")
                .then(|| "the permission rule deny `read_file(.env)` forbids it".to_string())
        };
        let prompt = "fix @src/main.rs, list @src and @. then skip @shot.png @blob.bin @big.log @.env @missing";
        let (blocks, notices) = load(prompt, &root, &deny_env);
        let texts: Vec<&str> = blocks.iter().map(text_of).collect();
        assert_eq!(
            texts[0],
            "File src/main.rs (2 lines), attached by the user:\n\nfn main() {}\n// 你好"
        );
        assert_eq!(
            texts[1],
            "Directory src/ (1 entry), attached by the user:\n\nmain.rs"
        );
        assert!(
            texts[2].starts_with("Directory ./ (5 entries)"),
            "{}",
            texts[2]
        );
        assert!(texts[2].ends_with("\nshot.png\nsrc/"), "{}", texts[2]);
        assert_eq!(notices.len(), 3, "{notices:?}");
        assert_eq!(
            notices[0],
            "@blob.bin was not attached: it is a binary file, not text"
        );
        assert!(
            notices[1].starts_with("@big.log was not attached: it is 101 KB, more than the 100 KB")
        );
        assert!(notices[2].contains("deny `read_file(.env)`"), "{notices:?}");
        assert_eq!(texts.len(), 6, "3 attached + 3 refusals the model reads");
        assert!(!texts.iter().any(|t| t.contains("SECRET")));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_into_a_denied_path_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("ws");
        let secret = dir.path().join("secret");
        std::fs::create_dir_all(&root).expect("ws");
        std::fs::create_dir_all(&secret).expect("secret");
        std::fs::write(secret.join("key"), "PRIVATE\n").expect("w");
        std::os::unix::fs::symlink(secret.join("key"), root.join("link")).expect("link");
        let secret_real = secret.canonicalize().expect("real");
        let deny = move |p: &Path| p.starts_with(&secret_real).then(|| "denied".to_string());
        let (blocks, notices) = load("@link", &root, &deny);
        assert_eq!(notices, ["@link was not attached: denied"]);
        assert!(!blocks.iter().any(|b| text_of(b).contains("PRIVATE")));
    }
}

//! The recursive-delete guard (issue 27): `rm -r`/`rm -rf`/`find … -delete` of a path
//! outside the workspace, of the workspace itself, of `~` or `/` asks even in auto-edit and
//! yolo, and is refused headless unless an allow rule names the command exactly.
//!
//! It reads the command the way [`super::shell`] splits it and follows `cd` between parts,
//! so `cd / && rm -rf *` is caught. A target it cannot know (`$VAR`, a `cd` into one) counts
//! as dangerous.

use std::path::{Path, PathBuf};

use super::rules::normalize;
use super::shell::{self, Parsed};

/// Words that run the next word as a command.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "command", "exec", "nice", "nohup", "time", "xargs", "builtin",
    "timeout", "ionice",
];

/// The first dangerous target of a recursive delete in `parsed`, as written.
pub fn dangerous_delete(parsed: &Parsed, root: &Path, home: Option<&Path>) -> Option<String> {
    // None: the directory is unknown (a `cd` into a variable).
    let mut cwd: Option<PathBuf> = Some(root.to_path_buf());
    for command in &parsed.commands {
        let words = strip_wrappers(shell::command_words(command));
        let Some(head) = words.first() else { continue };
        let name = head.rsplit('/').next().unwrap_or(head);
        let targets: Vec<&String> = match name {
            "cd" | "pushd" => {
                cwd = match (words.get(1).map(String::as_str), &cwd) {
                    (Some(d), _) if d.contains('$') || d == "-" => None,
                    (Some(d), Some(c)) => Some(normalize(c, home, d).absolute),
                    (Some(d), None) if Path::new(d).is_absolute() => {
                        Some(normalize(root, home, d).absolute)
                    }
                    (None, _) => home.map(Path::to_path_buf),
                    _ => None,
                };
                continue;
            }
            "rm" if is_recursive_rm(&words[1..]) => rm_targets(&words[1..]),
            "find" if deletes(&words[1..]) => find_targets(&words[1..]),
            _ => continue,
        };
        let dot = ".".to_string();
        let targets = if targets.is_empty() && name == "find" {
            vec![&dot]
        } else {
            targets
        };
        for t in targets {
            if is_dangerous(t, cwd.as_deref(), root, home) {
                return Some(t.clone());
            }
        }
    }
    None
}

fn strip_wrappers(words: &[String]) -> &[String] {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        let assignment = w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
        if assignment || WRAPPERS.contains(&w) || (i > 0 && w.starts_with('-')) {
            i += 1;
        } else {
            break;
        }
    }
    &words[i..]
}

fn is_recursive_rm(args: &[String]) -> bool {
    args.iter().take_while(|a| a.as_str() != "--").any(|a| {
        a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R']))
    })
}

fn rm_targets(args: &[String]) -> Vec<&String> {
    let mut out = Vec::new();
    let mut options = true;
    for a in args {
        if options && a == "--" {
            options = false;
        } else if options && a.starts_with('-') && a.len() > 1 {
        } else {
            out.push(a);
        }
    }
    out
}

fn deletes(args: &[String]) -> bool {
    args.iter().any(|a| a == "-delete")
        || args.windows(3).any(|w| {
            matches!(w[0].as_str(), "-exec" | "-execdir" | "-ok")
                && w[1].rsplit('/').next() == Some("rm")
                && is_recursive_rm(std::slice::from_ref(&w[2]))
        })
}

fn find_targets(args: &[String]) -> Vec<&String> {
    args.iter()
        .take_while(|a| !a.starts_with('-') && !a.starts_with('(') && a.as_str() != "!")
        .collect()
}

fn is_dangerous(t: &str, cwd: Option<&Path>, root: &Path, home: Option<&Path>) -> bool {
    if t.contains('$') || t.contains('`') {
        return true;
    }
    let base = match cwd {
        Some(c) => c,
        None if Path::new(t).is_absolute() || t.starts_with('~') => root,
        None => return true,
    };
    let p = normalize(base, home, t);
    let stripped = p.absolute.to_string_lossy();
    // `dir/*` and `dir/.` delete the directory's contents: judge the directory.
    let judged = if stripped.ends_with("/*") || t == "*" || t.ends_with("/.") {
        normalize(base, home, t.trim_end_matches('*').trim_end_matches('.'))
    } else {
        p
    };
    match judged.absolute.strip_prefix(root) {
        // The workspace itself (or all of its contents) is as bad as outside.
        Ok(rel) => rel.as_os_str().is_empty(),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(cmd: &str) -> Option<String> {
        dangerous_delete(
            &shell::parse(cmd),
            Path::new("/home/u/ws"),
            Some(Path::new("/home/u")),
        )
    }

    #[test]
    fn recursive_deletes_outside_or_of_the_workspace_are_caught() {
        for cmd in [
            "rm -rf /",
            "rm -rf ~",
            "rm -r ~/",
            "rm -fr ..",
            "rm -R /tmp/x",
            "rm --recursive ../other",
            "rm -rf .",
            "rm -rf /home/u/ws",
            "rm -rf ./",
            "rm -rf $HOME",
            "sudo rm -rf /var/lib",
            "cd / && rm -rf *",
            "cd .. ; rm -rf ws",
            "find / -name x -delete",
            "find ~ -delete",
            "find . -delete",
            "find /tmp -exec rm -rf {} +",
            "echo ok && rm -rf /etc",
            "rm -rf -- /",
            "rm -rf /*",
            "rm -rf *",
        ] {
            assert!(guard(cmd).is_some(), "{cmd}");
        }
    }

    #[test]
    fn ordinary_deletes_inside_are_not_caught() {
        for cmd in [
            "rm -rf build",
            "rm -rf ./target/debug",
            "rm -f /tmp/x",
            "rm file.txt",
            "rm -rf build/*",
            "find src -name '*.o' -delete",
            "cd sub && rm -rf out",
            "echo rm -rf /",
            "ls -R /",
        ] {
            assert_eq!(guard(cmd), None, "{cmd}");
        }
    }
}

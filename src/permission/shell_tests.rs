//! The tokenizer on the shapes of command lines that decide permissions: operators,
//! quotes, redirections, substitutions, here-documents, reserved words.

use super::*;

fn cmds(src: &str) -> Vec<Vec<String>> {
    parse(src).commands
}

fn w(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

#[test]
fn operators_split_and_quotes_join() {
    assert_eq!(
        cmds("cargo test && git status; ls | wc -l || echo 'a && b'"),
        vec![
            w(&["cargo", "test"]),
            w(&["git", "status"]),
            w(&["ls"]),
            w(&["wc", "-l"]),
            w(&["echo", "a && b"])
        ]
    );
    assert_eq!(
        cmds("a&b\nc|&d"),
        vec![w(&["a"]), w(&["b"]), w(&["c"]), w(&["d"])]
    );
    assert_eq!(
        cmds(r#"echo "x\"y" \; z"#),
        vec![w(&["echo", "x\"y", ";", "z"])]
    );
    assert_eq!(cmds("echo a\\\nb"), vec![w(&["echo", "ab"])]);
    assert_eq!(cmds("(cd x; make)"), vec![w(&["cd", "x"]), w(&["make"])]);
    assert_eq!(cmds("ls # rm -rf /"), vec![w(&["ls"])]);
    assert_eq!(cmds("echo a#b"), vec![w(&["echo", "a#b"])]);
    assert_eq!(cmds("echo ''"), vec![w(&["echo", ""])]);
}

#[test]
fn redirections_are_not_words() {
    let p = parse("cargo test 2>&1 > out.txt >>log 2>/dev/null < in.txt &> all");
    assert_eq!(p.commands, vec![w(&["cargo", "test"])]);
    assert_eq!(p.output_targets, w(&["out.txt", "log", "/dev/null", "all"]));
    let p = parse("echo hi >&/tmp/x");
    assert_eq!(p.output_targets, w(&["/tmp/x"]));
    let p = parse("echo x 2> \"my file\"");
    assert_eq!(p.output_targets, w(&["my file"]));
    assert!(!parse("echo >").complete);
}

#[test]
fn substitutions_are_seen_wherever_they_hide() {
    for s in [
        "echo $(rm -rf /)",
        "echo \"$(id)\"",
        "echo `id`",
        "diff <(ls a) <(ls b)",
        "tee >(cat)",
        "echo '$(quoted)'",
    ] {
        assert!(parse(s).substitution, "{s}");
    }
    assert!(!parse("echo $HOME ${PATH}").substitution);
}

#[test]
fn heredoc_bodies_are_skipped_and_open_things_are_incomplete() {
    let p = parse("cat <<EOF > f.txt\nrm -rf /\nEOF\nls");
    assert_eq!(p.commands, vec![w(&["cat"]), w(&["ls"])]);
    assert_eq!(p.output_targets, w(&["f.txt"]));
    assert!(p.complete);
    assert!(!parse("cat <<EOF\nno end").complete);
    assert!(!parse("echo 'open").complete);
    assert!(!parse("echo \"open").complete);
    assert!(!parse("echo $(open").complete);
    assert_eq!(parse("cat <<< 'x y'").commands, vec![w(&["cat"])]);
}

#[test]
fn reserved_words_are_trimmed() {
    assert_eq!(
        command_words(&w(&["if", "cargo", "test"])),
        w(&["cargo", "test"])
    );
    assert_eq!(
        command_words(&w(&["then", "echo", "ok"])),
        w(&["echo", "ok"])
    );
    assert!(command_words(&w(&["fi"])).is_empty());
    assert_eq!(command_words(&w(&["{", "make", "}"])), w(&["make"]));
}

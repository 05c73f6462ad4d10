//! Ways to hand tooloop a prompt besides typing it: text piped into `-p` joins the prompt as
//! context, and a positional PROMPT starts the TUI with it sent (tests/suite/tmux/basics.rs drives that
//! one in a terminal; here only its clash with -p).

use crate::support;

use support::*;

fn first_prompt(run: &Run) -> String {
    let result = run.lines.last().expect("a result line");
    assert_valid_history(result);
    result["messages"][0]["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_string()
}

#[test]
fn piped_stdin_is_context_for_the_prompt() {
    let run = Tooloop::new(&[
        "-p",
        "what was piped?",
        "--provider",
        "demo",
        "--output-format",
        "json",
    ])
    .stdin("error: linker `cc` not found\n")
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        first_prompt(&run),
        "what was piped?\n\n<stdin>\nerror: linker `cc` not found\n</stdin>"
    );
}

#[test]
fn no_pipe_leaves_the_prompt_alone() {
    // The helper gives /dev/null as stdin: nothing is read and nothing waits.
    let run = Tooloop::new(&[
        "-p",
        "hello",
        "--provider",
        "demo",
        "--output-format",
        "json",
    ])
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(first_prompt(&run), "hello");
}

#[test]
fn a_positional_prompt_and_print_clash() {
    let run = Tooloop::new(&["-p", "one", "two"]).run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

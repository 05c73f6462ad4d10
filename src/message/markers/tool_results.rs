//! The words of tool results that tooloop reads back: a tool renders its result with these,
//! and whatever derives something from a saved result (a tool's own fact, a rewind's count
//! of commands that ran, a replay's recorded answer) parses it with the function beside.

const CREATED: &str = "Created ";
const EXIT_CODE: &str = "exit code ";
const KILLED: &str = "killed";
const ERROR: &str = "Error";
const STARTED: &str = "started in background as ";
const PLAN_APPROVED: &str = "The user approved the plan";
const NOT_RUN: &str = " was not run: ";
const DECLINED: &str = "The user declined to run ";
const REASON: &str = "Their reason: ";
const REASON_END: &str = ". Do not retry it unchanged.";
const CLEARED: &str = "[tool result cleared to save context:";

/// A bash command the user stopped: the last line of its result.
pub const COMMAND_STOPPED: &str = "[stopped: the command and every process it started were killed]";

/// write_file's result for a file that did not exist.
pub fn created(shown: &str, bytes: usize) -> String {
    format!("{CREATED}{shown} ({bytes} bytes)")
}

/// Whether a write_file result says the file was new.
pub fn is_created(output: &str) -> bool {
    output.starts_with(CREATED)
}

/// The line bash ends a command's output with when it exited by itself.
pub fn exit_code(code: i32) -> String {
    format!("{EXIT_CODE}{code}")
}

/// The line bash ends the output with when a signal ended the command.
pub fn killed_by_signal(name: Option<&str>, signal: i32) -> String {
    match name {
        Some(name) => format!("{KILLED} by signal {name} ({signal})"),
        None => format!("{KILLED} by signal {signal}"),
    }
}

/// The exit code a bash result ends with (notes in brackets may follow it).
pub fn exit_code_of(output: &str) -> Option<i32> {
    output
        .lines()
        .rev()
        .take(6)
        .find_map(|l| l.trim().strip_prefix(EXIT_CODE)?.trim().parse().ok())
}

/// How a bash command that did not exit by itself ended: the last line saying so (an error,
/// a stop, a signal), else the first line of the result.
pub fn ending_line(output: &str) -> &str {
    output
        .lines()
        .rev()
        .find(|l| {
            let l = l.trim();
            l.starts_with(ERROR) || l.starts_with("[stopped") || l.starts_with(KILLED)
        })
        .or_else(|| output.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("failed")
        .trim()
}

/// bash's result for a command started as background job `shell_id`.
pub fn started_job(shell_id: &str, pid: u32) -> String {
    format!(
        "{STARTED}{shell_id} (pid {pid}). Read its output with bash_output \
         {{\"shell_id\": \"{shell_id}\"}}; stop it with kill_shell."
    )
}

/// The job a bash result says it started, if it is such a result.
pub fn started_job_id(output: &str) -> Option<&str> {
    output.strip_prefix(STARTED)?.split_whitespace().next()
}

/// "started in background as b1": how a start is stated where its full result is not shown.
pub fn started_as(shell_id: &str) -> String {
    format!("{STARTED}{shell_id}")
}

/// exit_plan_mode's result when the user approved the plan and tooloop left plan mode.
pub fn plan_approved(mode: &str) -> String {
    format!(
        "{PLAN_APPROVED}; tooloop is now in {mode} mode. Carry out the plan step by step, \
         keeping the todo list current."
    )
}

/// Whether an exit_plan_mode result says the user approved the plan.
pub fn is_plan_approved(output: &str) -> bool {
    output.starts_with(PLAN_APPROVED)
}

/// The result of a call a rule, a mode or a hook refused: `why` says which.
pub fn not_run(tool: &str, why: &str) -> String {
    format!("{tool}{NOT_RUN}{why}")
}

/// The result of a call the user refused, with their reason if they gave one.
pub fn declined(tool: &str, reason: Option<&str>) -> String {
    match reason.filter(|r| !r.trim().is_empty()) {
        Some(r) => format!("{DECLINED}{tool}. {REASON}{r}{REASON_END}"),
        None => format!(
            "{DECLINED}{tool}. Do not retry it; ask the user how to proceed or try another \
             approach."
        ),
    }
}

/// Whether a tool result says the call never ran ([`not_run`] or [`declined`]).
pub fn is_refusal(output: &str) -> bool {
    output.contains(NOT_RUN) || output.contains(DECLINED)
}

/// The user's reason in a [`declined`] result; None when they gave none.
pub fn declined_reason(output: &str) -> Option<&str> {
    let (_, rest) = output.split_once(REASON)?;
    let reason = rest.strip_suffix(REASON_END).unwrap_or(rest).trim();
    (!reason.is_empty()).then_some(reason)
}

/// What stands for a large old result once micro-compaction cleared it.
pub fn cleared(call: &str, bytes: usize) -> String {
    format!("{CLEARED} {call} returned {bytes} bytes. Call the tool again if you need it.]")
}

/// Whether a result is a [`cleared`] stand-in.
pub fn is_cleared(output: &str) -> bool {
    output.starts_with(CLEARED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_result_reads_back() {
        assert_eq!(created("src/a.rs", 12), "Created src/a.rs (12 bytes)");
        assert!(is_created(&created("a", 1)));
        assert!(!is_created("Overwrote a (1 bytes; it had 2 bytes)"));

        let out = format!(
            "fail\n{}\n[background processes … were stopped]",
            exit_code(101)
        );
        assert_eq!(exit_code_of(&out), Some(101));
        assert_eq!(exit_code_of("exit code soon"), None);
        let killed = format!("(no output)\n{}", killed_by_signal(Some("SIGKILL"), 9));
        assert_eq!(exit_code_of(&killed), None);
        assert_eq!(ending_line(&killed), "killed by signal SIGKILL (9)");
        assert_eq!(
            ending_line(&format!("x\n{COMMAND_STOPPED}")),
            COMMAND_STOPPED
        );
        assert_eq!(
            ending_line("Error: timed out after 5 ms\n"),
            "Error: timed out after 5 ms"
        );
        assert_eq!(ending_line(""), "failed");

        let started = started_job("b1", 42);
        assert_eq!(started_job_id(&started), Some("b1"));
        assert_eq!(started_as("b1"), "started in background as b1");
        assert_eq!(started_job_id("exit code 0"), None);

        assert!(is_plan_approved(&plan_approved("yolo")));
        assert!(!is_plan_approved(
            "The plan was handed to the user for review."
        ));

        let refused = not_run("bash", "a pre_tool_use hook blocked it: no");
        assert!(is_refusal(&refused));
        let why = declined("bash", Some("too risky"));
        assert_eq!(
            why,
            "The user declined to run bash. Their reason: too risky. Do not retry it unchanged."
        );
        assert!(is_refusal(&why));
        assert_eq!(declined_reason(&why), Some("too risky"));
        assert_eq!(declined_reason(&declined("bash", Some("  "))), None);
        assert!(!is_refusal("exit code 0"));

        let stub = cleared("read_file {\"path\":\"a.rs\"}", 8000);
        assert!(
            is_cleared(&stub) && stub.ends_with("if you need it.]"),
            "{stub}"
        );
    }
}

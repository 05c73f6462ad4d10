//! What a finished call tells about the session, stated by the tool that ran it
//! ([`super::Tool::fact`]): the compaction's state block restates these facts, so the tool
//! that wrote a result is the one that reads it, and the session's record knows no tool's
//! wording. A fact is derived from the call's input and its result as history holds them,
//! so a resumed or rewound session derives the same facts from its transcript.

/// How a command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandStatus {
    Exit(i32),
    /// It did not exit by itself: timed out, killed, refused, interrupted, or started in
    /// the background (the result's own line says which).
    Other(String),
}

/// One fact of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// The call changed these files (as the model wrote the paths); `created`: the one file
    /// did not exist before.
    Changed { paths: Vec<String>, created: bool },
    /// The call read this file.
    Read(String),
    /// The call ran this command line.
    Command {
        command: String,
        status: CommandStatus,
    },
    /// The user approved this plan.
    PlanApproved(String),
}

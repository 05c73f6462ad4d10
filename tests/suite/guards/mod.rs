//! Checks on the suite itself.

mod no_silent_skip;

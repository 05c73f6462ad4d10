//! The one place the loop reads the background registry (DESIGN.md §12): a job that ended
//! while the model was not looking is announced once, as a text block appended to the next
//! user message — the prompt, or the tool results (after them, where the API wants text).

use crate::background::Jobs;
use crate::message::ContentBlock;

/// Appends one notice per newly ended job to `blocks` (a user message being built).
pub(super) fn append(jobs: &Jobs, blocks: &mut Vec<ContentBlock>) {
    blocks.extend(jobs.take_notices().into_iter().map(ContentBlock::text));
}

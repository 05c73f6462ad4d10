//! Why a compaction did not happen (its own file: the summary request and the compaction
//! both return it).

use crate::text::grouped;

/// A compaction must take at least this share off the context, or it does nothing.
pub const MIN_SHRINK_PERCENT: u64 = 30;

/// Why a compaction did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactError {
    Aborted,
    Failed(String),
    /// It would not shrink the context by [`MIN_SHRINK_PERCENT`] %: `tokens` is the
    /// context now, `would_be` what a summary that came back would have made it.
    NothingToCompact {
        tokens: u64,
        would_be: Option<u64>,
    },
    /// A pre_compact hook refused a manual compaction.
    Denied(String),
}

impl std::fmt::Display for CompactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompactError::Aborted => f.write_str("compaction aborted"),
            CompactError::Failed(e) => write!(f, "compaction failed: {e}"),
            CompactError::NothingToCompact { tokens, would_be } => {
                write!(
                    f,
                    "nothing to compact: the conversation is {} tokens",
                    grouped(*tokens)
                )?;
                match would_be {
                    Some(w) => write!(
                        f,
                        " and a summary would leave {} (less than {MIN_SHRINK_PERCENT} % off)",
                        grouped(*w)
                    ),
                    None => Ok(()),
                }
            }
            CompactError::Denied(reason) => {
                write!(f, "compaction denied by a pre_compact hook: {reason}")
            }
        }
    }
}

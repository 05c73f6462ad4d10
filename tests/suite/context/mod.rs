//! The context window: usage, prompt caching, compaction.

mod cache;
mod compaction;
mod compaction_facts;
mod compaction_plan;
mod usage;

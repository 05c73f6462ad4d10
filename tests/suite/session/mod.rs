//! Sessions on disk: saving, resuming, rewinding, secrets; recordings and replay.

mod crash;
mod headless;
mod mock;
mod record_replay;
mod recording_compat;
mod reset;
mod rewind;
mod secrets;

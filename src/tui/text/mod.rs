//! Lines for the screen, shared by panes and overlays: wrapping, sanitizing untrusted text,
//! markdown and code highlighting, the JSON view, and fitting text to columns. Nothing here
//! knows the App or a pane.

pub mod fit;
pub mod highlight;
pub mod json_view;
pub mod markdown;
pub mod server_lines;
pub mod streaming;
pub mod wrap;

//! The ACP front end (`tooloop acp`): raw JSON-RPC lines and the official TypeScript client.
mod client;
mod e2e;
mod editor;
mod protocol;

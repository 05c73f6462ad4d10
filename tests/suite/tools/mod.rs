//! The built-in tools: bash, read, write and tools added at run time.

mod bash;
mod dynamic;
mod read;
mod write;

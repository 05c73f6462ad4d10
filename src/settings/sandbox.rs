//! The shell's sandbox as asked for: `--sandbox`, `--sandbox-network`, `sandbox`,
//! `sandbox_network`.

use serde::Deserialize;

use crate::sandbox::SandboxMode;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct SandboxFlags {
    /// The shell's sandbox: read-only | workspace-write | off (default workspace-write where
    /// the kernel has Landlock; elsewhere bash asks before each command).
    #[arg(long, value_enum, value_name = "MODE")]
    pub sandbox: Option<SandboxMode>,

    /// Let sandboxed commands use the network (off by default inside the sandbox).
    #[arg(long)]
    pub sandbox_network: bool,
}

/// The section's keys at the top of `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct SandboxFile {
    /// The shell's sandbox: read-only | workspace-write | off.
    pub sandbox: Option<SandboxMode>,
    /// Sandboxed commands may use the network.
    pub sandbox_network: Option<bool>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// As asked for (None: the default, workspace-write where possible).
    pub mode: Option<SandboxMode>,
    /// Sandboxed commands may use the network.
    pub network: bool,
}

pub fn resolve(flags: &SandboxFlags, file: &SandboxFile) -> SandboxSettings {
    SandboxSettings {
        mode: flags.sandbox.or(file.sandbox),
        network: flags.sandbox_network || file.sandbox_network.unwrap_or(false),
    }
}

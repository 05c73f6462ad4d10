//! The shell's sandbox: what a `bash` command may write and whether it may use the network.
//!
//! Linux uses Landlock (`linux.rs`): the ruleset is built in tooloop, then enforced in the
//! child between fork and exec, so it confines the command and everything it starts, never
//! tooloop itself. macOS uses Seatbelt (`seatbelt.rs`, `sandbox-exec` with a generated
//! profile). Elsewhere, or on a kernel without Landlock, the sandbox is off and bash asks
//! for approval as it always did; tooloop says so once at start.

mod denial;
#[cfg(target_os = "linux")]
mod linux;
mod rules;
#[cfg(target_os = "macos")]
mod seatbelt;
mod tmpdir;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::ValueEnum;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub use denial::explain as explain_denial;
pub use tmpdir::CallTmp;

/// `--sandbox read-only|workspace-write|off` (CLI.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Commands may read everything and write nothing but /dev/null and their own pipes.
    ReadOnly,
    /// Commands may write only under the workspace and a per-call temp dir (TMPDIR).
    WorkspaceWrite,
    /// No sandbox: commands run with the user's full rights.
    Off,
}

impl SandboxMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::Off => "off",
        }
    }
}

/// What a sandboxed command may do. Only built for read-only and workspace-write.
#[derive(Clone, Debug)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    /// TCP (and, where the kernel has it, abstract unix sockets) allowed.
    pub network: bool,
    /// The workspace, canonical.
    pub workspace: PathBuf,
    /// tooloop's own config, data and state directories: never writable, even when they
    /// lie inside the workspace.
    pub protected: Vec<PathBuf>,
    /// The Landlock ABI the kernel offers (0 on macOS, where Seatbelt enforces).
    pub abi: i32,
}

impl SandboxPolicy {
    pub fn label(&self) -> &'static str {
        self.mode.as_str()
    }

    /// One sentence for the model: what commands may do here.
    pub fn describe(&self) -> String {
        let writes = match self.mode {
            SandboxMode::ReadOnly => "write nothing",
            _ => "write only in the workspace and $TMPDIR",
        };
        let net = if self.network {
            ""
        } else {
            " and use no network"
        };
        format!(
            "The sandbox ({}) lets commands {writes}{net}.",
            self.label()
        )
    }

    /// Whether the kernel enforces the network rule (Landlock ABI 4 has TCP rules).
    pub fn network_enforced(&self) -> bool {
        self.network || cfg!(target_os = "macos") || self.abi >= 4
    }
}

/// The sandbox of a run, decided once at start.
pub struct Resolved {
    pub policy: Option<Arc<SandboxPolicy>>,
    /// Said once at start: the sandbox is off although wanted, or is weaker than asked.
    pub notice: Option<String>,
}

impl Resolved {
    /// "workspace-write", "read-only" or "off": what bash calls actually run under.
    pub fn label(&self) -> &'static str {
        label(self.policy.as_deref())
    }
}

/// The input key that turns an approval request into the "run outside the sandbox?"
/// question (see `agent/sandbox_call.rs`).
pub const DENIED_KEY: &str = "sandbox_denied";

pub fn label(policy: Option<&SandboxPolicy>) -> &'static str {
    policy.map(SandboxPolicy::label).unwrap_or("off")
}

/// The sandbox for this run. `requested` None means the default: workspace-write where the
/// platform can enforce it.
pub fn resolve(requested: Option<SandboxMode>, network: bool, workspace: &Path) -> Resolved {
    resolve_with(requested, network, workspace, support)
}

/// [`resolve`] with the platform check given, so the fallback is testable anywhere.
fn resolve_with(
    requested: Option<SandboxMode>,
    network: bool,
    workspace: &Path,
    support: impl FnOnce() -> Result<i32, Unsupported>,
) -> Resolved {
    let mode = requested.unwrap_or(SandboxMode::WorkspaceWrite);
    if mode == SandboxMode::Off {
        return Resolved {
            policy: None,
            notice: None,
        };
    }
    let abi = match support() {
        Ok(abi) => abi,
        Err(why) => {
            return Resolved {
                policy: None,
                notice: Some(format!(
                    "the shell sandbox ({}) is off: {why}; bash asks before each command",
                    mode.as_str()
                )),
            };
        }
    };
    let workspace = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    let policy = SandboxPolicy {
        mode,
        network,
        workspace,
        protected: protected_dirs(),
        abi,
    };
    let notice = (!policy.network_enforced()).then(|| {
        format!(
            "the shell sandbox cannot block the network here (Landlock ABI {abi}; TCP rules \
             need ABI 4, Linux 6.7): commands may still connect"
        )
    });
    Resolved {
        policy: Some(Arc::new(policy)),
        notice,
    }
}

/// Why the shell cannot be sandboxed here (said once, in the notice at start).
#[derive(Debug, thiserror::Error)]
pub enum Unsupported {
    #[error("this kernel has no Landlock (Linux 5.13 or later is needed)")]
    NoLandlock,
    #[error(
        "Landlock is built into this kernel but not enabled (add `landlock` to the lsm= boot \
         parameter)"
    )]
    LandlockDisabled,
    #[error("Landlock is not available: {0}")]
    Landlock(std::io::Error),
    #[error("{0} is missing")]
    Missing(&'static str),
    #[error("no sandbox is implemented for this platform")]
    Platform,
}

/// The Landlock ABI version, or why there is no sandbox on this platform.
#[cfg(target_os = "linux")]
pub fn support() -> Result<i32, Unsupported> {
    linux::abi()
}

#[cfg(target_os = "macos")]
pub fn support() -> Result<i32, Unsupported> {
    seatbelt::available().map(|()| 0)
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn support() -> Result<i32, Unsupported> {
    Err(Unsupported::Platform)
}

/// tooloop's config, data and state (log) directories.
fn protected_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let config = crate::paths::config_file()
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf));
    let data = crate::paths::sessions_dir()
        .ok()
        .and_then(|d| d.parent().map(Path::to_path_buf));
    let state = crate::paths::log_dir().ok();
    for dir in [config, data, state].into_iter().flatten() {
        let dir = dir.canonicalize().unwrap_or(dir);
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Asks the user whether a command the sandbox blocked may run again outside it. The
/// argument is the note ("blocked by the sandbox: write to /etc/x"); true means yes.
pub type AskOutside = Arc<dyn Fn(String) -> BoxFuture<'static, bool> + Send + Sync>;

/// The sandbox as one bash call sees it.
#[derive(Clone)]
pub struct CallSandbox {
    pub policy: Arc<SandboxPolicy>,
    /// None where nobody can answer (headless): then a blocked command stays blocked.
    pub ask_outside: Option<AskOutside>,
}

/// Everything a sandboxed spawn needs, made in tooloop before the fork: the per-call temp
/// dir and (Linux) the finished ruleset, so the child only has to enforce it.
pub struct Prepared {
    tmp: Option<CallTmp>,
    #[cfg(target_os = "linux")]
    ruleset: std::os::fd::OwnedFd,
    #[cfg(target_os = "macos")]
    profile: seatbelt::Profile,
}

impl Prepared {
    pub fn new(policy: &SandboxPolicy) -> std::io::Result<Prepared> {
        let tmp = match policy.mode {
            SandboxMode::WorkspaceWrite => Some(CallTmp::create()?),
            _ => None,
        };
        let writable = rules::writable(policy, tmp.as_ref().map(CallTmp::path));
        #[cfg(target_os = "linux")]
        let ruleset = linux::ruleset(policy, &writable)?;
        #[cfg(target_os = "macos")]
        let profile = seatbelt::profile(policy, &writable);
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        let _ = writable;
        Ok(Prepared {
            tmp,
            #[cfg(target_os = "linux")]
            ruleset,
            #[cfg(target_os = "macos")]
            profile,
        })
    }

    /// The per-call temp dir (TMPDIR of the command), if the mode has one.
    pub fn tmp_dir(&self) -> Option<&Path> {
        self.tmp.as_ref().map(CallTmp::path)
    }

    /// A command that runs `program` inside the sandbox.
    pub fn command(&self, program: &str) -> tokio::process::Command {
        #[cfg(target_os = "macos")]
        let mut cmd = seatbelt::command(&self.profile, program);
        #[cfg(not(target_os = "macos"))]
        let mut cmd = tokio::process::Command::new(program);
        if let Some(tmp) = self.tmp_dir() {
            cmd.env("TMPDIR", tmp).env("TMP", tmp).env("TEMP", tmp);
        }
        #[cfg(target_os = "linux")]
        linux::enforce_in_child(&mut cmd, &self.ruleset);
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_landlock_the_sandbox_is_off_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let none = || Err(Unsupported::NoLandlock);
        for requested in [
            None,
            Some(SandboxMode::WorkspaceWrite),
            Some(SandboxMode::ReadOnly),
        ] {
            let r = resolve_with(requested, false, dir.path(), none);
            assert!(r.policy.is_none());
            assert_eq!(r.label(), "off");
            let notice = r.notice.expect("a notice at start");
            assert!(notice.contains("no Landlock"), "{notice}");
            assert!(notice.contains("asks before each command"), "{notice}");
        }
        // Off by choice: nothing to say.
        let r = resolve_with(Some(SandboxMode::Off), false, dir.path(), none);
        assert!(r.policy.is_none() && r.notice.is_none());
    }

    #[test]
    fn the_default_is_workspace_write_and_old_kernels_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let r = resolve_with(None, false, dir.path(), || Ok(7));
        assert_eq!(r.label(), "workspace-write");
        assert!(r.notice.is_none());
        // ABI 3: no TCP rules, so the network cannot be blocked; that is said.
        let r = resolve_with(None, false, dir.path(), || Ok(3));
        assert!(r.notice.unwrap().contains("cannot block the network"));
        let r = resolve_with(None, true, dir.path(), || Ok(3));
        assert!(r.notice.is_none());
    }
}

//! Landlock: the ruleset is created and filled in tooloop (allocating, opening paths), then
//! the forked child only calls `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self` —
//! two raw syscalls, safe between fork and exec in a multi-threaded process. tooloop itself
//! is never restricted.
//!
//! The rules are built for the ABI the kernel reports (best effort: what an older kernel
//! lacks is left out, and [`super::resolve`] says so when that weakens the network rule).

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope,
};

use super::rules::Writable;
use super::{SandboxMode, SandboxPolicy, Unsupported};

/// The kernel's Landlock ABI version, or why there is none.
pub fn abi() -> Result<i32, Unsupported> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the documented version query: no attr, size 0, the version flag.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if v >= 1 {
        return Ok(v as i32);
    }
    let err = std::io::Error::last_os_error();
    Err(match err.raw_os_error() {
        Some(libc::ENOSYS) => Unsupported::NoLandlock,
        Some(libc::EOPNOTSUPP) => Unsupported::LandlockDisabled,
        _ => Unsupported::Landlock(err),
    })
}

/// The finished ruleset for one call, as a file descriptor (close-on-exec).
pub fn ruleset(policy: &SandboxPolicy, writable: &[Writable]) -> std::io::Result<OwnedFd> {
    build(policy, writable).map_err(|e| std::io::Error::other(format!("landlock: {e}")))
}

fn build(policy: &SandboxPolicy, writable: &[Writable]) -> std::io::Result<OwnedFd> {
    let abi = ABI::from(policy.abi);
    let mut write = AccessFs::from_write(abi);
    if policy.network {
        // ABI 9 can refuse connecting to unix socket files; that is network, so it stays
        // allowed when the network is.
        write.remove(AccessFs::ResolveUnix);
    }
    let file_write = write & AccessFs::from_file(abi);
    let mut ruleset = Ruleset::default()
        // Rights are asked for the kernel's own ABI, so best effort drops nothing here; it
        // only matters if the kernel reports a newer ABI than this crate knows.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write)
        .map_err(std::io::Error::other)?;
    if !policy.network && abi >= ABI::V4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(std::io::Error::other)?;
    }
    if abi >= ABI::V6 {
        // Signals: a command may not signal tooloop or anything else outside its sandbox.
        // Abstract unix sockets (D-Bus, X11, …) count as network.
        let scope = if policy.network {
            Scope::Signal.into()
        } else {
            Scope::Signal | Scope::AbstractUnixSocket
        };
        ruleset = ruleset.scope(scope).map_err(std::io::Error::other)?;
    }
    let mut created = ruleset.create().map_err(std::io::Error::other)?;
    for w in writable {
        // A path that vanished since the list was made grants nothing; that is safe.
        let Ok(fd) = PathFd::new(&w.path) else {
            continue;
        };
        let access = if w.tree && w.path.is_dir() {
            write
        } else {
            file_write
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| std::io::Error::other(format!("{}: {e}", w.path.display())))?;
    }
    debug_assert!(policy.mode != SandboxMode::Off);
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| std::io::Error::other("the kernel refused to create a ruleset"))
}

/// Makes the child enforce `ruleset` right before exec. The fd stays open in tooloop until
/// the spawn returned (the caller keeps it), and closes in the child at exec.
pub fn enforce_in_child(cmd: &mut tokio::process::Command, ruleset: &OwnedFd) {
    let fd = ruleset.as_raw_fd();
    // SAFETY: the closure runs in the forked child and makes only async-signal-safe raw
    // syscalls; it allocates nothing and touches no lock.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

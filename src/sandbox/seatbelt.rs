//! macOS: Seatbelt, the equivalent of Landlock. The command runs as
//! `sandbox-exec -p PROFILE -D W0=… bash -c …` with a profile generated from the same
//! grants as on Linux. Paths go in as parameters (`(param "W0")`), never spliced into the
//! profile text, so no path can change the profile's meaning.
//!
//! Built only on macOS; CI runs Linux, so this is compiled and tried by hand there.

use std::path::{Path, PathBuf};

use super::SandboxPolicy;
use super::rules::Writable;

const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

pub struct Profile {
    text: String,
    params: Vec<(String, PathBuf)>,
}

pub fn available() -> Result<(), super::Unsupported> {
    if Path::new(SANDBOX_EXEC).exists() {
        Ok(())
    } else {
        Err(super::Unsupported::Missing(SANDBOX_EXEC))
    }
}

/// Everything is allowed except writes outside the grants and, without network, IP.
/// Later rules win in Seatbelt, so the allows come after the denies.
pub fn profile(policy: &SandboxPolicy, writable: &[Writable]) -> Profile {
    let mut text = String::from("(version 1)\n(allow default)\n(deny file-write*)\n");
    let mut params = Vec::new();
    for (i, w) in writable.iter().enumerate() {
        let name = format!("W{i}");
        if w.tree {
            text.push_str(&format!(
                "(allow file-write* (subpath (param \"{name}\")))\n"
            ));
        } else {
            text.push_str(&format!(
                "(allow file-write-data (literal (param \"{name}\")))\n"
            ));
        }
        params.push((name, w.path.clone()));
    }
    if !policy.network {
        text.push_str(
            "(deny network-outbound (remote ip \"*:*\"))\n\
             (deny network-inbound (local ip \"*:*\"))\n\
             (deny network-bind (local ip \"*:*\"))\n",
        );
    }
    // A command may not signal tooloop or anything else outside its sandbox.
    text.push_str("(deny signal)\n(allow signal (target same-sandbox))\n");
    Profile { text, params }
}

pub fn command(profile: &Profile, program: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(SANDBOX_EXEC);
    cmd.arg("-p").arg(&profile.text);
    for (name, path) in &profile.params {
        let mut def = std::ffi::OsString::from(format!("{name}="));
        def.push(path.as_os_str());
        cmd.arg("-D").arg(def);
    }
    cmd.arg(program);
    cmd
}

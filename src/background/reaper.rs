//! Every live job's process group, process-wide, for the exits that cannot await: `main`
//! just before the process exits, the panic hook, the exit watchdog. The registry ends jobs
//! gracefully (SIGTERM, then SIGKILL); this is the last word, so no job outlives tooloop.

use std::sync::Mutex;

static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<i32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

pub(super) fn register(pgid: i32) {
    live().push(pgid);
}

/// The group is empty (its members were waited for), so its id may be reused: forget it.
pub(super) fn unregister(pgid: i32) {
    live().retain(|&p| p != pgid);
}

/// SIGKILL to every job's process group still alive; how many there were. Never blocks
/// for long (a mutex and a few syscalls), so it is safe from a panic hook.
pub fn kill_all_now() -> usize {
    let groups: Vec<i32> = match LIVE.try_lock() {
        Ok(g) => g.clone(),
        // Held by a thread that panicked or is mid-update: read it anyway.
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner().clone(),
        Err(std::sync::TryLockError::WouldBlock) => live().clone(),
    };
    for &pgid in &groups {
        crate::process::kill_group_now(pgid);
    }
    groups.len()
}

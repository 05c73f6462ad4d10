//! One worktree from its creation to its end. Creating is all or nothing: any step that
//! fails after `git worktree add` removes the worktree and its branch again. Finishing
//! commits what changed on the branch and keeps it, or removes folder and branch when
//! nothing did; a worktree dropped unfinished (a panic, a cancelled future) is finished the
//! same way. The order is always folder first, then branch, so an interruption between the
//! two leaves a branch without a folder, never a folder without its branch.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::outcome::Outcome;
use super::porcelain::{StatusEntry, parse_status};
use super::{BRANCH_PREFIX, DIR, WorktreeError, git};

/// One process's git changes to a repository go one at a time: side-by-side children must
/// not race on `packed-refs.lock`, the exclude file or the parent's index.
static GIT_LOCK: Mutex<()> = Mutex::new(());

pub(super) fn locked() -> std::sync::MutexGuard<'static, ()> {
    GIT_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// The metadata file in the worktree's admin folder (`.git/worktrees/NAME/`): it goes
/// when git removes the worktree.
pub(super) const META: &str = "tooloop.json";

/// What a worktree is for.
#[derive(Clone, Debug, Default)]
pub struct Create {
    /// None: a short id.
    pub name: Option<String>,
    /// Copy the parent's uncommitted changes (tracked and untracked) into it.
    pub carry: bool,
    /// The session that owns it (`tooloop worktrees` shows it).
    pub session: Option<String>,
    /// The subagent it is for (`a1`), if any.
    pub agent: Option<String>,
}

#[derive(Debug)]
pub struct Worktree {
    pub name: String,
    /// `tooloop/NAME`.
    pub branch: String,
    /// The worktree's top folder (absolute).
    pub path: PathBuf,
    /// The checkout it was made from (its top folder).
    pub origin: PathBuf,
    /// Where the session works: the folder inside the worktree that matches the parent's
    /// workspace (its top, unless the parent worked in a subfolder).
    pub workspace: PathBuf,
    /// The commit the worktree's own work starts from: HEAD, or the commit holding the
    /// carried-over changes.
    pub base: String,
    /// The parent's uncommitted changes were carried over (as the branch's first commit).
    pub carried: bool,
    admin: PathBuf,
    finished: bool,
}

impl Worktree {
    /// A new worktree of the repository around `from`, on a new branch from its HEAD.
    pub fn create(from: &Path, how: &Create) -> Result<Worktree, WorktreeError> {
        let name = match &how.name {
            Some(n) if super::valid_name(n) => n.clone(),
            Some(n) => return Err(WorktreeError::BadName(n.clone())),
            None => super::short_id(),
        };
        let _guard = locked();
        let top = git::run(from, &["rev-parse", "--show-toplevel"])?;
        if !top.ok {
            return Err(WorktreeError::NotARepo(from.to_path_buf()));
        }
        let origin = PathBuf::from(top.text());
        if !git::run(&origin, &["rev-parse", "-q", "--verify", "HEAD^{commit}"])?.ok {
            return Err(WorktreeError::NoCommit);
        }
        if !git::run(&origin, &["symbolic-ref", "-q", "HEAD"])?.ok {
            let at = git::run(&origin, &["rev-parse", "--short", "HEAD"])?.text();
            return Err(WorktreeError::Detached(format!("at {at}")));
        }
        let branch = format!("{BRANCH_PREFIX}{name}");
        let check = git::run(&origin, &["check-ref-format", "--branch", &branch])?;
        if !check.ok {
            return Err(WorktreeError::BadName(name));
        }
        let exists = git::run(
            &origin,
            &[
                "show-ref",
                "--verify",
                "-q",
                &format!("refs/heads/{branch}"),
            ],
        )?;
        if exists.ok {
            return Err(WorktreeError::BranchExists(branch));
        }
        let path = origin.join(DIR).join(&name);
        if path.exists() {
            return Err(WorktreeError::FolderExists(path));
        }
        exclude(&origin)?;
        // What there is to carry, checked before anything is made.
        let (stash, untracked) = if how.carry {
            carried(&origin)?
        } else {
            (None, Vec::new())
        };
        let path_arg = path.to_string_lossy().into_owned();
        let added = git::run(
            &origin,
            &["worktree", "add", "-q", "-b", &branch, &path_arg, "HEAD"],
        )?;
        if !added.ok {
            // `add` may have got as far as the branch or the admin folder.
            undo(&origin, &path, &branch);
            return Err(WorktreeError::Git {
                command: "git worktree add".into(),
                stderr: added.stderr,
            });
        }
        let rel = from
            .canonicalize()
            .ok()
            .and_then(|f| {
                let o = origin.canonicalize().ok()?;
                f.strip_prefix(&o).ok().map(Path::to_path_buf)
            })
            .unwrap_or_default();
        let mut wt = Worktree {
            workspace: path.join(rel),
            name,
            branch,
            path,
            origin,
            base: String::new(),
            carried: false,
            admin: PathBuf::new(),
            // Until it is whole, a failure undoes it here (not in Drop).
            finished: true,
        };
        match wt.fill(stash.as_deref(), &untracked, how) {
            Ok(()) => {
                wt.finished = false;
                Ok(wt)
            }
            Err(e) => {
                undo(&wt.origin, &wt.path, &wt.branch);
                Err(e)
            }
        }
    }

    /// After `git worktree add`: the carried changes as the first commit, the base, the
    /// metadata.
    fn fill(
        &mut self,
        stash: Option<&str>,
        untracked: &[String],
        how: &Create,
    ) -> Result<(), WorktreeError> {
        if let Some(stash) = stash {
            git::ok(&self.path, &["read-tree", "-u", "--reset", stash])?;
        }
        for file in untracked {
            copy_file(&self.origin.join(file), &self.path.join(file))?;
        }
        if stash.is_some() || !untracked.is_empty() {
            let from = git::run(&self.origin, &["symbolic-ref", "-q", "--short", "HEAD"])?.text();
            commit(
                &self.path,
                &format!(
                    "tooloop: the uncommitted changes of {from} when worktree {} started",
                    self.name
                ),
            )?;
            self.carried = true;
        }
        self.base = git::ok(&self.path, &["rev-parse", "HEAD"])?.text();
        self.admin =
            PathBuf::from(git::ok(&self.path, &["rev-parse", "--absolute-git-dir"])?.text());
        self.write_meta(how.session.as_deref(), how.agent.as_deref())
    }

    /// Records the owning session (known only once the engine attached one).
    pub fn set_session(&self, session: &str) {
        if let Err(e) = self.write_meta(Some(session), None) {
            tracing::warn!("worktree {}: {e}", self.name);
        }
    }

    fn write_meta(&self, session: Option<&str>, agent: Option<&str>) -> Result<(), WorktreeError> {
        let file = self.admin.join(META);
        let old: serde_json::Value = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        let pick = |new: Option<&str>, key: &str| {
            new.map(serde_json::Value::from)
                .unwrap_or_else(|| old.get(key).cloned().unwrap_or_default())
        };
        let meta = serde_json::json!({
            "session": pick(session, "session"),
            "agent": pick(agent, "agent"),
            "base": self.base,
            "carried": self.carried,
            "pid": std::process::id(),
        });
        std::fs::write(&file, meta.to_string()).map_err(|source| WorktreeError::Io {
            what: format!("cannot write {}", file.display()),
            source,
        })
    }

    /// The folder as the parent names it (relative to its checkout).
    pub fn folder(&self) -> String {
        format!("{DIR}/{}", self.name)
    }

    /// Commits what changed on the branch and keeps it, or removes folder and branch when
    /// nothing did (blocking: a few git runs).
    pub fn finish(mut self, message: &str) -> Outcome {
        self.finished = true;
        let _guard = locked();
        match self.finish_locked(message) {
            Ok(outcome) => outcome,
            Err(e) => Outcome::Failed {
                branch: self.branch.clone(),
                error: e.to_string(),
            },
        }
    }

    fn finish_locked(&self, message: &str) -> Result<Outcome, WorktreeError> {
        if !self.path.exists() {
            // The folder went (rm -rf by a tool): forget it in git, keep a branch that
            // holds work.
            let _ = git::run(&self.origin, &["worktree", "prune"]);
            let head = git::run(&self.origin, &["rev-parse", "-q", "--verify", &self.branch])?;
            if head.ok && head.text() != self.base {
                return Ok(self.kept(0));
            }
            let _ = git::run(&self.origin, &["branch", "-D", &self.branch]);
            return Ok(Outcome::Removed {
                branch: self.branch.clone(),
            });
        }
        if !status(&self.path)?.is_empty() {
            commit(&self.path, message)?;
        }
        let files = changed_files(&self.path, &self.base)?;
        if files.is_empty() {
            remove(&self.origin, &self.path, &self.branch)?;
            return Ok(Outcome::Removed {
                branch: self.branch.clone(),
            });
        }
        Ok(self.kept(files.len()))
    }

    fn kept(&self, files: usize) -> Outcome {
        Outcome::Kept {
            folder: self.folder(),
            branch: self.branch.clone(),
            files,
            carried_base: self.carried.then(|| self.base.clone()),
        }
    }
}

impl Drop for Worktree {
    /// A worktree nobody finished (a panic, a future dropped on shutdown) is finished here:
    /// kept with its branch when it holds work, removed when not.
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let _guard = locked();
        if let Err(e) = self.finish_locked("tooloop: interrupted; the changes so far") {
            tracing::warn!("worktree {} left as it is: {e}", self.name);
        }
    }
}

/// `/.tooloop/worktrees/` in the repository's `info/exclude` (shared by all its worktrees),
/// once.
fn exclude(origin: &Path) -> Result<(), WorktreeError> {
    let common = git::ok(origin, &["rev-parse", "--git-common-dir"])?.text();
    let common = origin.join(common);
    let file = common.join("info").join("exclude");
    let line = format!("/{DIR}/");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    if text.lines().any(|l| l.trim() == line) {
        return Ok(());
    }
    let io = |source| WorktreeError::Io {
        what: format!("cannot add {line} to {}", file.display()),
        source,
    };
    std::fs::create_dir_all(common.join("info")).map_err(io)?;
    let mut text = text;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "# tooloop's worktrees (tooloop --worktree, isolation: worktree)\n{line}\n"
    ));
    std::fs::write(&file, text).map_err(io)
}

/// The parent's uncommitted state: a stash commit of its tracked changes (None when
/// clean) and its untracked files. Unmerged paths cannot be carried.
fn carried(origin: &Path) -> Result<(Option<String>, Vec<String>), WorktreeError> {
    let entries = status(origin)?;
    let unmerged: Vec<&str> = entries
        .iter()
        .filter(|e| e.unmerged())
        .map(|e| e.path.as_str())
        .collect();
    if !unmerged.is_empty() {
        return Err(WorktreeError::DirtyIndex(format!(
            "unmerged paths ({}): finish or abort the merge first",
            unmerged.join(", ")
        )));
    }
    let untracked = entries
        .iter()
        .filter(|e| e.untracked())
        .map(|e| e.path.clone())
        .collect();
    let stash = git::run(origin, &["stash", "create"])?;
    if !stash.ok {
        return Err(WorktreeError::DirtyIndex(stash.stderr));
    }
    let sha = stash.text();
    Ok(((!sha.is_empty()).then_some(sha), untracked))
}

fn status(dir: &Path) -> Result<Vec<StatusEntry>, WorktreeError> {
    let out = git::ok(
        dir,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    )?;
    Ok(parse_status(&out.stdout))
}

/// The paths that differ from `base`: committed since, changed, or new.
pub(super) fn changed_files(dir: &Path, base: &str) -> Result<Vec<String>, WorktreeError> {
    let committed = git::ok(dir, &["diff", "--name-only", "-z", base, "HEAD", "--"])?;
    let mut files: Vec<String> = committed
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    for e in status(dir)? {
        files.extend(e.from);
        files.push(e.path);
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// Everything in the worktree, committed on its branch (as the user when git knows who
/// that is, else as tooloop).
fn commit(dir: &Path, message: &str) -> Result<(), WorktreeError> {
    git::ok(dir, &["add", "-A"])?;
    let known = git::run(dir, &["var", "GIT_AUTHOR_IDENT"])?.ok
        && git::run(dir, &["var", "GIT_COMMITTER_IDENT"])?.ok;
    let mut args = vec![];
    if !known {
        args.extend([
            "-c",
            "user.name=tooloop",
            "-c",
            "user.email=tooloop@localhost",
        ]);
    }
    args.extend([
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "-m",
        message,
    ]);
    git::ok(dir, &args).map(|_| ())
}

/// Folder, then branch.
pub(super) fn remove(origin: &Path, path: &Path, branch: &str) -> Result<(), WorktreeError> {
    let p = path.to_string_lossy();
    let removed = git::run(origin, &["worktree", "remove", "--force", "--force", &p])?;
    if !removed.ok {
        // Whatever git could not delete goes by hand; prune forgets the admin folder.
        let _ = std::fs::remove_dir_all(path);
        git::ok(origin, &["worktree", "prune"])?;
    }
    git::ok(origin, &["branch", "-D", "-q", branch]).map(|_| ())
}

/// A creation that failed half-way: whatever of it exists goes.
fn undo(origin: &Path, path: &Path, branch: &str) {
    if let Err(e) = remove(origin, path, branch) {
        tracing::debug!("undoing worktree {}: {e}", path.display());
        let _ = std::fs::remove_dir_all(path);
        let _ = git::run(origin, &["worktree", "prune"]);
        let _ = git::run(origin, &["branch", "-D", "-q", branch]);
    }
}

/// One untracked file (or symlink) copied with its folders.
fn copy_file(from: &Path, to: &Path) -> Result<(), WorktreeError> {
    let io = |source| WorktreeError::Io {
        what: format!("cannot copy {} into the worktree", from.display()),
        source,
    };
    let meta = std::fs::symlink_metadata(from).map_err(io)?;
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(from).map_err(io)?;
        std::os::unix::fs::symlink(target, to).map_err(io)
    } else if meta.is_file() {
        std::fs::copy(from, to).map(|_| ()).map_err(io)
    } else {
        Ok(())
    }
}

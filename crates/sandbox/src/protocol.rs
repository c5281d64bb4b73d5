//! What the judge and a keeper say to each other over the keeper's pipe: one JSON line per
//! message. Only the messages live here, so that both ends (the judge's side in `client.rs`, the
//! keeper in `keeper.rs`) and the keeper's helpers that read [`KeeperConfig`] (`root.rs`,
//! `child.rs`) depend on this module and it on none of them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Capabilities, EarlierCache, RunOutcome, RunSpec};

/// Sent once, as the first line, when a keeper starts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct KeeperConfig {
    /// Preferred uid (and gid) for programs; the keeper takes the first free one from here
    /// within `uid_base..uid_base + 1000`.
    pub uid: u32,
    pub gid: u32,
    pub uid_base: u32,
    /// An empty folder on which the keeper mounts its private root.
    pub root_dir: PathBuf,
    /// Host folders bound read-only at the same path (toolchains, interpreters).
    pub ro_paths: Vec<PathBuf>,
    /// Whether to try cgroups and namespaces (off: rlimits only).
    pub isolate: bool,
    /// Sizes of the `/box` and `/tmp` tmpfs mounts.
    pub box_size: u64,
    pub tmp_size: u64,
    /// Under cgroup v2: the delegated cgroup the keeper makes its own beside the judging
    /// process's leaf (`delegate.rs`), or why there is none.
    #[serde(default)]
    pub cgroup_v2: Option<Result<PathBuf, String>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Request {
    Run(Box<RunSpec>, EarlierCache),
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Response {
    Ready {
        capabilities: Capabilities,
        cgroup_dirs: Vec<PathBuf>,
    },
    Outcome(Box<RunOutcome>),
    Failed(String),
}

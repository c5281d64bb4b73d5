//! ojd: an online-judge grading library and daemon.
//!
//! The main types: [`problem::Problem`] (a validated problem package), [`config::Config`] (the
//! daemon's configuration and language profiles), [`sandbox::Sandbox`] (runs one untrusted
//! program under limits), [`judge::Judge`] (one submission from source to verdict, the only way
//! anything is judged) and [`verdict::JudgeReport`] (what a judging found), rendered by
//! [`report`] as tables, JSON and diffs.

pub mod blobs;
pub mod calibrate;
pub mod contest;
pub mod export;
pub mod import;
pub mod server;
pub mod stress;
pub mod verify;
pub mod worker;

// The lower layers, moved into crates of their own; re-exported while the rest moves.
pub use ojd_judge::{
    answers, checker, config, diff, escape, fsutil, interactive, judge, lang, problem, report,
    toolchains, units, verdict,
};
pub use ojd_sandbox as sandbox;
pub use ojd_store as store;

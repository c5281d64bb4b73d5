//! ojd: an online-judge grading library and daemon.
//!
//! The main types: [`problem::Problem`] (a validated problem package), [`config::Config`] (the
//! daemon's configuration and language profiles), [`sandbox::Sandbox`] (runs one untrusted
//! program under limits), [`judge::Judge`] (one submission from source to verdict, the only way
//! anything is judged) and [`verdict::JudgeReport`] (what a judging found), rendered by
//! [`report`] as tables, JSON and diffs.

pub mod answers;
pub mod blobs;
pub mod calibrate;
pub mod checker;
pub mod config;
pub mod contest;
pub mod diff;
pub mod escape;
pub mod export;
pub mod fsutil;
pub mod import;
pub mod interactive;
pub mod judge;
pub mod lang;
pub mod problem;
pub mod report;
pub mod sandbox;
pub mod server;
pub mod store;
pub mod stress;
pub mod toolchains;
pub mod units;
pub mod verdict;
pub mod verify;
pub mod worker;

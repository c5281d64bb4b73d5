//! ojd's judge: everything between a problem package and a verdict.
//!
//! The main types, re-exported here: [`Problem`] (a validated problem package), [`Config`] (the
//! configuration and language profiles), [`Judge`] (one submission from source to verdict, the
//! only way anything is judged) and [`JudgeReport`] (what a judging found), rendered by
//! [`report`] as tables, JSON and diffs. Programs run in the sandbox of `ojd-sandbox`; nothing
//! here knows about HTTP or SQL.
//!
//! A module is public when other crates name something in it; inside one, an item is public
//! only when something outside this crate uses it, and crate-private otherwise.

#![forbid(unsafe_code)]

pub mod answers;
pub mod config;
pub mod diff;
pub mod escape;
pub mod fsutil;
pub mod hex;
pub mod judge;
pub mod lang;
pub mod message;
pub mod points;
pub mod problem;
pub mod report;
pub mod sources;
pub mod toolchains;
pub mod units;
pub mod verdict;

mod text;

pub use config::Config;
pub use judge::{Judge, JudgeError, Submission};
pub use problem::Problem;
pub use verdict::{JudgeReport, TestResult, Verdict};

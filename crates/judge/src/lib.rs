//! ojd's judge: everything between a problem package and a verdict.
//!
//! The main types: [`problem::Problem`] (a validated problem package), [`config::Config`] (the
//! configuration and language profiles), [`judge::Judge`] (one submission from source to
//! verdict, the only way anything is judged) and [`verdict::JudgeReport`] (what a judging
//! found), rendered by [`report`] as tables, JSON and diffs. Programs run in the sandbox of
//! `ojd-sandbox`; nothing here knows about HTTP or SQL.

#![forbid(unsafe_code)]

pub mod answers;
pub mod config;
pub mod diff;
pub mod escape;
pub mod fsutil;
pub mod judge;
pub mod lang;
pub mod problem;
pub mod report;
pub mod toolchains;
pub mod units;
pub mod verdict;

mod text;

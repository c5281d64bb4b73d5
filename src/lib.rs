//! ojd: an online-judge grading library and daemon.
//!
//! The main types: [`problem::Problem`] (a validated problem package), [`config::Config`] (the
//! daemon's configuration and language profiles), [`sandbox::Sandbox`] (runs one untrusted
//! program under limits), [`judge::judge`] (one submission from source to verdict) and
//! [`report`] (tables, JSON and diffs).

pub mod sandbox;
pub mod units;

//! ojd's judging service: what `ojd serve` and `ojd worker` share, with no HTTP.
//!
//! The main types: [`node::Node`] (a judging node: store, judge, problems, heartbeat),
//! [`queue`] (the workers that claim and judge submissions), [`events`] (the [`events::Hub`] of
//! their live progress), [`catalog::Catalog`] (the problems a node serves), [`blobs`] (problem packages as
//! content-addressed blobs for judge hosts), [`contest`] (contests' model, standings and
//! rejudgings) and [`worker`] (`ojd worker`, a judge host). The web layer (`ojd-web`) wraps a
//! [`node::Node`]; nothing here depends on it.

#![forbid(unsafe_code)]

pub mod blobs;
pub mod catalog;
pub mod contest;
pub mod events;
pub mod logging;
pub mod node;
pub mod queue;
pub mod worker;

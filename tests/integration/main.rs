//! ojd's integration tests: one binary, a module per area. They judge real programs through the
//! real sandbox and so need root (as CI has); without it they report what they skipped.

mod browser;
mod common;
mod daemon;
mod hostile;
mod judge;
mod load;
mod server;
mod verify;

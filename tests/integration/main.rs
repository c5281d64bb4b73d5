//! ojd's integration tests: one binary, a module per area. They judge real programs through the
//! real sandbox and so need root (as CI has); without it they report what they skipped.

// Test modules export nothing and document their tests by their names and comments.
#![allow(unreachable_pub, missing_docs)]

/// Skips a test that needs the sandbox when not root (and fails it when `CI` is set); otherwise holds the machine lock for the
/// test: shared (many tests at once) or `exclusive` (for tests that measure time or memory).
macro_rules! require_root {
    () => {
        require_root!(@lock shared)
    };
    (exclusive) => {
        require_root!(@lock exclusive)
    };
    (@lock $lock:ident) => {
        if !crate::common::is_root() {
            // Under CI a test that cannot run fails: it never passes by not running.
            assert!(
                std::env::var_os("CI").map_or(true, |v| v.is_empty()),
                "this test needs root for the sandbox, and CI is set: run the suite as root"
            );
            eprintln!("skipped: needs root for the sandbox");
            return;
        }
        let _machine = crate::common::$lock();
    };
}

mod browser;
mod caches;
mod ccs;
mod ccs_feed;
mod ccs_roster;
mod ccs_write;
mod cdp;
mod cli;
mod common;
mod contest_package;
mod contest_site;
mod contests;
mod contests_browser;
mod contests_load;
mod daemon;
mod director;
mod docs;
mod host_faults;
mod host_load;
mod hostile;
mod import;
mod interactive;
mod judge;
mod langs;
mod load;
mod memory;
mod multihost;
mod outage;
mod packages;
mod page_cache;
mod pg;
mod phone;
mod roundtrip;
mod sandbox;
mod server;
mod store;
mod stress;
mod token;
mod untrusted;
mod verify;
mod viewers;
mod websec;

//! ojd's integration tests: one binary, a module per area. They judge real programs through the
//! real sandbox and so need root (as CI has); without it they report what they skipped.

/// Skips a test that needs the sandbox when not root; otherwise holds the machine lock for the
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
            eprintln!("skipped: needs root for the sandbox");
            return;
        }
        let _machine = crate::common::$lock();
    };
}

mod browser;
mod common;
mod daemon;
mod hostile;
mod judge;
mod load;
mod server;
mod store;
mod verify;
mod websec;

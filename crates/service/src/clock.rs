//! The service's one wall clock, read by everything that stamps or decides contest time:
//! submission and judging times, a contest's phase (start, freeze, end), clarifications, login
//! codes' expiry, the Contest API's feed. The web reads it through [`now_ms`] too.
//!
//! By default it is the system clock. A test moves it instead of waiting: with
//! `OJD_TEST_CLOCK=FILE` in the process's environment, the clock runs the number of
//! milliseconds that `FILE` holds (a decimal integer, negative for the past) ahead of the
//! system clock, read again at every look, so a test that rewrites the file (whole, by a
//! rename) jumps a running daemon past a freeze or a second boundary at once. Like the other
//! fault injections (`OJD_FAULT_HANG_JUDGING`), an operator never sets it: the daemon says in its
//! log, once, that its clock is a test's. A file that cannot be read or parsed (a test mid-write
//! without a rename) leaves the last offset read in place.
//!
//! Durations (leases, timeouts, waits) are measured on the monotonic clock, never here.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::OnceLock;

/// The environment variable naming a test clock's offset file (see the module's docs).
pub const TEST_CLOCK_VAR: &str = "OJD_TEST_CLOCK";

/// Milliseconds since the Unix epoch on the service's clock: the system's, moved by a test's
/// offset when `OJD_TEST_CLOCK` is set (see the module's docs).
pub fn now_ms() -> i64 {
    ojd_store::now_ms().saturating_add(offset_ms())
}

/// The test's offset, 0 unless `OJD_TEST_CLOCK` names a file.
fn offset_ms() -> i64 {
    static FILE: OnceLock<Option<PathBuf>> = OnceLock::new();
    static LAST: AtomicI64 = AtomicI64::new(0);
    static SAID: AtomicBool = AtomicBool::new(false);
    let Some(file) = FILE.get_or_init(|| std::env::var_os(TEST_CLOCK_VAR).map(PathBuf::from))
    else {
        return 0;
    };
    if !SAID.swap(true, Ordering::Relaxed) {
        crate::logging::log(&format!(
            "the clock is a test's: {TEST_CLOCK_VAR} is set, its offset is read from {}",
            file.display()
        ));
    }
    let read = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| t.trim().parse::<i64>().ok());
    match read {
        Some(ms) => {
            LAST.store(ms, Ordering::Relaxed);
            ms
        }
        None => LAST.load(Ordering::Relaxed),
    }
}

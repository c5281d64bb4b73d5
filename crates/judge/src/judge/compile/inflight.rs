//! One compilation per cache key at a time, in this process: a compile that finds its key being
//! compiled by another thread waits for that one to end, then looks in the cache again (a hit,
//! unless the other failed or its program was too big to cache), instead of compiling the same
//! program a second time beside it. Two workers judging the first runs of a problem would
//! otherwise both compile its checker; two submissions of the same source, both.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// The cache folders (one per key) being compiled now.
static COMPILING: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
static ENDED: Condvar = Condvar::new();
/// Threads waiting in [`claim`] now (for the tests).
static WAITING: AtomicUsize = AtomicUsize::new(0);

/// What [`claim`] got.
pub(super) enum Claim {
    /// This thread compiles `dir`; the claim ends when the guard drops (however the compile
    /// ends).
    Mine(Compiling),
    /// Another thread was compiling it and has ended: look in the cache again.
    Waited,
}

/// The claim of one key: dropped, it lets the waiting threads go.
pub(super) struct Compiling(PathBuf);

impl Drop for Compiling {
    fn drop(&mut self) {
        let mut set = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
        set.remove(&self.0);
        drop(set);
        ENDED.notify_all();
    }
}

/// Claims `dir` (a key's folder in the compile cache) for compiling, or waits while another
/// thread holds it.
pub(super) fn claim(dir: &Path) -> Claim {
    let mut set = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
    let mut waited = false;
    while set.contains(dir) {
        waited = true;
        WAITING.fetch_add(1, Ordering::SeqCst);
        set = ENDED.wait(set).unwrap_or_else(|e| e.into_inner());
        WAITING.fetch_sub(1, Ordering::SeqCst);
    }
    if waited {
        return Claim::Waited;
    }
    set.insert(dir.to_path_buf());
    Claim::Mine(Compiling(dir.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    #[test]
    fn a_second_compile_of_a_key_waits_for_the_first() {
        let dir = PathBuf::from(format!("/inflight-test-{}/a", std::process::id()));
        let Claim::Mine(first) = claim(&dir) else {
            panic!("nobody compiles it yet")
        };
        let released = AtomicBool::new(false);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                let started = Instant::now();
                let got = claim(&dir);
                // It only returns once the first claim has ended.
                assert!(released.load(Ordering::SeqCst), "returned while compiling");
                (matches!(got, Claim::Waited), started.elapsed())
            });
            // Another key is not held up meanwhile.
            let other = PathBuf::from(format!("/inflight-test-{}/b", std::process::id()));
            assert!(matches!(claim(&other), Claim::Mine(_)));
            // Released only once the waiter waits (however slowly its thread starts).
            while WAITING.load(Ordering::SeqCst) == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(Duration::from_millis(200));
            released.store(true, Ordering::SeqCst);
            drop(first);
            let (waited, took) = waiter.join().unwrap();
            assert!(waited, "the second learns that it waited");
            assert!(took >= Duration::from_millis(150), "{took:?}");
        });
        // Ended: the key is free again, for a compile after a failed one.
        assert!(matches!(claim(&dir), Claim::Mine(_)));
    }
}

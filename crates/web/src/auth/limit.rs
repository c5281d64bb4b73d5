//! The per-user submission rate limit: submissions per user in a sliding minute, admins exempt.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::AppError;
use crate::user::User;

/// Submissions per user in a sliding minute.
pub(crate) struct RateLimiter {
    per_minute: u32,
    recent: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl RateLimiter {
    pub(crate) fn new(per_minute: u32) -> RateLimiter {
        RateLimiter {
            per_minute,
            recent: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one submission by `user`, or says how many seconds to wait. Admins are exempt.
    pub(crate) fn check(&self, user: &User) -> Result<(), AppError> {
        if self.per_minute == 0 || user.admin {
            return Ok(());
        }
        let window = Duration::from_secs(60);
        let now = Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        let times = recent.entry(user.name.clone()).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            times.pop_front();
        }
        if times.len() >= self.per_minute as usize {
            let oldest = times.front().copied().unwrap_or(now);
            let wait = window.saturating_sub(now.duration_since(oldest)).as_secs() + 1;
            return Err(AppError::RateLimited {
                retry_after_secs: wait,
                what: "submissions",
            });
        }
        times.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_counts_per_user_and_spares_admins() {
        let rl = RateLimiter::new(2);
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let bob = User {
            name: "bob".into(),
            admin: false,
        };
        let root = User {
            name: "root".into(),
            admin: true,
        };
        assert!(rl.check(&alice).is_ok());
        assert!(rl.check(&alice).is_ok());
        assert!(
            matches!(rl.check(&alice), Err(AppError::RateLimited { retry_after_secs, .. }) if retry_after_secs <= 61)
        );
        assert!(rl.check(&bob).is_ok());
        for _ in 0..5 {
            assert!(rl.check(&root).is_ok());
        }
    }
}

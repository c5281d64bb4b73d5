//! Teams' passwords: set by a director (from DOMjudge's `accounts.tsv`, or generated for the
//! hall's sheet), kept only as **Argon2id** hashes, and checked at the login form.
//!
//! Why Argon2id (the `argon2` crate, RustCrypto): it is the password hash OWASP recommends
//! first and the winner of the Password Hashing Competition; it is memory-hard, so a stolen
//! database is expensive to guess through even on GPUs, unlike the SHA-256 that suits the
//! 128-bit random tokens (nobody guesses those; people choose and mistype passwords). The
//! crate's defaults (19 MiB, 2 passes) are OWASP's minimum; the PHC string keeps salt and
//! parameters, so they can be raised later without invalidating stored hashes. Hashing runs
//! on a blocking thread.
//!
//! Passwords log in teams only: an admin account always logs in with its token.
//!
//! **Limits.** A wrong password counts against the account (at most
//! `[web] login_attempts_per_minute` a minute, then 429 for that account only) and against
//! the address with a budget [`ADDRESS_FACTOR`] times larger, so that a hall behind one NAT
//! address, where many teams mistype at once, is not locked out while guessing one account is
//! still slowed to a few tries a minute.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::error::AppError;

/// Why a password could not be made, hashed or taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PasswordError {
    /// The kernel's randomness could not be read.
    #[error("failed to read random bytes")]
    Random(#[source] std::io::Error),
    /// The hasher refused (a salt or a hash could not be made).
    #[error("a password could not be hashed: {0}")]
    Hash(String),
    /// A director's password is too short or too long.
    #[error("the password of {user:?}: 8 to 128 bytes (it has {len})")]
    Length { user: String, len: usize },
    /// A director's password holds control characters.
    #[error("the password of {user:?}: no tabs, newlines or other control characters")]
    Control { user: String },
}

/// A director's bad password is theirs (400); the server's failure is the server's (500). Here
/// rather than in error.rs, which names no module above it.
impl From<PasswordError> for AppError {
    fn from(e: PasswordError) -> AppError {
        use PasswordError as P;
        match e {
            e @ (P::Length { .. } | P::Control { .. }) => AppError::BadRequest(e.to_string()),
            e @ (P::Random(_) | P::Hash(_)) => {
                AppError::Internal(ojd_service::logging::error_chain(&e))
            }
        }
    }
}

/// The per-address budget of wrong passwords is this many times the per-account limit.
pub(crate) const ADDRESS_FACTOR: u32 = 20;

/// Letters and digits that cannot be mistaken for one another on a printed sheet.
const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// The Argon2id hash of `password` (a PHC string with its salt). Slow: call it on a
/// blocking thread.
pub(crate) fn hash(password: &str) -> Result<String, PasswordError> {
    let salt = SaltString::encode_b64(&random::<16>()?)
        .map_err(|e| PasswordError::Hash(format!("no salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| PasswordError::Hash(e.to_string()))
}

/// Whether `password` matches the stored `hash` (a malformed hash never matches). Slow.
pub(crate) fn verify(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| {
        Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

/// A fresh password for the hall's sheet: 12 characters of [`ALPHABET`] from the kernel's
/// randomness (about 59 bits; with the per-account limit, out of reach of guessing).
pub(crate) fn generate() -> Result<String, PasswordError> {
    Ok(random::<12>()?
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .collect())
}

/// `N` bytes of the kernel's randomness.
fn random<const N: usize>() -> Result<[u8; N], PasswordError> {
    use std::io::Read;
    let mut bytes = [0u8; N];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(PasswordError::Random)?;
    Ok(bytes)
}

/// Checks a password a director sets: 8 to 128 bytes, no control characters.
pub(crate) fn check(user: &str, password: &str) -> Result<(), PasswordError> {
    if password.len() < 8 || password.len() > 128 {
        return Err(PasswordError::Length {
            user: user.to_string(),
            len: password.len(),
        });
    }
    if password.chars().any(char::is_control) {
        return Err(PasswordError::Control {
            user: user.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_are_salted() {
        let h = hash("correct horse").expect("hash");
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify(&h, "correct horse"));
        assert!(!verify(&h, "correct horsf"));
        assert!(!verify("not a hash", "correct horse"));
        assert_ne!(
            h,
            hash("correct horse").expect("hash"),
            "a fresh salt each time"
        );
    }

    #[test]
    fn generated_passwords_and_checks() {
        let p = generate().expect("password");
        assert_eq!(p.len(), 12);
        assert!(p.bytes().all(|b| ALPHABET.contains(&b)), "{p}");
        assert!(check("alice", &p).is_ok());
        assert!(check("alice", "short").is_err());
        assert!(check("alice", "tab\there1").is_err());
    }
}

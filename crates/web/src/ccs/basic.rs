//! Who reads the Contest API: the same bearer tokens and sessions as `/api/v1`, and HTTP Basic
//! authentication (`user:token`), which is how the ICPC tools (the CDS, the Resolver, the
//! presentation clients) log in to a contest control system: the password is the user's
//! token, and the user name must be the token's user.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use crate::auth::extract::MaybeUser;
use crate::auth::resolve;
use crate::error::AppError;
use crate::user::User;
use crate::App;

/// The caller, if any; a Basic login that does not check out is a 401.
pub(crate) struct Reader(pub(crate) Option<User>);

impl FromRequestParts<Arc<App>> for Reader {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Reader, AppError> {
        let basic = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Basic ")
                    .or_else(|| v.strip_prefix("basic "))
            })
            .map(str::to_string);
        let Some(encoded) = basic else {
            return Ok(Reader(MaybeUser::from_request_parts(parts, app).await?.0));
        };
        let (name, token) = decode(encoded.trim())
            .and_then(|d| String::from_utf8(d).ok())
            .and_then(|s| {
                s.split_once(':')
                    .map(|(u, p)| (u.to_string(), p.to_string()))
            })
            .ok_or(AppError::Unauthorized)?;
        let a = app.clone();
        let user = resolve(&a, token).await?;
        match user {
            Some(u) if u.name == name => Ok(Reader(Some(u))),
            _ => Err(AppError::Unauthorized),
        }
    }
}

/// Standard base64 (with or without padding); `None` when it is not.
pub(crate) fn decode(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let s = s.trim_end_matches('=').as_bytes();
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn base64() {
        assert_eq!(
            decode("YWxpY2U6YWxpY2UtdG9rZW4=").as_deref(),
            Some(&b"alice:alice-token"[..])
        );
        assert_eq!(decode("YTpi").as_deref(), Some(&b"a:b"[..]));
        assert_eq!(decode("YTpiYw").as_deref(), Some(&b"a:bc"[..]));
        assert_eq!(decode(""), Some(Vec::new()));
        assert_eq!(decode("a"), None);
        assert_eq!(decode("YT*i"), None);
    }
}

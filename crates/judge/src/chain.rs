//! An error and its causes on one line: the one formatter of ojd's errors, for the log, the
//! web's 5xx causes and the command line's `error:` lines alike.

/// An error and every cause under it on one line: "failed to X: cause: cause". A cause that
/// its error's message already ends with (a wrapper such as "host fault: {0}") is said once.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let said = s.to_string();
        if !text.ends_with(&said) {
            text.push_str(&format!(": {said}"));
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::error_chain;

    #[derive(Debug, thiserror::Error)]
    enum Outer {
        #[error("host fault: {0}")]
        Host(#[from] Inner),
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot write the probe file")]
    struct Inner(#[source] std::io::Error);

    #[test]
    fn a_cause_is_said_once() {
        let e = Outer::from(Inner(std::io::Error::other("no space left")));
        assert_eq!(
            error_chain(&e),
            "host fault: cannot write the probe file: no space left"
        );
    }
}

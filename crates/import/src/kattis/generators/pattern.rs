//! BAPCtools' `match` of a test case in generators.yaml: regular expressions that the made `in`
//! or `ans` should hold, read here (an expression ojd cannot read refused, naming its key) and
//! searched for once the files are made (see [`super`]).

use serde_norway::Value;

use crate::ImportError;

/// One regular expression of a test case's `match`: BAPCtools searches the made file for it
/// (multi-line, `.` matching newlines) and warns when it is not found.
pub(super) struct Pattern {
    /// The file searched: `in` or `ans`.
    pub(super) ext: &'static str,
    /// The expression as written.
    pub(super) source: String,
    pub(super) regex: regex_automata::meta::Regex,
}

/// A test case's `match` as BAPCtools reads it: an expression or a list of them (searched for
/// in `in`), or a map of `in` and `ans` to one or a list. Each is compiled here, so that an
/// expression that cannot be read is refused, naming it, before anything runs.
pub(super) fn read(
    v: &Value,
    key: &str,
    refuse: &dyn Fn(&str, &str) -> ImportError,
) -> Result<Vec<Pattern>, ImportError> {
    let by_file: Vec<(&'static str, &Value)> = match v {
        Value::Null => Vec::new(),
        Value::String(_) | Value::Sequence(_) => vec![("in", v)],
        Value::Mapping(m) => {
            let mut out = Vec::new();
            for (k, list) in m {
                match k.as_str().unwrap_or_default() {
                    "in" => out.push(("in", list)),
                    "ans" => out.push(("ans", list)),
                    other => {
                        return Err(refuse(
                            &format!("{key}.match.{other}"),
                            "not a file BAPCtools matches (in, ans)",
                        ))
                    }
                }
            }
            out
        }
        _ => {
            return Err(refuse(
                &format!("{key}.match"),
                "expected an expression, a list of them or a map of in and ans",
            ))
        }
    };
    let mut patterns = Vec::new();
    for (ext, list) in by_file {
        let items: Vec<&Value> = match list {
            Value::Null => Vec::new(),
            Value::Sequence(items) => items.iter().collect(),
            one => vec![one],
        };
        for (i, item) in items.into_iter().enumerate() {
            let here = format!("{key}.match.{ext}[{i}]");
            let Value::String(source) = item else {
                return Err(refuse(&here, "expected a regular expression (a string)"));
            };
            // Python's `re.MULTILINE | re.DOTALL`, as BAPCtools compiles them.
            let syntax = regex_automata::util::syntax::Config::new()
                .multi_line(true)
                .dot_matches_new_line(true);
            let regex = regex_automata::meta::Regex::builder()
                .syntax(syntax)
                .build(source)
                .map_err(|e| {
                    refuse(
                        &here,
                        &format!(
                            "{source:?}: not a regular expression ojd reads (no look-around or back-references): {e}"
                        ),
                    )
                })?;
            patterns.push(Pattern {
                ext,
                source: source.clone(),
                regex,
            });
        }
    }
    Ok(patterns)
}

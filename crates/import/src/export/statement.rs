//! The statement of an exported Kattis package: one statement per language (Kattis tools
//! refuse two in one language), the package's own source where it has one, and the problem's
//! name in every language written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::files::{copy_raw, files_in, write_file};
use crate::ImportError;
use ojd_judge::Problem;

/// The statement formats of a Kattis package, the source preferred: LaTeX over Markdown over a
/// PDF (a PDF beside a LaTeX file is usually that file, built).
const FORMATS: [&str; 3] = ["tex", "md", "pdf"];

/// The language and format of a statement file of a Kattis package (`problem.<lang>.<ext>`, or
/// the legacy `problem.<ext>`, which is English), `None` for any other file (an image).
fn statement_file(name: &str) -> Option<(String, &'static str)> {
    let rest = name.strip_prefix("problem.")?;
    let format = FORMATS
        .into_iter()
        .find(|f| rest.ends_with(&format!(".{f}")) || rest == *f)?;
    let lang = rest.strip_suffix(format)?.trim_end_matches('.');
    let lang = if lang.is_empty() { "en" } else { lang };
    // Language codes are letters and hyphens (`en`, `pt-BR`); anything else is not a statement.
    if !lang.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
        return None;
    }
    Some((lang.to_string(), format))
}

/// The title a statement source gives itself: `\problemname{...}` in LaTeX, the first `# `
/// heading in Markdown.
fn own_title(file: &Path, format: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let title = match format {
        "tex" => {
            let at = text.find("\\problemname{")? + "\\problemname{".len();
            let mut depth = 1;
            let end = text[at..].char_indices().find_map(|(i, c)| {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i)
            })?;
            text[at..at + end].to_string()
        }
        "md" => text.lines().find_map(|l| l.strip_prefix("# "))?.to_string(),
        _ => return None,
    };
    let title = title.trim().to_string();
    (!title.is_empty()).then_some(title)
}

/// Writes `statement/` into `out` and returns the problem's name per language written (the
/// problem's title in English, or in the one language of a rendering; a source's own title in
/// the others).
pub(super) fn statement(
    problem: &Problem,
    out: &Path,
    warnings: &mut Vec<String>,
) -> Result<BTreeMap<String, String>, ImportError> {
    let folder = problem.dir.join("statement");
    // Per language, the preferred source: (format rank, file).
    let mut sources: BTreeMap<String, (usize, &'static str, PathBuf)> = BTreeMap::new();
    let mut others = Vec::new();
    for f in files_in(&folder) {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        match statement_file(&name) {
            Some((lang, format)) => {
                let rank = FORMATS.iter().position(|x| *x == format).unwrap_or(0);
                match sources.get(&lang) {
                    Some((r, _, kept)) if *r <= rank => warnings.push(format!(
                        "{}: not exported: {} is the statement in {lang} (one per language)",
                        f.display(),
                        kept.display()
                    )),
                    _ => {
                        if let Some((_, _, dropped)) = sources.get(&lang) {
                            warnings.push(format!(
                                "{}: not exported: {} is the statement in {lang} (one per language)",
                                dropped.display(),
                                f.display()
                            ));
                        }
                        sources.insert(lang, (rank, format, f));
                    }
                }
            }
            None => others.push(f),
        }
    }
    let mut names = BTreeMap::new();
    for (lang, (_, format, file)) in &sources {
        copy_raw(
            file,
            &out.join(format!("statement/problem.{lang}.{format}")),
        )?;
        let name = if lang == "en" {
            problem.title.clone()
        } else {
            own_title(file, format).unwrap_or_else(|| {
                warnings.push(format!(
                    "{}: no title of its own (\\problemname or a `# ` heading): named {:?} in {lang}",
                    file.display(),
                    problem.title
                ));
                problem.title.clone()
            })
        };
        names.insert(lang.clone(), name);
    }
    if sources.is_empty() {
        // No source of its own: ojd's statement (written here, or rendered at import from a
        // format Kattis does not read) is the English one.
        if let Some(st) = problem.statement() {
            write_file(&out.join("statement/problem.en.md"), st.as_bytes())?;
        }
        names.insert("en".to_string(), problem.title.clone());
    }
    for f in others {
        copy_raw(
            &f,
            &out.join("statement")
                .join(f.file_name().unwrap_or_default()),
        )?;
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_files_by_language_and_format() {
        assert_eq!(statement_file("problem.en.tex"), Some(("en".into(), "tex")));
        assert_eq!(statement_file("problem.tex"), Some(("en".into(), "tex")));
        assert_eq!(
            statement_file("problem.pt-BR.md"),
            Some(("pt-BR".into(), "md"))
        );
        assert_eq!(statement_file("problem.sv.pdf"), Some(("sv".into(), "pdf")));
        assert_eq!(statement_file("figure.png"), None);
        assert_eq!(statement_file("problem.en.png"), None);
        assert_eq!(statement_file("problem.x1.md"), None);
    }
}

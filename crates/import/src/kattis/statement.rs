//! A Kattis package's statement: Markdown kept as `statement.md`, LaTeX kept as source under
//! `statement/` with a Markdown rendering beside it, images kept; English first.

use std::path::Path;

use crate::files::{copy_raw, copy_text, files_in, read_text, safe_name, write_file};
use crate::latex::latex_to_markdown;
use crate::ImportError;

/// `statement.md` from Markdown (kept) or LaTeX (kept as source, rendered to Markdown); other
/// files of the statement folder (images) are kept under `statement/`.
pub(super) fn statement(
    dir: &Path,
    out: &Path,
    title: &str,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let folder = ["statement", "problem_statement"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_dir());
    let Some(folder) = folder else {
        warnings.push(format!("{}: no statement folder", dir.display()));
        return write_file(&out.join("statement.md"), format!("# {title}\n").as_bytes());
    };
    for f in files_in(&folder) {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        copy_raw(&f, &out.join("statement").join(safe_name(&name)))?;
    }
    let pick = |names: &[&str]| names.iter().map(|n| folder.join(n)).find(|p| p.is_file());
    if let Some(md) = pick(&["problem.en.md", "problem.md"]) {
        return copy_text(&md, &out.join("statement.md"));
    }
    if let Some(tex) = pick(&["problem.en.tex", "problem.tex"]) {
        let text = read_text(&tex)?;
        let md = format!(
            "{}\n\n*(Rendered from the LaTeX source `statement/{}`.)*\n",
            latex_to_markdown(&text).trim_end(),
            tex.file_name().unwrap_or_default().to_string_lossy()
        );
        return write_file(&out.join("statement.md"), md.as_bytes());
    }
    // Another language only: take the first Markdown or LaTeX file there is.
    let any = files_in(&folder)
        .into_iter()
        .find(|f| matches!(f.extension().and_then(|e| e.to_str()), Some("md" | "tex")));
    match any {
        Some(f) if f.extension().is_some_and(|e| e == "md") => {
            copy_text(&f, &out.join("statement.md"))
        }
        Some(f) => {
            let text = read_text(&f)?;
            write_file(
                &out.join("statement.md"),
                latex_to_markdown(&text).as_bytes(),
            )
        }
        None => {
            warnings.push(format!(
                "{}: no problem.*.md or problem.*.tex",
                folder.display()
            ));
            write_file(&out.join("statement.md"), format!("# {title}\n").as_bytes())
        }
    }
}

//! `ojd new ID`: a complete new problem package to fill in, that verifies as it is.

use std::path::{Path, PathBuf};

use crate::{print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};

/// Create a new problem package, complete and working, to turn into yours.
///
/// Writes problem.toml (every key, the optional ones commented out), statement.md, the
/// reference solution.rs, validator.rs, a seeded generator gen/random.rs with three generated
/// tests, a sample with its answer, and submissions/accepted/ and submissions/wrong_answer/ with
/// one program each. Every program is a single file using the standard library only. Then it
/// runs `ojd gen` on it (in the sandbox), so that `ojd verify` passes at once.
///
/// The folder must not exist yet (default: the configured problems folder, named ID).
/// Exit code: 0 created, 2 a bad ID or the folder exists, 3 the sandbox could not run `ojd gen`
/// (the files are written; run it again where the sandbox works).
///
/// Example: ojd new sum --to problems/sum
#[derive(clap::Args)]
pub struct Args {
    /// The problem's id: lowercase letters, digits and '-'.
    id: String,
    /// Where the package goes (a new folder).
    #[arg(long)]
    to: Option<PathBuf>,
    /// Only write the files; do not run `ojd gen`.
    #[arg(long)]
    no_gen: bool,
}

/// The package's files: (path in the package, text).
const FILES: &[(&str, &str)] = &[
    ("problem.toml", include_str!("new/problem.toml")),
    ("statement.md", include_str!("new/statement.md")),
    ("solution.rs", include_str!("new/solution.rs")),
    ("validator.rs", include_str!("new/validator.rs")),
    ("gen/random.rs", include_str!("new/gen/random.rs")),
    ("tests/sample-1.in", "3\n1 2 3\n"),
    // A committed sample answer: `ojd gen` checks the reference against it.
    ("tests/sample-1.ans", "6\n"),
    ("submissions/accepted/sum.py", include_str!("new/sum.py")),
    ("submissions/wrong_answer/int32.rs", include_str!("new/int32.rs")),
];

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let valid = !a.id.is_empty()
        && a
            .id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !valid {
        eprintln!(
            "error: {:?}: a problem id is lowercase letters, digits and '-'",
            a.id
        );
        return Ok(EXIT_BAD_INPUT);
    }
    let dir = a.to.unwrap_or_else(|| config.server.problems.join(&a.id));
    if dir.exists() {
        eprintln!(
            "error: {} already exists: `ojd new` writes a new folder",
            dir.display()
        );
        return Ok(EXIT_BAD_INPUT);
    }
    write_package(&dir)?;
    println!("created {}", dir.display());
    if a.no_gen {
        println!(
            "next: `ojd gen {0}`, then `ojd verify {0}`",
            dir.display()
        );
        return Ok(0);
    }
    let problem = ojd_judge::Problem::load(&dir)?;
    let judge = ojd_judge::Judge::new(config.judging(), 1)?;
    match ojd_judge::answers::generate(
        &judge,
        &problem,
        &ojd_judge::answers::GenOptions::default(),
    ) {
        Ok(s) => {
            println!(
                "{}: {} inputs generated, {} validated, {} answers written; check it with `ojd verify {}`",
                s.problem,
                s.inputs_generated,
                s.inputs_validated,
                s.answers_written,
                dir.display()
            );
            Ok(0)
        }
        Err(e) => {
            print_error(&e);
            eprintln!(
                "the package is written; run `ojd gen {}` where the sandbox works",
                dir.display()
            );
            Ok(EXIT_JUDGE_FAILED)
        }
    }
}

fn write_package(dir: &Path) -> anyhow::Result<()> {
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)
            .map_err(|e| anyhow::anyhow!("failed to write {}: {e}", path.display()))?;
    }
    Ok(())
}

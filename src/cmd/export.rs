//! `ojd export kattis`: an ojd package as a Kattis problem package.

use std::path::PathBuf;

use crate::{load_problem, print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};

/// Export an ojd package to another judge's format.
///
/// Writes a new folder (it must not exist yet), whole or not at all. What cannot be expressed
/// in the target format (a testlib checker, a test in two groups) is an error naming the key;
/// near-equivalents (an `exact` checker) are written with a warning. Exit code: 0 exported,
/// 2 the package cannot be exported, 3 an I/O failure.
///
/// Example: ojd export kattis problems/sokoban --to /tmp/sokoban-kattis
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    format: Format,
}

#[derive(clap::Subcommand)]
enum Format {
    /// A Kattis problem package (2023-07 or 2025-09 format).
    Kattis {
        /// The ojd problem folder.
        problem: PathBuf,
        /// The new package folder.
        #[arg(long)]
        to: PathBuf,
        /// Print what was exported as JSON.
        #[arg(long)]
        json: bool,
        /// The edition of the format: `2023-07` (problemtools) or `2025-09` (BAPCtools).
        #[arg(long, default_value = "2023-07", value_parser = ["2023-07", "2025-09"])]
        format: String,
    },
}

pub fn run(a: Args, _g: &Global) -> anyhow::Result<i32> {
    let Format::Kattis {
        problem,
        to,
        json,
        format,
    } = a.format;
    let format = ojd_import::export::KattisFormat::parse(&format)
        .expect("clap accepts only the formats parse knows");
    let Some(problem) = load_problem(&problem) else {
        return Ok(EXIT_BAD_INPUT);
    };
    match ojd_import::export::export_kattis_as(&problem, &to, format) {
        Ok(e) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&e)?);
            } else {
                for w in &e.warnings {
                    eprintln!("warning: {w}");
                }
                println!(
                    "exported {} tests and {} submissions to {}",
                    e.tests,
                    e.submissions,
                    e.dir.display()
                );
            }
            Ok(0)
        }
        Err(e) => {
            print_error(&e);
            Ok(match e {
                ojd_import::ImportError::Io { .. } => EXIT_JUDGE_FAILED,
                _ => EXIT_BAD_INPUT,
            })
        }
    }
}

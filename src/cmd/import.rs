//! `ojd import kattis|polygon|cms`: bring a problem package from another judge into the ojd format.

use std::path::PathBuf;

use crate::{print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};
use ojd_import::{ImportError, Imported};

/// Import a Kattis or Polygon problem package, or a CMS task, as an ojd package.
///
/// The new package is written whole or not at all, into a folder that must not exist yet
/// (default: the configured problems folder, named after the package). Every part that would
/// change judging and that ojd cannot represent is an error naming the file and the key; parts
/// that do not (statement images, submissions in unknown languages) are skipped with a warning.
/// Then run `ojd verify` on the result: every known submission must get what its folder
/// promises. Exit code: 0 imported, 2 the package is unsupported or malformed, 3 the sandbox
/// failed.
///
/// Examples:
///   ojd import kattis ~/packages/different --to problems/different
///   ojd import polygon maxpair-3$linux.zip --to problems/maxpair
///   ojd import cms ~/tasks/somma --to problems/somma
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    format: Format,
    /// How long each of the package's programs (reference, validator, checker, generators)
    /// may compile, over the configuration's `judge.compile_time` (e.g. "120s": a large
    /// testlib program on a loaded machine).
    #[arg(long, global = true, value_name = "DURATION", value_parser = ojd_judge::parse_duration)]
    compile_limit: Option<std::time::Duration>,
}

#[derive(clap::Subcommand)]
enum Format {
    /// A Kattis problem package folder (legacy, 2023-07 or 2025-09 format).
    Kattis {
        /// The package folder (holding problem.yaml).
        dir: PathBuf,
        /// Where the ojd package goes (a new folder).
        #[arg(long)]
        to: Option<PathBuf>,
        /// Print what was imported as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A full Polygon package: the .zip or its unpacked folder (holding problem.xml).
    Polygon {
        package: PathBuf,
        /// Where the ojd package goes (a new folder).
        #[arg(long)]
        to: Option<PathBuf>,
        /// Print what was imported as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A CMS task in the Italian format (italy_yaml: task.yaml, input/, output/, gen/GEN with
    /// `#ST:` subtasks, sol/); subtasks become scoring groups.
    Cms {
        /// The task folder (holding task.yaml).
        dir: PathBuf,
        /// Where the ojd package goes (a new folder).
        #[arg(long)]
        to: Option<PathBuf>,
        /// Print what was imported as JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let mut config = g.load_config()?;
    if let Some(limit) = a.compile_limit {
        config.judge.compile_time = limit;
    }
    let judge = ojd_judge::Judge::new(config.judging(), 1)?;
    let (result, json) = match a.format {
        Format::Kattis { dir, to, json } => (
            ojd_import::kattis::import(
                &dir,
                &config,
                Some(&judge),
                &ojd_import::kattis::Options { to },
            ),
            json,
        ),
        Format::Polygon { package, to, json } => (
            ojd_import::polygon::import(
                &package,
                &config,
                &judge,
                &ojd_import::polygon::Options { to },
            ),
            json,
        ),
        Format::Cms { dir, to, json } => (
            ojd_import::cms::import(&dir, &config, Some(&judge), &ojd_import::cms::Options { to }),
            json,
        ),
    };
    match result {
        Ok(imported) => {
            if let Err(why) = statement_renders(&imported.dir) {
                // The daemon would show this problem as a load error: refused here, whole.
                let _ = std::fs::remove_dir_all(&imported.dir);
                eprintln!("error: {why}; nothing was imported");
                return Ok(EXIT_BAD_INPUT);
            }
            report(&imported, json)?;
            Ok(0)
        }
        Err(e) => {
            print_error(&e);
            Ok(match e {
                ImportError::Io { .. } | ImportError::Run(_) => EXIT_JUDGE_FAILED,
                _ => EXIT_BAD_INPUT,
            })
        }
    }
}

/// Whether the imported package's statement renders as `ojd serve` renders it (the upload
/// refuses a package whose statement does not); the error names the package's folder.
#[cfg(feature = "serve")]
fn statement_renders(dir: &std::path::Path) -> Result<(), String> {
    let problem = ojd_judge::Problem::load(dir).map_err(|e| e.to_string())?;
    ojd_service::render_statement(&problem, ojd_web::render_statement)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Without the web layer this build has no statement renderer (nor `ojd serve` to show one).
#[cfg(not(feature = "serve"))]
fn statement_renders(_dir: &std::path::Path) -> Result<(), String> {
    Ok(())
}

fn report(i: &Imported, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(i)?);
        return Ok(());
    }
    for w in &i.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "imported {} tests ({} samples) and {} submissions into {}; check it with `ojd verify {}`",
        i.tests,
        i.samples,
        i.submissions,
        i.dir.display(),
        i.dir.display()
    );
    Ok(())
}

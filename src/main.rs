//! The `ojd` command line: a thin layer over the library. Each subcommand is a file in
//! `src/cmd/` holding its arguments (`Args`, whose doc comment is its help) and its `run`;
//! the one line per command in `commands!` below registers it. Helpers the commands share
//! (configuration, problem folders, errors, exit codes) live here; progress bars and colour in
//! [`term`].

#![forbid(unsafe_code)]
// A binary exports nothing: its `pub` items reach sibling modules (the commands, the helpers
// here), which is all `pub` can mean in it.
#![allow(unreachable_pub)]

use std::path::{Path, PathBuf};

use clap::Parser;

/// Every command's stdout goes through anstream's `print!` and `println!`, which shadow std's
/// here for every module below: a closed pipe (`ojd judge … | head`) ends the output quietly
/// instead of panicking, and escape codes are stripped where colour is off.
macro_rules! println {
    ($($arg:tt)*) => { anstream::println!($($arg)*) };
}

/// See [`println!`].
macro_rules! print {
    ($($arg:tt)*) => { anstream::print!($($arg)*) };
}

#[cfg(feature = "worker")]
mod daemon;
mod term;

/// Declares the subcommands: `Variant => module` for each file `src/cmd/module.rs`, which
/// provides `pub struct Args` (clap) and `pub fn run(Args, &Global) -> anyhow::Result<i32>`.
macro_rules! commands {
    ($($(#[$cfg:meta])? $variant:ident => $module:ident,)*) => {
        mod cmd {
            $($(#[$cfg])? pub mod $module;)*
        }

        #[derive(clap::Subcommand)]
        enum Cmd {
            $($(#[$cfg])? $variant(cmd::$module::Args),)*
        }

        impl Cmd {
            fn run(self, global: &Global) -> anyhow::Result<i32> {
                match self {
                    $($(#[$cfg])? Cmd::$variant(args) => cmd::$module::run(args, global),)*
                }
            }
        }
    };
}

commands! {
    Judge => judge,
    Gen => gen,
    Stress => stress,
    #[cfg(feature = "serve")]
    Serve => serve,
    #[cfg(feature = "worker")]
    Worker => worker,
    #[cfg(feature = "serve")]
    Token => token,
    Doctor => doctor,
    Verify => verify,
    Run => run,
    Import => import,
    Export => export,
    New => new,
    Calibrate => calibrate,
    #[cfg(feature = "worker")]
    Contest => contest,
}

#[derive(Parser)]
#[command(name = "ojd", version, about = "An online-judge grading daemon")]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Cmd,
}

/// Options every subcommand takes (before or after its name).
#[derive(clap::Args)]
pub struct Global {
    /// Configuration layered over the built-in defaults (see config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Colours on stdout (and in the daemon's log on stderr): `auto` on a terminal unless
    /// NO_COLOR is set (CLICOLOR_FORCE forces them), `always`, or `never`. The same in every
    /// command.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub color: Color,
}

/// When to colour output (`--color`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// Colour when the output is a terminal and NO_COLOR is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl Global {
    /// The configuration: the file given with --config over the defaults, or the defaults.
    pub fn load_config(&self) -> anyhow::Result<ojd_config::Config> {
        Ok(match &self.config {
            Some(p) => ojd_config::Config::load(p)?,
            None => ojd_config::Config::defaults(),
        })
    }
}

/// Exit codes shared by the commands, the one table (docs/daemon.md, "Exit codes"): 0 success,
/// 1 a verdict or check other than the one wanted (`judge`, `verify`), 2 bad input (arguments,
/// configuration, a package, a submission, a path that does not exist), 3 the judge could not
/// judge, 4 the host failed (a daemon's address, runtime or database I/O; any command's own
/// I/O, such as a full disk). [`exit_code`] maps an error no command handled itself.
pub const EXIT_BAD_INPUT: i32 = 2;
/// See [`EXIT_BAD_INPUT`].
pub const EXIT_JUDGE_FAILED: i32 = 3;
/// See [`EXIT_BAD_INPUT`].
pub const EXIT_HOST_FAILED: i32 = 4;

/// The exit code of an error a command returned: the first cause the table knows decides.
/// The judge's errors by their kind; the configuration's are bad input; an I/O error is bad
/// input when it says the path the user named is wrong (missing, not a folder, refused, not
/// valid data), else the host's failure (a full disk, a read-only file system, a broken
/// device); anything else is bad input, the arguments' and packages' errors.
pub fn exit_code(e: &anyhow::Error) -> i32 {
    use std::io::ErrorKind::*;
    for cause in e.chain() {
        if let Some(e) = cause.downcast_ref::<ojd_judge::JudgeError>() {
            return judge_error_code(e);
        }
        if cause.is::<ojd_config::ConfigError>() {
            return EXIT_BAD_INPUT;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                NotFound | PermissionDenied | AlreadyExists | InvalidInput | InvalidData
                | NotADirectory | IsADirectory | DirectoryNotEmpty | InvalidFilename
                | UnexpectedEof => EXIT_BAD_INPUT,
                _ => EXIT_HOST_FAILED,
            };
        }
    }
    EXIT_BAD_INPUT
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("__keeper") {
        ojd_sandbox::keeper::main();
    }
    let cli = Cli::parse();
    anstream::ColorChoice::write_global(match cli.global.color {
        Color::Auto => anstream::ColorChoice::Auto,
        Color::Always => anstream::ColorChoice::Always,
        Color::Never => anstream::ColorChoice::Never,
    });
    let code = match cli.command.run(&cli.global) {
        Ok(code) => code,
        Err(e) => {
            print_error(e.as_ref());
            exit_code(&e)
        }
    };
    std::process::exit(code);
}

/// Prints `error: ` and the whole cause chain of `e` on stderr, with the one formatter of ojd
/// ([`ojd_judge::error_chain`]).
pub fn print_error(e: &(dyn std::error::Error + 'static)) {
    eprintln!("error: {}", ojd_judge::error_chain(e));
}

/// The exit code of a judge's error: the submission's fault is bad input, the judge's own a
/// failure to judge.
pub fn judge_error_code(e: &ojd_judge::JudgeError) -> i32 {
    use ojd_judge::JudgeError::*;
    match e {
        BadSubmission(_)
        | NotText { .. }
        | UnknownLanguage { .. }
        | LanguageUnavailable { .. }
        | MissingAnswers { .. } => EXIT_BAD_INPUT,
        Io { .. } | Sandbox(_) | Host(_) | Cancelled => EXIT_JUDGE_FAILED,
    }
}

/// Problem folders named on the command line, or every package under the problems folder.
pub fn problem_dirs(named: Vec<PathBuf>, config: &ojd_config::Config) -> Vec<PathBuf> {
    if !named.is_empty() {
        return named;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&config.server.problems)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("problem.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// Loads a package, printing its errors (every one, with file and key) when it fails.
pub fn load_problem(dir: &Path) -> Option<ojd_judge::Problem> {
    ojd_judge::Problem::load(dir)
        .map_err(|e| print_error(&e))
        .ok()
}

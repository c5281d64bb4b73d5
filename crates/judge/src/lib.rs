//! ojd's judge: everything between a problem package and a verdict.
//!
//! The main types: [`Problem`] (a validated problem package), [`Config`] (the judging settings
//! and language profiles), [`Judge`] (one submission from source to verdict, the only way anything
//! is judged) and [`JudgeReport`] (what a judging found), rendered by [`report`] as tables and
//! diffs. Programs run in the sandbox of `ojd-sandbox`; nothing here knows about HTTP or SQL.
//!
//! The modules are private; what other crates use is named in the facade below, flat
//! (`ojd_judge::{Judge, Problem, Verdict}`). Three namespaces stay public, each with a small
//! facade of its own, because their names read best with the namespace in front: [`report`]
//! (the terminal renderers: `report::render`, `report::render_diff`, `report::kib`),
//! [`points`] (the fixed-point arithmetic of scores: `points::MILLI`, `points::whole`,
//! `points::split`) and [`answers`] (generating a package's answers: `answers::generate`,
//! `answers::LOCK_FILE`, `answers::stale_answers`). A new public item goes into this list;
//! everything else is `pub(crate)` or private (`unreachable_pub` holds that), so the compiler
//! reports what nobody uses.

#![forbid(unsafe_code)]

pub mod answers;
pub mod archive;
mod chain;
mod config;
mod diff;
mod escape;
mod fsutil;
mod hex;
mod judge;
mod lang;
mod message;
pub mod points;
mod problem;
pub mod report;
mod sources;
mod text;
mod toolchains;
mod units;
mod verdict;

// The facade.

/// Judging: one submission from source to verdict ([`Judge::judge`]), its progress
/// ([`Event`]) and its failures ([`JudgeError`], [`HostFault`]).
pub use judge::{free_space, Event, HostFault, HostSpace, Judge, JudgeError, Recheck, Submission};

/// Running one program outside a judging (generators, validators, `ojd stress`, the
/// toolchain checks): compile it, run it on an input, classify the run, compare its output.
pub use judge::{
    classify, compare, CheckOutcome, CompileFailed, Compiled, InputRun, Pin, Program, ProgramRun,
};

/// Problem packages: [`Problem::load`] reads and validates one.
pub use problem::{
    natural_key, parse_uuid, Aggregation, CheckerSpec, DefaultFlags, FlagError, Group, Interactor,
    InteractorProtocol, Margins, Problem, TestCase, VerdictRules,
};

/// The configuration and the language profiles it defines.
pub use config::{language_for, Config, JudgeConfig, SandboxConfig};
pub use lang::several::entry_file;
pub use lang::{expand_run, EntryPoint, Language, LanguageConfig, SeveralFiles, ToolchainError};

/// A submission of several source files, sent as one bundle.
pub use sources::{encode as encode_bundle, is_bundle, plain_name, ReadError, SourceFile};

/// Verdicts and what a judging found.
pub use verdict::{Diff, DiffLine, JudgeReport, TestResult, Verdict};

/// The toolchains a configuration names, as `ojd doctor` checks them.
pub use toolchains::{check_all as check_toolchains, ToolchainCheck, ToolchainStatus};

/// Sizes and durations as the configuration and the command line write them.
pub use units::{duration_text, format_duration, parse_bytes, parse_duration, ByteSize};

/// Small utilities the other crates share: an error with its causes on one line, a file read
/// up to a limit, lowercase hex, text made safe for a terminal, a checker's message cut to
/// what is shown.
pub use chain::error_chain;
pub use escape::terminal as escape_terminal;
pub use fsutil::read_capped;
pub use hex::encode as hex_encode;
pub use message::checker_message;

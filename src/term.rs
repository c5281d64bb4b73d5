//! The terminal, the one place the commands draw progress and decide colour: a progress bar on
//! stderr ([`Bar`], drawn by indicatif only when stderr is a terminal, so a pipe or a CI log
//! gets nothing) and whether stdout and stderr are coloured ([`color_stdout`], `color_stderr`).
//! Coloured text is printed with `anstream::print!`, which also strips the escape codes when
//! colour is off, so no renderer can leak them into a pipe or past `NO_COLOR`.

use std::io::Write as _;
use std::sync::{Mutex, PoisonError};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether to colour stdout, by `--color` and, for `auto`, the terminal and the environment
/// (`NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `TERM=dumb`), as anstream decides it.
pub fn color_stdout() -> bool {
    anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

/// Whether to colour stderr, decided as for stdout: the daemon's log (`ojd serve`, `ojd worker`).
#[cfg(feature = "worker")]
pub fn color_stderr() -> bool {
    anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
}

/// Writes bytes to stdout unchanged (a program's own output); a closed pipe (`ojd run … |
/// head`) ends the output quietly, as anstream's `print!` does for text.
pub fn stdout_bytes(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// A progress bar on stderr, `phase [=====>    ] done/total elapsed item`, drawn only when
/// stderr is a terminal; cleared when dropped, so drop it before printing results.
pub struct Bar {
    bar: ProgressBar,
    /// The phase shown; none before the first update, when nothing is drawn yet (an empty bar
    /// would flash while the work is being set up).
    phase: Mutex<Option<String>>,
    draw: bool,
}

impl Bar {
    pub fn new() -> Bar {
        Bar::with(true)
    }

    /// A bar that draws nothing: output meant for programs (`--json`) stays alone.
    pub fn hidden() -> Bar {
        Bar::with(false)
    }

    fn with(draw: bool) -> Bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        let style =
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
        bar.set_style(style);
        Bar {
            bar,
            phase: Mutex::new(None),
            draw,
        }
    }

    /// `done` of `total` in `phase`, `item` the one just finished or started. Both texts may
    /// come from a package (names of problems, submissions and tests), so they are escaped.
    pub fn update(&self, phase: &str, done: usize, total: usize, item: &str) {
        let mut current = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        let first = current.is_none();
        if current.as_deref() != Some(phase) {
            *current = Some(phase.to_string());
            self.bar.reset();
            self.bar
                .set_prefix(ojd_judge::escape_terminal(phase).into_owned());
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        self.bar
            .set_message(ojd_judge::escape_terminal(item).into_owned());
        if first && self.draw {
            // indicatif's stderr target draws nothing when stderr is not a terminal.
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.tick();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

//! The documentation's commands, run: every ```` ```sh ```` block of README.md, CONTRIBUTING.md
//! and docs/*.md is a script run with `bash -euo pipefail` in a fresh temporary copy of the
//! repository's problems/, testdata/ and contests/ (and config.toml), with the built `ojd` first
//! on PATH. A block that cannot run in a test (a daemon that runs forever, PostgreSQL, package
//! installs, an excerpt) is marked ```` ```sh no-run ````; output and other text is ```` ```text ````.
//! So a command that stops working, a renamed flag or a moved file fails here, naming the file
//! and the line.

use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;

/// How long one block may take before it is killed and reported.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(120);
/// Lines of a failing block's stderr (and stdout) shown in the report.
const TAIL_LINES: usize = 30;
/// What a block's commands may read and change: copied afresh for every block.
const COPIED: &[&str] = &["problems", "testdata", "contests", "config.toml"];

/// One fenced code block of a Markdown file.
#[derive(Debug)]
struct Block {
    /// The file, relative to the repository (`docs/verify.md`).
    file: String,
    /// The line of the opening fence, from 1.
    line: usize,
    /// The info string after the fence (`sh`, `sh no-run`, `text`, `toml`, ...).
    info: String,
    /// The block's lines, without the fence's indentation.
    body: String,
}

impl Block {
    fn is_sh(&self) -> bool {
        self.info.split_whitespace().next() == Some("sh")
    }

    fn runnable(&self) -> bool {
        self.is_sh() && !self.info.split_whitespace().any(|w| w == "no-run")
    }
}

/// README.md, CONTRIBUTING.md and every docs/*.md, relative to the repository, sorted.
fn documents() -> Vec<String> {
    let mut files = vec!["README.md".to_string(), "CONTRIBUTING.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(common::root().join("docs"))
        .expect("docs/ exists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The fenced code blocks of one Markdown text (CommonMark fences of three or more backticks or
/// tildes, indented up to three spaces or inside a list item).
fn blocks_of(file: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let fence_char = match trimmed.chars().next() {
            Some(c @ ('`' | '~')) => c,
            _ => continue,
        };
        let fence_len = trimmed.chars().take_while(|&c| c == fence_char).count();
        if fence_len < 3 {
            continue;
        }
        let info = trimmed[fence_len..].trim().to_string();
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            let t = l.trim_start();
            let n = t.chars().take_while(|&c| c == fence_char).count();
            if n >= fence_len && t[n..].trim().is_empty() {
                break;
            }
            // The block's lines lose the fence's indentation (a block inside a list item).
            let strip = l.len() - l.trim_start_matches(' ').len();
            body.push_str(&l[strip.min(indent)..]);
            body.push('\n');
        }
        blocks.push(Block {
            file: file.to_string(),
            line: i + 1,
            info,
            body,
        });
    }
    blocks
}

fn all_blocks() -> Vec<Block> {
    documents()
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(common::root().join(f))
                .unwrap_or_else(|e| panic!("{f}: {e}"));
            blocks_of(f, &text)
        })
        .collect()
}

/// What is wrong with a block under the convention, if anything.
fn convention_error(b: &Block) -> Option<String> {
    let mut words = b.info.split_whitespace();
    match words.next() {
        None => Some(
            "a fenced block without an info string: commands are `sh` (or `sh no-run`), \
             output is `text`"
                .into(),
        ),
        Some("bash" | "shell" | "console" | "shell-session") => Some(format!(
            "`{}`: commands are `sh` (run by this test) or `sh no-run`",
            b.info
        )),
        Some("sh") => {
            if let Some(w) = words.find(|w| *w != "no-run") {
                return Some(format!("`sh {w}`: the only word after `sh` is `no-run`"));
            }
            b.body.lines().find_map(|l| {
                l.starts_with("$ ").then(|| {
                    format!(
                        "`{l}`: an `sh` block holds commands only, without a prompt; \
                         output goes to a `text` block"
                    )
                })
            })
        }
        Some(_) => None,
    }
}

/// The anchors of a Markdown text's headings, as GitHub makes them: lower case, punctuation
/// dropped, spaces as `-`, a repeated one numbered (`x`, `x-1`, ...). Fenced blocks hold none.
fn anchors(text: &str) -> Vec<String> {
    let in_blocks: Vec<(usize, usize)> = blocks_of("", text)
        .iter()
        .map(|b| (b.line, b.line + b.body.lines().count() + 1))
        .collect();
    let (mut bases, mut seen) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        if in_blocks.iter().any(|&(a, b)| (a..=b).contains(&(i + 1))) {
            continue;
        }
        let Some(title) = line.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if !line.starts_with('#') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let n = bases.iter().filter(|b| **b == slug).count();
        seen.push(if n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        bases.push(slug);
    }
    seen
}

/// Every relative link of a document names a file that exists, and a heading of it when the
/// link has an anchor.
fn broken_links(file: &str, text: &str) -> Vec<String> {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            rest = &rest[end..];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let linked = if path.is_empty() {
                common::root().join(file)
            } else {
                common::root().join(dir).join(path)
            };
            if !linked.exists() {
                broken.push(format!("{file}:{}: link to {target}: no such file", i + 1));
            } else if !anchor.is_empty() && linked.extension().is_some_and(|e| e == "md") {
                let linked_text = std::fs::read_to_string(&linked).expect("readable");
                if !anchors(&linked_text).iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{file}:{}: link to {target}: no heading with that anchor",
                        i + 1
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn docs_blocks_follow_the_convention_and_links_resolve() {
    let blocks = all_blocks();
    let mut errors: Vec<String> = blocks
        .iter()
        .filter_map(|b| convention_error(b).map(|e| format!("{}:{}: {e}", b.file, b.line)))
        .collect();
    for f in documents() {
        let text = std::fs::read_to_string(common::root().join(&f)).expect("readable");
        errors.extend(broken_links(&f, &text));
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The first problem a newcomer types in is run end to end.
    assert!(
        blocks
            .iter()
            .any(|b| b.file == "README.md" && b.runnable() && b.body.contains("ojd gen")),
        "README.md has no runnable walk-through (a `sh` block with `ojd gen`)"
    );
}

#[test]
fn fence_parsing() {
    let text = "a\n```sh\nojd --help\n```\n1. step\n\n   ```sh no-run\n   ojd serve\n   ```\n\
                ````text\n```\n````\n";
    let b = blocks_of("x.md", text);
    assert_eq!(b.len(), 3, "{b:#?}");
    assert_eq!((b[0].line, b[0].body.as_str()), (2, "ojd --help\n"));
    assert!(b[0].runnable());
    assert_eq!((b[1].line, b[1].body.as_str()), (7, "ojd serve\n"));
    assert!(b[1].is_sh() && !b[1].runnable());
    assert_eq!((b[2].info.as_str(), b[2].body.as_str()), ("text", "```\n"));
    assert!(convention_error(&blocks_of("x.md", "```\nls\n```\n")[0]).is_some());
    assert!(convention_error(&blocks_of("x.md", "```bash\nls\n```\n")[0]).is_some());
    assert!(convention_error(&blocks_of("x.md", "```sh\n$ ls\n```\n")[0]).is_some());
    assert!(convention_error(&blocks_of("x.md", "```sh norun\nls\n```\n")[0]).is_some());
    let headings = "# The daemon: ojd serve\n```toml\n# not a heading\n```\n\
                    ## HTTP API (`/api/v1`, JSON)\n## Options\n## Options\n";
    assert_eq!(
        anchors(headings),
        [
            "the-daemon-ojd-serve",
            "http-api-apiv1-json",
            "options",
            "options-1"
        ]
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("readable folder").flatten() {
        let dest = to.join(entry.file_name());
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            copy_dir(&entry.path(), &dest);
        } else if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).expect("read link");
            std::os::unix::fs::symlink(target, &dest).expect("copy a link");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy a file");
        }
    }
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn read_all(path: &Path) -> String {
    let mut s = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut s))
        .expect("read output");
    String::from_utf8_lossy(&s).into_owned()
}

/// Runs one block in a fresh copy of the repository's data; its failure as a report.
fn run_block(b: &Block) -> Result<Duration, String> {
    let tmp = tempfile::Builder::new()
        .prefix("ojd-docs-")
        .tempdir()
        .expect("temp dir");
    let work = tmp.path().join("repo");
    std::fs::create_dir(&work).expect("work folder");
    for name in COPIED {
        let from = common::root().join(name);
        if from.is_dir() {
            copy_dir(&from, &work.join(name));
        } else {
            std::fs::copy(&from, work.join(name)).expect("copy a file");
        }
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ojd"));
    let path = std::env::join_paths(
        std::iter::once(bin.parent().expect("bin folder").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("PATH");
    // On a failure bash names the Markdown line of the command that failed: the script's
    // line 1 is this trap, its line k + 1 the block's line k, which is the file's line
    // `b.line + k`.
    let script = format!(
        "trap 'echo \"docs: {}:$((LINENO + {})): exit code $?: $BASH_COMMAND\" >&2' ERR\n{}",
        b.file,
        b.line - 1,
        b.body
    );
    let (out_path, err_path) = (tmp.path().join("stdout"), tmp.path().join("stderr"));
    let started = Instant::now();
    let mut child = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(&work)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).expect("stdout file"))
        .stderr(File::create(&err_path).expect("stderr file"))
        // Its own process group, so that a timeout kills every process the block started.
        .process_group(0)
        .spawn()
        .expect("bash runs");
    let status = common::wait_exit(&mut child, BLOCK_TIMEOUT);
    if status.is_none() {
        // SAFETY: kill has no memory preconditions; the group is the one bash leads.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.wait();
    }
    let took = started.elapsed();
    let what = match status {
        Some(s) if s.success() => return Ok(took),
        Some(s) => format!("exit code {}", s.code().unwrap_or(-1)),
        None => format!("killed after {BLOCK_TIMEOUT:?}"),
    };
    Err(format!(
        "{}:{}: the `sh` block failed ({what}, {:.1} s)\n--- stderr (last {TAIL_LINES} lines)\n{}\n\
         --- stdout (last {TAIL_LINES} lines)\n{}",
        b.file,
        b.line,
        took.as_secs_f64(),
        tail(&read_all(&err_path), TAIL_LINES),
        tail(&read_all(&out_path), TAIL_LINES),
    ))
}

#[test]
fn docs_sh_blocks_run() {
    require_root!();
    let blocks: Vec<Block> = all_blocks().into_iter().filter(Block::runnable).collect();
    assert!(!blocks.is_empty(), "no runnable `sh` block in the docs");
    let started = Instant::now();
    let mut failures = Vec::new();
    for b in &blocks {
        match run_block(b) {
            Ok(took) => eprintln!("{}:{}: ok, {:.1} s", b.file, b.line, took.as_secs_f64()),
            Err(report) => failures.push(report),
        }
    }
    eprintln!(
        "{} `sh` blocks in {:.1} s",
        blocks.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} documented command blocks failed:\n\n{}",
        failures.len(),
        blocks.len(),
        failures.join("\n\n")
    );
}

//! Language profiles resolved on this host: the configured compile and run commands with the
//! compiler found (on PATH, or through a sysroot query such as `rustc --print sysroot`, since
//! rustup keeps toolchains outside /usr), and the host folders the sandbox must show for it.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// A language profile whose commands were found on this host.
#[derive(Clone, Debug)]
pub struct Language {
    pub id: String,
    pub name: String,
    pub source: String,
    /// Compile command with an absolute program path; empty: nothing to compile.
    pub compile: Vec<String>,
    pub executable: String,
    pub run: Vec<String>,
    pub time_factor: f64,
}

/// Runs `cmd` on the host (trusted: configuration only) and returns its trimmed stdout.
fn host_query(cmd: &[String]) -> Result<String, String> {
    use wait_timeout::ChildExt;
    let mut child = std::process::Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("`{}` failed to start: {e}", cmd.join(" ")))?;
    match child
        .wait_timeout(Duration::from_secs(30))
        .map_err(|e| e.to_string())?
    {
        Some(st) if st.success() => {}
        Some(st) => return Err(format!("`{}` failed: {st}", cmd.join(" "))),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("`{}` timed out", cmd.join(" ")));
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("piped"), &mut out)
        .map_err(|e| e.to_string())?;
    Ok(out.trim().to_string())
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.is_file())
}

/// Resolves a language's commands; returns it and the host folders the sandbox must show.
pub fn resolve_language(
    id: &str,
    l: &crate::config::LanguageConfig,
) -> Result<(Language, Vec<PathBuf>), String> {
    let mut ro = Vec::new();
    let mut compile = l.compile.clone();
    if let Some(first) = compile.first().cloned() {
        let resolved = if !l.sysroot_query.is_empty() {
            let sysroot = PathBuf::from(host_query(&l.sysroot_query)?);
            let name = Path::new(&first)
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default();
            ro.push(sysroot.clone());
            sysroot.join("bin").join(name)
        } else if first.contains('/') {
            PathBuf::from(&first)
        } else {
            find_on_path(&first).ok_or_else(|| {
                format!(
                    "compiler `{first}` not found on PATH (command: {})",
                    l.compile.join(" ")
                )
            })?
        };
        if !resolved.is_file() {
            return Err(format!(
                "compiler {} not found (command: {})",
                resolved.display(),
                l.compile.join(" ")
            ));
        }
        if !resolved.starts_with("/usr") && !ro.iter().any(|r| resolved.starts_with(r)) {
            if let Some(parent) = resolved
                .canonicalize()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
            {
                ro.push(parent);
            }
        }
        compile[0] = resolved.to_string_lossy().into_owned();
    }
    if let Some(first) = l.run.first() {
        if first.starts_with('/') && !first.starts_with("/prog/") && !Path::new(first).is_file() {
            return Err(format!(
                "interpreter {first} not found (command: {})",
                l.run.join(" ")
            ));
        }
    }
    Ok((
        Language {
            id: id.to_string(),
            name: l.name.clone(),
            source: l.source.clone(),
            compile,
            executable: l.executable.clone(),
            run: l.run.clone(),
            time_factor: l.time_factor,
        },
        ro,
    ))
}

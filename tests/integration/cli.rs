//! The command line as a shell user meets it: output into a pipe that the reader closes early
//! (`ojd … | head`) ends quietly, never with a panic.

use std::process::Stdio;

use crate::common::{self, testdata};

/// Runs `ojd args` with its stdout a pipe whose reading end is already closed, so its first
/// write meets a broken pipe; returns the exit code and stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = common::ojd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ojd starts");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ojd ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_the_output_of_every_command_without_a_panic() {
    require_root!();
    let problem = testdata("aplusb");
    let problem = problem.to_str().unwrap();
    let wa = testdata("aplusb/submissions/wrong_answer/wa_second_line.c");
    let wa = wa.to_str().unwrap();
    // `ojd doctor` without the compile-and-run probe of every language (its `hello`): the
    // probes (JVM starts for javac and kotlinc among them) were two thirds of its time (71 s
    // against 24 s, 14 s of CPU against 4 s, at a load of 23 on 2 cores), and what is tested
    // here is its printing into a closed pipe: a line for every language either way ("no
    // `hello` to try" in place of the probe's outcome).
    let config = tempfile::tempdir().unwrap();
    let no_probes_toml = no_language_probes(config.path());
    let no_probes_toml = no_probes_toml.to_str().unwrap();
    let cases: &[(&[&str], i32)] = &[
        // A program's own output, large enough to fill any pipe buffer, then the outcome.
        (
            &["run", "--", "/bin/sh", "-c", "head -c 4000000 /dev/zero"],
            0,
        ),
        // The report as text and as JSON (a wrong answer exits 1, as with an open pipe).
        (&["judge", problem, wa], 1),
        (&["judge", "--json", problem, wa], 1),
        (&["doctor", "--config", no_probes_toml], 0),
    ];
    for &(args, code) in cases {
        let (status, stderr) = with_closed_stdout(args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        if args[0] != "doctor" {
            // doctor's exit code is the machine's health, not the pipe's.
            assert_eq!(status, Some(code), "{args:?}: {stderr}");
        } else {
            assert!(
                status.is_some_and(|c| c != 101),
                "{args:?}: {status:?} {stderr}"
            );
        }
    }
}

/// A config in `dir` under which `ojd doctor` compiles and runs no language's `hello`.
fn no_language_probes(dir: &std::path::Path) -> std::path::PathBuf {
    let mut no_probes = String::new();
    for id in ojd_judge::Config::defaults().languages.keys() {
        no_probes.push_str(&format!("[languages.{id}]\nhello = \"\"\n"));
    }
    let path = dir.join("config.toml");
    std::fs::write(&path, no_probes).unwrap();
    path
}

/// `ojd doctor --no-noise` (the CI's VM, under emulation) skips only the timing-noise probe,
/// saying so: isolation is still checked, and without the flag the noise is measured.
#[test]
fn doctor_without_its_noise_probe_says_so_and_checks_the_rest() {
    require_root!();
    let config = tempfile::tempdir().unwrap();
    let toml = no_language_probes(config.path());
    let doctor = |extra: &[&str]| {
        let out = crate::common::ojd()
            .args(["doctor", "--config"])
            .arg(&toml)
            .args(extra)
            .output()
            .expect("ojd runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let skipped = doctor(&["--no-noise"]);
    let noise: Vec<&str> = skipped.lines().filter(|l| l.contains(" noise ")).collect();
    assert_eq!(
        noise,
        ["--   noise        not measured (--no-noise)"],
        "{skipped}"
    );
    assert!(skipped.contains(" isolation "), "{skipped}");
    let measured = doctor(&[]);
    let noise = measured.lines().find(|l| l.contains(" noise "));
    assert!(
        noise.is_some_and(|l| l.contains("varies") && !l.starts_with("--")),
        "{measured}"
    );
}

/// The host's own I/O failing (here a full disk: a tmpfs with no inode left) is not the user's
/// bad input: `ojd new` exits 4 naming the file and the cause, while a folder that exists
/// already (the user's mistake) stays exit 2.
#[test]
fn a_full_disk_is_the_hosts_failure_not_bad_input() {
    require_root!();
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m,nr_inodes=4", "ojd-test-full"])
        .arg(&full)
        .status()
        .expect("mount runs");
    assert!(mounted.success(), "a tmpfs mounts on {}", full.display());
    let out = common::ojd()
        .args(["new", "tiny", "--no-gen", "--to"])
        .arg(full.join("tiny"))
        .output()
        .expect("ojd runs");
    let unmounted = std::process::Command::new("umount").arg(&full).status();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains(&full.display().to_string()), "{stderr}");
    assert!(unmounted.is_ok_and(|s| s.success()), "the tmpfs unmounts");

    let exists = common::ojd()
        .args(["new", "tiny", "--no-gen", "--to"])
        .arg(dir.path())
        .output()
        .expect("ojd runs");
    let stderr = String::from_utf8_lossy(&exists.stderr);
    assert_eq!(exists.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
}

//! The reduced-isolation mode (rlimits only): refused unless the configuration opts in with
//! `allow_insecure_sandbox`, and, when it does, still no way to the problem's files, no process
//! outliving its run, no root write through a planted link. And the fallback really running
//! unprivileged: `ojd judge` as `nobody`.

use std::os::unix::fs::PermissionsExt;

use super::*;

fn insecure_judge(base: u32, allow: bool) -> Judge {
    let mut config = Config::defaults();
    config.sandbox.uid_base = base;
    config.sandbox.isolate = false;
    config.sandbox.allow_insecure_sandbox = allow;
    common::judge_with(config, 1)
}

#[test]
fn reduced_isolation_is_refused_unless_the_configuration_opts_in() {
    require_root!();
    let j = insecure_judge(71000, false);
    let sub = common::submission(&j, &testdata("aplusb/submissions/accepted/ac.c"));
    let e = j
        .judge(&aplusb(), &sub, &mut |_| {}, &Default::default())
        .expect_err("judging without isolation must be refused");
    let text = format!("{e}");
    assert!(
        text.contains("isolate = false"),
        "names the missing piece: {text}"
    );
    assert!(
        text.contains("allow_insecure_sandbox"),
        "names the key: {text}"
    );
    assert!(processes_of(71000).is_empty());
}

#[test]
fn opted_in_reduced_isolation_keeps_the_judges_files_and_kills_every_process() {
    require_root!();
    let j = insecure_judge(72000, true);
    let lim = limits(Duration::from_secs(1), 64 * MIB);

    // The answer beside the input is not reachable through stdin.
    let attack = compile(&j, "stdin_attack.c");
    let problem = secret_problem();
    let r = run(&j, &attack, &[], Some(&problem.tests[0].input), &lim);
    assert!(!r.stdout.contains(MARKER), "read the answer: {}", r.stdout);
    assert!(
        !r.stderr
            .contains(&*problem.tests[0].input.to_string_lossy()),
        "saw the input's path: {}",
        r.stderr
    );

    // A setsid daemon dies with its run.
    let rep = judge(&j, &aplusb(), &hostile("daemon.c"));
    assert_eq!(rep.verdict, Verdict::Accepted, "{rep:#?}");
    let left = processes_of(72000);
    assert!(left.is_empty(), "alive after the run: {left:?}");

    // A link planted in the box by a (would-be) survivor never redirects the keeper's copy.
    let victim_dir = tempfile::tempdir().unwrap();
    let victim = victim_dir.path().join("victim");
    let plant = compile(&j, "plant_link.c");
    let r = run(&j, &plant, &[victim.to_string_lossy().into()], None, &lim);
    assert!(r.stdout.contains("planted"), "{}: {}", r.stdout, r.message);
    let left = processes_of(72000);
    assert!(left.is_empty(), "alive after the run: {left:?}");
    let sample = testdata("aplusb/tests/sample-1.in");
    let cat = compile(&j, "sleeper.c");
    for _ in 0..20 {
        let files = vec![(sample.clone(), "input".to_string())];
        let mut short = lim.clone();
        short.wall = Duration::from_millis(50);
        run_boxed(&j, &cat, &["x".into()], None, files, &short);
    }
    assert!(!victim.exists(), "the keeper wrote through a planted link");
}

/// A folder `nobody` can read (and, for `scratch`, write).
fn open_dir(path: &Path, writable: bool) {
    std::fs::create_dir_all(path).unwrap();
    let mode = if writable { 0o777 } else { 0o755 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn unprivileged_fallback_judges_under_rlimits_only_when_allowed() {
    require_root!();
    let site = tempfile::tempdir().unwrap();
    open_dir(site.path(), false);
    let problem = site.path().join("aplusb");
    open_dir(&problem, false);
    open_dir(&problem.join("tests"), false);
    for f in ["problem.toml", "statement.md", "solution.rs"] {
        let _ = std::fs::copy(testdata("aplusb").join(f), problem.join(f));
    }
    for f in ["sample-1.in", "sample-1.ans"] {
        std::fs::copy(
            testdata("aplusb/tests").join(f),
            problem.join("tests").join(f),
        )
        .unwrap();
    }
    let scratch = site.path().join("scratch");
    open_dir(&scratch, true);
    std::os::unix::fs::chown(&scratch, Some(65534), Some(65534)).unwrap();
    let config = |allow: bool| {
        let p = site.path().join(format!("config-{allow}.toml"));
        std::fs::write(
            &p,
            format!(
                "[sandbox]\nscratch = \"{}\"\nallow_insecure_sandbox = {allow}\n",
                scratch.display()
            ),
        )
        .unwrap();
        p
    };
    let sources = site.path().join("src");
    open_dir(&sources, false);
    let as_nobody = |allow: bool, file: &str| {
        let src = sources.join(Path::new(file).file_name().unwrap());
        std::fs::copy(testdata("aplusb/submissions").join(file), &src).unwrap();
        let out = std::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--inh-caps=-all",
            ])
            .arg(env!("CARGO_BIN_EXE_ojd"))
            .args(["judge", "--json", "--config"])
            .arg(config(allow))
            .arg(&problem)
            .arg(&src)
            .output()
            .expect("setpriv runs");
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        (out.status.code(), v, text)
    };
    let (code, _, stderr) = as_nobody(false, "accepted/ac.c");
    assert_eq!(code, Some(3), "refused as a judge failure: {stderr}");
    assert!(stderr.contains("not running as root"), "{stderr}");
    assert!(stderr.contains("allow_insecure_sandbox"), "{stderr}");

    let (code, v, stderr) = as_nobody(true, "accepted/ac.c");
    assert_eq!(code, Some(0), "{stderr}\n{v:#}");
    assert_eq!(v["verdict"], "AC", "{v:#}");
    assert!(
        v["warnings"].to_string().contains("rlimits only"),
        "the report says the isolation was reduced: {v:#}"
    );
    let (_, v, stderr) = as_nobody(true, "time_limit_exceeded/busy.c");
    assert_eq!(v["verdict"], "TLE", "{stderr}\n{v:#}");
    let (_, v, stderr) = as_nobody(true, "memory_limit_exceeded/touch_256m.c");
    assert!(
        v["verdict"] == "MLE" || v["verdict"] == "RE",
        "RLIMIT_AS stops the allocation: {stderr}\n{v:#}"
    );
}

//! `ojd contest import|export`: contests in the CLICS Contest Package format (what DOMjudge
//! and the ICPC tools exchange). The package's documents are `ojd_service::package`'s; this
//! command adds the problems as Kattis packages (`ojd-import`) and, for export, the documents
//! only the running daemon states, fetched from its Contest API.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde_json::Value;

use ojd_import::clics::yaml;
use ojd_service::package::{self, PackageError};

use crate::{print_error, Global, EXIT_BAD_INPUT, EXIT_JUDGE_FAILED};

/// Import or export a contest as a CLICS Contest Package.
///
/// `import DIR` reads contest.yaml (or contest.json), problems.yaml (or problems.json),
/// teams, organizations, groups and accounts (.yaml or .json) and ojd.json, imports each
/// problem's Kattis package (the folder `DIR/<problem id>` or `DIR/problems/<problem id>`)
/// into the problems folder (a problem folder that exists already is used as it is), and
/// writes `contests/<id>/contest.toml` (a `[[team]]` per team: name, organization, group,
/// hidden teams as observers) with `ccs.json` beside it (the rest of what the standard says).
/// Teams become the participants, by team id (an ojd user name); accounts' passwords are not
/// kept: give each team a token (`ojd token`) or a hall sheet. The contest's history is
/// stored in the database, under the package's ids, in one transaction: submissions.json
/// (each with its `submissions/<id>/files.zip`), judgements.json and runs.json (verdicts of
/// record, marked imported, not judged again), clarifications.json, and state.json's thaw and
/// finalization. Importing the same package again stores only what is missing.
///
/// `export ID --to DIR` writes the contest as a package: contest.json and .yaml,
/// problems.json and .yaml, teams.json, organizations.json, groups.json, accounts.json
/// (without passwords: ojd keeps only their hashes), ojd.json (the settings the standard has
/// no key for) and each problem as a Kattis package in `DIR/<problem id>`. With `--from URL`
/// (the running daemon; an admin token in the environment variable OJD_TOKEN) also what its
/// store holds, as its Contest API serves it to an admin: judgement-types, languages,
/// submissions (with each one's files, `submissions/<id>/files.zip`), judgements, runs,
/// clarifications, awards, scoreboard, state (.json), event-feed.ndjson and results.tsv.
/// Exit code: 0 done, 2 bad input (the message names the file and key), 3 an I/O failure.
///
/// Examples:
///   ojd contest import ~/wf2026-package
///   OJD_TOKEN=… ojd contest export example --to /tmp/example-package --from http://127.0.0.1:8080
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Import a CLICS Contest Package folder as an ojd contest.
    Import {
        /// The package folder (holding contest.yaml or contest.json).
        dir: PathBuf,
        /// The contest's id (default: the package's `id`, else the folder's name).
        #[arg(long)]
        id: Option<String>,
    },
    /// Export an ojd contest as a CLICS Contest Package.
    Export {
        /// The contest's id (its folder under the contests folder).
        id: String,
        /// The new package folder (it must not exist yet).
        #[arg(long)]
        to: PathBuf,
        /// Leave this problem out of the package (repeatable): for a problem the Kattis
        /// format cannot express (file I/O, for one), which otherwise refuses the export.
        #[arg(long, value_name = "PROBLEM")]
        without: Vec<String>,
        /// The running daemon's URL (`http://host:port`): add the submissions, judgements,
        /// runs, clarifications, awards, scoreboard, event feed and results it serves (with
        /// the admin token in OJD_TOKEN).
        #[arg(long, value_name = "URL")]
        from: Option<String>,
    },
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    let config = g.load_config()?;
    let result = match a.action {
        Action::Import { dir, id } => import(&dir, id, &config),
        Action::Export {
            id,
            to,
            without,
            from,
        } => export(&id, &to, &without, from.as_deref(), &config),
    };
    match result {
        Ok(()) => Ok(0),
        Err(Failure::Bad(e)) => {
            print_error(e.as_ref() as &(dyn std::error::Error + 'static));
            Ok(EXIT_BAD_INPUT)
        }
        Err(Failure::Io(e)) => {
            print_error(e.as_ref() as &(dyn std::error::Error + 'static));
            Ok(EXIT_JUDGE_FAILED)
        }
    }
}

enum Failure {
    Bad(anyhow::Error),
    Io(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Bad(e)
    }
}

impl From<PackageError> for Failure {
    fn from(e: PackageError) -> Failure {
        match e {
            PackageError::Bad(_) => Failure::Bad(e.into()),
            PackageError::Io { .. } | PackageError::Store(_) => Failure::Io(e.into()),
        }
    }
}

fn io(e: impl Into<anyhow::Error>) -> Failure {
    Failure::Io(e.into())
}

fn import(dir: &Path, id: Option<String>, config: &ojd_config::Config) -> Result<(), Failure> {
    // A running daemon holds its SQLite database's lock: its contests and history are its
    // own to write (through its admin page). Held until the import is done.
    let database = config.server.database.to_string_lossy().into_owned();
    let _lock = if ojd_store::is_postgres_url(&database) {
        None
    } else {
        ojd_service::lock_database(&config.server.database).map_err(|e| {
            anyhow!(
                "{e}: stop it first, or import the package on its admin page (Contests, \
                 Import a package)"
            )
        })?
    };
    let p = package::Package::read(dir)?;
    // Everything is checked before anything is written.
    let plan = package::plan(&p, id, &config.server.contests)?;
    // The history is read whole before anything is written too.
    let past = package::history(dir, &plan)?;
    for w in plan.warnings.iter().chain(&past.warnings) {
        eprintln!("warning: {w}");
    }
    // Problems first: a contest is written only over problems that exist. The ones this
    // import creates are removed again if anything after fails.
    let mut created: Vec<PathBuf> = Vec::new();
    let dest = config.server.contests.join(&plan.id);
    let result = import_problems(dir, &plan.problems, &p.problems.0, config, &mut created)
        .and_then(|()| {
            package::write(&plan, &config.server.contests, &config.server.problems)
                .map_err(Failure::from)
        })
        .and_then(|_| {
            // One transaction: the whole history, or nothing of it.
            let database = config.server.database.to_string_lossy();
            package::load(&database, &plan.id, &past).map_err(|e| {
                if !plan.again {
                    // Best effort: the contest folder was written above, by this import.
                    let _ = std::fs::remove_dir_all(&dest);
                }
                Failure::from(e)
            })
        });
    let loaded = match result {
        Ok(loaded) => loaded,
        Err(e) => {
            for d in &created {
                // Best effort: these folders were made by this import.
                let _ = std::fs::remove_dir_all(d);
            }
            return Err(e);
        }
    };
    let verb = if plan.again { "imported again" } else { "imported" };
    println!(
        "{verb} contest {} ({} problems, {} teams) into {}: {} submissions, {} judgements, {} clarifications stored, {} there already",
        plan.id,
        plan.problems.len(),
        plan.teams.len(),
        dest.display(),
        loaded.submissions,
        loaded.judgings,
        loaded.clarifications,
        loaded.kept,
    );
    Ok(())
}

/// Imports each problem's Kattis package that is not in the problems folder yet (recording
/// the folders it creates in `created`).
fn import_problems(
    dir: &Path,
    problems: &[(usize, Value)],
    ppath: &Path,
    config: &ojd_config::Config,
    created: &mut Vec<PathBuf>,
) -> Result<(), Failure> {
    let judge = ojd_judge::Judge::new(config.judging(), 1).map_err(io)?;
    for (i, p) in problems {
        let pat = |key: &str| format!("{}: [{i}].{key}", ppath.display());
        let pid = p["id"].as_str().map_or_else(|| p["id"].to_string(), str::to_string);
        let target = config.server.problems.join(&pid);
        if target.join("problem.toml").exists() {
            eprintln!("problem {pid}: {} exists already; used as it is", target.display());
        } else {
            let own_dir = |d: &Path| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir());
            let package = [dir.join(&pid), dir.join("problems").join(&pid)]
                .into_iter()
                .find(|d| own_dir(d) && d.join("problem.yaml").exists());
            let Some(package) = package else {
                let zipped = [dir.join(format!("{pid}.zip")), dir.join("problems").join(&pid).join(format!("{pid}.zip"))]
                    .into_iter()
                    .find(|z| z.is_file());
                let hint = match zipped {
                    Some(z) => format!(" ({} is a zip: unpack it into {}/ first)", z.display(), dir.join(&pid).display()),
                    None => String::new(),
                };
                return Err(anyhow!("{}: no Kattis package {pid}/ or problems/{pid}/ (with problem.yaml) in {}{hint}", pat("id"), dir.display()).into());
            };
            if !target.exists() {
                created.push(target.clone());
            }
            let imported = ojd_import::kattis::import(
                &package,
                config,
                Some(&judge),
                &ojd_import::kattis::Options { to: Some(target.clone()) },
            )
            .map_err(|e| anyhow!("problem {pid} ({}): {e}", package.display()))?;
            for w in &imported.warnings {
                eprintln!("warning: problem {pid}: {w}");
            }
            println!("problem {pid}: imported {} tests into {}", imported.tests, imported.dir.display());
        }
        // The package's time limit is the problem's own; problems.yaml's is informational,
        // but a different one is likely a mistake worth saying.
        if let Some(want) = p.get("time_limit").and_then(Value::as_f64) {
            if let Ok(problem) = ojd_judge::Problem::load(&target) {
                let have = problem.time_limit.as_secs_f64();
                if (have - want).abs() > 0.0005 {
                    eprintln!(
                        "warning: {}: {want} s, but problem {pid}'s package sets {have} s (used)",
                        pat("time_limit")
                    );
                }
            }
        }
    }
    Ok(())
}

fn export(
    id: &str,
    to: &Path,
    without: &[String],
    from: Option<&str>,
    config: &ojd_config::Config,
) -> Result<(), Failure> {
    let dir = config.server.contests.join(id);
    let mut c = ojd_service::contest::Contest::load(&dir, &config.server.problems)
        .map_err(|e| anyhow!("contest {id}: {e}"))?;
    if let Some(w) = without.iter().find(|w| !c.problems.iter().any(|p| &p.problem == *w)) {
        return Err(anyhow!("--without {w}: not a problem of contest {id}").into());
    }
    c.problems.retain(|p| !without.contains(&p.problem));
    if to.exists() {
        return Err(anyhow!("{}: exists already (the package goes into a new folder)", to.display()).into());
    }
    let token = match from {
        None => None,
        Some(_) => Some(std::env::var("OJD_TOKEN").map_err(|_| {
            anyhow!("--from: no admin token in the environment variable OJD_TOKEN")
        })?),
    };
    let staging = to.with_extension("partial");
    // Left over from an export that failed midway; gone is fine.
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(io)?;
    let result = write_package(&c, &staging, config).and_then(|()| match (from, &token) {
        (Some(url), Some(token)) => fetch_live(url, token, id, &staging),
        _ => Ok(()),
    });
    if let Err(e) = result {
        // Best effort: the staging folder is this export's own.
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    std::fs::rename(&staging, to).map_err(io)?;
    println!("exported contest {id} ({} problems) to {}", c.problems.len(), to.display());
    Ok(())
}

fn write_package(c: &ojd_service::contest::Contest, to: &Path, config: &ojd_config::Config) -> Result<(), Failure> {
    let docs = package::documents(c, &config.server.problems)?;
    let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("JSON values serialize") + "\n";
    let problems = Value::Array(docs.problems.clone());
    let files: [(&str, String); 10] = [
        ("contest.json", pretty(&docs.contest)),
        ("contest.yaml", yaml(&docs.contest)),
        ("problems.json", pretty(&problems)),
        ("problems.yaml", yaml(&problems)),
        ("teams.json", pretty(&docs.teams)),
        ("organizations.json", pretty(&docs.organizations)),
        ("groups.json", pretty(&docs.groups)),
        ("accounts.json", pretty(&docs.accounts)),
        ("ojd.json", pretty(&docs.settings)),
        ("README.txt", "A CLICS contest package written by `ojd contest export`.\n".into()),
    ];
    for (name, text) in files {
        std::fs::write(to.join(name), text).map_err(io)?;
    }
    for p in &c.problems {
        let problem = crate::load_problem(&config.server.problems.join(&p.problem))
            .ok_or_else(|| anyhow!("problem {}: does not load", p.problem))?;
        let e = ojd_import::export::export_kattis(&problem, &to.join(&p.problem)).map_err(|e| {
            anyhow!("problem {}: {e}\n(leave it out of the package with --without {})", p.problem, p.problem)
        })?;
        for w in &e.warnings {
            eprintln!("warning: problem {}: {w}", p.problem);
        }
    }
    Ok(())
}

/// Fetches what only the daemon states (its store) from its Contest API as an admin.
fn fetch_live(url: &str, token: &str, id: &str, to: &Path) -> Result<(), Failure> {
    let base = url.trim_end_matches('/');
    let agent = ureq::AgentBuilder::new().timeout(std::time::Duration::from_secs(120)).build();
    let get = |path: String| -> Result<String, Failure> {
        let response = agent
            .get(&format!("{base}{path}"))
            .set("Authorization", &format!("Bearer {token}"))
            .call()
            .map_err(|e| match e {
                ureq::Error::Status(code, _) => Failure::Bad(anyhow!("{base}{path}: answered {code} (is OJD_TOKEN an admin's token?)")),
                other => Failure::Io(anyhow!("{base}{path}: {other}")),
            })?;
        response.into_string().map_err(|e| io(anyhow!("{base}{path}: {e}")))
    };
    for (file, path) in package::LIVE {
        let body = get(format!("/api/contests/{id}/{path}"))?;
        std::fs::write(to.join(file), body).map_err(io)?;
    }
    // Each submission's files, where the package format keeps a file of an object:
    // `<endpoint>/<id>/<filename>`.
    let listed: Value = serde_json::from_slice(&std::fs::read(to.join("submissions.json")).map_err(io)?)
        .map_err(|e| anyhow!("{base}/api/contests/{id}/submissions: not JSON: {e}"))?;
    for s in listed.as_array().into_iter().flatten() {
        let sid = s["id"].as_str().filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
        let Some(sid) = sid else {
            return Err(anyhow!("{base}/api/contests/{id}/submissions: {} is not a submission id", s["id"]).into());
        };
        let path = format!("{base}/api/contests/{id}/submissions/{sid}/files");
        let response = agent
            .get(&path)
            .set("Authorization", &format!("Bearer {token}"))
            .call()
            .map_err(|e| io(anyhow!("{path}: {e}")))?;
        let mut zip = Vec::new();
        std::io::Read::read_to_end(&mut response.into_reader(), &mut zip).map_err(|e| io(anyhow!("{path}: {e}")))?;
        let folder = to.join("submissions").join(sid);
        std::fs::create_dir_all(&folder).map_err(io)?;
        std::fs::write(folder.join("files.zip"), zip).map_err(io)?;
    }
    let results = get(format!("/api/v1/contests/{id}/results.tsv"))?;
    std::fs::write(to.join("results.tsv"), results).map_err(io)?;
    Ok(())
}

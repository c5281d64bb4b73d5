//! A contest package's scalars as `ojd contest import` checks them, through its own code
//! (`ojd_service::package::plan`): the input is put in every value the import reads (the start
//! TIME, the RELTIMEs, a problem's id and colour, the roster's ids, names, countries and
//! references) of an otherwise good package, and, when it is JSON, is the contest object
//! itself. Then the YAML `ojd contest export` writes of it (`ojd_import::clics::yaml`). A time
//! ending in a multi-byte character once panicked. Never a panic.
#![no_main]

use std::sync::OnceLock;

use ojd_service::package::{plan, Package};
use serde_json::{json, Value};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let s = json!(text);
    let contest = json!({"id": "c", "name": "C", "start_time": "2030-06-25T10:00:00+01",
                         "duration": "5:00:00", "scoreboard_freeze_duration": "1:00:00"});
    let problem = json!({"id": "a", "label": "A", "rgb": "#00f"});
    let team = json!({"id": "t", "name": "T", "organization_id": "o", "group_ids": ["g"]});
    let org = json!({"id": "o", "name": "O", "country": "NLD"});
    let group = json!({"id": "g", "name": "G"});
    let account = json!({"id": "t", "username": "t", "type": "team", "team_id": "t"});
    // One value of a good package replaced by the input: each check meets it alone.
    let with = |v: &Value, key: &str| {
        let mut v = v.clone();
        v[key] = s.clone();
        v
    };
    let good = [
        contest.clone(),
        problem.clone(),
        team.clone(),
        org.clone(),
        group.clone(),
        account.clone(),
    ];
    let mut cases = Vec::new();
    for key in [
        "id",
        "name",
        "start_time",
        "duration",
        "scoreboard_freeze_duration",
        "scoreboard_type",
    ] {
        let mut c = good.clone();
        c[0] = with(&contest, key);
        cases.push(c);
    }
    for key in ["id", "label", "rgb", "color"] {
        let mut c = good.clone();
        c[1] = with(&problem, key);
        cases.push(c);
    }
    for key in ["id", "name", "organization_id", "display_name", "hidden"] {
        let mut c = good.clone();
        c[2] = with(&team, key);
        cases.push(c);
    }
    for key in ["id", "country", "country_subdivision", "formal_name"] {
        let mut c = good.clone();
        c[3] = with(&org, key);
        cases.push(c);
    }
    let mut c = good.clone();
    c[4] = with(&group, "id");
    cases.push(c);
    let mut c = good.clone();
    c[5] = with(&account, "team_id");
    cases.push(c);
    // The input as a document of its own: the contest object, or the list of teams.
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        let _ = ojd_import::clics::yaml(&doc);
        let mut c = good.clone();
        c[0] = doc.clone();
        cases.push(c);
        if doc.is_array() {
            let mut c = good.clone();
            c[2] = Value::Null;
            check(&package(&c, doc.as_array().cloned()));
        }
    }
    for c in &cases {
        check(&package(c, None));
    }
});

/// `plan` into a contests folder that does not exist (nothing is there, nothing is written).
fn check(p: &Package) {
    let _ = plan(p, None, &p.dir.join("contests"));
}

/// A package of these objects (contest, problem, team, organization, group, account), or of
/// `teams` when given: the good package read once from a folder by `Package::read`, its
/// documents then replaced (`plan` reads no file, and writes none).
fn package(o: &[Value; 6], teams: Option<Vec<Value>>) -> Package {
    static BASE: OnceLock<(tempfile::TempDir, Package)> = OnceLock::new();
    let (_, base) = BASE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::write(dir.path().join("contest.json"), "{}").expect("write");
        std::fs::write(dir.path().join("problems.json"), "[]").expect("write");
        let p = Package::read(dir.path()).expect("a package of two files reads");
        (dir, p)
    });
    let one = |v: &Value| if v.is_null() { vec![] } else { vec![v.clone()] };
    let mut p = base.clone();
    p.contest.1 = o[0].clone();
    p.problems.1 = one(&o[1]);
    p.teams.1 = teams.unwrap_or_else(|| one(&o[2]));
    p.organizations.1 = one(&o[3]);
    p.groups.1 = one(&o[4]);
    p.accounts.1 = one(&o[5]);
    p
}

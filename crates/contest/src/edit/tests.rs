use super::*;

fn problems_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("dir");
    for p in ["pa", "pb", "pc"] {
        std::fs::create_dir(d.path().join(p)).expect("mkdir");
    }
    d
}

fn draft() -> Draft {
    Draft {
        title: "Spring".into(),
        start: "2026-12-01T09:00:00+08:00".into(),
        duration: "5h".into(),
        freeze: "1h".into(),
        scoring: "icpc".into(),
        penalty: "20".into(),
        compile_errors_count: false,
        public_standings: true,
        participants: "anyone".into(),
        feedback: "all".into(),
        problems: vec![
            DraftProblem {
                label: "".into(),
                problem: "pa".into(),
                color: "#FF0000".into(),
            },
            DraftProblem {
                label: "".into(),
                problem: "pb".into(),
                color: "".into(),
            },
            DraftProblem::default(),
        ],
        awards: None,
    }
}

#[test]
fn a_new_contest_is_written_and_loads_as_typed() {
    let p = problems_dir();
    let d = draft();
    assert_eq!(d.check(p.path(), true), vec![]);
    let dir = tempfile::tempdir().expect("dir");
    let cdir = dir.path().join("spring");
    std::fs::create_dir(&cdir).expect("mkdir");
    std::fs::write(cdir.join("contest.toml"), d.new_text()).expect("write");
    let c = Contest::load(&cdir, p.path()).expect("loads");
    assert_eq!(c.title, "Spring");
    assert_eq!(c.freeze, Some(std::time::Duration::from_secs(3600)));
    let got: Vec<(&str, &str, Option<&str>)> = c
        .problems
        .iter()
        .map(|p| (p.label.as_str(), p.problem.as_str(), p.color.as_deref()))
        .collect();
    assert_eq!(got, [("A", "pa", Some("#ff0000")), ("B", "pb", None)]);
    assert_eq!(Draft::of(&c).problem_list(), d.problem_list());
}

#[test]
fn every_bad_field_is_named() {
    let p = problems_dir();
    let mut d = draft();
    d.title = " ".into();
    d.start = "tomorrow".into();
    d.duration = "long".into();
    d.freeze = "6h".into();
    d.scoring = "acm".into();
    d.penalty = "-3".into();
    d.participants = "alice, b ob!, alice".into();
    d.problems = vec![
        DraftProblem {
            label: "A".into(),
            problem: "nope".into(),
            color: "red".into(),
        },
        DraftProblem {
            label: "A".into(),
            problem: "pb".into(),
            color: "".into(),
        },
        DraftProblem {
            label: "toolonglabel".into(),
            problem: "pb".into(),
            color: "".into(),
        },
    ];
    let fields: Vec<String> = d
        .check(p.path(), true)
        .into_iter()
        .map(|e| e.field)
        .collect();
    assert_eq!(
        fields,
        [
            "title",
            "start",
            "duration",
            "scoring",
            "penalty",
            "participants",
            "participants",
            "problems[1].problem",
            "problems[1].color",
            "problems[2].label",
            "problems[3].problem",
            "problems[3].label",
        ]
    );
    d.problems.clear();
    assert!(d
        .check(p.path(), false)
        .iter()
        .any(|e| e.field == "problems" && e.message.contains("at least one")));
    let mut f = draft();
    f.freeze = "6h".into();
    assert_eq!(
        f.check(p.path(), true)[0].to_string(),
        "freeze: is longer than the contest's duration"
    );
}

#[test]
fn an_edit_replaces_its_keys_and_problems_and_keeps_the_rest() {
    let old = "# the spring contest\ntitle = \"Old\"   # shown everywhere\nstart = \"2026-12-01T09:00:00+08:00\"\n\
               duration = \"5h\"\nscoring = \"icpc\"\n\n[[problem]]\nid = \"pa\"\nlabel = \"A\"\n\n\
               [[problem]]\nid = \"pb\"\n\n[[team]]\nuser = \"alice\"\nname = \"Rocket\"\n\n[awards]\ngold = 1\n";
    let mut d = draft();
    d.title = "New \"one\"".into();
    d.scoring = "ioi".into();
    d.participants = "alice bob".into();
    d.problems = vec![
        DraftProblem {
            label: "X".into(),
            problem: "pc".into(),
            color: "".into(),
        },
        DraftProblem {
            label: "Y".into(),
            problem: "pa".into(),
            color: "#00ff00".into(),
        },
    ];
    let text = d.edit_text(old);
    assert!(
        text.starts_with("# the spring contest\ntitle = 'New \"one\"'   # shown everywhere\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "start = \"2026-12-01T09:00:00+08:00\"\nduration = \"5h\"\nscoring = \"ioi\"\n"
        ),
        "{text}"
    );
    assert_eq!(table_title(&text), "New \"one\"");
    assert!(
        text.contains("participants = [\"alice\", \"bob\"]"),
        "{text}"
    );
    assert!(
        !text.contains("freeze"),
        "the clock is not the form's: {text}"
    );
    let table: toml::Table = text.parse().expect("valid TOML");
    let probs: Vec<(String, String)> = table["problem"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["label"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        probs,
        [("pc".into(), "X".into()), ("pa".into(), "Y".into())]
    );
    assert_eq!(table["team"][0]["name"].as_str(), Some("Rocket"));
    assert_eq!(table["awards"]["gold"].as_integer(), Some(1));
}

#[test]
fn changes_say_what_recomputes_the_standings() {
    let p = problems_dir();
    let dir = tempfile::tempdir().expect("dir");
    let cdir = dir.path().join("c");
    std::fs::create_dir(&cdir).expect("mkdir");
    std::fs::write(cdir.join("contest.toml"), draft().new_text()).expect("write");
    let c = Contest::load(&cdir, p.path()).expect("loads");
    let mut d = Draft::of(&c);
    d.title = "Renamed".into();
    let (lines, recompute) = changes(&c, &d);
    assert_eq!(lines, ["title: \"Spring\" → \"Renamed\""]);
    assert!(!recompute);
    d.problems.reverse();
    d.problems.push(DraftProblem {
        label: "C".into(),
        problem: "pc".into(),
        color: "".into(),
    });
    d.problems.retain(|p| p.problem != "pa");
    d.scoring = "ioi".into();
    let (lines, recompute) = changes(&c, &d);
    assert!(recompute);
    assert_eq!(
        lines,
        [
            "title: \"Spring\" → \"Renamed\"",
            "scoring: icpc → ioi",
            "problem A (pa) removed",
            "problem C (pc) added",
        ],
        "{lines:?}"
    );
    assert_eq!(removed(&c, &d)[0].problem, "pa");
}

fn table_title(text: &str) -> String {
    let t: toml::Table = text.parse().expect("valid TOML");
    t["title"].as_str().expect("title").to_string()
}

#[test]
fn a_hidden_folder_being_written_is_not_a_contest() {
    let p = problems_dir();
    let root = tempfile::tempdir().expect("dir");
    for id in ["spring", ".new-autumn"] {
        std::fs::create_dir(root.path().join(id)).expect("mkdir");
        std::fs::write(
            root.path().join(id).join("contest.toml"),
            draft().new_text(),
        )
        .expect("write");
    }
    let (ok, failed) = crate::load_all(root.path(), p.path());
    let ids: Vec<&str> = ok.iter().map(|c| c.id.as_str()).collect();
    assert_eq!((ids, failed.len()), (vec!["spring"], 0));
}

#[test]
fn feedback_is_checked_written_and_loaded() {
    let p = problems_dir();
    let mut d = draft();
    d.feedback = "hidden".into();
    let e = d.check(p.path(), true);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].field, "feedback");
    assert!(e[0].message.contains("\"first_failure\""), "{e:?}");
    let dir = tempfile::tempdir().expect("dir");
    let cdir = dir.path().join("spring");
    std::fs::create_dir(&cdir).expect("mkdir");
    // "all" is the default and is not written; another value is.
    d.feedback = "all".into();
    assert!(!d.new_text().contains("feedback"));
    d.feedback = "first_failure".into();
    assert_eq!(d.check(p.path(), true), vec![]);
    std::fs::write(cdir.join("contest.toml"), d.new_text()).expect("write");
    let c = Contest::load(&cdir, p.path()).expect("loads");
    assert_eq!(c.feedback, crate::model::Feedback::FirstFailure);
    assert_eq!(Draft::of(&c).feedback, "first_failure");
    let (lines, recompute) = changes(&c, &draft());
    assert!(
        lines.iter().any(|l| l == "feedback: first_failure → all"),
        "{lines:?}"
    );
    assert!(!recompute);
}

#[test]
fn awards_are_checked_written_kept_and_described() {
    let p = problems_dir();
    let mut d = draft();
    d.awards = Some(DraftAwards {
        gold: "four".into(),
        silver: "-1".into(),
        bronze: "1001".into(),
    });
    let fields: Vec<String> = d
        .check(p.path(), true)
        .into_iter()
        .map(|e| e.field)
        .collect();
    assert_eq!(fields, ["awards.gold", "awards.silver", "awards.bronze"]);

    // A new contest: the table, loaded as typed (empty is none).
    d.awards = Some(DraftAwards {
        gold: " 2 ".into(),
        silver: "".into(),
        bronze: "3".into(),
    });
    assert_eq!(d.check(p.path(), true), vec![]);
    let dir = tempfile::tempdir().expect("dir");
    let cdir = dir.path().join("c");
    std::fs::create_dir(&cdir).expect("mkdir");
    std::fs::write(cdir.join("contest.toml"), d.new_text()).expect("write");
    let c = Contest::load(&cdir, p.path()).expect("loads");
    assert_eq!((c.awards.gold, c.awards.silver, c.awards.bronze), (2, 0, 3));
    let of = Draft::of(&c);
    assert_eq!(
        of.awards
            .as_ref()
            .map(|a| (a.gold.as_str(), a.silver.as_str(), a.bronze.as_str())),
        Some(("2", "0", "3"))
    );

    // An edit of the medals: described, the table written again after the teams, the rest kept;
    // an inline table replaced too.
    let mut e = of.clone();
    e.awards = Some(DraftAwards {
        gold: "1".into(),
        silver: "1".into(),
        bronze: "1".into(),
    });
    let (lines, recompute) = changes(&c, &e);
    assert_eq!(
        lines,
        ["medals: gold 2, silver 0, bronze 3 → gold 1, silver 1, bronze 1"]
    );
    assert!(!recompute, "medals do not change the standings");
    let old = "title = \"Spring\"\nstart = \"2026-12-01T09:00:00+08:00\"\nduration = \"5h\"\n\
               [[problem]]\nid = \"pa\"\n\n[awards]   # the usual\ngold = 2\nbronze = 3\n\n\
               [[team]]\nuser = \"alice\"\nname = \"Rocket\"\n";
    let text = e.edit_text(old);
    let table: toml::Table = text.parse().unwrap_or_else(|err| panic!("{err}: {text}"));
    assert_eq!(table["awards"]["gold"].as_integer(), Some(1), "{text}");
    assert_eq!(table["awards"]["silver"].as_integer(), Some(1), "{text}");
    assert_eq!(table["team"][0]["name"].as_str(), Some("Rocket"), "{text}");
    assert_eq!(text.matches("[awards]").count(), 1, "{text}");
    let inline = "title = \"S\"\nawards = { gold = 5 }\n[[problem]]\nid = \"pa\"\n";
    let table: toml::Table = e.edit_text(inline).parse().expect("valid TOML");
    assert_eq!(table["awards"]["bronze"].as_integer(), Some(1));

    // No medals at all: no table; the same medals: the table as written, comments and all.
    e.awards = Some(DraftAwards::default());
    let text = e.edit_text(old);
    assert!(!text.contains("awards"), "{text}");
    assert_eq!(
        changes(&c, &e).0,
        ["medals: gold 2, silver 0, bronze 3 → none"]
    );
    e.awards = Some(DraftAwards {
        gold: "2".into(),
        silver: "0".into(),
        bronze: "3".into(),
    });
    assert!(e
        .edit_text(old)
        .contains("[awards]   # the usual\ngold = 2\n"));
    assert!(changes(&c, &e).0.is_empty());

    // Without the field (an older client): the file's medals stay, nothing is described.
    e.awards = None;
    assert!(e
        .edit_text(old)
        .contains("[awards]   # the usual\ngold = 2\n"));
    assert!(changes(&c, &e).0.is_empty());
    let body: Draft = serde_json::from_value(serde_json::json!({
        "title": "T", "scoring": "icpc", "problems": [{"problem": "pa"}],
        "awards": {"gold": 3, "silver": "2"}
    }))
    .expect("numbers or text");
    let a = body.awards.expect("awards");
    assert_eq!(
        (a.gold.as_str(), a.silver.as_str(), a.bronze.as_str()),
        ("3", "2", "")
    );
}

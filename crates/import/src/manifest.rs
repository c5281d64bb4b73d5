//! The problem.toml of the package being written ([`Manifest`]): every key an import can set,
//! as text in the order the README documents them, so a reviewer reads it like a hand-written
//! one.

use ojd_judge::{CheckerSpec, Group, Interactor, InteractorProtocol};

/// The problem.toml of the package being written.
#[derive(Clone, Debug)]
pub(crate) struct Manifest {
    pub(crate) title: String,
    pub(crate) source: String,
    pub(crate) time_limit_ms: u64,
    pub(crate) memory_limit_bytes: u64,
    pub(crate) output_limit_bytes: Option<u64>,
    pub(crate) checker: CheckerSpec,
    pub(crate) solution: String,
    pub(crate) validator: Option<(String, i32, Vec<String>)>,
    pub(crate) interactor: Option<Interactor>,
    pub(crate) groups: Vec<Group>,
    /// True when the answers come with the package; false when `ojd gen` makes them with the
    /// reference solution.
    pub(crate) answers_given: bool,
    /// Generated tests: (test, generator path, arguments).
    pub(crate) generate: Vec<(String, String, Vec<String>)>,
    /// File I/O: (input file name, output file name).
    pub(crate) io: Option<(Option<String>, Option<String>)>,
    /// Where the package came from, written as a comment.
    pub(crate) origin: String,
    /// The package's submissions follow Kattis's verdicts (`verdicts = "kattis"`: a memory
    /// overrun counts as a run-time error).
    pub(crate) kattis_verdicts: bool,
    /// The package's own UUID, kept.
    pub(crate) uuid: Option<String>,
    /// A multi-pass problem's number of passes.
    pub(crate) passes: Option<u32>,
    /// The package's own timing margins, `[limits]` (ac_to_time_limit, time_limit_to_tle),
    /// each written only when the package states it.
    pub(crate) margins: (Option<f64>, Option<f64>),
    /// `[compile]`: options appended to a language's compile command, by language id (the
    /// format's reference tools' flags, e.g. Kattis's C++ standard).
    pub(crate) compile: Vec<(&'static str, &'static [&'static str])>,
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn q_list(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| q(s)).collect();
    format!("[{}]", items.join(", "))
}

fn bytes_text(b: u64) -> String {
    if b.is_multiple_of(1 << 20) {
        format!("{}MiB", b >> 20)
    } else {
        format!("{}KiB", b.div_ceil(1024))
    }
}

impl Manifest {
    /// The problem.toml text: every key ojd reads, in the order README documents them.
    pub(crate) fn to_toml(&self) -> String {
        let mut t = format!("# {}\n", self.origin);
        t += &format!("title = {}\n", q(&self.title));
        if !self.source.is_empty() {
            t += &format!("source = {}\n", q(&self.source));
        }
        if let Some(u) = &self.uuid {
            t += &format!("uuid = {}\n", q(u));
        }
        t += &format!("time_limit = \"{}ms\"\n", self.time_limit_ms);
        t += &format!(
            "memory_limit = {}\n",
            q(&bytes_text(self.memory_limit_bytes))
        );
        if let Some(o) = self.output_limit_bytes {
            t += &format!("output_limit = {}\n", q(&bytes_text(o)));
        }
        t += &format!("checker = {}\n", checker_toml(&self.checker));
        t += &format!("solution = {}\n", q(&self.solution));
        if self.answers_given {
            t += "answers = \"given\"\n";
        }
        if self.kattis_verdicts {
            t += "verdicts = \"kattis\"\n";
        }
        if let Some((path, accept, args)) = &self.validator {
            t += &format!(
                "validator = {{ path = {}, accept_exit = {accept}, args = {} }}\n",
                q(path),
                q_list(args)
            );
        }
        if let Some(n) = self.passes {
            t += &format!("passes = {n}\n");
        }
        if let Some(i) = &self.interactor {
            let protocol = match i.protocol {
                InteractorProtocol::Kattis => "kattis",
                InteractorProtocol::Testlib => "testlib",
            };
            t += &format!(
                "interactor = {{ path = {}, protocol = \"{protocol}\", flags = {} }}\n",
                q(&i.path.display().to_string()),
                q_list(&i.flags)
            );
        }
        if self.margins != (None, None) {
            t += "\n[limits]\n";
            for (key, v) in [
                ("ac_to_time_limit", self.margins.0),
                ("time_limit_to_tle", self.margins.1),
            ] {
                if let Some(v) = v {
                    t += &format!("{key} = {v:?}\n");
                }
            }
        }
        if !self.compile.is_empty() {
            t += "\n[compile]\n";
            for (lang, options) in &self.compile {
                let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
                t += &format!("{lang} = {}\n", q_list(&options));
            }
        }
        if let Some((input, output)) = &self.io {
            t += "\n[io]\n";
            if let Some(i) = input {
                t += &format!("input_file = {}\n", q(i));
            }
            if let Some(o) = output {
                t += &format!("output_file = {}\n", q(o));
            }
        }
        for (test, program, args) in &self.generate {
            t += &format!(
                "\n[[generate]]\ntest = {}\nprogram = {}\nargs = {}\n",
                q(test),
                q(program),
                q_list(args)
            );
        }
        for g in &self.groups {
            t += &format!(
                "\n[[group]]\nname = {}\npoints = {}\ntests = {}\n",
                q(&g.name),
                ojd_judge::points::to_text(g.points_milli),
                q_list(&g.tests)
            );
            if g.aggregation == ojd_judge::Aggregation::Product {
                t += "aggregation = \"product\"\n";
            }
            if let Some(x) = g.threshold {
                t += &format!("threshold = {x:?}\n");
            }
        }
        t
    }
}

/// A checker as a problem.toml value.
pub(crate) fn checker_toml(c: &CheckerSpec) -> String {
    let num = |x: f64| format!("{x:e}");
    match c {
        CheckerSpec::Tokens => "\"tokens\"".into(),
        CheckerSpec::Exact => "\"exact\"".into(),
        CheckerSpec::Lines => "\"lines\"".into(),
        CheckerSpec::Float { abs, rel } => format!(
            "{{ kind = \"float\", abs = {}, rel = {} }}",
            num(*abs),
            num(*rel)
        ),
        CheckerSpec::Program { path } => format!(
            "{{ kind = \"program\", path = {} }}",
            q(&path.display().to_string())
        ),
        CheckerSpec::Cms { path } => format!(
            "{{ kind = \"cms\", path = {} }}",
            q(&path.display().to_string())
        ),
        CheckerSpec::Kattis { path, flags } => format!(
            "{{ kind = \"kattis\", path = {}, flags = {} }}",
            q(&path.display().to_string()),
            q_list(flags)
        ),
        CheckerSpec::KattisDefault(f) => {
            let mut s = format!(
                "{{ kind = \"kattis-default\", case_sensitive = {}, space_change_sensitive = {}",
                f.case_sensitive, f.space_change_sensitive
            );
            if let Some(a) = f.float_absolute_tolerance {
                s += &format!(", float_absolute_tolerance = {}", num(a));
            }
            if let Some(r) = f.float_relative_tolerance {
                s += &format!(", float_relative_tolerance = {}", num(r));
            }
            s + " }"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_loads_back() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("tests")).unwrap();
        std::fs::write(d.path().join("tests/1.in"), "").unwrap();
        std::fs::write(d.path().join("tests/1.ans"), "").unwrap();
        std::fs::write(d.path().join("sol.c"), "").unwrap();
        std::fs::write(d.path().join("v.py"), "").unwrap();
        let m = Manifest {
            title: "Title \"quoted\"".into(),
            source: "Somewhere".into(),
            time_limit_ms: 1500,
            memory_limit_bytes: 256 << 20,
            output_limit_bytes: Some(8 << 20),
            checker: CheckerSpec::KattisDefault(ojd_judge::DefaultFlags {
                float_relative_tolerance: Some(1e-6),
                ..Default::default()
            }),
            solution: "sol.c".into(),
            validator: Some(("v.py".into(), 42, vec!["--x".into()])),
            interactor: None,
            groups: vec![
                Group::exact("g1", 30_000, vec!["g1-".into()]),
                Group::exact("g2", 12_500, vec!["g2-".into()]),
            ],
            answers_given: true,
            generate: vec![],
            io: None,
            kattis_verdicts: true,
            margins: (None, Some(4.0)),
            compile: vec![("cpp", &["-O2", "-std=gnu++23"])],
            origin: "imported".into(),
            uuid: Some("5bd2ccb4-7ad8-4d5c-9c7a-3a1f0b9e2d11".into()),
            passes: None,
        };
        std::fs::write(d.path().join("problem.toml"), m.to_toml()).unwrap();
        let p = ojd_judge::Problem::load(d.path()).unwrap();
        assert_eq!(p.title, m.title);
        assert_eq!(p.time_limit.as_millis(), 1500);
        assert_eq!(p.checker, m.checker);
        assert!(p.answers_given);
        assert_eq!(
            p.margins,
            ojd_judge::Margins {
                ac_to_time_limit: 2.0,
                time_limit_to_tle: 4.0
            }
        );
        assert_eq!(p.validator_accept, 42);
        assert_eq!(p.validator_args, ["--x"]);
        assert_eq!(p.groups[0].points, 30);
        // Fractional points are kept exactly (thousandths).
        assert_eq!(p.groups[1].points_milli, 12_500);
        assert_eq!(p.uuid, m.uuid);
        assert_eq!(p.verdicts, ojd_judge::VerdictRules::Kattis);
    }
}

//! The reading of `generators/generators.yaml` into the test cases it makes (their paths under
//! `data/`, in BAPCtools' numbering, and what makes each): every key BAPCtools documents that
//! ojd does not read is refused, named. Nothing is run here (see [`super`]).

use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::ImportError;

/// One test case of generators.yaml: its path under `data/` (without extension), what makes
/// it, and the files given as text beside it.
pub(super) struct Case {
    pub(super) path: PathBuf,
    pub(super) make: Make,
    /// Files given as text, by extension (`in`, `ans`, `yaml`, `in.statement`, ...).
    pub(super) literals: Vec<(String, String)>,
    /// Files that are another file of the test (`in.statement: {link: in}`), by extension: (the
    /// extension, the extension of the file it is), made once the test's other files are.
    pub(super) linked: Vec<(String, String)>,
    /// The solution that makes its answer when nothing gives one (a path from the package's
    /// root); `Some("")` when `solution:` is set empty (no answer made); `None`: the default.
    pub(super) solution: Option<String>,
    /// How many seeds a failing generator is tried with (`retries`, BAPCtools: the seed plus
    /// 0, 1, ...).
    pub(super) retries: u32,
    /// What the made `in` and `ans` should hold (`match`), checked once they are made.
    pub(super) patterns: Vec<super::pattern::Pattern>,
}

pub(super) enum Make {
    /// A generator command (`{count}` put in) and BAPCtools' seed of it.
    Generate { command: String, seed: u32 },
    /// A path under `generators/` without extension: every known file beside it is copied.
    Copy(String),
    /// Only the literal files.
    Literal,
}

/// What generators.yaml makes: every test case in the order BAPCtools makes them, the cases
/// `include` links into other folders, and the folders' `test_group.yaml`.
pub(super) struct Recipe {
    pub(super) cases: Vec<Case>,
    /// (a test case's path, the path of its copy in a folder that includes it).
    pub(super) links: Vec<(PathBuf, PathBuf)>,
    /// (a folder under `data/`, the file name `test_group.yaml` or `testdata.yaml`, its text).
    pub(super) group_files: Vec<(PathBuf, &'static str, String)>,
    /// The root `generators:` map: a generator's name and its files under `generators/`, the
    /// entry point first.
    pub(super) generators: Vec<(String, Vec<String>)>,
}

/// What a folder passes down to its test cases (BAPCtools' directory configuration).
#[derive(Clone, Default)]
struct Inherited {
    solution: Option<String>,
    salt: String,
    retries: u32,
}

/// A key of the file an `include` may name: a test case (its paths: several for a `count`) or a
/// folder (every case in it, those it includes too).
struct Known {
    key: String,
    cases: Vec<PathBuf>,
    folder: bool,
}

struct Parse<'a> {
    file: String,
    cases: Vec<Case>,
    links: Vec<(PathBuf, PathBuf)>,
    group_files: Vec<(PathBuf, &'static str, String)>,
    known: Vec<Known>,
    next_number: usize,
    width: usize,
    warnings: &'a mut Vec<String>,
}

impl Parse<'_> {
    fn refuse(&self, key: &str, what: &str) -> ImportError {
        ImportError::Unsupported {
            file: self.file.clone(),
            key: key.into(),
            what: what.into(),
        }
    }
}

/// The text files a test case may give by extension (BAPCtools' known text data extensions).
pub(super) const TEXT_EXTENSIONS: [&str; 9] = [
    "in",
    "ans",
    "out",
    "in.statement",
    "ans.statement",
    "in.download",
    "ans.download",
    "interaction",
    "yaml",
];

/// The files BAPCtools lets link to another file of the test (`{link: ...}`), and what they
/// may name besides each other: the file of their kind, `in` or `ans`.
const LINKING: [&str; 4] = [
    "in.statement",
    "ans.statement",
    "in.download",
    "ans.download",
];

/// The extension that the text file `ext` of a test links to, when `v` is BAPCtools'
/// `{link: TARGET}`; `Err` says why the link is refused, as BAPCtools refuses it.
fn link_target(ext: &str, v: &Value) -> Option<Result<String, String>> {
    let m = v.as_mapping()?;
    let target = m.get("link")?;
    Some(checked_link(ext, m.len(), target))
}

/// The link of the file `ext` to `target`, in a map of `keys` keys, as BAPCtools allows it.
fn checked_link(ext: &str, keys: usize, target: &Value) -> Result<String, String> {
    let target = text(target).ok_or("a link names a file of the test")?;
    if keys != 1 {
        return Err("a link is a map with only `link`".to_string());
    }
    if !LINKING.contains(&ext) {
        return Err(format!(
            "only {} may link to another file",
            LINKING.join(", ")
        ));
    }
    let kind = |e: &str| e.split('.').next().unwrap_or_default().to_string();
    if !(LINKING.contains(&target.as_str()) || target == "in" || target == "ans")
        || kind(&target) != kind(ext)
    {
        return Err(format!(
            "{target}: a link names the test's {kind} or another {kind}.* file",
            kind = kind(ext)
        ));
    }
    Ok(target)
}

fn is_folder(v: &Value) -> bool {
    v.as_mapping().is_some_and(|m| {
        ["data", "test_group.yaml", "testdata.yaml", "include"]
            .iter()
            .any(|k| m.contains_key(*k))
    })
}

/// The number of test cases BAPCtools numbers (those in lists), for the width of the numbers.
fn count_numbered(v: &Value) -> usize {
    let Some(data) = v.get("data") else { return 0 };
    let (list, numbered) = match data {
        Value::Sequence(s) => (s.clone(), true),
        Value::Mapping(_) => (vec![data.clone()], false),
        _ => return 0,
    };
    list.iter()
        .filter_map(Value::as_mapping)
        .flat_map(|m| m.values())
        .map(|e| {
            if is_folder(e) {
                count_numbered(e)
            } else if numbered {
                count_values(e).ok().flatten().map_or(1, |c| c.len())
            } else {
                0
            }
        })
        .sum()
}

/// A test case's `count` as BAPCtools reads it: a number from 1 to 100 (the values 1 to it), a
/// list of distinct whole numbers, or a range `"lo..=hi"`; at most 100 values. `Ok(None)`
/// without a `count`; `Err` says what is wrong with it.
fn count_values(v: &Value) -> Result<Option<Vec<i64>>, String> {
    let Some(c) = v.as_mapping().and_then(|m| m.get("count")) else {
        return Ok(None);
    };
    let values: Vec<i64> = match c {
        Value::Number(n) => match n.as_i64() {
            Some(n) if (1..=100).contains(&n) => (1..=n).collect(),
            _ => return Err(format!("{n}: expected a count from 1 to 100")),
        },
        Value::Sequence(items) => {
            let mut out = Vec::new();
            for i in items {
                match i.as_i64() {
                    Some(x) if !out.contains(&x) => out.push(x),
                    Some(x) => return Err(format!("{x} twice in the list")),
                    None => return Err("expected a list of whole numbers".into()),
                }
            }
            out
        }
        Value::String(r) => {
            let parsed = r.split_once("..=").and_then(|(lo, hi)| {
                Some((
                    lo.trim().parse::<i64>().ok()?,
                    hi.trim().parse::<i64>().ok()?,
                ))
            });
            match parsed {
                Some((lo, hi)) if lo <= hi && hi - lo < 100 => (lo..=hi).collect(),
                _ => {
                    return Err(format!(
                        "{r:?}: expected a range \"lo..=hi\" of at most 100 values"
                    ))
                }
            }
        }
        _ => return Err("expected a number, a list or a range \"lo..=hi\"".into()),
    };
    if values.is_empty() || values.len() > 100 {
        return Err("expected from 1 to 100 values".into());
    }
    Ok(Some(values))
}

pub(super) fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The keys a folder may have.
const FOLDER_KEYS: [&str; 7] = [
    "data",
    "include",
    "test_group.yaml",
    "testdata.yaml",
    "solution",
    "random_salt",
    "retries",
];

/// The folder-or-case settings of the map `m` (`solution`, `random_salt`, `retries`) over those
/// inherited.
fn settings(
    p: &Parse<'_>,
    m: &serde_norway::Mapping,
    key: &str,
    inherited: &Inherited,
) -> Result<Inherited, ImportError> {
    let mut out = inherited.clone();
    if let Some(v) = m.get("solution") {
        out.solution = Some(match v {
            Value::Null => String::new(),
            v => text(v).ok_or_else(|| p.refuse(&format!("{key}.solution"), "expected a path"))?,
        });
    }
    if let Some(v) = m.get("random_salt") {
        out.salt = text(v).unwrap_or_default();
    }
    if let Some(v) = m.get("retries") {
        out.retries = match v.as_u64() {
            Some(n @ 1..=100) => n as u32,
            _ => {
                return Err(p.refuse(
                    &format!("{key}.retries"),
                    "expected a whole number from 1 to 100",
                ))
            }
        };
    }
    Ok(out)
}

/// Walks the folder `v` at `path` (under `data/`), `key` its place in the file for errors and
/// `name` its own key (what an `include` names it by).
fn folder(
    p: &mut Parse<'_>,
    v: &Value,
    path: &Path,
    key: &str,
    name: &str,
    inherited: &Inherited,
) -> Result<(), ImportError> {
    let Some(m) = v.as_mapping() else {
        return Err(p.refuse(key, "a folder is a map with `data`"));
    };
    for (k, _) in m {
        let k = text(k).unwrap_or_default();
        if !FOLDER_KEYS.contains(&k.as_str()) {
            return Err(p.refuse(
                &format!("{key}.{k}"),
                &format!(
                    "not supported by ojd (a folder reads {})",
                    FOLDER_KEYS.join(", ")
                ),
            ));
        }
    }
    let inherited = settings(p, m, key, inherited)?;
    for file in ["test_group.yaml", "testdata.yaml"] {
        match m.get(file) {
            None | Some(Value::Null) => {}
            Some(y @ Value::Mapping(_)) => {
                let text = serde_norway::to_string(y).map_err(|e| {
                    p.refuse(&format!("{key}.{file}"), &format!("cannot be written: {e}"))
                })?;
                p.group_files.push((path.to_path_buf(), file, text));
            }
            Some(_) => return Err(p.refuse(&format!("{key}.{file}"), "expected a map")),
        }
    }
    // BAPCtools: an include names an earlier test case or folder by its key; its cases are
    // linked into this folder under their own names (a folder's, all of them).
    let mut included: Vec<PathBuf> = Vec::new();
    if let Some(list) = m.get("include") {
        let Some(list) = list.as_sequence() else {
            return Err(p.refuse(&format!("{key}.include"), "expected a list of keys"));
        };
        for (i, item) in list.iter().enumerate() {
            let here = format!("{key}.include[{i}]");
            let Some(want) = text(item) else {
                return Err(p.refuse(&here, "expected the key of a test case or folder"));
            };
            if want.contains('/') {
                return Err(p.refuse(&here, &format!("{want}: a key, not a path")));
            }
            let found: Vec<&Known> = p.known.iter().filter(|k| k.key == want).collect();
            match found.as_slice() {
                [] => {
                    return Err(p.refuse(
                        &here,
                        &format!("{want}: no earlier test case or folder has this key"),
                    ))
                }
                [one] if one.folder || one.cases.len() == 1 => {
                    included.extend(one.cases.iter().cloned())
                }
                _ => {
                    return Err(p.refuse(
                        &here,
                        &format!("{want}: ambiguous (several test cases have this key)"),
                    ))
                }
            }
        }
    }
    let first_case = p.cases.len();
    let first_link = p.links.len();
    if let Some(data) = m.get("data") {
        folder_data(p, data, path, key, &inherited)?;
    }
    for from in included {
        let to = path.join(from.file_name().unwrap_or_default());
        if p.cases.iter().any(|c| c.path == to) {
            return Err(p.refuse(
                &format!("{key}.include"),
                &format!(
                    "{}: included, but this folder has a test case of that name",
                    from.display()
                ),
            ));
        }
        match p.links.iter().find(|(_, t)| *t == to) {
            Some((f, _)) if *f == from => {}
            Some((f, _)) => {
                return Err(p.refuse(
                    &format!("{key}.include"),
                    &format!(
                        "{} and {} both included as {}",
                        f.display(),
                        from.display(),
                        to.display()
                    ),
                ))
            }
            None => p.links.push((from, to)),
        }
    }
    let mut cases: Vec<PathBuf> = p.cases[first_case..]
        .iter()
        .map(|c| c.path.clone())
        .collect();
    cases.extend(p.links[first_link..].iter().map(|(f, _)| f.clone()));
    p.known.push(Known {
        key: name.to_string(),
        cases,
        folder: true,
    });
    Ok(())
}

/// The `data` of a folder: a list (numbered) or a map (by name).
fn folder_data(
    p: &mut Parse<'_>,
    data: &Value,
    path: &Path,
    key: &str,
    inherited: &Inherited,
) -> Result<(), ImportError> {
    let (entries, numbered): (Vec<&Value>, bool) = match data {
        Value::Sequence(s) => (s.iter().collect(), true),
        Value::Mapping(_) => (vec![data], false),
        Value::Null => (vec![], false),
        _ => return Err(p.refuse(&format!("{key}.data"), "expected a list or a map")),
    };
    let groups = entries
        .iter()
        .filter_map(|e| e.as_mapping())
        .flat_map(|m| m.values())
        .filter(|v| is_folder(v))
        .count();
    let mut next_group = 1;
    for (i, entry) in entries.iter().enumerate() {
        let Some(em) = entry.as_mapping() else {
            return Err(p.refuse(&format!("{key}.data[{i}]"), "expected a map"));
        };
        let mut items: Vec<(String, &Value)> = em
            .iter()
            .map(|(k, v)| (text(k).unwrap_or_default(), v))
            .collect();
        if !numbered {
            items.sort_by(|a, b| a.0.cmp(&b.0));
        }
        for (name, child) in items {
            let here = format!("{key}.{}", if name.is_empty() { "\"\"" } else { &name });
            let numbered_name = |n: usize, width: usize| {
                let number = format!("{n:0width$}");
                if name.is_empty() {
                    number
                } else {
                    format!("{number}-{name}")
                }
            };
            if is_folder(child) {
                let dir = if numbered {
                    let n = next_group;
                    next_group += 1;
                    numbered_name(n, groups.to_string().len())
                } else {
                    name.clone()
                };
                if dir.is_empty() {
                    return Err(p.refuse(&here, "a folder needs a name"));
                }
                folder(p, child, &path.join(&dir), &here, &name, inherited)?;
                continue;
            }
            let counts =
                count_values(child).map_err(|why| p.refuse(&format!("{here}.count"), &why))?;
            // BAPCtools pads the values with zeros when they are consecutive.
            let padding = counts.as_ref().map_or(0, |c| {
                let lo = c.iter().min().copied().unwrap_or(0);
                let hi = c.iter().max().copied().unwrap_or(0);
                match (hi - lo) as usize + 1 == c.len() {
                    true => c.iter().map(|v| v.to_string().len()).max().unwrap_or(0),
                    false => 0,
                }
            });
            let mut made = Vec::new();
            for count in counts.clone().unwrap_or_else(|| vec![1]) {
                let mut case_name = if numbered {
                    p.next_number += 1;
                    numbered_name(p.next_number, p.width)
                } else {
                    name.clone()
                };
                if counts.is_some() {
                    case_name = format!("{case_name}-{count:0padding$}");
                }
                if case_name.is_empty() || case_name.contains('/') || case_name.starts_with('.') {
                    return Err(p.refuse(&here, "not a test case name"));
                }
                let c = case(p, child, path.join(&case_name), &here, count, inherited)?;
                made.push(c.path.clone());
                p.cases.push(c);
            }
            if !name.is_empty() {
                p.known.push(Known {
                    key: name,
                    cases: made,
                    folder: false,
                });
            }
        }
    }
    Ok(())
}

/// The keys a test case may have besides the files it gives by extension.
const CASE_KEYS: &str = "generate, copy, count, solution, random_salt, retries, match, hint, description and the files in, ans, out, in.statement, ans.statement, in.download, ans.download, interaction, yaml";

fn case(
    p: &mut Parse<'_>,
    v: &Value,
    path: PathBuf,
    key: &str,
    count: i64,
    inherited: &Inherited,
) -> Result<Case, ImportError> {
    let (mut command, mut copy, mut literals) = (None, None, Vec::new());
    let mut linked: Vec<(String, String)> = Vec::new();
    let mut patterns = Vec::new();
    let mut settings_here = inherited.clone();
    match v {
        // The old shorthand: a string ending in `.in` is a file to copy.
        Value::String(s) if s.trim_end().ends_with(".in") => {
            copy = Some(s.trim().trim_end_matches(".in").to_string())
        }
        Value::String(s) => command = Some(s.clone()),
        Value::Mapping(m) => {
            settings_here = settings(p, m, key, inherited)?;
            for (k, v) in m {
                let k = text(k).unwrap_or_default();
                let value =
                    || text(v).ok_or_else(|| p.refuse(&format!("{key}.{k}"), "expected a string"));
                match k.as_str() {
                    "generate" => {
                        let c = value()?;
                        // `{count}` is the value only where the case has a count.
                        command = Some(match m.contains_key("count") {
                            true => c.replace("{count}", &count.to_string()),
                            false => c,
                        });
                    }
                    "copy" => copy = Some(value()?),
                    "yaml" => {
                        let text = match v {
                            Value::Mapping(_) => serde_norway::to_string(v).map_err(|e| {
                                p.refuse(&format!("{key}.yaml"), &format!("cannot be written: {e}"))
                            })?,
                            _ => value()?,
                        };
                        literals.push(("yaml".to_string(), text));
                    }
                    ext if TEXT_EXTENSIONS.contains(&ext) => {
                        if let Some(target) = link_target(ext, v) {
                            let target =
                                target.map_err(|why| p.refuse(&format!("{key}.{ext}"), &why))?;
                            linked.push((ext.to_string(), target));
                            continue;
                        }
                        // BAPCtools ends a text given here with a newline.
                        let mut text = value()?;
                        if !text.is_empty() && !text.ends_with('\n') {
                            text.push('\n');
                        }
                        literals.push((ext.to_string(), text))
                    }
                    // Read by `folder_data` (one case per value) and `settings`.
                    "count" | "solution" | "random_salt" | "retries" => {}
                    // Comments of older BAPCtools versions.
                    "hint" | "description" => {}
                    "match" => patterns = super::pattern::read(v, key, &|k, w| p.refuse(k, w))?,
                    other => {
                        return Err(p.refuse(
                            &format!("{key}.{other}"),
                            &format!("not supported by ojd (a test case reads {CASE_KEYS})"),
                        ))
                    }
                }
            }
        }
        _ => return Err(p.refuse(key, "a test case is a command or a map")),
    }
    let make = match (command, copy) {
        (Some(_), Some(_)) => {
            return Err(p.refuse(key, "a test case has generate or copy, not both"))
        }
        (Some(command), None) => {
            // Refused here, before anything runs, naming the case.
            super::command::split(&command)
                .map_err(|why| p.refuse(key, &format!("{command:?}: {why}")))?;
            let seed = super::command::seed(&settings_here.salt, &command, count);
            Make::Generate { command, seed }
        }
        (None, Some(from)) => {
            if from.starts_with('/') || from.split('/').any(|part| part == "..") {
                return Err(p.refuse(
                    &format!("{key}.copy"),
                    &format!("{from}: a path under generators/ (not absolute, no ..)"),
                ));
            }
            Make::Copy(from)
        }
        (None, None) if literals.iter().any(|(e, _)| e == "in") => Make::Literal,
        (None, None) => return Err(p.refuse(key, "a test case needs generate, copy or in")),
    };
    // BAPCtools: a link to a file that is itself a link could go round in a circle.
    if let Some((ext, target)) = linked
        .iter()
        .find(|(_, target)| linked.iter().any(|(e, _)| e == target))
    {
        return Err(p.refuse(
            &format!("{key}.{ext}"),
            &format!("{target} is a link itself: a link names a file that is not"),
        ));
    }
    Ok(Case {
        path,
        make,
        literals,
        linked,
        solution: settings_here.solution,
        retries: settings_here.retries.max(1),
        patterns,
    })
}

/// Reads generators.yaml (the text `doc`) into its test cases; `file` names it in errors.
pub(super) fn read(
    file: &str,
    doc: &Value,
    warnings: &mut Vec<String>,
) -> Result<Recipe, ImportError> {
    let mut p = Parse {
        file: file.to_string(),
        cases: Vec::new(),
        links: Vec::new(),
        group_files: Vec::new(),
        known: Vec::new(),
        next_number: 0,
        width: count_numbered(doc).to_string().len(),
        warnings,
    };
    let Some(root) = doc.as_mapping() else {
        return Err(p.refuse("", "expected a map"));
    };
    let mut generators = Vec::new();
    let mut data = None;
    for (k, v) in root {
        match text(k).unwrap_or_default().as_str() {
            "version" | "solution" | "random_salt" | "retries" => {}
            "data" => data = Some(v),
            "test_group.yaml" | "testdata.yaml" => {}
            "generators" => generators = generator_map(&p, v)?,
            other => {
                return Err(p.refuse(
                    other,
                    &format!(
                        "not supported by ojd (the root reads version, generators, {})",
                        FOLDER_KEYS.join(", ").replace("include, ", "")
                    ),
                ))
            }
        }
    }
    let inherited = settings(&p, root, "", &Inherited::default())?;
    for file in ["test_group.yaml", "testdata.yaml"] {
        match root.get(file) {
            None | Some(Value::Null) => {}
            Some(y @ Value::Mapping(_)) => {
                let text = serde_norway::to_string(y)
                    .map_err(|e| p.refuse(file, &format!("cannot be written: {e}")))?;
                p.group_files.push((PathBuf::new(), file, text));
            }
            Some(_) => return Err(p.refuse(file, "expected a map")),
        }
    }
    let Some(Value::Mapping(dirs)) = data else {
        return Err(p.refuse("data", "expected a map of sample and secret"));
    };
    // BAPCtools makes the root's folders in this order, whatever the file's.
    let mut names: Vec<String> = dirs.keys().map(|k| text(k).unwrap_or_default()).collect();
    let order = |n: &String| {
        ["sample", "secret"]
            .iter()
            .position(|x| x == n)
            .unwrap_or(2)
    };
    names.sort_by_key(order);
    for k in names {
        let v = &dirs[k.as_str()];
        match k.as_str() {
            "sample" | "secret" => folder(
                &mut p,
                v,
                Path::new(&k),
                &format!("data.{k}"),
                &k,
                &inherited,
            )?,
            "invalid_input" | "invalid_inputs" | "invalid_answer" | "invalid_output"
            | "valid_output" => p.warnings.push(format!(
                "{file}: data.{k}: skipped (it tests the validators, not submissions)"
            )),
            other => {
                return Err(p.refuse(
                    &format!("data.{other}"),
                    "not a folder ojd judges (sample, secret)",
                ))
            }
        }
    }
    if !p
        .cases
        .iter()
        .map(|c| &c.path)
        .chain(p.links.iter().map(|(_, to)| to))
        .any(|c| c.starts_with("secret"))
    {
        return Err(p.refuse(
            "data.secret",
            "no secret test: the package would be its samples only",
        ));
    }
    Ok(Recipe {
        cases: p.cases,
        links: p.links,
        group_files: p.group_files,
        generators,
    })
}

/// The root `generators:` map: each name (no `.` in it) and its files under `generators/`, the
/// entry point first.
fn generator_map(p: &Parse<'_>, v: &Value) -> Result<Vec<(String, Vec<String>)>, ImportError> {
    let Some(m) = v.as_mapping() else {
        return Err(p.refuse("generators", "expected a map of names to lists of files"));
    };
    let mut out = Vec::new();
    for (k, files) in m {
        let name = text(k).unwrap_or_default();
        let here = format!("generators.{name}");
        if name.is_empty() || name.contains(['.', '/']) {
            return Err(p.refuse(&here, "a generator's name has no `.` or `/`"));
        }
        let list: Vec<String> = match files.as_sequence() {
            Some(items) if !items.is_empty() => items.iter().filter_map(text).collect(),
            _ => return Err(p.refuse(&here, "expected a list of files under generators/")),
        };
        for f in &list {
            if f.starts_with('/') || f.split('/').any(|part| part == "..") {
                return Err(p.refuse(
                    &here,
                    &format!("{f}: a file under generators/ (not absolute, no ..)"),
                ));
            }
        }
        out.push((name, list));
    }
    Ok(out)
}

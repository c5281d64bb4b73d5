//! The results cache's side of `ojd verify`: the keys of cells and of generated answers, the
//! cells reused (or derived) before anything runs, and what a run stores for the next.

use super::*;

/// What a cell of submission `s` on test `t` is keyed by in the results cache, if it can be.
pub(super) fn key_of(
    salt: &cache::Salt,
    part: &[u8],
    plan: &Plan,
    s: usize,
    t: usize,
) -> Option<String> {
    key_on(
        salt,
        part,
        plan.problem.as_ref()?,
        plan.subs[s].ran.as_ref()?,
        t,
    )
}

/// The key of cell `t` of a submission that runs as `ran` on `problem` (the scaled one, or the
/// package with its own limits for [`crate::derive`]).
pub(super) fn key_on(
    salt: &cache::Salt,
    part: &[u8],
    problem: &Problem,
    ran: &crate::discover::Ran,
    t: usize,
) -> Option<String> {
    let run = cache::CellRun {
        program: &ran.program,
        run: &ran.run,
        limits: &ran.limits,
        slack: crate::margins::slack(&problem.margins),
        margins: &problem.margins,
    };
    Some(cache::cell_key(salt, part, &run, problem.tests.get(t)?))
}

/// The key of a package's `gen --check`: its files, and every toolchain's identity (the
/// programs it runs are compiled by them).
pub(super) fn gen_key_of(judge: &Judge, salt: &cache::Salt, problem: &Problem) -> String {
    let mut tools: Vec<String> = judge
        .languages()
        .iter()
        .map(|(id, l)| match l {
            Ok(l) => {
                let runner = l
                    .run
                    .first()
                    .filter(|r| std::path::Path::new(r).is_absolute())
                    .map(|r| cache::file_identity(std::path::Path::new(r)))
                    .unwrap_or_default();
                format!(
                    "{id} {:?} {} {:?} {runner}",
                    l.compile, l.compiler_id, l.run
                )
            }
            Err(e) => format!("{id} unavailable: {e}"),
        })
        .collect();
    tools.sort();
    cache::gen_key(salt, &problem.dir, &tools)
}

/// What submission `sub` of `problem` runs as, for the results cache, without compiling it:
/// its language's toolchain and its source (what the compile cache is keyed by), its run
/// command, and the limits a program of that language gets on the problem.
pub(super) fn ran_of(
    judge: &Judge,
    problem: &Problem,
    sub: &Submission,
) -> Option<crate::discover::Ran> {
    let lang = judge.language(&sub.language).ok()?;
    let program = ojd_judge::Program {
        dir: std::path::PathBuf::new(),
        run: lang.run.clone(),
        time_factor: lang.time_factor,
        memory_extra: lang.memory_extra,
        profile: lang.profile.clone(),
        pin: Default::default(),
    };
    let limits = judge.limits_for(problem, &program);
    Some(crate::discover::Ran {
        program: cache::program_key(lang, &sub.source),
        run: lang.run.clone(),
        limits: format!("{limits:?}"),
        limit_ms: ms(limits.cpu),
        wall_ms: ms(limits.wall),
    })
}

/// Before compiling: every `gen --check` and cell the results cache has is taken from it, and at
/// a `--time-scale` other than 1 every cell the same cell judged at the package's own limits
/// decides ([`crate::derive`]). A submission whose every cell is known so is not compiled at all
/// (it compiled when those cells were judged, with the same source and compiler); nor is a
/// `time_limit_exceeded/` one whose cells are known up to its first clear TLE (the rest would
/// not be run).
pub(crate) fn reuse(
    judge: &Judge,
    cache: &cache::Cache,
    salt: &cache::Salt,
    plans: &mut [Plan],
    stats: &mut Stats,
) {
    let plain_salt = cache::Salt::new(judge, 1.0);
    for plan in plans.iter_mut().filter(|p| p.report.judged) {
        let Some(problem) = plan.problem.as_ref() else {
            continue;
        };
        let gen = gen_key_of(judge, salt, problem);
        // A scaled run takes the plain run's pass too: whether the answers are up to date and
        // the inputs valid does not hang on the time scale (the reference's runs, which do, are
        // judged as its cells).
        let plain_gen = || {
            plan.unscaled
                .as_ref()
                .and_then(|_| cache.gen(&gen_key_of(judge, &plain_salt, problem)))
        };
        if let Some(g) = cache.gen(&gen).or_else(plain_gen) {
            plan.report.inputs_validated = g.inputs_validated;
            plan.gen_reused = true;
            stats.reused_gen_checks += 1;
        }
        plan.gen_key = Some(gen);
        let part = cache::problem_part(problem);
        for s in 0..plan.subs.len() {
            if plan.subs[s].stage != Stage::Found {
                continue;
            }
            plan.subs[s].ran = ran_of(judge, problem, &plan.subs[s].submission);
            let keys: Vec<(usize, String)> = (0..problem.tests.len())
                .filter_map(|t| Some((t, key_of(salt, &part, plan, s, t)?)))
                .collect();
            // The same submission on the package's own limits, when this run is scaled.
            let plain = plan
                .unscaled
                .as_ref()
                .and_then(|u| Some((u, ran_of(judge, u, &plan.subs[s].submission)?)));
            let slack = crate::margins::slack(&problem.margins);
            let mut found: Vec<Option<Cell>> = vec![None; problem.tests.len()];
            for (t, key) in &keys {
                found[*t] = match cache.cell(key) {
                    Some(c) => Some(stored_cell(c, &mut plan.report.warnings)),
                    None => plain.as_ref().and_then(|(u, ran)| {
                        let plain_key = key_on(&plain_salt, &part, u, ran, *t)?;
                        let now = plan.subs[s].ran.as_ref()?;
                        crate::derive::derive(
                            &cache.cell(&plain_key)?,
                            now.limit_ms,
                            now.wall_ms,
                            slack,
                        )
                    }),
                };
            }
            let sub = &mut plan.subs[s];
            sub.keys = keys;
            let limit_ms = sub.ran.as_ref().map_or(0, |r| r.limit_ms);
            // Known up to where its judging would end: every cell, or a brute force's cells up
            // to its first clear TLE.
            let upto = match sub.report.expected {
                Verdict::TimeLimitExceeded => found
                    .iter()
                    .position(|c| {
                        c.as_ref()
                            .is_some_and(|c| crate::margins::clear_tle(c, limit_ms))
                    })
                    .map_or(found.len(), |i| i + 1),
                _ => found.len(),
            };
            if !found.is_empty() && found[..upto].iter().all(Option::is_some) {
                sub.stage = Stage::Compiled;
                sub.report.limit_ms = limit_ms;
                count_found(&found, stats);
                sub.cells = found;
            } else {
                // It is compiled, and what was found put in place then (`reuse_compiled`).
                sub.found = found;
            }
        }
    }
}

/// Counts the cells found before judging: reused from the cache, or derived.
pub(super) fn count_found(found: &[Option<Cell>], stats: &mut Stats) {
    for c in found.iter().flatten() {
        match c.derived {
            true => stats.derived_cells += 1,
            false => stats.reused_cells += 1,
        }
    }
}

/// After compiling: the cells found before it ([`reuse`]) of the submissions compiled now.
pub(crate) fn reuse_compiled(plans: &mut [Plan], stats: &mut Stats) {
    for plan in plans.iter_mut().filter(|p| p.report.judged) {
        for sub in plan.subs.iter_mut() {
            let found = std::mem::take(&mut sub.found);
            if sub.stage != Stage::Compiled || found.len() != sub.cells.len() {
                continue;
            }
            count_found(&found, stats);
            for (cell, f) in sub.cells.iter_mut().zip(found) {
                if f.is_some() {
                    *cell = f;
                }
            }
        }
    }
}

/// A stored cell as the matrix holds it; its warnings go to the problem's.
pub(super) fn stored_cell(c: cache::StoredCell, warnings: &mut Vec<String>) -> Cell {
    warnings.extend(c.warnings);
    Cell {
        rerun: c.rerun,
        sensitive: c.sensitive,
        reused: true,
        past_margin: c.past_margin,
        finished_as: c.finished_as,
        ..Cell::judged(c.result)
    }
}

/// After phase 3: every cell judged now, and every `gen --check` that passed, is stored.
pub(crate) fn store(cache: &cache::Cache, plans: &[Plan]) {
    for plan in plans.iter().filter(|p| p.report.judged) {
        if let (Some(key), false, true, true) = (
            &plan.gen_key,
            plan.gen_reused,
            plan.report.errors.is_empty(),
            plan.report.judge_errors.is_empty(),
        ) {
            cache.put_gen(
                key,
                &cache::StoredGen {
                    inputs_validated: plan.report.inputs_validated,
                },
            );
        }
        for sub in &plan.subs {
            for (t, key) in &sub.keys {
                let Some(c) = sub.cells.get(*t).and_then(|c| c.as_ref()) else {
                    continue;
                };
                // Derived cells were not judged at this key's limits, and cells not run not at all.
                if c.reused || c.derived || c.not_run {
                    continue;
                }
                let about = format!("{} on {}: ", sub.report.name, plan.report.tests[*t]);
                cache.put_cell(
                    key,
                    &cache::StoredCell {
                        result: c.result.clone(),
                        rerun: c.rerun,
                        sensitive: c.sensitive,
                        past_margin: c.past_margin,
                        finished_as: c.finished_as,
                        warnings: plan
                            .report
                            .warnings
                            .iter()
                            .filter(|w| w.starts_with(&about))
                            .cloned()
                            .collect(),
                    },
                );
            }
        }
    }
}

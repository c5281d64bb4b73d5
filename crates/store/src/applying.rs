//! Applying a rejudging: flipping each submission's current judging to the one the rejudging
//! made. Both the contest store (an admin's "apply") and the core store (`finish`, when a
//! rejudging made to apply itself has its last judging) do it, inside their transactions.

use crate::db::{args, tuples, Conn, Res, Value, ROWS_PER_STATEMENT};

/// The rejudging's newest finished judging of an item's submission.
pub(crate) const AFTER: &str = "(SELECT MAX(j.id) FROM judgings j WHERE j.submission = i.submission
     AND j.rejudging = i.rejudging AND j.finished_at IS NOT NULL)";

/// Each item's submission with the rejudging's finished judging of it, and how many items
/// still wait for theirs.
pub(crate) fn judged_items(c: &mut Conn<'_>, id: i64) -> Res<(Vec<(i64, i64)>, usize)> {
    let sql = format!("SELECT i.submission, {AFTER} FROM rejudging_items i WHERE i.rejudging = $1");
    let items = c.rows("read a rejudging", &sql, args![id], |r| {
        Ok((r.get::<i64>(0)?, r.get::<Option<i64>>(1)?))
    })?;
    let judged: Vec<(i64, i64)> = items.iter().filter_map(|&(s, a)| Some((s, a?))).collect();
    let waiting = items.len() - judged.len();
    Ok((judged, waiting))
}

/// Makes every new judging current and closes the rejudging as applied, inside the caller's
/// transaction (the same flip as `Store::make_current`, so that the state change and the new
/// current judgings commit together). Every item must be judged.
pub(crate) fn flip(
    c: &mut Conn<'_>,
    id: i64,
    pairs: &[(i64, i64)],
    by: &str,
    now: i64,
) -> Res<u64> {
    for chunk in pairs.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "UPDATE submissions SET current_judging = p.column2
             FROM (VALUES {}) AS p WHERE submissions.id = p.column1",
            tuples(chunk.len(), 2)
        );
        let args: Vec<Value> = chunk
            .iter()
            .flat_map(|&(s, j)| [s.into(), j.into()])
            .collect();
        c.exec("apply a rejudging", &sql, &args)?;
    }
    let sql =
        "UPDATE rejudgings SET state = 'applied', closed_at = $2, closed_by = $3 WHERE id = $1";
    c.exec("apply a rejudging", sql, args![id, now, by])?;
    Ok(pairs.len() as u64)
}

/// Called by `finish` in the transaction that stored a judging of rejudging `id`: when `id` is
/// open, applies itself, and that was its last judging, applies it (closed by its creator).
/// Returns whether it did.
pub(crate) fn auto_apply(c: &mut Conn<'_>, id: i64, now: i64) -> Res<bool> {
    let sql = "SELECT created_by FROM rejudgings WHERE id = $1 AND auto_apply AND state = 'open'
         FOR UPDATE";
    let Some(creator) = c.row("read a rejudging", sql, args![id], |r| r.get::<String>(0))? else {
        return Ok(false);
    };
    let (pairs, waiting) = judged_items(c, id)?;
    if waiting > 0 {
        return Ok(false);
    }
    flip(c, id, &pairs, &creator, now)?;
    Ok(true)
}

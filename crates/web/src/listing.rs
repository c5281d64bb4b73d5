//! The submissions list's query (`?user=&problem=&verdict=&language=&before=&limit=`), shared by
//! the page `/submissions` and `GET /api/v1/submissions`: it becomes one [`ListFilter`] that the
//! store runs in SQL, so a filter costs one query per page however rare its matches are.
//!
//! Paging is by id (newest first): the next page is the same query with `before` set to the
//! last row's id, so rows judged or added meanwhile neither repeat nor go missing.

use serde::Deserialize;

use crate::error::AppError;
use crate::text::urlencode;
use crate::user::User;
use crate::App;
use ojd_judge::Verdict;
use ojd_service::ListFilter;

/// Rows per page unless `limit` says otherwise.
const PAGE_ROWS: u32 = 50;
/// The largest `limit` the API accepts.
const MAX_ROWS: u32 = 500;

/// The list's query string.
#[derive(Deserialize, Default, Clone, Debug)]
pub(crate) struct ListQuery {
    pub(crate) user: Option<String>,
    pub(crate) problem: Option<String>,
    /// A verdict's short code (AC, WA, …).
    pub(crate) verdict: Option<String>,
    /// A language id from the config (`cpp`, `python`, …).
    pub(crate) language: Option<String>,
    pub(crate) before: Option<i64>,
    pub(crate) limit: Option<u32>,
}

/// A query value, trimmed; empty counts as absent (a form's "any").
pub(crate) fn nonempty(v: &Option<String>) -> Option<String> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Who a list shows: admins choose (`None`: everyone), a student always sees their own.
pub(crate) enum Owner {
    /// Another user asked for by a student is refused (the API).
    Strict,
    /// Another user asked for by a student is ignored (the page shows their own).
    Lenient,
}

impl ListQuery {
    /// The store's filter for `viewer`. An unknown verdict or language is a 400 naming the field.
    pub(crate) fn filter(
        &self,
        app: &App,
        viewer: &User,
        owner: Owner,
    ) -> Result<ListFilter, AppError> {
        let asked = nonempty(&self.user);
        let user = match (viewer.admin, asked, owner) {
            (true, u, _) => u,
            (false, Some(u), Owner::Strict) if u != viewer.name => {
                return Err(AppError::Forbidden(
                    "students list only their own submissions (field `user`)".into(),
                ))
            }
            (false, _, _) => Some(viewer.name.clone()),
        };
        let verdict = match nonempty(&self.verdict) {
            None => None,
            Some(code) => Some(Verdict::from_code(&code.to_ascii_uppercase()).ok_or_else(|| {
                AppError::BadRequest(format!(
                    "unknown verdict {code:?} (field `verdict`): use a short code such as AC, WA, TLE, MLE, OLE, RE, CE, JE"
                ))
            })?),
        };
        let language = nonempty(&self.language);
        if let Some(l) = &language {
            if !app.node.config().languages.contains_key(l) {
                return Err(AppError::BadRequest(format!(
                    "unknown language {l:?} (field `language`): see /api/v1/languages"
                )));
            }
        }
        if let Some(0) = self.limit {
            return Err(AppError::BadRequest(
                "`limit` must be at least 1".to_string(),
            ));
        }
        Ok(ListFilter {
            user,
            problem: nonempty(&self.problem),
            verdict,
            language,
            contest: None,
            pending: false,
            before: self.before,
            limit: self.limit.unwrap_or(PAGE_ROWS).min(MAX_ROWS),
        })
    }

    /// This query's string (leading `?`) with `before` set, `limit` kept: the next page.
    pub(crate) fn with_before(&self, before: i64) -> String {
        let mut q = String::from("?");
        for (k, v) in [
            ("user", &self.user),
            ("problem", &self.problem),
            ("verdict", &self.verdict),
            ("language", &self.language),
        ] {
            if let Some(v) = nonempty(v) {
                q.push_str(&format!("{k}={}&", urlencode(&v)));
            }
        }
        if let Some(l) = self.limit {
            q.push_str(&format!("limit={l}&"));
        }
        format!("{q}before={before}")
    }

    /// This query's string without `before`: the newest page of the same filter.
    pub(crate) fn newest(&self) -> String {
        let next = self.with_before(0);
        next.trim_end_matches("before=0")
            .trim_end_matches('&')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_page_keeps_the_filters() {
        let q = ListQuery {
            user: Some("al ice".into()),
            verdict: Some("WA".into()),
            language: Some(" ".into()),
            limit: Some(10),
            before: Some(99),
            ..Default::default()
        };
        assert_eq!(
            q.with_before(42),
            "?user=al%20ice&verdict=WA&limit=10&before=42"
        );
        assert_eq!(q.newest(), "?user=al%20ice&verdict=WA&limit=10");
        assert_eq!(ListQuery::default().newest(), "?");
    }
}

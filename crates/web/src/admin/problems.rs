//! Managing problems: what is served and what failed to load, reloading them all, rejudging a
//! problem, and uploading a package.

use std::sync::Arc;

use axum::extract::{Multipart, Path, State};
use axum::response::{Html, IntoResponse, Redirect};
use maud::{html, Markup};

use super::upload::{install, UploadError};
use super::{err, PageResult};
use crate::auth::extract::MaybeUser;
use crate::error::AppError;
use crate::html::{need_admin, page};
use crate::rejudgings::{rejudge_now, Scope};
use crate::App;

fn problems_body(app: &App, message: Option<Markup>) -> Markup {
    let catalog = app.node.catalog();
    html! {
        h1 { "Manage problems" }
        @if let Some(m) = message { (m) }
        form.inline method="post" action="/admin/problems/reload" {
            button type="submit" #reload { "Reload all problems" }
        }
        h2 { "Served" }
        div.scroll { table.list.admin #problems {
            thead { tr { th { "Problem" } th { "State" } th.num { "Tests" } th { "" } } }
            tbody {
                @for (id, e) in &catalog.problems {
                    @let stale = ojd_service::needs_generation(&e.problem);
                    tr id={ "p-" (id) } {
                        td { a href={ "/problems/" (id) } { (id) } " " span.muted.opt { (e.problem.title) } }
                        td { @if stale { span.badge.v-TLE { "answers stale" } } @else { span.badge.v-AC { "ready" } } }
                        td.num { (e.problem.tests.len()) }
                        td {
                            form method="post" action={ "/admin/problems/" (id) "/rejudge" } {
                                button.link type="submit" { "rejudge all" }
                            }
                        }
                    }
                }
            }
        } }
        @if !catalog.failed.is_empty() {
            h2 { "Failed to load" }
            div.scroll { table.list.admin #failed {
                thead { tr { th { "Folder" } th { "Error" } } }
                tbody { @for f in &catalog.failed { tr { td { (f.folder) } td { pre.out { (f.error) } } } } }
            } }
        }
        h2 { "Upload a package" }
        p.muted { "A .zip or .tar.gz of one problem folder (problem.toml at its top or in its one folder). It is unpacked, checked and its answers built in the sandbox before it goes live; an upload that fails changes nothing." }
        form.submit #upload method="post" action="/admin/problems/upload" enctype="multipart/form-data" {
            label { "Package " input type="file" name="package" #package required; }
            button type="submit" #upload-button { "Upload" }
        }
    }
}

/// `GET /admin/problems`.
#[derive(serde::Deserialize)]
pub(crate) struct ResultQuery {
    result: Option<String>,
}

/// `GET /admin/problems`: the problems, and (once, after an upload) its outcome.
pub(crate) async fn problems(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    axum::extract::Query(q): axum::extract::Query<ResultQuery>,
) -> PageResult {
    let user = need_admin(user)?;
    let shown = q
        .result
        .and_then(|key| app.guards.take_shown(&key, &user.name, "problems"))
        .map(maud::PreEscaped);
    Ok(Html(page(
        "Manage problems",
        Some(&user),
        problems_body(&app, shown),
    ))
    .into_response())
}

/// `POST /admin/problems/reload`: loads every problem and contest again.
pub(crate) async fn reload(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_admin(user)?;
    let a = app.clone();
    tokio::task::spawn_blocking(move || a.reload())
        .await
        .map_err(|e| err(&user)(AppError::Internal(format!("reload failed: {e}"))))?;
    crate::log(&format!("admin {}: reloaded the problems", user.name));
    Ok(Redirect::to("/admin/problems").into_response())
}

/// `POST /admin/problems/{id}/rejudge`: a rejudging of the problem's judged submissions that
/// applies itself; the browser goes to its page.
pub(crate) async fn rejudge_problem(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    let user = need_admin(user)?;
    match rejudge_now(&app, Scope::Problem(id.clone()), &user).await {
        // The rejudging's page: progress, then the verdict diff once it applied itself.
        Ok(started) => {
            Ok(Redirect::to(&format!("/admin/rejudgings/{}", started.id)).into_response())
        }
        Err(e) => {
            e.log_if_internal();
            let body = problems_body(
                &app,
                Some(html! { p.error #result { "Cannot rejudge " (id) ": " (e.message()) } }),
            );
            Ok((e.status(), Html(page("Manage problems", Some(&user), body))).into_response())
        }
    }
}

/// `POST /admin/problems/upload`: installs a package, or says why not (nothing changed).
pub(crate) async fn upload(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    mut mp: Multipart,
) -> PageResult {
    let user = need_admin(user)?;
    let mut file: Option<(String, Vec<u8>)> = None;
    while let Some(field) = mp.next_field().await.map_err(|e| {
        err(&user)(AppError::BadRequest(format!(
            "bad upload: {}",
            e.body_text()
        )))
    })? {
        if field.name() == Some("package") {
            let name = field.file_name().unwrap_or("package").to_string();
            let data = field.bytes().await.map_err(|e| {
                err(&user)(AppError::TooLarge(format!(
                    "the package could not be read: {}",
                    e.body_text()
                )))
            })?;
            file = Some((name, data.to_vec()));
        }
    }
    let Some((name, data)) = file else {
        return Err(err(&user)(AppError::BadRequest(
            "choose a package file".into(),
        )));
    };
    let a = app.clone();
    let n = name.clone();
    let outcome = tokio::task::spawn_blocking(move || install(&a, &n, &data))
        .await
        .map_err(|e| err(&user)(AppError::Internal(format!("the upload task failed: {e}"))))?;
    let detail = match &outcome {
        Ok(id) => format!("installed problem {id} from {name}"),
        Err(e) => format!("refused {name}: {e}"),
    };
    crate::contests::controls::note(&app, &user.name, "upload", None, detail).await;
    let message = match &outcome {
        Ok(id) => {
            crate::log(&format!(
                "admin {}: installed problem {id} from {name}",
                user.name
            ));
            html! { p.note #result { "Installed " a href={ "/problems/" (id) } { (id) } " from " (name) ": it is live." } }
        }
        Err(e) => {
            crate::log(&format!(
                "admin {}: upload of {name} refused: {e}",
                user.name
            ));
            refusal(&name, e)
        }
    };
    // Post/redirect/get: a refresh does not upload again.
    let key = app
        .guards
        .keep_shown(&user.name, "problems", message.into_string());
    Ok(Redirect::to(&format!("/admin/problems?result={key}")).into_response())
}

/// What the admin is told of an upload that installed nothing: the package's fault names what
/// in it is refused; the server's own (its disk) is said to be the server's, so that the same
/// package is sent again rather than changed.
fn refusal(name: &str, e: &UploadError) -> Markup {
    match e {
        UploadError::Refused(_) => html! {
            div.error #result role="alert" { "The package " (name) " was not installed (nothing changed):" pre.out { (e) } }
        },
        UploadError::Io { .. } => html! {
            div.error #result role="alert" { "The server failed while installing " (name) " (nothing changed; the package was not at fault, try again):" pre.out { (e) } }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal blames the package; a failure of the server's disk does not.
    #[test]
    fn an_uploads_refusal_says_whose_fault_it_was() {
        let package = refusal(
            "p.zip",
            &UploadError::Refused("problem.toml: time: bad".into()),
        )
        .into_string();
        assert!(
            package.contains("The package p.zip was not installed"),
            "{package}"
        );
        assert!(package.contains("problem.toml: time: bad"), "{package}");
        let host = refusal(
            "p.zip",
            &UploadError::Io {
                what: "put p in place".into(),
                source: std::io::Error::from(std::io::ErrorKind::StorageFull),
            },
        )
        .into_string();
        assert!(
            host.contains("The server failed while installing p.zip"),
            "{host}"
        );
        assert!(host.contains("the package was not at fault"), "{host}");
        assert!(host.contains("put p in place"), "{host}");
    }
}

//! Importing a CLICS contest package on the admin pages, as `ojd contest import` does on the
//! command line but through the running daemon (its own database connection and lock):
//!
//! 1. `GET /admin/contests/import`: the form (a `.zip` or `.tar.gz` of the package, an
//!    optional contest id).
//! 2. `POST /admin/contests/import`: the archive is unpacked within the problem uploads' caps
//!    ([`super::upload`]: paths stay inside, no links, size, file count and ratio capped) into
//!    a hidden staging folder of the contests folder, read as data and checked whole by the
//!    service ([`ojd_service::Node::preview_package`]); the page says what the import will
//!    create (contest, problems, roster, history) or the first mistake, naming the file and
//!    key. Nothing is written outside the staging folder, which a refusal deletes.
//! 3. `POST /admin/contests/import/confirm` (the staging folder's random key, bound to the
//!    admin who uploaded the package: another admin's confirm or cancel is refused): imported
//!    ([`ojd_service::Node::import_package`]), audited, the contests reloaded; the browser goes
//!    to the new contest. `POST /admin/contests/import/cancel` deletes the staging folder.
//!
//! The package's problems must be served already (upload them on the problems page): their
//! Kattis packages need the sandbox's import, which is the command line's.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Multipart, State};
use axum::response::{Html, IntoResponse, Redirect};
use axum::Form;
use maud::{html, Markup};

use super::upload::{unpack_archive, Caps, UploadError};
use super::{err, PageResult};
use crate::auth::extract::MaybeUser;
use crate::auth::new_token;
use crate::error::AppError;
use crate::html::{need_admin, page};
use crate::user::User;
use crate::App;
use ojd_service::contest::edit::valid_id;
use ojd_service::package::{PackageError, Preview};

/// The staging folders' prefix inside the contests folder (hidden: the contests' loader skips
/// names starting with a dot).
const STAGING: &str = ".import-";

/// A staging folder left by a preview nobody confirmed is deleted this long after.
const STALE: Duration = Duration::from_secs(3600);

/// The page's form, with a message above it.
fn form_body(message: Option<Markup>) -> Markup {
    html! {
        h1 { "Import a contest package" }
        @if let Some(m) = message { (m) }
        p.muted { "A .zip or .tar.gz of a CLICS contest package (contest.yaml or contest.json at its top or in its one folder; problems, teams, organizations, groups, accounts; submissions, judgements and clarifications, if any). It is read as data and checked whole; you see what it creates before anything is written. Its problems must be served here already: upload each on the " a href="/admin/problems" { "problems page" } " first (or use ojd contest import, which imports their Kattis packages)." }
        form.submit #import-form method="post" action="/admin/contests/import" enctype="multipart/form-data" {
            label { "Package " input type="file" name="package" #package required; }
            label { "Contest id " input type="text" name="id" #contest-id placeholder="the package's own"; }
            button type="submit" #import-check { "Check" }
        }
    }
}

/// `GET /admin/contests/import`.
pub(crate) async fn import_form(
    State(_app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
) -> PageResult {
    let user = need_admin(user)?;
    Ok(Html(page(
        "Import a contest package",
        Some(&user),
        form_body(None),
    ))
    .into_response())
}

/// Deletes staging folders older than [`STALE`] (best effort: previews never confirmed).
fn sweep(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let stale = e.file_name().to_string_lossy().starts_with(STAGING)
            && e.metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE));
        if stale {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The folder of the unpacked package inside `unpacked`: the one holding `contest.yaml` or
/// `contest.json`, at the top or in its one folder.
fn package_folder(filename: &str, unpacked: &Path) -> Result<PathBuf, UploadError> {
    let holds = |d: &Path| {
        ["contest.yaml", "contest.json"]
            .iter()
            .any(|f| d.join(f).is_file())
    };
    if holds(unpacked) {
        return Ok(unpacked.to_path_buf());
    }
    let dirs: Vec<PathBuf> = std::fs::read_dir(unpacked)
        .map_err(|source| UploadError::Io {
            what: "read the unpacked archive".into(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    match dirs.as_slice() {
        [one] if holds(one) => Ok(one.clone()),
        _ => Err(UploadError::Refused(format!(
            "{filename}: no contest.yaml or contest.json at the top of the archive or in its one folder"
        ))),
    }
}

/// The file in a staging folder naming the admin who uploaded its package: only they may
/// import or cancel it (the key is in their page, but a key seen elsewhere is not enough).
const OWNER: &str = "owner";

/// The staging folder of `key`, when the key is one this page made for admin `by`.
fn staging_of(app: &App, key: &str, by: &str) -> Option<PathBuf> {
    let ok = !key.is_empty()
        && key.len() <= 128
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let dir = app
        .node
        .config()
        .server
        .contests
        .join(format!("{STAGING}{key}"));
    let theirs = ok && std::fs::read_to_string(dir.join(OWNER)).is_ok_and(|o| o == by);
    (theirs && dir.is_dir()).then_some(dir)
}

/// What the director is told of a package that was not imported.
fn refusal(name: &str, e: &str, host: bool) -> Markup {
    if host {
        html! { div.error #result role="alert" { "The server failed while reading " (name) " (nothing changed; the package was not at fault, try again):" pre.out { (e) } } }
    } else {
        html! { div.error #result role="alert" { "The package " (name) " was not imported (nothing changed):" pre.out { (e) } } }
    }
}

fn is_host_fault(e: &PackageError) -> bool {
    !matches!(e, PackageError::Bad(_))
}

/// The preview: what the import creates, with the buttons to import or cancel.
fn preview_body(name: &str, key: &str, id: &str, p: &Preview) -> Markup {
    html! {
        h1 { "Import a contest package" }
        p.note #preview-of { "Checked " (name) ": nothing is written until you import it." }
        @if p.again { p.note #again { "This package was imported as contest " (p.id) " already: only what the database misses is stored." } }
        table.list.admin #preview {
            tbody {
                tr { th { "Contest" } td #preview-id { (p.id) } }
                tr { th { "Title" } td #preview-title { (p.title) } }
                tr { th { "Start" } td { @if p.start.is_empty() { "not scheduled" } @else { (p.start) } } }
                tr { th { "Length" } td #preview-length { (p.duration) } }
                tr { th { "Teams" } td #preview-teams data-count=(p.teams) { (p.teams) @if p.hidden > 0 { " (" (p.hidden) " hidden: observers and jury)" } } }
                tr { th { "Organizations" } td { (p.organizations) } }
                tr { th { "Groups" } td { (p.groups) } }
                tr { th { "Submissions" } td #preview-submissions data-count=(p.submissions) { (p.submissions) " (" (p.judgements) " judgements, kept as judged)" } }
                tr { th { "Clarifications" } td #preview-clarifications data-count=(p.clarifications) { (p.clarifications) } }
                tr { th { "Finalized" } td { @if p.finalized { "yes" } @else { "no" } } }
            }
        }
        h2 { "Problems" }
        div.scroll { table.list.admin #preview-problems {
            thead { tr { th { "Label" } th { "Problem" } th { "Title" } } }
            tbody { @for x in &p.problems { tr { td { (x.label) } td { a href={ "/problems/" (x.id) } { (x.id) } } td { (x.title) } } } }
        } }
        @if !p.warnings.is_empty() {
            h2 { "Not kept" }
            ul #preview-warnings { @for w in &p.warnings { li { (w) } } }
        }
        form.inline method="post" action="/admin/contests/import/confirm" {
            input type="hidden" name="key" value=(key);
            input type="hidden" name="id" value=(id);
            input type="hidden" name="name" value=(name);
            button type="submit" #import-confirm { "Import " (p.id) }
        }
        " "
        form.inline method="post" action="/admin/contests/import/cancel" {
            input type="hidden" name="key" value=(key);
            button.link type="submit" #import-cancel { "Cancel" }
        }
    }
}

/// `POST /admin/contests/import`: unpacks and checks the package, and shows what it creates.
pub(crate) async fn check(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    mut mp: Multipart,
) -> PageResult {
    let user = need_admin(user)?;
    let (mut file, mut id) = (None::<(String, Vec<u8>)>, String::new());
    while let Some(field) = mp.next_field().await.map_err(|e| {
        err(&user)(AppError::BadRequest(format!(
            "bad upload: {}",
            e.body_text()
        )))
    })? {
        match field.name() {
            Some("package") => {
                let name = field.file_name().unwrap_or("package").to_string();
                let data = field.bytes().await.map_err(|e| {
                    err(&user)(AppError::TooLarge(format!(
                        "the package could not be read: {}",
                        e.body_text()
                    )))
                })?;
                file = Some((name, data.to_vec()));
            }
            Some("id") => {
                id = field.text().await.unwrap_or_default().trim().to_string();
            }
            _ => {}
        }
    }
    let Some((name, data)) = file.filter(|(_, d)| !d.is_empty()) else {
        return Ok(shown(
            &user,
            StatusCodeOf::Bad,
            form_body(Some(refusal("(none)", "choose a package file", false))),
        ));
    };
    let root = app.node.config().server.contests.clone();
    let key = new_token().map_err(|e| {
        err(&user)(AppError::Internal(format!(
            "a fresh staging folder's name: {e}"
        )))
    })?;
    let staging = root.join(format!("{STAGING}{key}"));
    let caps = Caps::of(&app);
    let (n, st, owner) = (name.clone(), staging.clone(), user.name.clone());
    let unpacked = tokio::task::spawn_blocking(move || {
        sweep(st.parent().unwrap_or(&st));
        std::fs::create_dir_all(&st).map_err(|source| UploadError::Io {
            what: format!("create {}", st.display()),
            source,
        })?;
        std::fs::write(st.join(OWNER), owner).map_err(|source| UploadError::Io {
            what: format!("write {}", st.join(OWNER).display()),
            source,
        })?;
        let into = st.join("unpacked");
        let stem = unpack_archive(&n, &data, &into, caps, "the contest package")?;
        // The browser's file name is untrusted: it names the folder only as a valid id.
        let stem = if valid_id(stem) { stem } else { "package" };
        // The package's folder name is its default id: the archive's name, or its one folder's.
        let folder = package_folder(&n, &into)?;
        if folder == into {
            let named = st.join(stem);
            std::fs::rename(&into, &named).map_err(|source| UploadError::Io {
                what: "name the unpacked folder".into(),
                source,
            })?;
            return Ok(named);
        }
        Ok(folder)
    })
    .await
    .map_err(|e| err(&user)(AppError::Internal(format!("the upload task failed: {e}"))))?;
    let folder = match unpacked {
        Ok(f) => f,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            let host = matches!(e, UploadError::Io { .. });
            let e = e.relative_to(&staging.join("unpacked"));
            crate::log(&format!(
                "admin {}: contest package {name} refused: {e}",
                user.name
            ));
            let body = form_body(Some(refusal(&name, &e.to_string(), host)));
            return Ok(shown(
                &user,
                if host {
                    StatusCodeOf::Host
                } else {
                    StatusCodeOf::Bad
                },
                body,
            ));
        }
    };
    let wanted = (!id.is_empty()).then(|| id.clone());
    match app.node.preview_package(folder, wanted).await {
        Ok(p) => Ok(Html(page(
            "Import a contest package",
            Some(&user),
            preview_body(&name, &key, &id, &p),
        ))
        .into_response()),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            crate::log(&format!(
                "admin {}: contest package {name} refused: {e}",
                user.name
            ));
            let host = is_host_fault(&e);
            let body = form_body(Some(refusal(&name, &full(&e), host)));
            Ok(shown(
                &user,
                if host {
                    StatusCodeOf::Host
                } else {
                    StatusCodeOf::Bad
                },
                body,
            ))
        }
    }
}

/// An error with its causes, each after a colon.
fn full(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(&format!(": {c}"));
        cause = c.source();
    }
    out
}

/// Whose fault a refusal was, for its status.
enum StatusCodeOf {
    Bad,
    Host,
}

fn shown(user: &User, status: StatusCodeOf, body: Markup) -> axum::response::Response {
    let code = match status {
        StatusCodeOf::Bad => axum::http::StatusCode::BAD_REQUEST,
        StatusCodeOf::Host => axum::http::StatusCode::INTERNAL_SERVER_ERROR,
    };
    (
        code,
        Html(page("Import a contest package", Some(user), body)),
    )
        .into_response()
}

/// The preview's buttons.
#[derive(serde::Deserialize)]
pub(crate) struct Confirm {
    key: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    name: String,
}

/// `POST /admin/contests/import/confirm`: imports the checked package.
pub(crate) async fn confirm(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Form(f): Form<Confirm>,
) -> PageResult {
    let user = need_admin(user)?;
    let Some(staging) = staging_of(&app, &f.key, &user.name) else {
        let body = form_body(Some(refusal(&f.name, "this check is no longer there (imported, cancelled or an hour old) or was another admin's: upload the package again", false)));
        return Ok(shown(&user, StatusCodeOf::Bad, body));
    };
    let folder = match find_unpacked(&staging) {
        Some(d) => d,
        None => {
            let _ = std::fs::remove_dir_all(&staging);
            return Ok(shown(
                &user,
                StatusCodeOf::Bad,
                form_body(Some(refusal(
                    &f.name,
                    "the checked package is gone: upload it again",
                    false,
                ))),
            ));
        }
    };
    let wanted = (!f.id.is_empty()).then(|| f.id.clone());
    let outcome = app.node.import_package(folder, wanted).await;
    let _ = std::fs::remove_dir_all(&staging);
    match outcome {
        Ok(done) => {
            app.contests.reload(app.node.config());
            let p = &done.preview;
            let detail = format!(
                "imported contest {:?} from the package {} ({} problems, {} teams): {} submissions, {} judgements, {} clarifications stored, {} there already",
                p.id, f.name, p.problems.len(), p.teams, done.submissions, done.judgements, done.clarifications, done.kept
            );
            crate::log(&format!("admin {}: {detail}", user.name));
            crate::contests::controls::note(&app, &user.name, "import", Some(&p.id), detail).await;
            Ok(
                Redirect::to(&format!("/contests/{}", crate::text::urlencode(&p.id)))
                    .into_response(),
            )
        }
        Err(e) => {
            crate::log(&format!(
                "admin {}: contest package {} not imported: {e}",
                user.name, f.name
            ));
            let host = is_host_fault(&e);
            let body = form_body(Some(refusal(&f.name, &full(&e), host)));
            Ok(shown(
                &user,
                if host {
                    StatusCodeOf::Host
                } else {
                    StatusCodeOf::Bad
                },
                body,
            ))
        }
    }
}

/// The one folder a check left in `staging` (the unpacked package).
fn find_unpacked(staging: &Path) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = std::fs::read_dir(staging)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    match dirs.as_slice() {
        [one] if one.file_name().is_some_and(|n| n == "unpacked") => package_folder("", one).ok(),
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The cancel button's form.
#[derive(serde::Deserialize)]
pub(crate) struct Cancel {
    key: String,
}

/// `POST /admin/contests/import/cancel`: forgets the checked package.
pub(crate) async fn cancel(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Form(f): Form<Cancel>,
) -> PageResult {
    let user = need_admin(user)?;
    if let Some(staging) = staging_of(&app, &f.key, &user.name) {
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(Redirect::to("/admin/contests/import").into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_found_at_the_top_or_in_its_one_folder() {
        let dir = tempfile::tempdir().expect("dir");
        let top = dir.path().join("top");
        std::fs::create_dir_all(&top).expect("mkdir");
        std::fs::write(top.join("contest.yaml"), "id: x\n").expect("write");
        assert_eq!(package_folder("p.zip", &top).expect("found"), top);
        let nested = dir.path().join("nested");
        std::fs::create_dir_all(nested.join("wf")).expect("mkdir");
        std::fs::write(nested.join("wf/contest.json"), "{}").expect("write");
        assert_eq!(
            package_folder("p.zip", &nested).expect("found"),
            nested.join("wf")
        );
        let none = dir.path().join("none");
        std::fs::create_dir_all(none.join("a")).expect("mkdir");
        std::fs::create_dir_all(none.join("b")).expect("mkdir");
        let e = package_folder("p.zip", &none).expect_err("refused");
        assert!(
            e.to_string()
                .contains("p.zip: no contest.yaml or contest.json"),
            "{e}"
        );
    }
}

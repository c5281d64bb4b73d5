//! The page frame every page is drawn in: head, navigation (what the viewer may use), body;
//! and the same frame with the live-page assets. No script is inline (the
//! Content-Security-Policy forbids it).

use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use crate::user::User;

/// The page frame: head, navigation (what the viewer may use), body.
pub(crate) fn page(title: &str, user: Option<&User>, body: Markup) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · ojd" }
                link rel="stylesheet" href="/static/style.css";
                script src="/static/site.js" defer {}
                script src="/static/live.js" defer {}
            }
            body {
                header { nav {
                    a.brand href="/" { "ojd" }
                    a href="/" { "Problems" }
                    a href="/contests" { "Contests" }
                    @match user {
                        Some(u) if u.admin => {
                            a href="/admin/rejudgings" { "Rejudgings" }
                            a href="/submissions" { "All submissions" }
                            a href="/admin/queue" { "Queue" }
                            a href="/admin/problems" { "Manage problems" }
                            a href="/admin/users" { "Users" }
                            a href="/admin/audit" { "Audit log" }
                        }
                        Some(_) => { a href="/submissions" { "My submissions" } }
                        None => {}
                    }
                    span.spacer {}
                    @match user {
                        Some(u) => {
                            span.who { (u.name) }
                            @if u.admin { span.role { "admin" } }
                            form.inline method="post" action="/logout" {
                                button.link { "Log out" }
                            }
                        }
                        None => { a href="/login" { "Log in" } }
                    }
                } }
                main { (body) }
            }
        }
    };
    markup.into_string()
}

/// The site's page frame, with the styles and script of pages with live parts (the contest
/// pages, the rejudging pages): `contest.js` fetches their `data-live` fragments again every
/// few seconds. A stylesheet link and an external script are valid in the body.
pub(crate) fn frame(title: &str, user: Option<&User>, body: Markup) -> Response {
    let body = html! {
        link rel="stylesheet" href="/contest-static/contest.css";
        script src="/contest-static/contest.js" defer {}
        (body)
    };
    Html(page(title, user, body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_escape() {
        let who = User {
            name: "<script>x</script>".into(),
            admin: false,
        };
        let p = page("a<b", Some(&who), html! { p { "'&'" } });
        assert!(p.contains("&lt;script&gt;x&lt;/script&gt;"), "{p}");
        assert!(p.contains("a&lt;b · ojd"), "{p}");
        assert!(!p.contains("<script>x"), "{p}");
    }
}

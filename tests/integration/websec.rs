//! The web layer's security over real HTTP on 127.0.0.1: origin checks on every state-changing
//! route, JSON only as `application/json`, security headers, styled errors for every path,
//! sessions instead of tokens in cookies and URLs, the login rate limit, admin-only metrics,
//! the cap on event streams and the request timeout. Each test here fails on the daemon as it
//! was before the web layer was hardened.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common;
use crate::daemon::{response, Daemon, Site, ADMIN, ALICE};

/// A request with extra headers; returns status, headers (lowercase names) and body.
pub(crate) fn request(
    d: &Daemon,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Vec<(String, String)>, String) {
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let mut req = agent.request(method, &format!("{}{path}", d.url));
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let r = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    let r = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: {e}"),
    };
    let status = r.status();
    let hs = r
        .headers_names()
        .into_iter()
        .flat_map(|n| {
            r.all(&n)
                .into_iter()
                .map(|v| (n.to_ascii_lowercase(), v.to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    (status, hs, r.into_string().unwrap_or_default())
}

pub(crate) fn header<'a>(hs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    hs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Logs in through the form; returns the `ojd_session=…` cookie pair.
pub(crate) fn login(d: &Daemon, token: &str) -> String {
    let (code, hs, body) = request(
        d,
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(&format!("token={token}")),
    );
    assert_eq!(code, 303, "{body}");
    let cookie = header(&hs, "set-cookie").expect("a session cookie");
    cookie.split(';').next().expect("name=value").to_string()
}

const SUBMISSION: &str =
    r#"{"problem":"aplusb","language":"c","source":"int main(void){return 0;}"}"#;

#[test]
fn state_changing_requests_from_another_origin_are_refused() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let bearer = format!("Bearer {ALICE}");
    let host = d.url.trim_start_matches("http://").to_string();
    let same = format!("http://{host}");
    let json_ct = ("Content-Type", "application/json");
    // The API, with a bearer token, from a browser on another site.
    for extra in [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let (code, _, body) = request(
            &d,
            "POST",
            "/api/v1/submissions",
            &[("Authorization", &bearer), json_ct, extra],
            Some(SUBMISSION),
        );
        assert_eq!(code, 403, "{extra:?}: {body}");
        let v: Value = serde_json::from_str(&body).expect("a JSON error");
        assert_eq!(v["error"]["code"], "forbidden", "{body}");
    }
    // The same from this site's own pages, and from a script without a browser, is accepted.
    let (code, _, body) = request(
        &d,
        "POST",
        "/api/v1/submissions",
        &[
            ("Authorization", &bearer),
            json_ct,
            ("Origin", &same),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        Some(SUBMISSION),
    );
    assert_eq!(code, 201, "{body}");
    let (code, _, body) = request(
        &d,
        "POST",
        "/api/v1/submissions",
        &[("Authorization", &bearer), json_ct],
        Some(SUBMISSION),
    );
    assert_eq!(code, 201, "{body}");

    // The forms: submit, login, logout, rejudge.
    let cookie = login(&d, ALICE);
    let multipart = "multipart/form-data; boundary=b";
    let form = "--b\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nc\r\n--b\r\nContent-Disposition: form-data; name=\"source\"\r\n\r\nint main(void){return 0;}\r\n--b--\r\n";
    let (code, _, body) = request(
        &d,
        "POST",
        "/problems/aplusb/submit",
        &[
            ("Cookie", &cookie),
            ("Content-Type", multipart),
            ("Origin", "http://evil.example"),
        ],
        Some(form),
    );
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("<html"), "a styled page: {body}");
    for path in ["/login", "/logout", "/submissions/1/rejudge"] {
        let (code, _, body) = request(
            &d,
            "POST",
            path,
            &[
                ("Cookie", &cookie),
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Sec-Fetch-Site", "cross-site"),
            ],
            Some("token=alice-token"),
        );
        assert_eq!(code, 403, "{path}: {body}");
    }
    // The session still works: logout above was refused.
    let (code, _, body) = request(
        &d,
        "GET",
        "/api/v1/me",
        &[("Cookie", &cookie), ("Sec-Fetch-Site", "same-origin")],
        None,
    );
    assert_eq!(code, 200, "{body}");
    // Cookie authentication on the API needs the same origin, even to read.
    let (code, _, body) = request(
        &d,
        "GET",
        "/api/v1/me",
        &[("Cookie", &cookie), ("Sec-Fetch-Site", "cross-site")],
        None,
    );
    assert_eq!(code, 403, "{body}");
    // A form on another site can post text/plain without asking: JSON must say it is JSON.
    let (code, _, body) = request(
        &d,
        "POST",
        "/api/v1/submissions",
        &[("Authorization", &bearer), ("Content-Type", "text/plain")],
        Some(SUBMISSION),
    );
    assert_eq!(code, 415, "{body}");
    let v: Value = serde_json::from_str(&body).expect("a JSON error");
    assert_eq!(v["error"]["code"], "unsupported_media_type", "{body}");
}

#[test]
fn every_response_has_the_security_headers_and_every_error_is_shaped() {
    require_root!();
    let site = Site::new("");
    let d = site.start();
    let html_errors = [
        ("GET", "/submissions/abc", 404),
        ("GET", "/no/such/page", 404),
        ("GET", "/logout", 405),
        ("GET", "/static/nope.js", 404),
        ("GET", "/problems/nope", 404),
    ];
    for (method, path, want) in html_errors {
        let (code, hs, body) = request(
            &d,
            method,
            path,
            &[("Authorization", &format!("Bearer {ALICE}"))],
            None,
        );
        assert_eq!(code, want, "{path}: {body}");
        let kind = header(&hs, "content-type").unwrap_or("");
        assert!(kind.starts_with("text/html"), "{path}: {kind}");
        assert!(
            body.contains("<nav>") && body.contains("class=\"error-page\""),
            "{path}: {body}"
        );
        assert!(!body.contains("Invalid URL"), "{path}: {body}");
    }
    let json_errors = [
        ("GET", "/api/v1/submissions/abc", 400),
        ("GET", "/api/v1/nope", 404),
        ("DELETE", "/api/v1/submissions", 405),
    ];
    for (method, path, want) in json_errors {
        let (code, hs, body) = request(
            &d,
            method,
            path,
            &[("Authorization", &format!("Bearer {ALICE}"))],
            None,
        );
        assert_eq!(code, want, "{path}: {body}");
        assert!(
            header(&hs, "content-type")
                .unwrap_or("")
                .starts_with("application/json"),
            "{path}"
        );
        let v: Value = serde_json::from_str(&body).expect("JSON");
        assert!(
            v["error"]["code"].is_string() && v["error"]["message"].is_string(),
            "{path}: {body}"
        );
    }
    for path in [
        "/",
        "/problems/aplusb",
        "/api/v1/problems",
        "/nope",
        "/static/site.js",
    ] {
        let (_, hs, _) = request(&d, "GET", path, &[], None);
        let csp = header(&hs, "content-security-policy").unwrap_or("");
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{path}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(
            header(&hs, "x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert!(header(&hs, "referrer-policy").is_some(), "{path}");
    }
    // No inline script anywhere on the pages (the policy would block it).
    for path in ["/", "/problems/aplusb", "/login"] {
        let (_, _, body) = request(
            &d,
            "GET",
            path,
            &[("Authorization", &format!("Bearer {ALICE}"))],
            None,
        );
        for (i, _) in body.match_indices("<script") {
            let tag = &body[i..body[i..].find('>').map_or(body.len(), |e| i + e)];
            assert!(tag.contains(" src="), "{path}: inline script {tag}");
        }
        assert!(
            !body.contains(" onclick=") && !body.contains(" onload="),
            "{path}"
        );
    }
}

#[test]
fn sessions_replace_tokens_in_cookies_and_urls() {
    require_root!();
    let site = Site::new("");
    let d = site.start();
    // A token in the URL logs no one in.
    let (code, hs, _) = request(&d, "GET", &format!("/login?token={ALICE}"), &[], None);
    assert_ne!(code, 303);
    assert!(header(&hs, "set-cookie").is_none());
    // The cookie holds a session id, not the token, with the right attributes.
    let (code, hs, _) = request(
        &d,
        "POST",
        "/login",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("X-Forwarded-Proto", "https"),
        ],
        Some(&format!("token={ALICE}")),
    );
    assert_eq!(code, 303);
    let set = header(&hs, "set-cookie").expect("cookie");
    assert!(set.starts_with("ojd_session="), "{set}");
    assert!(
        !set.contains(ALICE),
        "the token is not in the cookie: {set}"
    );
    for attr in ["HttpOnly", "SameSite=", "Max-Age=", "Secure"] {
        assert!(set.contains(attr), "{attr}: {set}");
    }
    let cookie = login(&d, ALICE);
    let (code, _, body) = request(&d, "GET", "/api/v1/me", &[("Cookie", &cookie)], None);
    assert_eq!(
        (
            code,
            serde_json::from_str::<Value>(&body)
                .ok()
                .map(|v| v["name"].clone())
        ),
        (200, Some(json!("alice"))),
        "{body}"
    );
    // The raw token in the cookie is no credential any more.
    let (code, _, _) = request(
        &d,
        "GET",
        "/api/v1/me",
        &[("Cookie", &format!("ojd_session={ALICE}"))],
        None,
    );
    assert_eq!(code, 401);
    // Logging out ends the session on the server, not just in the browser (a browser's form
    // says where it comes from: a cookie POST with neither Origin nor Sec-Fetch-Site is 403).
    let (code, _, _) = request(&d, "POST", "/logout", &[("Cookie", &cookie)], None);
    assert_eq!(code, 403);
    let (code, _, _) = request(
        &d,
        "POST",
        "/logout",
        &[("Cookie", &cookie), ("Origin", &d.url)],
        None,
    );
    assert_eq!(code, 303);
    let (code, _, _) = request(&d, "GET", "/api/v1/me", &[("Cookie", &cookie)], None);
    assert_eq!(code, 401);
}

#[test]
fn failed_logins_are_rate_limited_per_address() {
    require_root!();
    let site = Site::new("[web]\nlogin_attempts_per_minute = 3");
    let d = site.start();
    let wrong = |d: &Daemon| {
        request(
            d,
            "POST",
            "/login",
            &[("Content-Type", "application/x-www-form-urlencoded")],
            Some("token=guess"),
        )
        .0
    };
    for _ in 0..3 {
        assert_eq!(wrong(&d), 401);
    }
    assert_eq!(wrong(&d), 429);
    let (_, _, body) = request(
        &d,
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some("token=guess"),
    );
    assert!(
        body.contains("failed logins from this address"),
        "the refusal names what is limited: {body}"
    );
    // Even the right token waits: the address is limited, not the guess.
    let (code, hs, _) = request(
        &d,
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(&format!("token={ALICE}")),
    );
    assert_eq!(code, 429);
    assert!(header(&hs, "retry-after").is_some());
}

#[test]
fn metrics_are_for_admins_unless_configured_public() {
    require_root!();
    let site = Site::new("");
    let d = site.start();
    assert_eq!(d.get_text("/metrics", None).0, 401);
    assert_eq!(d.get_text("/metrics", Some(ALICE)).0, 403);
    let (code, text) = d.get_text("/metrics", Some(ADMIN));
    assert_eq!(code, 200);
    assert!(text.contains("ojd_queue_length"), "{text}");
    drop(d);
    let site = Site::new("[web]\nmetrics_public = true");
    let d = site.start();
    assert_eq!(d.get_text("/metrics", None).0, 200);
}

#[test]
#[allow(clippy::result_large_err)] // ureq's own error type, in a test
fn event_streams_per_user_are_capped_and_slow_requests_time_out() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0\n[web]\nmax_event_streams_per_user = 2\nrequest_timeout = \"1s\"");
    let d = site.start();
    let slow = common::testdata("aplusb/submissions/time_limit_exceeded/sleep.c");
    let id = d.submit_file(ALICE, &slow);
    let open = || {
        ureq::get(&format!("{}/api/v1/submissions/{id}/events", d.url))
            .set("Authorization", &format!("Bearer {ALICE}"))
            .timeout(Duration::from_secs(30))
            .call()
    };
    let first = open().expect("first stream");
    let second = open().expect("second stream");
    let (code, body) = response(open());
    assert_eq!(
        (code, body["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{body}"
    );
    // It says what there are too many of (issue 23: it said "too many submissions").
    let message = body["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("live result streams") && !message.contains("submissions;"),
        "{body}"
    );
    // Another user is not affected; a closed stream frees its slot.
    let (code, _) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert_eq!(code, 200);
    drop(first);
    let third = crate::common::wait_until(Duration::from_secs(30), || {
        open().map_err(|e| format!("the slot was not freed: {e}"))
    });
    drop((second, third));

    // A request whose body never finishes arriving is cut off after request_timeout.
    let addr = d.url.trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let t = Instant::now();
    write!(
        s,
        "POST /api/v1/submissions HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ALICE}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"problem\""
    )
    .expect("write");
    let mut reply = String::new();
    let mut buf = [0u8; 4096];
    while !reply.contains("}}") {
        match s.read(&mut buf) {
            // A signal handled meanwhile interrupts a read with a timeout (signal(7)).
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => break,
            Ok(n) => reply.push_str(&String::from_utf8_lossy(&buf[..n])),
        }
    }
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    assert!(reply.contains("\"timeout\""), "{reply}");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

/// One policy hides a problem of a contest that has not started: the problem lists, its
/// statement, tests and submit form, the submissions filter, and a submission made before the
/// contest claimed it (JSON, page, results, source, event stream) are all "not found" to
/// students and to visitors; admins still see everything.
#[test]
fn a_problem_of_a_contest_not_started_is_hidden_on_every_path() {
    require_root!();
    let contests = tempfile::tempdir().expect("temp dir");
    let site = Site::new(&format!(
        "contests = \"{}\"\nrate_limit_per_minute = 0",
        contests.path().display()
    ));
    let problems = site.path().join("problems");
    let copy = std::process::Command::new("cp")
        .arg("-r")
        .arg(problems.join("aplusb"))
        .arg(problems.join("late"))
        .status()
        .expect("cp");
    assert!(copy.success());
    let d = site.start();
    // Alice submits while the problem is public; then a contest starting in an hour claims it.
    let source = std::fs::read_to_string(common::testdata("aplusb/submissions/accepted/ac.c"))
        .expect("source");
    let (code, body) = d.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({ "problem": "late", "language": "c", "source": source }),
    );
    assert_eq!(code, 201, "{body}");
    let id = body["id"].as_i64().expect("id");
    let (_, before) = d.get_text("/", None);
    assert!(before.contains("href=\"/problems/late\""), "{before}");
    crate::contests::write_contest(
        contests.path(),
        "soon",
        ojd_store::now_ms() + 3_600_000,
        "1h",
        "",
        "late",
    );
    let (code, body) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200, "{body}");

    let cookie = login(&d, ALICE);
    let bearer = format!("Bearer {ALICE}");
    for who in [Some(bearer.as_str()), None] {
        let auth: Vec<(&str, &str)> = who.map(|b| ("authorization", b)).into_iter().collect();
        let (_, _, list) = request(&d, "GET", "/api/v1/problems", &auth, None);
        assert!(
            list.contains("\"aplusb\"") && !list.contains("\"late\""),
            "{list}"
        );
        for path in [
            "/api/v1/problems/late",
            "/api/v1/problems/late/tests/sample-1",
            "/problems/late",
        ] {
            let (code, _, body) = request(&d, "GET", path, &auth, None);
            assert_eq!(code, 404, "{path} ({who:?}): {body}");
        }
        let (_, _, index) = request(&d, "GET", "/", &auth, None);
        assert!(
            index.contains("href=\"/problems/aplusb\"") && !index.contains("/problems/late"),
            "{index}"
        );
    }
    // The student's own submission of it, on every path.
    let subs = [
        format!("/api/v1/submissions/{id}"),
        format!("/api/v1/submissions/{id}/events"),
        format!("/submissions/{id}"),
        format!("/submissions/{id}/results"),
        format!("/submissions/{id}/source"),
    ];
    for path in &subs {
        let (code, _, body) = request(&d, "GET", path, &[("authorization", &bearer)], None);
        assert_eq!(code, 404, "{path}: {body}");
        let (code, _, _) = request(&d, "GET", path, &[("cookie", &cookie)], None);
        assert_eq!(code, 404, "{path} with a session");
    }
    let (_, _, page) = request(&d, "GET", "/submissions", &[("cookie", &cookie)], None);
    assert!(
        !page.contains("value=\"late\""),
        "the filter offers it: {page}"
    );
    let (code, body) = d.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({ "problem": "late", "language": "c", "source": source }),
    );
    assert_eq!(code, 404, "{body}");
    let (code, _, _) = request(
        &d,
        "POST",
        "/problems/late/submit",
        &[
            ("cookie", &cookie),
            ("origin", &d.url),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        Some("language=c&source=int+main%28%29%7B%7D"),
    );
    assert_ne!(code, 500);
    let (_, mine) = d.get("/api/v1/submissions", Some(ALICE));
    assert_eq!(mine, json!([]), "neither submitted nor listed");
    // Admins see it all.
    let admin = format!("Bearer {ADMIN}");
    for path in [
        "/api/v1/problems/late".to_string(),
        subs[0].clone(),
        subs[2].clone(),
    ] {
        let (code, _, body) = request(&d, "GET", &path, &[("authorization", &admin)], None);
        assert_eq!(code, 200, "{path}: {body}");
    }
}

/// A zip of `entries`, deflated (the way a zip bomb is made: zeros deflate about 1000:1).
fn deflated_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            z.start_file(*name, opts).expect("start");
            z.write_all(data).expect("write");
        }
        z.finish().expect("finish");
    }
    buf.into_inner()
}

/// Uploads `data` as `filename` on the admin's problems page; returns the page the upload
/// leads to (post/redirect/get).
fn upload_package(d: &Daemon, cookie: &str, filename: &str, data: &[u8]) -> String {
    let boundary = "ojd-upload-boundary-5b2c";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"package\"; filename=\"{filename}\"\r\n\
         Content-Type: application/zip\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(data);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let host = d.url.trim_start_matches("http://").to_string();
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let r = agent
        .post(&format!("{}/admin/problems/upload", d.url))
        .set("Cookie", cookie)
        .set("Origin", &format!("http://{host}"))
        .set("Sec-Fetch-Site", "same-origin")
        .set(
            "Content-Type",
            &format!("multipart/form-data; boundary={boundary}"),
        )
        .send_bytes(&body);
    let r = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("upload: {e}"),
    };
    assert_eq!(r.status(), 303, "post/redirect/get");
    let to = r.header("location").expect("a redirect").to_string();
    let (code, _, page) = request(d, "GET", &to, &[("Cookie", cookie)], None);
    assert_eq!(code, 200, "{page}");
    page
}

/// Issue 22's leftover: the web upload caps the compression ratio. A small zip that deflates
/// to 48 MiB (within `max_package_size`, 64 MiB, so only the ratio can refuse it) is refused
/// before anything is unpacked, naming the entry; the audit log has the refusal; nothing is
/// left in the problems folder, and an honest package still installs. (A `.tar.gz` bomb, whose
/// size is not known before it is unpacked, is stopped by the same ratio while it is written:
/// the unit tests of `admin::upload`.)
#[test]
fn a_zip_bomb_upload_is_refused_naming_its_entry() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let cookie = login(&d, ADMIN);
    let toml = std::fs::read(site.path().join("problems/aplusb/problem.toml")).expect("toml");
    let zeros = vec![0u8; 48 << 20];
    let bomb = deflated_zip(&[
        ("bomb/problem.toml", &toml),
        ("bomb/tests/01-huge.in", &zeros),
    ]);
    assert!(bomb.len() < 200_000, "a real bomb: {} bytes", bomb.len());
    let started = Instant::now();
    let page = upload_package(&d, &cookie, "bomb.zip", &bomb);
    assert!(
        page.contains("was not installed")
            && page.contains("bomb/tests/01-huge.in")
            && page.contains("zip bomb"),
        "{page}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(!site.path().join("problems/bomb").exists());
    let leftovers: Vec<_> = std::fs::read_dir(site.path().join("problems"))
        .expect("problems")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".upload"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let (code, log) = d.get("/api/v1/admin/audit", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    assert!(
        log.to_string().contains("refused bomb.zip") && log.to_string().contains("zip bomb"),
        "{log}"
    );

    // An honest package (aplusb under another name) is not caught by the cap.
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let root = site.path().join("problems/aplusb");
    for entry in walk(&root) {
        let rel = entry.strip_prefix(&root).expect("inside");
        files.push((
            format!("honest/{}", rel.display()),
            std::fs::read(&entry).expect("read"),
        ));
    }
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    let page = upload_package(&d, &cookie, "honest.zip", &deflated_zip(&files));
    assert!(page.contains("Installed"), "{page}");
}

/// Every file under `dir`.
pub(crate) fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(Result::ok)
    {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.is_file() {
            out.push(p);
        }
    }
    out
}

/// Issue 39's first hole, end to end: `$\é$` in a statement once panicked the maths renderer
/// (it cut `é` in two), so the upload answered 500 yet left the problem installed, and `ojd
/// serve` then exited 101 at every start. Now the upload installs it, its page shows the
/// command as written, and the daemon starts again with it, serving it and the others. A
/// folder bomb in the same upload form (200,000 folder entries, which once made 151,324
/// folders) is refused naming the cap, leaving no folder behind.
#[test]
fn a_statement_that_once_crashed_the_daemon_is_served_and_survives_a_restart() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let cookie = login(&d, ADMIN);
    let root = site.path().join("problems/aplusb");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for entry in walk(&root) {
        let rel = entry.strip_prefix(&root).expect("inside");
        let mut data = std::fs::read(&entry).expect("read");
        if rel == std::path::Path::new("statement.md") {
            data.extend_from_slice(
                "\nA command of one character: $\\é$ and $x \\ü y$.\n".as_bytes(),
            );
        }
        files.push((format!("accent/{}", rel.display()), data));
    }
    let entries: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    let page = upload_package(&d, &cookie, "accent.zip", &deflated_zip(&entries));
    assert!(page.contains("Installed"), "{page}");
    let shown = |d: &Daemon| {
        let (code, _, page) = request(d, "GET", "/problems/accent", &[("Cookie", &cookie)], None);
        assert_eq!(code, 200, "{page}");
        assert!(page.contains("\\é") && page.contains("\\ü"), "{page}");
    };
    shown(&d);

    // 200,000 folder entries and nothing else: refused by the file cap, nothing made.
    let folders = {
        use zip::write::SimpleFileOptions;
        let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for i in 0..200_000 {
            z.add_directory(format!("many/d{i}/"), SimpleFileOptions::default())
                .expect("a folder entry");
        }
        z.finish().expect("finish").into_inner()
    };
    let page = upload_package(&d, &cookie, "many.zip", &folders);
    assert!(page.contains("was not installed"), "{page}");
    let left: Vec<_> = std::fs::read_dir(site.path().join("problems"))
        .expect("problems")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "aplusb" && n != "accent")
        .collect();
    assert!(left.is_empty(), "{left:?}");

    let (status, _) = d.terminate(Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
    let d = site.start();
    shown(&d);
    let (code, _) = d.get("/api/v1/problems/aplusb", Some(ALICE));
    assert_eq!(code, 200);
    let (status, _) = d.terminate(Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
}

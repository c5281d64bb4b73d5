//! What one run must not pass to the next, and what a run must not learn of the host: marks on
//! the empty `/box` and `/tmp` themselves (extended attributes, timestamps), host paths behind
//! the standard streams, the host's boot id and global counters. The programs are written here,
//! at test time.

use super::*;

/// Compiles C source written at test time.
fn compile_source(j: &Judge, dir: &Path, name: &str, source: &str) -> Program {
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    match j
        .compile(&common::submission(j, &path))
        .expect("compiling does not fail the judge")
    {
        Compiled::Program(p) => p,
        Compiled::Error(message) => panic!("{name} does not compile:\n{message}"),
    }
}

/// Marks `/box` and `/tmp` (`mark`), or only looks (`look`); prints what it sees of both either
/// way. The mark is what an empty folder can carry: a `user.*` attribute (up to the tmpfs's
/// limit), a chosen mtime, and a create-and-remove in `/tmp` (root's sticky folder: only its
/// timestamps move).
const SCRATCH_MARKS: &str = r#"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static void show(const char *dir) {
    char value[64] = "-";
    ssize_t n = getxattr(dir, "user.ojd-leak", value, sizeof value - 1);
    if (n >= 0) value[n] = 0;
    struct stat st;
    stat(dir, &st);
    printf("%s xattr=%s mtime=%lld.%09ld ctime=%lld.%09ld atime=%lld.%09ld\n", dir, value,
           (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
           st.st_ctim.tv_nsec, (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "mark") == 0) {
        /* 0, or the errno: EOPNOTSUPP where tmpfs has no user.* attributes (before 6.6). */
        int x = setxattr("/box", "user.ojd-leak", "run-1", 5, 0) ? errno : 0;
        struct timespec t[2] = {{1000000000, 7}, {1000000000, 7}};
        int u = utimensat(AT_FDCWD, "/box", t, 0);
        int f = open("/tmp/mark", O_CREAT | O_WRONLY, 0600);
        if (f >= 0) close(f);
        int r = unlink("/tmp/mark");
        int v = utimensat(AT_FDCWD, "/tmp", NULL, 0);
        printf("marked setxattr=%d utimensat=%d tmp=%d,%d,%d\n", x, u, f >= 0, r, v);
    }
    show("/box");
    show("/tmp");
    return 0;
}
"#;

/// The fields `name=` of the line about `dir`.
fn field<'a>(out: &'a str, dir: &str, name: &str) -> &'a str {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{dir} ")))
        .unwrap_or_else(|| panic!("no line about {dir}:\n{out}"));
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} in {line}"))
}

#[test]
fn marks_on_the_empty_box_and_tmp_do_not_reach_the_next_run() {
    require_root!();
    let j = judge_at(77000, 1);
    let dir = tempfile::tempdir().unwrap();
    let program = compile_source(&j, dir.path(), "scratch_marks.c", SCRATCH_MARKS);
    let lim = limits(Duration::from_secs(1), 64 * MIB);
    let first = run(&j, &program, &["mark".into()], None, &lim);
    assert_eq!(first.verdict, Verdict::Accepted, "{}", first.message);
    // The marks were made (so the check below can fail). A kernel before 6.6 has no user.*
    // attributes on tmpfs (EOPNOTSUPP): nothing to leak there, the times are still checked.
    let xattrs = first.stdout.starts_with("marked setxattr=0 ");
    assert!(
        xattrs
            || first
                .stdout
                .starts_with(&format!("marked setxattr={} ", libc::EOPNOTSUPP)),
        "{}",
        first.stdout
    );
    assert!(
        first.stdout.contains(" utimensat=0 tmp=1,0,0"),
        "{}",
        first.stdout
    );
    if xattrs {
        assert_eq!(field(&first.stdout, "/box", "xattr"), "run-1");
    }
    assert_eq!(
        field(&first.stdout, "/box", "mtime"),
        "1000000000.000000007"
    );
    // The next run of the same keeper sees none of it.
    let second = run(&j, &program, &["look".into()], None, &lim);
    assert_eq!(second.verdict, Verdict::Accepted, "{}", second.message);
    let out = &second.stdout;
    if xattrs {
        assert_eq!(field(out, "/box", "xattr"), "-", "{out}");
    }
    // The times the first run set on /box (the only ones a program controls: /tmp is not its
    // own, so it can only touch it to now) are gone. A change time says only when the folder
    // was made: a fresh box made within the same clock tick as the first run's last change
    // has the same one, which carries nothing of that run.
    for t in ["mtime", "atime"] {
        assert_ne!(
            field(out, "/box", t),
            "1000000000.000000007",
            "/box {t} as the run before left it:\nrun 1:\n{}\nrun 2:\n{out}",
            first.stdout
        );
    }
}

/// Solves A+B unless it finds the mark an earlier run of it left on `/box`
/// (attribute or mtime), which it then leaves itself.
const MARK_AND_ANSWER: &str = r#"
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>

int main(void) {
    int t;
    long long a, b;
    if (scanf("%d", &t) != 1) return 1;
    char v[16];
    struct stat st;
    stat("/box", &st);
    if (getxattr("/box", "user.ojd-leak", v, sizeof v) >= 0 || st.st_mtim.tv_sec == 1000000000) {
        printf("an earlier run is visible\n");
        return 0;
    }
    setxattr("/box", "user.ojd-leak", "seen", 4, 0);
    struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
    utimensat(AT_FDCWD, "/box", ts, 0);
    while (t-- > 0 && scanf("%lld %lld", &a, &b) == 2) printf("%lld\n", a + b);
    return 0;
}
"#;

#[test]
fn marks_on_the_box_reach_neither_the_next_test_nor_the_next_submission() {
    require_root!();
    // One keeper for everything, as `ojd verify -j 1` judges.
    let j = judge_at(78000, 1);
    let dir = tempfile::tempdir().unwrap();
    let problem = Problem::load(&super::holes::two_test_problem(dir.path())).unwrap();
    let source = dir.path().join("mark_and_answer.c");
    std::fs::write(&source, MARK_AND_ANSWER).unwrap();
    for submission in ["A", "B"] {
        let report = judge(&j, &problem, &source);
        assert_eq!(
            report.verdict,
            Verdict::Accepted,
            "submission {submission}: {report:#?}"
        );
    }
}

/// Prints where its standard streams lead, the boot id, the load average and how much of the
/// host's disk statistics it can read.
const PEEK: &str = r#"
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

static void file(const char *tag, const char *path) {
    char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (n > 0 && buf[n - 1] == '\n') buf[n - 1] = 0;
    printf("%s %s%s\n", tag, f ? "" : "(unreadable)", buf);
    if (f) fclose(f);
}

int main(void) {
    for (int fd = 0; fd < 3; fd++) {
        char path[32], target[4096];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n < 0 ? 0 : n] = 0;
        printf("FD%d %s\n", fd, target);
    }
    file("BOOT", "/proc/sys/kernel/random/boot_id");
    file("LOAD", "/proc/loadavg");
    file("DISK", "/proc/diskstats");
    file("VMSTAT", "/proc/vmstat");
    return 0;
}
"#;

#[test]
fn standard_streams_and_proc_show_no_host_path_and_no_host_counters() {
    require_root!();
    let scratch = tempfile::tempdir().unwrap();
    let mut config = Config::defaults();
    config.sandbox.uid_base = 79000;
    config.sandbox.scratch = scratch.path().to_path_buf();
    let j = common::judge_with(config, 1);
    let dir = tempfile::tempdir().unwrap();
    let program = compile_source(&j, dir.path(), "peek.c", PEEK);
    let input = testdata("aplusb/tests/sample-1.in");
    let r = run(
        &j,
        &program,
        &[],
        Some(&input),
        &limits(Duration::from_secs(1), 64 * MIB),
    );
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    let out = &r.stdout;
    let line = |tag: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{tag} ")))
            .unwrap_or_else(|| panic!("no {tag}:\n{out}"))
            .to_string()
    };
    // `run` writes the streams to `<a temporary folder>/stdout` and `/stderr`: inside, only the
    // file's own name shows, never the folder.
    assert_eq!(line("FD1"), "/stdout", "{out}");
    assert_eq!(line("FD2"), "/stderr", "{out}");
    assert!(line("FD0").starts_with("/memfd:stdin"), "{out}");
    let hosts = [
        scratch.path().to_string_lossy().to_string(),
        std::env::temp_dir().to_string_lossy().to_string(),
        format!("-{}-", std::process::id()),
    ];
    for l in out.lines().filter(|l| l.starts_with("FD")) {
        for host in &hosts {
            assert!(!l.contains(host.as_str()), "{host} shows: {l}");
        }
    }
    let host_boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert_ne!(
        line("BOOT"),
        host_boot_id.trim(),
        "the host's boot id shows"
    );
    assert_eq!(
        line("LOAD"),
        "0.00 0.00 0.00 1/1 1",
        "the host's load shows"
    );
    assert_eq!(line("DISK"), "", "the host's disk counters show");
    assert_eq!(line("VMSTAT"), "", "the host's memory counters show");
}

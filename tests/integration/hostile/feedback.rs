//! A multi-pass validator (the package's code) that floods its feedback folder: its writes are
//! stopped during the pass by the folder's capped tmpfs, not after it, and a folder left full
//! is the package's fault (a judge error), never the submission's verdict.

use crate::common::{self, testdata};
use crate::import::Scratch;
use ojd_judge::Verdict;

/// A validator (C) that tries to write 100 MiB in four files and then 100,000 files into its
/// feedback folder, counting what the kernel let it write; with `clean`, it then removes all of
/// it and rejects with the counts as its message, else it accepts with the folder left as is.
fn flooding_validator(clean: bool) -> String {
    format!(
        r#"#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static char buf[1 << 20];
int main(int argc, char** argv) {{
  if (argc < 4 || chdir(argv[3]) != 0) return 1;
  memset(buf, 'x', sizeof buf);
  long bytes = 0, files = 0;
  char name[32];
  for (int f = 0; f < 4; f++) {{
    snprintf(name, sizeof name, "big%d", f);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) break;
    for (int i = 0; i < 25; i++) {{
      ssize_t n = write(fd, buf, sizeof buf);
      if (n <= 0) break;
      bytes += n;
    }}
    close(fd);
  }}
  for (int i = 0; i < 100000; i++) {{
    snprintf(name, sizeof name, "f%d", i);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) break;
    close(fd);
    files++;
  }}
  if ({clean}) {{
    for (int f = 0; f < 4; f++) {{ snprintf(name, sizeof name, "big%d", f); unlink(name); }}
    for (long i = 0; i < files; i++) {{ snprintf(name, sizeof name, "f%ld", i); unlink(name); }}
    FILE* m = fopen("judgemessage.txt", "w");
    if (!m) return 1;
    fprintf(m, "wrote %ld bytes and %ld files\n", bytes, files);
    fclose(m);
    return 43;
  }}
  return 42;
}}
"#,
        clean = i32::from(clean)
    )
}

/// A two-pass validator (C) that floods its feedback folder in each pass and empties it again,
/// keeping a small `state` from pass 1 (written before the flood) for pass 2. Pass 2 rejects
/// with what it could write and whether the state came through: "pass2 wrote B bytes and F
/// files, state S".
const FILL_THEN_EMPTY: &str = r#"#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static char buf[1 << 20];
static long bytes, files;
static void flood(void) {
  char name[32];
  bytes = files = 0;
  for (int f = 0; f < 4; f++) {
    snprintf(name, sizeof name, "big%d", f);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) break;
    for (int i = 0; i < 25; i++) {
      ssize_t n = write(fd, buf, sizeof buf);
      if (n <= 0) break;
      bytes += n;
    }
    close(fd);
  }
  for (int i = 0; i < 100000; i++) {
    snprintf(name, sizeof name, "f%d", i);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) break;
    close(fd);
    files++;
  }
  for (int f = 0; f < 4; f++) { snprintf(name, sizeof name, "big%d", f); unlink(name); }
  for (long i = 0; i < files; i++) { snprintf(name, sizeof name, "f%ld", i); unlink(name); }
}
int main(int argc, char** argv) {
  if (argc < 4) return 1;
  FILE* in = fopen(argv[1], "r");
  char mode[16];
  long long v, y;
  if (!in || fscanf(in, "%15s %lld", mode, &v) != 2 || chdir(argv[3]) != 0) return 1;
  if (scanf("%lld", &y) != 1) return 1;
  memset(buf, 'x', sizeof buf);
  if (strcmp(mode, "encode") == 0) {
    FILE* st = fopen("state", "w");
    if (!st) return 1;
    fprintf(st, "%lld\n", v);
    fclose(st);
    flood();
    FILE* next = fopen("nextpass.in", "w");
    if (!next) return 1;
    fprintf(next, "decode %lld\n", y);
    fclose(next);
    return 42;
  }
  long long x = -1;
  FILE* st = fopen("state", "r");
  if (!st || fscanf(st, "%lld", &x) != 1) x = -1;
  if (st) fclose(st);
  flood();
  FILE* m = fopen("judgemessage.txt", "w");
  if (!m) return 1;
  fprintf(m, "pass2 wrote %ld bytes and %ld files, state %s\n", bytes, files,
          x == y ? "kept" : "lost");
  fclose(m);
  return 43;
}
"#;

/// Judges the accepted submission of `multi-pass-remember` with its validator replaced by
/// `source`; the report of its first test that is not accepted.
fn judge_with_validator(name: &str, source: &str) -> ojd_judge::TestResult {
    let s = Scratch::new();
    let dir = s.import(
        "kattis",
        &testdata("import/kattis/multi-pass-remember"),
        name,
    );
    let original = std::fs::read(testdata(
        "import/kattis/multi-pass-remember/output_validator/validator.cpp",
    ))
    .unwrap();
    let validator = crate::websec::walk(&dir)
        .into_iter()
        .find(|p| std::fs::read(p).is_ok_and(|b| b == original))
        .expect("the imported validator's source");
    std::fs::write(&validator, source).unwrap();
    let mut config = ojd_judge::Config::defaults();
    config.judge.compile_time = std::time::Duration::from_secs(90);
    config.sandbox.scratch = s.path("judge-scratch");
    let j = common::judge_with(config, 1);
    let report = common::judge_file(&j, &dir, &dir.join("submissions/accepted/flip.c"));
    report
        .tests
        .into_iter()
        .find(|t| t.verdict != Verdict::Accepted)
        .unwrap_or_else(|| panic!("a test that is not accepted: {:?}", report.verdict))
}

/// The validator itself sees its writes refused during the pass: of 100 MiB and 100,000
/// files it got at most the folder's caps (80 MiB, 4,096 inodes) onto the host's memory, and
/// no more; what it then says (here a rejection, with the folder emptied) is its own verdict.
#[test]
fn a_validator_flooding_its_feedback_folder_is_stopped_during_the_pass() {
    require_root!();
    let failed = judge_with_validator("flood-clean", &flooding_validator(true));
    assert_eq!(failed.verdict, Verdict::WrongAnswer, "{failed:?}");
    let said = failed.message.split("wrote ").nth(1).unwrap_or_default();
    let counts: Vec<u64> = said
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [bytes, files] = counts[..] else {
        panic!("the validator's counts in: {}", failed.message)
    };
    assert!(
        bytes <= 80 << 20,
        "{bytes} bytes written: {}",
        failed.message
    );
    assert!(files < 4096, "{files} files written: {}", failed.message);
    assert!(bytes > 0 && files > 0, "{}", failed.message);
}

/// A validator that leaves its feedback folder full has broken the package's bound: a judge
/// error naming the cap, whatever it answered (here it accepted), and nothing of the flood is
/// copied to the host.
#[test]
fn a_validator_that_fills_its_feedback_folder_is_a_judge_error() {
    require_root!();
    let failed = judge_with_validator("flood-full", &flooding_validator(false));
    assert_eq!(failed.verdict, Verdict::JudgeError, "{failed:?}");
    assert!(
        failed.message.starts_with("pass 1 of at most 2")
            && failed
                .message
                .contains("feedback folder reached its cap of 80 MiB and 4096 files"),
        "{}",
        failed.message
    );
}

/// A validator that fills its feedback folder, then empties it within the same pass, is judged
/// by its answer (docs/security.md, "Input from outside"): the cap held during the pass (its
/// writes failed at 80 MiB and 4,096 inodes), what it left is copied back, and the next pass
/// starts with what the validator kept (its state) and the whole room again, under the same cap.
#[test]
fn a_validator_that_fills_then_empties_its_feedback_folder_is_judged_by_its_answer() {
    require_root!();
    let failed = judge_with_validator("fill-then-empty", FILL_THEN_EMPTY);
    assert_eq!(failed.verdict, Verdict::WrongAnswer, "{failed:?}");
    assert!(
        failed.message.starts_with("pass 2 of at most 2") && failed.message.contains("state kept"),
        "{}",
        failed.message
    );
    let said = failed
        .message
        .split("pass2 wrote ")
        .nth(1)
        .unwrap_or_default();
    let counts: Vec<u64> = said
        .split_whitespace()
        .filter_map(|w| w.trim_end_matches(',').parse().ok())
        .collect();
    let [bytes, files] = counts[..] else {
        panic!("the validator's counts in: {}", failed.message)
    };
    // Pass 2 was stopped at the cap again, and had the room pass 1 had emptied: nearly all of
    // the 80 MiB (the state, nextpass.in and the folders' own blocks take a few pages).
    assert!(
        (76 << 20..=80 << 20).contains(&bytes),
        "{bytes} bytes written in pass 2: {}",
        failed.message
    );
    assert!(
        (3000..4096).contains(&files),
        "{files} files written in pass 2: {}",
        failed.message
    );
}

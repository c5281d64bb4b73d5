//! A Kattis package's metadata as `ojd import kattis` reads it: the input is `problem.yaml`,
//! then (after a line `---testdata---`) the `testdata.yaml` of its secret group. The import
//! ends in a package or an error naming the file, never a panic.
#![no_main]

use ojd_import::kattis;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (problem, testdata) = split(data, b"\n---testdata---\n");
    let dir = tempfile::tempdir().expect("a scratch folder");
    let src = dir.path().join("p");
    for sub in ["data/sample", "data/secret", "problem_statement"] {
        std::fs::create_dir_all(src.join(sub)).expect("folders");
    }
    std::fs::write(src.join("problem.yaml"), problem).expect("problem.yaml");
    if let Some(t) = testdata {
        std::fs::write(src.join("data/secret/testdata.yaml"), t).expect("testdata.yaml");
    }
    std::fs::write(src.join("data/secret/1.in"), "1\n").expect("an input");
    std::fs::write(src.join("data/secret/1.ans"), "1\n").expect("an answer");
    std::fs::write(src.join("problem_statement/problem.en.md"), "# T\n\n$x_\\é$\n")
        .expect("a statement");
    let opts = kattis::Options {
        to: Some(dir.path().join("out")),
    };
    let _ = kattis::import(&src, &ojd_config::Config::defaults(), None, &opts);
});

fn split<'a>(data: &'a [u8], mark: &[u8]) -> (&'a [u8], Option<&'a [u8]>) {
    match data.windows(mark.len()).position(|w| w == mark) {
        Some(at) => (&data[..at], Some(&data[at + mark.len()..])),
        None => (data, None),
    }
}

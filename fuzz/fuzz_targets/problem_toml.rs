//! A package's `problem.toml` (with a test, a statement and an answer beside it): loading it
//! gives a problem or an error naming the file and key, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path();
    std::fs::create_dir(root.join("tests")).expect("tests/");
    std::fs::write(root.join("tests/1.in"), "1\n").expect("an input");
    std::fs::write(root.join("tests/1.ans"), "1\n").expect("an answer");
    std::fs::write(root.join("statement.md"), "# T\n").expect("a statement");
    std::fs::write(root.join("problem.toml"), data).expect("problem.toml");
    if let Err(e) = ojd_judge::Problem::load(root) {
        assert!(!e.to_string().is_empty());
    }
});

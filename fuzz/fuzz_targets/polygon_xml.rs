//! A Polygon package's `problem.xml` as `ojd import polygon` reads it, in a package folder
//! that holds nothing else: the import ends in an error naming the file (or the first file the
//! XML names that is missing), never a panic. Nothing is compiled: every program it could name
//! is missing.
#![no_main]

use std::sync::OnceLock;

use ojd_import::polygon;

/// One judge for every input: making one creates its scratch folders.
fn judge() -> &'static ojd_judge::Judge {
    static JUDGE: OnceLock<ojd_judge::Judge> = OnceLock::new();
    JUDGE.get_or_init(|| {
        ojd_judge::Judge::new(ojd_config::Config::defaults().judging(), 1).expect("a judge")
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let src = dir.path().join("p");
    std::fs::create_dir_all(&src).expect("a folder");
    std::fs::write(src.join("problem.xml"), data).expect("problem.xml");
    let opts = polygon::Options {
        to: Some(dir.path().join("out")),
    };
    let _ = polygon::import(&src, &ojd_config::Config::defaults(), judge(), &opts);
});

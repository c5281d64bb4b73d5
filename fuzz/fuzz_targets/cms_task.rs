//! A CMS task's `task.yaml` as `ojd import cms` reads it (with one test beside it): a package
//! or an error naming the file, never a panic.
#![no_main]

use ojd_import::cms;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let src = dir.path().join("t");
    for sub in ["input", "output", "statement"] {
        std::fs::create_dir_all(src.join(sub)).expect("folders");
    }
    std::fs::write(src.join("task.yaml"), data).expect("task.yaml");
    std::fs::write(src.join("input/input0.txt"), "1\n").expect("an input");
    std::fs::write(src.join("output/output0.txt"), "1\n").expect("an answer");
    let opts = cms::Options {
        to: Some(dir.path().join("out")),
    };
    let _ = cms::import(&src, &ojd_config::Config::defaults(), None, &opts);
});

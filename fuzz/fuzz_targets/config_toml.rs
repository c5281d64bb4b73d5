//! The daemon's config file: any text gives a config or an error naming the file and key.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, data).expect("config.toml");
    if let Err(e) = ojd_config::Config::load(&path) {
        assert!(!e.to_string().is_empty());
    }
});

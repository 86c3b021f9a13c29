//! Fuzzes `szero run`'s config reader: any text is a config or an error, never a panic;
//! a config that is accepted prints back to TOML that reads as the same config.
#![no_main]

use libfuzzer_sys::fuzz_target;
use szero::config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match config::RunConfig::parse(text) {
        Ok(cfg) => {
            let printed = toml::to_string(&cfg).expect("an accepted config prints");
            let again = config::RunConfig::parse(&printed).unwrap_or_else(|e| panic!("{e:#}\n{printed}"));
            assert_eq!(again, cfg, "{printed}");
        }
        Err(e) => {
            let _ = format!("{e:#}");
        }
    }
});

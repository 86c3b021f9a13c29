//! The `szero` package's library: what its binary (`src/main.rs`) and other crates (the
//! fuzz targets in `fuzz/`) share. For now the run configuration, `szero run`'s TOML file
//! ([`config::RunConfig`]); the commands themselves live in the binary.

pub mod config;

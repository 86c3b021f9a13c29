//! One module per subcommand.

pub mod analyse;
pub mod bench;
pub mod bench_store;
pub mod export;
pub mod finished_games;
pub mod fit_eval;
pub mod gate;
pub mod gating_report;
pub mod ladder;
pub mod matches;
pub mod perft;
pub mod piece_values;
pub mod run;
pub mod scale;
pub mod selfplay;
pub mod serve;
pub mod study;
pub mod suite;
pub mod train;
pub mod uci;
pub mod upgrade_net;
pub mod worker;

/// The variant a command-line `flag` names, or an error that lists the ones there are.
pub fn parse_variant(flag: &str, name: &str) -> anyhow::Result<schess::Variant> {
    schess::Variant::from_name(name.trim()).ok_or_else(|| {
        anyhow::anyhow!("{flag}: unknown variant {name:?} (seirawan, seirawan-forced, seirawan-placement or chess)")
    })
}

/// The trained network committed with the source, where this binary was built from, if it
/// is still there (`szero uci` and `szero serve` play with it by default).
pub fn shipped_network() -> Option<std::path::PathBuf> {
    let path = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/models/szero-default.safetensors"));
    path.exists().then_some(path)
}

//! One module per subcommand.

pub mod analyse;
pub mod bench;
pub mod bench_store;
pub mod export;
pub mod finished_games;
pub mod fit_eval;
pub mod gating_report;
pub mod ladder;
pub mod matches;
pub mod perft;
pub mod piece_values;
pub mod promote;
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
    shipped("szero-default.safetensors")
}

/// The learned leaf evaluation committed with the source (`szero fit-eval`), where this
/// binary was built from, if it is still there (`szero uci` plays with it by default).
pub fn shipped_eval() -> Option<std::path::PathBuf> {
    shipped("szero-default.eval.json")
}

/// The learned evaluation file an `--eval` argument names: the file, nothing for `none`,
/// the shipped one (if any) when not given.
pub fn learned_eval(arg: &Option<std::path::PathBuf>) -> Option<std::path::PathBuf> {
    match arg {
        Some(p) if p.as_os_str() == "none" => None,
        Some(p) => Some(p.clone()),
        None => shipped_eval(),
    }
}

fn shipped(file: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/models")).join(file);
    path.exists().then_some(path)
}

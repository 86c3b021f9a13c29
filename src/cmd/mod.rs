//! One module per subcommand.

pub mod analyse;
pub mod bench;
pub mod bench_store;
pub mod export;
pub mod gate;
pub mod gating_report;
pub mod ladder;
pub mod matches;
pub mod perft;
pub mod run;
pub mod selfplay;
pub mod study;
pub mod train;
pub mod uci;
pub mod upgrade_net;
pub mod worker;

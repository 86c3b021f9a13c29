//! One module per subcommand.

pub mod export;
pub mod perft;
pub mod selfplay;

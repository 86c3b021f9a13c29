//! szero evaluation (see the crate description).

//! szero trainer (see the crate description).

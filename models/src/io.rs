//! Atomic file writes.
//!
//! Checkpoints are read by other processes (self-play workers pick up the newest
//! network) while the trainer writes them. Writing to a temporary file in the same
//! directory and renaming it over the target means a reader sees either the old or
//! the new complete file, never a torn one, and a crash leaves no half-written file
//! under the real name.

pub use runstore::atomic::{commit_with, write_atomic};
pub use runstore::temp::temp_path;

//! szero's data formats, without torch: what a position is to the network (the input
//! planes, [`encoding`]) and the index of every move in its policy ([`policy_index`]), and
//! the shards of training samples self-play writes and the trainer and the research tools
//! read ([`shard`]). A program that reads or writes games and samples depends on this
//! crate alone, not on libtorch (`models` and `selfplay` re-export these modules).

pub mod encoding;
pub mod policy_index;
pub mod shard;

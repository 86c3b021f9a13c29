//! Links libtorch for the szero binary and tests (RUNPATH, CUDA registration).
include!("build-support/torch_link.rs");

//! Links libtorch for this package's binaries and tests (RUNPATH, CUDA registration);
//! shared by every package that builds against tch: see the included file.
include!("../build-support/torch_link.rs");

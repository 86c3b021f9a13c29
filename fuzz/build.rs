//! Links libtorch for the fuzz targets (RUNPATH, CUDA registration).
include!("../build-support/torch_link.rs");

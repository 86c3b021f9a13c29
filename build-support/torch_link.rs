// Link arguments that make binaries and tests of this package find and use libtorch.
//
// Two traps (verified, see shared/notes/TORCH.md):
// 1. torch-sys passes `-rpath` only to its own C++ compile step, so our binaries get no
//    RUNPATH and stop with `libtorch_cpu.so: cannot open shared object file` unless
//    LD_LIBRARY_PATH is set. We add a RUNPATH to the torch lib dir.
// 2. rustc links with `--as-needed`; nothing references `libtorch_cuda.so` by symbol,
//    so it is dropped and CUDA never registers (`Cuda::is_available()` is false even
//    on a GPU machine). We force it in with `--no-as-needed` when it exists.
//
// `cargo:rustc-link-arg` applies only to this package's own targets, so every package
// that builds binaries, tests or benches linking tch needs this same file and a direct
// `torch-sys = "=0.24.0"` dependency: the lib dir arrives in `DEP_TCH_LIBTORCH_LIB`
// only for direct dependants of torch-sys (it has `links = "tch"`).
// RUNPATH is searched after LD_LIBRARY_PATH, so an explicit LD_LIBRARY_PATH still wins
// (e.g. on a machine whose torch lives elsewhere).

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        println!(
            "cargo:warning=DEP_TCH_LIBTORCH_LIB is unset (no direct torch-sys dependency?): \
             binaries will need LD_LIBRARY_PATH to find libtorch"
        );
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,--enable-new-dtags,-rpath,{lib}");
    if Path::new(&lib).join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
    }
}

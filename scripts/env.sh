# Source me (bash): `source scripts/env.sh`
# Runs scripts/setup when needed (seconds when done already), then exports what cargo,
# the binaries and the tests need:
#   LIBTORCH          pip torch's torch/ dir; torch-sys compiles and links against it
#                     (no version check when a path is given: keep torch==2.11.0 pinned)
#   OMP_WAIT_POLICY   PASSIVE: libgomp busy-waiting makes torch 5-10x slower on 2 shared cores
#   PATH              + /usr/games (fairy-stockfish) + the venv's bin
#   SZERO_PYTHON      the venv's python (tests use it for cross-checks)
# No LD_LIBRARY_PATH: our build.rs files bake an RUNPATH into the binaries.
_szero_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$_szero_root/scripts/setup" || return 1 2>/dev/null || exit 1
_szero_venv="${SZERO_CACHE:-$HOME/.cache/szero}/venv"
export SZERO_PYTHON="$_szero_venv/bin/python"
export LIBTORCH="$("$SZERO_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/torch"
export OMP_WAIT_POLICY=PASSIVE
case ":$PATH:" in *:/usr/games:*) ;; *) export PATH="$PATH:/usr/games" ;; esac
case ":$PATH:" in *:"$_szero_venv/bin":*) ;; *) export PATH="$PATH:$_szero_venv/bin" ;; esac
unset _szero_root _szero_venv

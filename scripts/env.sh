# Sourced by the other scripts: makes the project-local PyTorch visible to torch-sys's build script.
# shellcheck shell=bash
ddz_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ddz_root/scripts/setup.sh"
export VIRTUAL_ENV="$ddz_root/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
export LIBTORCH_USE_PYTORCH=1

#!/usr/bin/env bash
# Builds the `ddz` Python package (python/: pyo3 + maturin) and installs it into the project
# venv, with what it needs to run and test (maturin, numpy, gymnasium, pettingzoo, pytest, and
# nbclient with ipykernel for the tutorial notebook, onnxruntime for the exported networks) on
# first use.
# Afterwards: .venv/bin/python -c "import ddz". Incremental: a rebuild takes seconds.
#   scripts/python.sh          build (release) and install into .venv
#   scripts/python.sh wheel    also build a wheel into target/wheels/
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ddz_root"
py="$ddz_root/.venv/bin/python"
stamp="$ddz_root/.venv/.ddz-python-tools-4"
if [ ! -f "$stamp" ]; then
  echo "ddz python: installing maturin, numpy, gymnasium, pettingzoo, pytest, nbclient, onnxruntime into .venv (first run only)" >&2
  "$py" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" numpy "gymnasium>=0.29" \
    "pettingzoo>=1.24" "pytest>=7" "nbclient>=0.7" ipykernel nbformat onnxruntime >&2
  touch "$stamp"
fi
"$ddz_root/.venv/bin/maturin" develop --release --quiet -m python/Cargo.toml >&2
if [ "${1:-}" = wheel ]; then
  "$ddz_root/.venv/bin/maturin" build --release --quiet -m python/Cargo.toml >&2
fi

#!/usr/bin/env bash
# Checks the `ddz` Python package as a user gets it: its wheel (built by maturin) installed into
# a fresh venv that has no PyTorch (nor any way to import it), where the agent tests must pass:
# every network plays in this process. scripts/test runs it (CI); by hand:
#   bash scripts/check_wheel.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ddz_root"
bash scripts/python.sh wheel
wheel=$(ls -t target/wheels/ddz-*.whl | head -1)
venv="$ddz_root/target/venv-no-torch"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel" numpy "gymnasium>=0.29" "pytest>=7"
if "$venv/bin/python" -c "import torch" 2>/dev/null; then
  echo "check_wheel: torch is importable in $venv" >&2
  exit 1
fi
du -h "$wheel" | cut -f1 | xargs -I{} echo "check_wheel: $wheel ({}) installed into a venv with no torch"
# The tests import the installed package, not the checkout's source folder.
(cd "$venv" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$ddz_root/python/tests/test_agent.py")

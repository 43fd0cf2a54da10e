#!/usr/bin/env bash
# Creates the project-local Python venv holding PyTorch 2.13.0, whose libtorch tch 0.26 links against.
# Idempotent: does nothing once the venv answers with the right torch version.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
want="2.13.0"
py="${PYTHON:-python3}"

have_torch() {
  [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null)" = "$want" ]
}

if have_torch; then
  exit 0
fi
echo "ddz setup: installing torch==$want into $venv (first run only; ~1-3 minutes, ~5 GB)" >&2
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$want" >&2
have_torch || { echo "ddz setup: torch $want did not install into $venv" >&2; exit 1; }
echo "ddz setup: torch $want ready" >&2

#!/usr/bin/env bash
# Creates the project-local Python venv holding PyTorch 2.13.0, whose libtorch tch 0.26 links against.
# Idempotent: does nothing once the venv answers with the right torch version. A stamp file
# remembers the answer, so that every later call costs a file check, not a Python start.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
want="2.13.0"
stamp="$venv/.ddz-torch-$want"
py="${PYTHON:-python3}"

have_torch() {
  [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null)" = "$want" ]
}

if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
if have_torch; then
  touch "$stamp"
  exit 0
fi
echo "ddz setup: installing torch==$want into $venv (first run only; ~1-3 minutes, ~5 GB)" >&2
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$want" >&2
have_torch || { echo "ddz setup: torch $want did not install into $venv" >&2; exit 1; }
touch "$stamp"
echo "ddz setup: torch $want ready" >&2

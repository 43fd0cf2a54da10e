#!/usr/bin/env bash
# Installs what the browser test needs, on first use: Debian's chromium and chromium-driver
# (apt-get, as root) and selenium into the project venv. Idempotent and quiet once installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
py="$root/.venv/bin/python"

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "ddz browser setup: installing chromium and chromium-driver (first run only)" >&2
  sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_if_needed apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq chromium chromium-driver >&2
fi
if ! "$py" -c 'import selenium' 2>/dev/null; then
  echo "ddz browser setup: installing selenium into the venv (first run only)" >&2
  "$py" -m pip install --quiet --disable-pip-version-check selenium >&2
fi

#!/usr/bin/env bash
# A local Redis for trying distributed training on one machine (Debian's redis-server, installed
# with apt-get on first use).
#
#   scripts/redis.sh [PORT]     Redis on 127.0.0.1:PORT (default 6379), in the foreground: Ctrl-C stops it
#   scripts/redis.sh --install  only install redis-server (the tests call this)
set -euo pipefail
install() {
  command -v redis-server >/dev/null && return 0
  echo "ddz: installing Debian's redis-server (first run only)" >&2
  sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  # Wait for dpkg's lock rather than fail when another install holds it.
  sudo_if_needed apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get -o DPkg::Lock::Timeout=600 install -y -qq redis-server >&2
}
# One install at a time, also when several processes ask at once.
exec 9>"${TMPDIR:-/tmp}/ddz-redis-install.lock"
flock 9
install
flock -u 9
[ "${1:-}" = "--install" ] && exit 0
port="${1:-6379}"
echo "Redis on redis://127.0.0.1:$port/ (no persistence); Ctrl-C stops it" >&2
exec redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no

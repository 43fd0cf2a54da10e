#!/usr/bin/env bash
# Checks the torch-free player (scripts/player): built and run in an environment with no torch
# variable, no venv on PATH and no Python for it to call (DDZ_PYTHON points nowhere), from a
# folder that holds only a link to models/. The build must not contain tch or torch-sys, the
# binary must not link libtorch, and every playing command must work with the shipped networks.
# scripts/test runs it (CI); by hand: bash scripts/check_player.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cargo_bin="$(dirname "$(command -v cargo)")"
if [ -z "${DDZ_PLAYER_CLEAN:-}" ]; then
  # Start again with nothing but a plain PATH and HOME (no LIBTORCH_USE_PYTORCH, VIRTUAL_ENV,
  # LD_LIBRARY_PATH or anything scripts/env.sh sets).
  exec env -i HOME="$HOME" PATH="$cargo_bin:/usr/local/bin:/usr/bin:/bin" DDZ_PLAYER_CLEAN=1 \
    DDZ_PYTHON=/nonexistent/python bash "$0" "$@"
fi
fail() { echo "check_player: $*" >&2; exit 1; }

cd "$root"
if cargo tree -p ddz --no-default-features -e normal --prefix none | grep -Eq '^(tch|torch-sys) '; then
  fail "the player's dependencies include tch or torch-sys"
fi
scripts/player --version >/dev/null
bin="$root/target/player/release/ddz"
! ldd "$bin" | grep -qi torch || fail "the player links libtorch: $(ldd "$bin" | grep -i torch)"
size=$(du -m "$bin" | cut -f1)
echo "check_player: $bin, ${size} MB, links: $(ldd "$bin" | awk '{print $1}' | tr '\n' ' ')"

work="$(mktemp -d)"
trap '[ -n "${server:-}" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
ln -s "$root/models" "$work/models"
cd "$work"
net=checkpoint:models/ema-2h

# Legal plays, and the bot in both protocols.
[ "$(echo '{"hand":"33445","rival":"4"}' | "$bin" moves)" = '{"legal":["5","pass"]}' ] || fail "moves"
request='{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord","3"]]}'
echo "$request" | "$bin" bot --agent "$net" | grep '"play"' >/dev/null || fail "bot"
botzone='{"requests":[{"own":[0,1,2,4,5,8,9,12,16,20,24,28,32,36,40,44,48,52,53,3],"history":[[],[]],"publiccard":[3,52,53]}],"responses":[]}'
echo "$botzone" | "$bin" bot --protocol botzone --agent "$net" | grep '"response"' >/dev/null ||
  fail "bot --protocol botzone"

# Evaluation and a small ladder with every kind of shipped network: standard, DouZero's, the
# bidding network (whole games with bidding), laizi and two-player.
"$bin" eval --deals test --n 20 --a "$net" --b rule | grep '| both | 40 |' >/dev/null || fail "eval"
"$bin" eval --deals test --n 5 --a douzero:models/douzero-1h --b rule | grep '| both | 10 |' >/dev/null ||
  fail "eval douzero:"
"$bin" eval --deals test --n 5 --bidding --a checkpoint:models/dmc-bid-1h --b rule |
  grep 'illegal plays or bids: 0' >/dev/null || fail "eval --bidding"
"$bin" eval --deals test --n 5 --rules laizi --a checkpoint:models/laizi-1h --b rule | grep '| both | 10 |' >/dev/null ||
  fail "eval --rules laizi"
"$bin" eval --deals test --n 5 --rules two_player --a checkpoint:models/two-player-1h --b rule | grep '| both | 10 |' >/dev/null ||
  fail "eval --rules two_player"
"$bin" ladder --agents "rule,random,ema-2h=$net" --n 5 --out "$work/ladder" >/dev/null 2>&1 || fail "ladder"
[ -s "$work/ladder/ladder.json" ] || fail "ladder wrote no ladder.json"
"$bin" check-decisions --agent "$net" | grep 'passed' >/dev/null || fail "check-decisions"

# A game in the terminal (through a pipe): a hint, then quit, saved as unfinished.
printf 'hint\nquit\n' | "$bin" play --seat landlord --deal 0 --agents "$net" --log-dir "$work/games" >/dev/null ||
  fail "play"
[ -s "$work/games/unfinished.jsonl" ] || fail "play saved no game"

# The web server: advice from the network over HTTP.
"$bin" serve --port 0 --agents "$net" --log-dir "$work/served" >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q 'http://' "$work/serve.out" && break; sleep 0.1; done
address=$(grep -o 'http://[^/]*' "$work/serve.out" | head -1)
[ -n "$address" ] || fail "serve did not start: $(cat "$work/serve.out")"
curl -sf -X POST -H 'content-type: application/json' -d "$request" "$address/api/advise" | grep '"play"' >/dev/null ||
  fail "serve /api/advise"
# The C interface: libddz_c.so built here too, and the C test program's whole games through it.
(cd "$root" && CARGO_TARGET_DIR="$root/target/player" cargo build --release --quiet -p ddz-c)
lib="$root/target/player/release"
! ldd "$lib/libddz_c.so" | grep -qi torch || fail "libddz_c.so links libtorch"
cc -std=c11 -Wall -Wextra -Werror -O1 -I "$root/crates/ddz-c/include" "$root/crates/ddz-c/tests/c/games.c" \
  -L "$lib" -lddz_c -Wl,-rpath,"$lib" -o "$work/c-games"
"$work/c-games" models | grep '^done	0 failures' >/dev/null || fail "the C program's games"
echo "check_player: moves, bot (native, botzone), eval (standard, douzero:, bidding, laizi, two-player), ladder, check-decisions, play, serve and the C interface (libddz_c.so, $(du -m "$lib/libddz_c.so" | cut -f1) MB) work with no libtorch"

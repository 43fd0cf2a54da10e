#!/usr/bin/env bash
# Trains a reference DouZero with DouZero's own trainer (the `douzero` package from PyPI, on the
# CPU: 2 actor processes, OMP_NUM_THREADS=1, its default hyperparameters and ADP objective) for
# SECONDS of wall time, then puts its newest weights into DIR as DouZero writes them:
# landlord.ckpt, landlord_up.ckpt, landlord_down.ckpt (what `douzero:DIR` loads), with the
# trainer's logs (logs.csv, out.log, fields.csv, meta.json) and a provenance file train.json.
#
#   scripts/train_douzero.sh SECONDS DIR
#
# Installs douzero into the project venv on first use. The trainer saves its weights every
# minute; the last save before the budget ran out is the one kept (its frame count is in
# train.json). DouZero seeds nothing, so two runs differ.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
[ $# -eq 2 ] && [[ "$1" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/train_douzero.sh SECONDS DIR" >&2; exit 2; }
seconds=$1
out=$2
py="$ddz_root/.venv/bin/python"
"$py" -c 'import douzero.dmc' 2>/dev/null ||
  "$py" -m pip install --quiet --disable-pip-version-check douzero==1.1.0 rlcard gitpython >&2
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/ddz-douzero-train.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "training DouZero for $seconds s (savedir $work)" >&2
set +e
OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 timeout --signal=KILL "$seconds" "$py" -c \
  'import sys; from douzero.dmc import parser, train; train(parser.parse_args(sys.argv[1:]))' \
  --actor_device_cpu --training_device cpu --num_actors 2 --save_interval 1 \
  --savedir "$work" --xpid douzero >"$work/stdout.log" 2>&1 &
pid=$!
# Keep only the newest weights while it trains (each save is ~17 MB).
while kill -0 "$pid" 2>/dev/null; do
  sleep 20
  ls -1 "$work/douzero"/landlord_weights_*.ckpt 2>/dev/null | sed 's/.*_weights_\([0-9]*\)\.ckpt/\1/' |
    sort -n | head -n -2 | while read -r f; do rm -f "$work/douzero"/*_weights_"$f".ckpt; done
done
wait "$pid"
set -e
frames=$(ls -1 "$work/douzero"/landlord_weights_*.ckpt 2>/dev/null | sed 's/.*_weights_\([0-9]*\)\.ckpt/\1/' | sort -n |
  while read -r f; do [ -f "$work/douzero/landlord_up_weights_$f.ckpt" ] && [ -f "$work/douzero/landlord_down_weights_$f.ckpt" ] && echo "$f"; done | tail -n 1)
[ -n "$frames" ] || { echo "DouZero saved no weights; its output:" >&2; tail -n 30 "$work/stdout.log" >&2; exit 1; }
for p in landlord landlord_up landlord_down; do
  cp "$work/douzero/${p}_weights_$frames.ckpt" "$out/$p.ckpt.tmp" && mv "$out/$p.ckpt.tmp" "$out/$p.ckpt"
done
for f in logs.csv fields.csv meta.json out.log; do [ -f "$work/douzero/$f" ] && cp "$work/douzero/$f" "$out/$f"; done
cat >"$out/train.json" <<JSON
{"trainer": "douzero 1.1.0 (PyPI), douzero.dmc.train", "args": "--actor_device_cpu --training_device cpu --num_actors 2 --save_interval 1", "env": "OMP_NUM_THREADS=1", "seconds": $seconds, "started": "$start", "frames": $frames, "cores": $(nproc)}
JSON
echo "DouZero weights after $frames frames in $out" >&2

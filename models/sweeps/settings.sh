#!/bin/bash
# Per-frame settings sweep: 4 configs trained concurrently (3 actors each, learner on CUDA),
# every 30-s checkpoint evaluated against random and rule on the 1,000 built-in deals.
# Run from the repository root on the lent GPU machine as `SECS=270 bash models/sweeps/settings.sh`,
# with .gpu/ddz built against that machine's PyTorch (2.11), as described in capacity.sh.
L=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$L
B=.gpu/ddz
S=${SECS:-360}
mk() { # name, then sed expressions
  n=$1; shift
  sed -e 's/^lr = 0.0001/lr = 0.0003/' -e 's/^every_minutes = 5.0/every_minutes = 0.5/' -e 's/^keep_last = 3/keep_last = 100/' \
      -e 's/^deals = 200/deals = 0/' -e 's/^count = 0 /count = 3 /' "$@" configs/dmc.toml > /tmp/$n.toml
}
mk base
mk batch1024 -e 's/^batch_size = 256 /batch_size = 1024 /'
mk selfplay -e 's/^self_play_share = 0.5 /self_play_share = 1.0 /'
mk softmax -e 's/^exploration = "epsilon"/exploration = "softmax"/'
for n in base batch1024 selfplay softmax; do grep -E "^(lr|count|batch_size|self_play_share|exploration|every_minutes|deals) " /tmp/$n.toml | tr '\n' ' '; echo; done
for n in base batch1024 selfplay softmax; do
  $B train --config /tmp/$n.toml --device cuda --run-dir /tmp/sw-$n --max-seconds $S > $OUT/train-$n.log 2>&1 &
done
wait
for n in base batch1024 selfplay softmax; do tail -2 $OUT/train-$n.log; done
for n in base batch1024 selfplay softmax; do
  ( $B eval --run /tmp/sw-$n --threads 4 > $OUT/eval-$n.log 2>&1; cp /tmp/sw-$n/eval/curve.csv $OUT/settings-$n.csv ) &
done
wait
for n in base batch1024 selfplay softmax; do echo "== $n"; cat $OUT/settings-$n.csv | cut -d, -f2,4,7- ; done

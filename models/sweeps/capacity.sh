#!/bin/bash
# Per-frame capacity sweep: 4 configs trained concurrently (3 actors each, learner on CUDA),
# every 30-s checkpoint evaluated against random and rule on the 1,000 built-in deals.
# Run from the repository root on the lent GPU machine, whose PyTorch (2.11) is not the 2.13 that
# scripts/setup.sh installs: .gpu/ddz is ddz built here against PyTorch 2.11's libtorch, loaded
# from that machine's torch package through LD_LIBRARY_PATH. Written for the state layout of
# 1,274 features (before the cards-left one-hot). CPU costs: bench-cpu.txt.
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
mk bighead -e 's/^head = 128 /head = 256 /' -e 's/^head_hidden = \[64\]/head_hidden = [256, 128]/'
mk bigtrunk -e 's/^trunk = \[256, 256\]/trunk = [512, 512, 512]/'
mk both -e 's/^head = 128 /head = 256 /' -e 's/^head_hidden = \[64\]/head_hidden = [256, 128]/' -e 's/^trunk = \[256, 256\]/trunk = [512, 512, 512]/'
for n in base bighead bigtrunk both; do grep -E "^(lr|count|trunk|head|head_hidden|every_minutes|deals) " /tmp/$n.toml | tr '\n' ' '; echo; done
for n in base bighead bigtrunk both; do
  $B train --config /tmp/$n.toml --device cuda --run-dir /tmp/sw-$n --max-seconds $S > $OUT/train-$n.log 2>&1 &
done
wait
for n in base bighead bigtrunk both; do tail -2 $OUT/train-$n.log; done
for n in base bighead bigtrunk both; do
  ( $B eval --run /tmp/sw-$n --threads 4 > $OUT/eval-$n.log 2>&1; cp /tmp/sw-$n/eval/curve.csv $OUT/capacity-$n.csv ) &
done
wait
for n in base bighead bigtrunk both; do echo "== $n"; cat $OUT/capacity-$n.csv | cut -d, -f2,4,7- ; done

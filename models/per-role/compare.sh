#!/bin/bash
# Shared network against one network per role: the same config (configs/dmc.toml with
# lr 3e-4, a checkpoint every 30 s, no background eval), the same seed, the same wall time;
# then every checkpoint of each run against random and rule on the built-in 1,000 deals.
# The curves beside this file came from a 16-core H200 machine, with DDZ pointing at a ddz built
# against that machine's PyTorch (see README, "On a GPU").
B=${DDZ:-scripts/ddz}
for v in shared role; do
  sed -e 's/^lr = 0.0001/lr = 0.0003/' -e 's/^every_minutes = 5.0/every_minutes = 0.5/' -e 's/^keep_last = 3/keep_last = 100/' \
      -e 's/^deals = 200/deals = 0/' configs/dmc.toml > /tmp/$v.toml
  rm -rf /tmp/cmp-$v
  [ $v = role ] && sed -i 's/^per_role = false/per_role = true/' /tmp/$v.toml
  $B train --config /tmp/$v.toml --run-dir /tmp/cmp-$v --max-seconds ${SECONDS_PER_RUN:-180} 2>&1 | tail -1
  $B eval --run /tmp/cmp-$v 2>&1 | tail -3
  cp /tmp/cmp-$v/eval/curve.csv models/per-role/curve-$([ $v = role ] && echo per-role || echo shared).csv
done

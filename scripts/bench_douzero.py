"""Reference for `ddz bench train --reference`: DouZero's own DMC trainer (the `douzero` package),
on the CPU with 2 actors and OMP_NUM_THREADS=1, timed for a budget.

Prints one JSON line: {"frames_per_s": …, "seconds": …} — the frames DouZero reports between
its first progress line after a warm-up and its last one, over the time between them.
Usage: python bench_douzero.py SECONDS
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

TRAIN = (
    "import sys; from douzero.dmc import parser, train; "
    "train(parser.parse_args(sys.argv[1:]))"
)
PROGRESS = re.compile(r"After (\d+) \(L:\d+ U:\d+ D:\d+\) frames")


def main() -> None:
    seconds = float(sys.argv[1])
    warmup = min(15.0, seconds / 3)
    savedir = tempfile.mkdtemp(prefix="ddz-douzero-")
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    args = ["--actor_device_cpu", "--training_device", "cpu", "--num_actors", "2",
            "--disable_checkpoint", "--savedir", savedir, "--xpid", "bench"]
    proc = subprocess.Popen([sys.executable, "-c", TRAIN, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    points = []  # (time, frames)
    start = time.perf_counter()

    def read() -> None:
        for line in proc.stdout:
            m = PROGRESS.search(line)
            if m:
                points.append((time.perf_counter() - start, int(m.group(1))))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(warmup + seconds)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    measured = [p for p in points if p[0] >= warmup]
    if len(measured) < 2:
        print(json.dumps({"error": "DouZero reported no progress", "lines": len(points)}))
        sys.exit(1)
    (t0, f0), (t1, f1) = measured[0], measured[-1]
    print(json.dumps({"frames_per_s": (f1 - f0) / (t1 - t0), "seconds": t1 - t0}))


if __name__ == "__main__":
    main()

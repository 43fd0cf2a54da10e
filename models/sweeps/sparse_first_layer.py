"""Is skipping zero features, or bfloat16, faster than the float32 dense product on the CPU?

The trunk's first layer reads 1,339 state features of which about a tenth are set, and the
head's action part reads 223 features of which about thirty are set. This times, on one
libtorch thread, `x @ w.T + b` as a dense product against the same function as an embedding bag
over the nonzero features (nonzero() + embedding_bag with per-sample weights), forward with the
weight gradient and forward alone, at the shapes the learner and the actors use; and the dense
product in bfloat16 (inputs and weights cast per call, as mixed precision would).

    .venv/bin/python models/sweeps/sparse_first_layer.py
"""
import time

import torch

torch.set_num_threads(1)
torch.manual_seed(0)


def timed(batch, features, width, set_per_row, how, reps=30):
    x = torch.zeros(batch, features)
    for row in range(batch):
        x[row, torch.randperm(features)[:set_per_row]] = 1.0
    w = torch.randn(width, features, requires_grad=True)
    b = torch.randn(width, requires_grad=True)

    def layer():
        if how == "dense":
            return torch.nn.functional.linear(x, w, b)
        if how == "bf16":
            return torch.nn.functional.linear(x.bfloat16(), w.bfloat16(), b.bfloat16()).float()
        rows, cols = x.nonzero().unbind(1)
        counts = (x != 0).sum(1)
        offsets = counts.cumsum(0) - counts
        bag = torch.nn.functional.embedding_bag(
            cols, w.t().contiguous(), offsets, mode="sum", per_sample_weights=x[rows, cols])
        return bag + b

    for _ in range(3):
        layer().sum().backward()
    start = time.perf_counter()
    for _ in range(reps):
        layer().sum().backward()
    with_grad = (time.perf_counter() - start) / reps
    start = time.perf_counter()
    with torch.no_grad():
        for _ in range(reps):
            layer()
    forward = (time.perf_counter() - start) / reps
    return with_grad * 1e3, forward * 1e3


for name, batch, features, width, set_per_row in [
    ("learner batch of states", 256, 1339, 256, 130),
    ("actor batch of states", 32, 1339, 256, 130),
    ("actor batch of plays", 400, 223, 128, 30),
]:
    dense, bag, bf16 = (timed(batch, features, width, set_per_row, how) for how in ("dense", "bag", "bf16"))
    print(f"{name} [{batch} x {features}] -> {width}: dense {dense[0]:.2f} ms with gradient, "
          f"{dense[1]:.2f} ms forward; skipping zeros {bag[0]:.2f} ms, {bag[1]:.2f} ms; "
          f"bfloat16 {bf16[0]:.2f} ms, {bf16[1]:.2f} ms")

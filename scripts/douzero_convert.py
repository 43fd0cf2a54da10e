"""Converts DouZero checkpoints (PyTorch state dicts, as DouZero's trainer saves them) to
safetensors for `douzero:DIR` (src/model/douzero.rs calls it on first use):

    python douzero_convert.py OUT_DIR LANDLORD.ckpt LANDLORD_DOWN.ckpt LANDLORD_UP.ckpt

writes OUT_DIR/landlord.safetensors, landlord_down.safetensors, landlord_up.safetensors, each
through a temporary folder and a rename, so that OUT_DIR holds all three or none. Installs the
safetensors and numpy packages into this venv on first use.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import torch

try:
    import numpy  # noqa: F401  (safetensors.torch writes through numpy)
    from safetensors.torch import save_file
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "safetensors",
                    "numpy"], check=True, stdout=sys.stderr)
    from safetensors.torch import save_file

ROLES = ("landlord", "landlord_down", "landlord_up")


def main() -> None:
    out, sources = sys.argv[1], sys.argv[2:]
    if len(sources) != 3:
        sys.exit("usage: douzero_convert.py OUT_DIR LANDLORD.ckpt LANDLORD_DOWN.ckpt LANDLORD_UP.ckpt")
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(dir=parent, prefix=".convert-")
    try:
        for role, source in zip(ROLES, sources):
            state = torch.load(source, map_location="cpu", weights_only=True)
            if not isinstance(state, dict) or not all(torch.is_tensor(t) for t in state.values()):
                sys.exit(f"{source}: not a state dict of tensors (a DouZero *_weights_*.ckpt file)")
            save_file({k: t.contiguous().float() for k, t in state.items()}, os.path.join(work, role + ".safetensors"))
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.rename(work, out)
    finally:
        if os.path.isdir(work):
            shutil.rmtree(work)


if __name__ == "__main__":
    main()

"""Executes a notebook headless from the repository root, every cell in order; exits non-zero,
naming the cell, when one fails. Used by scripts/test on docs/tutorial.ipynb.

    .venv/bin/python scripts/run_notebook.py docs/tutorial.ipynb [--out executed.ipynb]
"""

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--out", type=Path, help="also write the executed notebook here")
    parser.add_argument("--timeout", type=int, default=900, help="seconds a cell may take")
    args = parser.parse_args()
    nb = nbformat.read(args.notebook, as_version=4)
    client = NotebookClient(nb, timeout=args.timeout, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    start = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{args.notebook}: a cell failed:\n{e}", file=sys.stderr)
        return 1
    finally:
        if args.out:
            nbformat.write(nb, args.out)
    cells = sum(c.cell_type == "code" for c in nb.cells)
    print(f"{args.notebook}: {cells} code cells ran in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The environment a benchmark runs the wifitcp CLI in.

Python's default bytecode caching: an environment that sets
``PYTHONDONTWRITEBYTECODE`` (as some sandboxes do) would make every CLI
call compile the package's modules from source again (about 25-30 ms of
CPU), which no installed copy pays (pip compiles them at install time; an
editable install caches them on first import). A benchmark timing whole
CLI processes runs them in `RUN_ENV` after one untimed call that fills the
``__pycache__`` directories (`warm`).
"""
from __future__ import annotations

import os
import subprocess

RUN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm(cli: str, cwd: str) -> None:
    """One untimed CLI call in `RUN_ENV`, writing the bytecode cache."""
    subprocess.run([cli, "--help"], cwd=cwd, env=RUN_ENV, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)

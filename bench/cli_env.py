"""The environment a benchmark runs the wifitcp CLI in.

Python's default bytecode caching: an environment that sets
``PYTHONDONTWRITEBYTECODE`` (as some sandboxes do) would make every CLI
call compile the package's modules from source again (about 25-30 ms of
CPU), which no installed copy pays (pip compiles them at install time; an
editable install caches them on first import). A benchmark timing whole
CLI processes runs them in `RUN_ENV` after one untimed call that fills the
``__pycache__`` directories (`warm`), and reads the record a run prints
with ``--json`` (`last_json`).
"""
from __future__ import annotations

import json
import os
import subprocess

RUN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm(cli: str, cwd: str) -> None:
    """One untimed CLI call in `RUN_ENV`, writing the bytecode cache."""
    subprocess.run([cli, "--help"], cwd=cwd, env=RUN_ENV, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)


def last_json(text: str) -> dict | None:
    """The last line of `text` that parses as a JSON object (a run's
    ``--json`` record after any progress lines), or None."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                return obj
    return None

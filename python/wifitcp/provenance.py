"""Where a stored run came from: source revision, command line, host.

`current()` is computed once per process (a store opened for writing asks
for it) and written into every ``runs`` row (docs/results.md):

- ``source``: ``git:<commit>`` of the working tree the package was loaded
  from, with ``+dirty`` when tracked files differ from that commit; for an
  installed package (no git work tree around it) ``wifitcp <version>``;
- ``command``: the process's command line (``sys.argv``, shell-quoted);
  from Python that is the interpreter's argv (a notebook kernel's, say);
- ``host``: the host name, with the platform and Python version.

Nothing here may fail a run: every piece falls back to ``None``.
"""

from __future__ import annotations

import functools
import platform
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import Optional

#: the package's source tree: python/wifitcp -> the repository root
_ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> Optional[str]:
    try:
        p = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True, text=True,
                           timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def source() -> str:
    """``git:<commit>[+dirty]`` from a source tree, else ``wifitcp <version>``."""
    if (_ROOT / ".git").exists() and (_ROOT / "crates").is_dir():
        commit = _git("rev-parse", "HEAD")
        if commit:
            dirty = _git("status", "--porcelain", "--untracked-files=no")
            return f"git:{commit}" + ("+dirty" if dirty else "")
    from . import __version__

    return f"wifitcp {__version__}"


def host() -> Optional[str]:
    try:
        name = socket.gethostname()
    except OSError:  # pragma: no cover
        name = "?"
    return f"{name} ({platform.system()} {platform.machine()}, Python " \
           f"{platform.python_version()})"


_COMMAND: Optional[str] = None


def set_command(argv: list) -> None:
    """Record ``wifitcp ARGV...`` as the command (the CLI's `main` does)."""
    global _COMMAND
    _COMMAND = shlex.join(["wifitcp", *argv])


def command() -> str:
    if _COMMAND is not None:
        return _COMMAND
    argv = list(sys.argv) or ["python"]
    if argv[0].endswith(("/wifitcp", "\\wifitcp", "wifitcp.exe")):
        argv[0] = "wifitcp"
    return shlex.join(argv)


@functools.lru_cache(maxsize=1)
def _fixed() -> tuple:
    return source(), host()


def current() -> dict:
    """``{"source", "command", "host"}`` of this process (source and host
    computed once)."""
    src, hst = _fixed()
    return {"source": src, "command": command(), "host": hst}

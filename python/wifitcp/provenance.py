"""Where a stored run came from: source revision, command line, host.

`current()` is computed once per process (a store opened for writing asks
for it) and written into every ``runs`` row (docs/results.md):

- ``source``: ``git:<commit>`` of the working tree the package was loaded
  from, with ``+dirty`` when tracked files differ from that commit; for an
  installed package (no git work tree around it) ``wifitcp <version>``;
- ``command``: the process's command line (``sys.argv``, shell-quoted);
  from Python that is the interpreter's argv (a notebook kernel's, say);
- ``host``: the host name, with the platform and Python version.

Nothing here may fail a run: every piece falls back to ``None``. Every
command line imports this module (`set_command`), so it imports only
modules argparse has loaded already; the rest (subprocess, platform,
socket, shlex) is imported when a piece is computed.
"""

from __future__ import annotations

import functools
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import Optional

#: the package's source tree: python/wifitcp -> the repository root
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def _git(*args: str) -> Optional[str]:
    import subprocess

    try:
        p = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True, text=True,
                           timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def source() -> str:
    """``git:<commit>[+dirty]`` from a source tree, else ``wifitcp <version>``."""
    if os.path.exists(os.path.join(_ROOT, ".git")) and os.path.isdir(os.path.join(_ROOT, "crates")):
        commit = _git("rev-parse", "HEAD")
        if commit:
            dirty = _git("status", "--porcelain", "--untracked-files=no")
            return f"git:{commit}" + ("+dirty" if dirty else "")
    from . import __version__

    return f"wifitcp {__version__}"


def host() -> Optional[str]:
    import platform
    import socket

    try:
        name = socket.gethostname()
    except OSError:  # pragma: no cover
        name = "?"
    return f"{name} ({platform.system()} {platform.machine()}, Python " \
           f"{platform.python_version()})"


_COMMAND: Optional[list] = None


def set_command(argv: list) -> None:
    """Record ``wifitcp ARGV...`` as the command (the CLI's `main` does)."""
    global _COMMAND
    _COMMAND = ["wifitcp", *argv]


def command() -> str:
    import shlex

    if _COMMAND is not None:
        return shlex.join(_COMMAND)
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

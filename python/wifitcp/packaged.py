"""The data files installed with the package: the scenarios, the report's
template and its figure registry.

They are package data (``wifitcp/scenarios/*.toml`` with their
``traces/``, ``wifitcp/templates/``, ``wifitcp/figures.toml``), read through
`importlib.resources`, so an installed wheel needs no source tree. In the
source tree the repository's ``scenarios/`` is a link to the same folder.
Wheels install unpacked, so every resource is a file on disk (a zipped
install is not supported: the scenarios' trace files are opened by path).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from pathlib import Path
    from typing import Optional


def _root() -> Path:
    from importlib.resources import files
    from pathlib import Path

    return Path(str(files(__package__)))


def scenarios_dir() -> Path:
    """The folder of the scenarios installed with the package."""
    return _root() / "scenarios"


def templates_dir() -> Path:
    """The folder of the report's Jinja2 templates."""
    return _root() / "templates"


def figures_registry() -> Path:
    """The built-in registry of reproduced paper figures (`wifitcp report`)."""
    return _root() / "figures.toml"


def scenario_names() -> list:
    """The installed scenarios' names (file names without ``.toml``), sorted."""
    return sorted(p.stem for p in scenarios_dir().glob("*.toml"))


def scenario(name: str) -> Optional[Path]:
    """The installed scenario called ``name`` (``quick-check`` or
    ``quick-check.toml``, or ``scenarios/quick-check.toml`` as the source
    tree names it), or None."""
    base = os.path.basename(name) if os.path.dirname(name) in ("", "scenarios") else ""
    if not base or base.startswith("."):
        return None
    p = scenarios_dir() / (base if base.endswith(".toml") else f"{base}.toml")
    return p if p.is_file() else None

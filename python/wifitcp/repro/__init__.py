"""Reproductions of the five seed papers (``../shared/seeds/INDEX.md``), one
module per paper; each module's docstring names the paper, the figures and
tables it reproduces, the scenario files behind them and the command that
reproduces them (``python -m wifitcp.repro.<module>``, which prints the
tables and writes the figures):

* `p000_cuzanauskas`: Cuzanauskas & Anskaitis, multi-polling, TCP ACK
  filtering and the power-control game (Figs. 1-11);
* `p001_keceli`: Keceli, Inan & Ayanoglu, ACK congestion control and
  filtering for uplink fairness (Figs. 3-6, PER 0.1, Linux AP queues);
* `p002_janevski`: Janevski & Petrov, TCP variants against MAC retries,
  interface queue, distance and mobility (Figs. 3-5, 12-15, Tables 4-6);
* `p003_murray`: Murray, Koziniec & Dixon, NoAck, BlockAck and D-Proxy
  (sections II.A-B, Figs. 6-7);
* `p004_pokhrel`: Pokhrel & Williamson, Compound TCP over SNR classes and
  Virtual Buffer Sharing (Figs. 11, 14-18).

Reproductions beyond the seed papers have modules too (`BEYOND`), with
the same ``claims()`` for the report:

* `x01_bbr_cubic`: BBR against CUBIC sharing one Wi-Fi AP with FIFO,
  FQ-CoDel or CAKE, beside a 2025 testbed study of BBRv3 over Wi-Fi 6.

`common` holds what they share (running a scenario file through the
campaign layer, statistics over seeds, tables). ``python -m wifitcp.repro``
lists the modules with their commands and scenario files; `for_scenario`
tells which module reproduces a scenario file (``wifitcp report`` names it
beside the scenario's figures).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Optional, Union

#: paper number (as in ../shared/seeds/INDEX.md) -> module of this package
MODULES = {
    "000": "p000_cuzanauskas",
    "001": "p001_keceli",
    "002": "p002_janevski",
    "003": "p003_murray",
    "004": "p004_pokhrel",
}
#: reproductions beyond the seed papers: key -> module of this package
BEYOND = {
    "x01": "x01_bbr_cubic",
}


def module(paper: str) -> ModuleType:
    """The reproduction module of a paper (``"001"``), of a reproduction
    beyond the seeds (``"x01"``) or by its name."""
    both = {**MODULES, **BEYOND}
    name = both.get(paper, paper)
    if name not in both.values():
        raise KeyError(f"no reproduction module {paper!r} (one of {', '.join(both)})")
    return importlib.import_module(f"{__name__}.{name}")


def command(mod: ModuleType) -> str:
    """The command that runs a reproduction module."""
    return f"python -m {mod.__name__}"


def for_scenario(path: Union[str, Path]) -> Optional[ModuleType]:
    """The module whose reproduction runs this scenario file (by its file
    name, ``scenarios/keceli-figs3-6.toml`` or ``keceli-figs3-6``), or None."""
    stem = Path(str(path)).name
    stem = stem[:-5] if stem.endswith(".toml") else stem
    for paper in (*MODULES, *BEYOND):
        mod = module(paper)
        if stem in mod.SCENARIOS:
            return mod
    return None

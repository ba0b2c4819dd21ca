"""The five papers' claims, each with the paper's number beside wifitcp's
and a verdict, for ``wifitcp report``'s front page and paper sections.

Every paper module of `wifitcp.repro` has a ``claims(full=False, jobs=2,
cache=None)`` function: it runs its scenario files through
`common.run_scenario` (the same runs as its command line), reduces them
with its own table functions and returns a `PaperClaims`: the claims, and
the module's Markdown tables that show where the numbers come from.

``full=False`` is the modules' ``--quick``: one seed (and the smaller
variants the module's ``--quick`` uses, or a sub-grid of the sweep that
holds the claim's points, said in each claim's ``runs``); ``full=True``
runs the scenarios' own seeds and grids. The verdict is computed from the
numbers measured here (`verdict` below); the cause of a partial or
differing verdict is the phrase docs/validation.md measured for it
(``cause``), so the number beside it can be checked against it.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

#: the verdicts, best first
VERDICTS = ("holds", "partial", "differs")


@dataclass
class Claim:
    """One claim of a paper and what wifitcp measures for it."""
    paper: str              # "000" .. "004"
    claim: str              # what the paper claims (a short sentence)
    paper_value: str        # the paper's number (or "direction" as written)
    ours: str               # wifitcp's number, from the runs of this report
    verdict: str            # holds / partial / differs
    cause: str = ""         # why, when partial or differs (measured cause)
    command: str = ""       # the command that reproduces it
    runs: str = ""          # which runs the number comes from (scenario, seeds)
    validation: str = ""    # docs/validation.md section ("1.12")


@dataclass
class PaperClaims:
    """A paper's claims and the module's tables behind them."""
    paper: str
    title: str
    module: str
    command: str
    claims: list = field(default_factory=list)
    tables: list = field(default_factory=list)  # Markdown text of the module's tables
    seconds: float = 0.0
    error: str = ""         # why the reproduction failed (then no claims)


def verdict(ok: bool, partial: bool, cause: str) -> tuple:
    """(verdict, cause): holds when ``ok``, partial when ``partial``, else
    differs; the cause is kept only when the claim does not hold."""
    if ok:
        return "holds", ""
    return ("partial" if partial else "differs"), cause


def within(x: float, lo: float, hi: float) -> bool:
    return x == x and lo <= x <= hi


def pct(a: float, b: float) -> float:
    """(a - b) / b in %."""
    return 100.0 * (a - b) / b if b else float("nan")


def quick_sets(full: bool) -> list:
    """The ``--quick`` override of every paper module: one seed."""
    return [] if full else ["scenario.seeds=[1]"]


def collect(papers: Sequence[str] = ("000", "001", "002", "003", "004"), *, full: bool = False,
            jobs: int = 2, cache: Optional[Path] = None,
            log: Optional[Callable[[str], None]] = None) -> list:
    """`PaperClaims` of each paper, in order. The modules' progress lines go
    to stderr (``log`` gets one line per paper)."""
    import time

    from . import module

    out = []
    for p in papers:
        mod = module(p)
        t0 = time.monotonic()
        try:
            with contextlib.redirect_stdout(sys.stderr):
                pc = mod.claims(full=full, jobs=jobs, cache=cache)
        except Exception as e:  # one paper's failure leaves the others on the page
            pc = PaperClaims(p, mod.PAPER, mod.__name__, f"python -m {mod.__name__}",
                             error=f"{type(e).__name__}: {e}")
        pc.seconds = time.monotonic() - t0
        if log:
            log(f"paper {p}: " + (f"reproduction failed: {pc.error}" if pc.error else
                                  f"{len(pc.claims)} claims in {pc.seconds:.1f} s"))
        out.append(pc)
    return out

"""``python -m wifitcp.repro``: the reproduction module of each seed paper
(and of each reproduction beyond the seeds), its command and the scenario
files it runs."""

from __future__ import annotations

import sys

from . import BEYOND, MODULES, command, module


def main() -> int:
    for paper in (*MODULES, *BEYOND):
        mod = module(paper)
        print(f"{paper}  {mod.PAPER}")
        print(f"     {command(mod)} --help")
        files = ", ".join(f"scenarios/{s}.toml" for s in mod.SCENARIOS) or "(models only)"
        print(f"     runs {files}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start-up: the modules a command line loads before it does its work.

Start-up time is measured by ``bench/startup``, never here; these tests pin
what costs it: ``wifitcp --help`` and ``wifitcp validate`` load neither the
campaign machinery nor DuckDB, pandas, numpy or scipy, and ``import
wifitcp`` loads its public names only when they are used.
"""

import json
import os
import subprocess
import sys

from conftest import REPO

#: third-party packages that cost tens of milliseconds to import
HEAVY = ("duckdb", "pandas", "numpy", "scipy", "polars", "pyarrow", "matplotlib")

_PROBE = """
import json, runpy, sys
sys.argv = ["wifitcp", *json.loads(sys.argv[1])]
try:
    runpy.run_module("wifitcp", run_name="__main__", alter_sys=True)
except SystemExit as e:
    code = e.code
sys.stderr.write("\\nMODULES " + json.dumps({"rc": code, "modules": sorted(sys.modules)}))
"""


def modules_after(*argv: str) -> set:
    """``python -m wifitcp ARGV...`` in a fresh interpreter: the modules
    loaded when it exits (it must exit 0)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(list(argv))], cwd=REPO,
                       env=env, capture_output=True, text=True, timeout=120)
    got = json.loads(p.stderr.rsplit("MODULES ", 1)[1])
    assert got["rc"] in (0, None), p.stderr
    return set(got["modules"])


def heavy(modules: set) -> list:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def ours(modules: set) -> set:
    return {m for m in modules if m.split(".")[0] == "wifitcp"}


def test_help_loads_only_the_command_line():
    mods = modules_after("--help")
    assert heavy(mods) == []
    assert ours(mods) <= {"wifitcp", "wifitcp.__main__", "wifitcp.cli", "wifitcp.core",
                          "wifitcp.errors", "wifitcp.provenance"}
    # what provenance computes only for a stored run; typing (annotations
    # only: its compilation is a tenth of --help's start-up without a
    # bytecode cache); shutil, with bz2 and lzma (argparse's for the
    # terminal's width)
    assert not {"subprocess", "platform", "socket", "typing", "shutil", "lzma"} & mods


def test_validate_loads_no_campaign_and_no_store():
    mods = modules_after("validate", "scenarios/quick-check.toml")
    assert heavy(mods) == []
    assert not {"wifitcp.api", "wifitcp.campaign", "wifitcp.runner", "wifitcp.store",
                "wifitcp.tidy", "wifitcp.frames", "wifitcp.network"} & ours(mods)
    assert "dataclasses" not in mods and "pathlib" not in mods


def test_run_without_a_store_loads_no_data_libraries():
    mods = modules_after("run", "scenarios/quick-check.toml", "--no-store", "--quiet",
                         "--jobs", "1")
    assert heavy(mods) == []
    assert not {"wifitcp.tidy", "wifitcp.frames", "multiprocessing", "dataclasses"} & mods


def test_import_wifitcp_is_lazy_and_its_names_still_resolve():
    code = ("import sys, wifitcp; before = set(sys.modules); "
            "from wifitcp import run, sweep, Network, Scenario, Store, Results, load; "
            "import wifitcp.api as api; assert wifitcp.run is api.run is run; "
            "assert wifitcp.campaign.plan and not hasattr(wifitcp, 'nosuch'); "
            "print(sorted(m for m in before if m.startswith('wifitcp')))")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.replace("'", '"')) == ["wifitcp", "wifitcp.errors"]

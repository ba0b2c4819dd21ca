"""The wheel is what a user installs: built, `pip install`ed into a fresh
venv (no Rust on PATH, no PYTHONPATH, working directory outside the source
tree), it runs an installed scenario and writes the report from package
data alone.

The wheel is built by ``scripts/build-core --wheel`` with the venv's build
flags and ``CARGO_TARGET_DIR``, so after ``make build`` the core is not
compiled again, only packed (``WIFITCP_WHEEL=path/to.whl`` tests a wheel
built elsewhere instead). The fresh venv gets the wheel's dependencies and
jinja2 (the report) from the package index.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, requires_core

pytestmark = requires_core


def _workspace_version() -> str:
    text = (REPO / "Cargo.toml").read_text()
    return re.search(r'\[workspace\.package\][^\[]*?\nversion = "([^"]+)"', text).group(1)


def _records(text: str) -> list[dict]:
    """The JSON lines of `wifitcp run --json`, without their wall times."""
    rows = [json.loads(x) for x in text.splitlines() if x.strip()]
    for r in rows:
        for k in [k for k in r if "wall" in k]:
            del r[k]
    return rows


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("WIFITCP_WHEEL")
    if given:
        return Path(given)
    venv_bin = Path(sys.executable).parent
    if not (venv_bin / "maturin").exists() or shutil.which("cargo") is None:
        pytest.skip("building the wheel needs maturin in this venv and cargo on PATH")
    out = tmp_path_factory.mktemp("dist")
    env = dict(os.environ, VENV=str(venv_bin.parent))
    p = subprocess.run([str(REPO / "scripts" / "build-core"), "--wheel", str(out)],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout + p.stderr
    wheels = list(out.glob("wifitcp-*.whl"))
    assert len(wheels) == 1, (wheels, p.stdout)
    assert p.stdout.strip().splitlines()[-1] == str(wheels[0])
    return wheels[0]


def test_wheel_is_abi3_and_carries_the_package_data(wheel):
    name = wheel.name
    assert name.startswith(f"wifitcp-{_workspace_version()}-cp39-abi3-"), name
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "wifitcp/_core.abi3.so" in names
    assert {"wifitcp/cli.py", "wifitcp/templates/report.html.j2",
            "wifitcp/figures.toml"} <= names
    shipped = {n[len("wifitcp/"):] for n in names if n.startswith("wifitcp/scenarios/")}
    src = REPO / "python" / "wifitcp"
    tree = {p.relative_to(src).as_posix() for p in (src / "scenarios").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
    assert "scenarios/quick-check.toml" in tree and "scenarios/traces/chat-h263-lecture-vbr.txt" \
        in tree
    assert shipped == tree
    # nothing of the build or the tests
    assert not [n for n in names if n.startswith(("wifitcp/tests", "tests/", "crates/"))]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(run, home): ``run(*argv)`` runs the installed ``wifitcp`` in a fresh
    venv from a directory outside the source tree."""
    home = tmp_path_factory.mktemp("user")
    assert REPO not in home.parents
    venv = home / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    path = os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "CARGO", "RUSTUP", "WIFITCP"))}
    env.update(PATH=path, HOME=str(home), PIP_DISABLE_PIP_VERSION_CHECK="1")
    p = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel),
                        "jinja2"], cwd=home, env=env, capture_output=True, text=True,
                       timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    assert shutil.which("cargo", path=path) is None  # no Rust where it runs

    def pip(*argv):
        p = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", *argv], cwd=home,
                           env=env, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout + p.stderr
        return p

    def run(*argv, check=True):
        p = subprocess.run([str(venv / "bin" / "wifitcp"), *argv], cwd=home, env=env,
                           capture_output=True, text=True, timeout=600)
        if check:
            assert p.returncode == 0, (argv, p.stdout, p.stderr)
        return p

    py = subprocess.run([str(venv / "bin" / "python"), "-c",
                         "import wifitcp, wifitcp._core; print(wifitcp.__file__)"],
                        cwd=home, env=env, capture_output=True, text=True, timeout=60)
    assert py.returncode == 0, py.stderr
    assert Path(py.stdout.strip()).is_relative_to(venv), py.stdout
    run.pip = pip
    return run, home


def test_installed_version_names_the_commit(installed):
    run, _ = installed
    out = run("--version").stdout.strip()
    v = _workspace_version()
    m = re.fullmatch(rf"wifitcp {re.escape(v)} \(core {re.escape(v)}, commit ([0-9a-f]{{40}}|unknown)\)",
                     out)
    assert m, out
    if not os.environ.get("WIFITCP_WHEEL"):
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        assert m.group(1) == (head or "unknown")


def test_installed_scenario_runs_with_the_same_results(installed, capsys):
    from wifitcp.cli import main

    run, _ = installed
    got = run("run", "quick-check", "--no-store", "--json", "--seed", "1")
    assert main(["run", str(REPO / "scenarios" / "quick-check.toml"), "--no-store", "--json",
                 "--seed", "1"]) == 0
    here = capsys.readouterr().out

    a, b = _records(got.stdout), _records(here)
    assert len(a) == 1 and a[0]["aggregate_mbps"] > 10
    assert a == b
    # the table form, and a scenario whose traffic reads the installed traces
    assert "flows (goodput Mbit/s)" in run("run", "scenarios/quick-check.toml", "--no-store").stdout
    assert run("validate", "janevski-static").returncode == 0
    bad = run("run", "no-such-scenario", "--no-store", check=False)
    assert bad.returncode == 2 and bad.stderr == "error: no-such-scenario: no such file\n"


def test_installed_report_reads_package_data(installed):
    from wifitcp import reportpage

    run, home = installed
    # (one seed paper's claims, reproduced through the installed core from
    # the shipped scenarios: the others read the same package data)
    run("report", "--results", str(home / "results"), "--out", str(home / "site"), "--papers", "001")
    page = (home / "site" / "index.html").read_text()
    assert 'id="paper-001"' in page
    want = [e.file for e in reportpage.entries()]
    assert len(want) >= 8 and all(w.startswith("scenarios/") for w in want)
    for w in want:
        assert f"<code>wifitcp run {w} --out " in page, w  # works anywhere (shipped)
    assert "Not run yet" in page


def test_sdist_builds_with_rust_into_the_same_package(installed, wheel, tmp_path):
    """``maturin sdist``, then pip builds a wheel from it (Rust compiles the
    core; the build reuses ``$CARGO_TARGET_DIR/sdist`` for the dependencies):
    the same files as the wheel, and once installed the same results; the
    commit is "unknown" (no git in an sdist). The release profile's fat LTO
    and single codegen unit are turned off for this build (Cargo's
    ``CARGO_PROFILE_RELEASE_*`` variables): they change the core's speed,
    not what it computes, and `make build` compiles with them already.
    Runs last: it replaces the fresh venv's wifitcp."""
    if os.environ.get("WIFITCP_WHEEL"):
        pytest.skip("WIFITCP_WHEEL given: the sdist is checked with the tree's own wheel")
    run, home = installed
    maturin = Path(sys.executable).parent / "maturin"
    p = subprocess.run([str(maturin), "sdist", "--out", str(tmp_path)], cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    (sdist,) = tmp_path.glob("wifitcp-*.tar.gz")
    assert sdist.name == f"wifitcp-{_workspace_version()}.tar.gz"
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "sdist"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RUSTFLAGS"))}
    env.update(CARGO_TARGET_DIR=str(target),  # maturin's backend runs `maturin`: the venv's
               PATH=os.pathsep.join([str(maturin.parent), env.get("PATH", "")]),
               CARGO_PROFILE_RELEASE_LTO="off", CARGO_PROFILE_RELEASE_CODEGEN_UNITS="16")
    built = tmp_path / "built"
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-q", "-w", str(built), str(sdist)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stdout + p.stderr
    (whl,) = built.glob("wifitcp-*.whl")
    assert "-cp39-abi3-" in whl.name

    def files(w):
        return {n for n in zipfile.ZipFile(w).namelist() if not n.startswith("wifitcp-")}

    assert files(whl) == files(wheel)
    before = _records(run("run", "quick-check", "--no-store", "--json", "--seed", "1").stdout)
    run.pip("install", "-q", "--no-deps", "--force-reinstall", str(whl))
    v = _workspace_version()
    assert run("--version").stdout.strip() == f"wifitcp {v} (core {v}, commit unknown)"
    a = run("run", "quick-check", "--no-store", "--json", "--seed", "1").stdout
    rows = _records(a)
    assert rows[0]["aggregate_mbps"] > 10 and rows[0]["seed"] == 1
    assert rows == before  # what the wheel's core computed

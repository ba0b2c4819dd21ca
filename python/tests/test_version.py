"""The version has one source, the workspace's Cargo.toml: every crate
inherits it, pyproject.toml declares it dynamic (maturin reads it), the
installed package, the core and CHANGELOG.md's first entry agree."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO, requires_core

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib


def workspace_version() -> str:
    return tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def test_every_crate_inherits_the_workspace_version():
    for toml in sorted(REPO.glob("crates/*/Cargo.toml")) + [REPO / "bench" / "Cargo.toml"]:
        pkg = tomllib.loads(toml.read_text())["package"]
        assert pkg["version"] == {"workspace": True}, toml


def test_pyproject_takes_the_version_from_cargo():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]


def test_changelog_names_the_version_first():
    text = (REPO / "CHANGELOG.md").read_text()
    first = re.search(r"^## (\S+)", text, re.M)
    assert first and first.group(1) == workspace_version()


@requires_core
def test_package_core_and_cli_report_it():
    import wifitcp
    from wifitcp import core

    v = workspace_version()
    assert wifitcp.__version__ == v and core.version() == v
    out = subprocess.run([sys.executable, "-m", "wifitcp", "--version"], capture_output=True,
                         text=True, timeout=60).stdout.strip()
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    m = re.fullmatch(rf"wifitcp {re.escape(v)} \(core {re.escape(v)}, commit (\w+)\)", out)
    assert m, out
    # the venv's core was built from this tree: its commit, or an older one
    # when HEAD moved since `make build`
    assert m.group(1) == "unknown" or re.fullmatch(r"[0-9a-f]{40}", m.group(1))
    if m.group(1) != "unknown" and head:
        assert subprocess.run(["git", "-C", str(REPO), "merge-base", "--is-ancestor", m.group(1),
                               "HEAD"]).returncode == 0

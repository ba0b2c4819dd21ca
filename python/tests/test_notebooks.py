"""The notebooks of docs/examples run from top to bottom (nbclient, a
fresh kernel each), every cell without an error, each in about 30 s; and
docs/examples/README.md indexes every scenario file of scenarios/."""

import re
import time

import pytest

from conftest import REPO, requires_core

EXAMPLES = REPO / "docs" / "examples"
NOTEBOOKS = ["first-sweep", "watch-a-queue", "reproduce-a-paper"]


def test_readme_indexes_every_scenario_file():
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\[`([\w.-]+\.toml)`\]\(\.\./\.\./scenarios/\1\)", text))
    files = {p.name for p in (REPO / "scenarios").glob("*.toml")}
    assert not files - listed, f"scenario files missing from docs/examples/README.md: {sorted(files - listed)}"
    assert not listed - files, f"docs/examples/README.md lists files that are not there: {sorted(listed - files)}"
    for name in NOTEBOOKS:
        assert f"({name}.ipynb)" in text, name


@requires_core
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name):
    nbformat = pytest.importorskip("nbformat", reason="nbformat not installed (make venv installs it)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient not installed (make venv installs it)")
    pytest.importorskip("ipykernel", reason="ipykernel not installed (make venv installs it)")
    nb = nbformat.read(EXAMPLES / f"{name}.ipynb", as_version=4)
    t0 = time.monotonic()
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(EXAMPLES)}})
    client.execute()
    took = time.monotonic() - t0
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    # each notebook is meant to take about 30 s; the bound leaves room for a busy machine
    assert took < 90, f"{name} took {took:.0f} s"

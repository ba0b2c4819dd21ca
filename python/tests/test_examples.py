"""The example in docs/examples runs as a plain script (no __main__ guard)."""

import os
import subprocess
import sys

from conftest import REPO, requires_core

EXAMPLE = REPO / "docs" / "examples" / "keceli_fairness.py"


@requires_core
def test_keceli_example_runs_as_a_script(tmp_path):
    env = dict(os.environ, WIFITCP_EXAMPLE_DURATION="2", WIFITCP_EXAMPLE_OUT=str(tmp_path))
    env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    # the script ran once: the workers did not re-run it (one table header)
    assert p.stdout.count("ap.qdisc.kind  drop-tail  keceli-grouped  pilosof") == 1
    assert (tmp_path / "keceli-small-jain.png").stat().st_size > 10_000
    assert (tmp_path / "keceli-small.duckdb").is_file()

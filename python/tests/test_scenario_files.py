"""Every shipped scenario file loads, expands and validates with the core."""

import pytest

from conftest import REPO, requires_core
from wifitcp import scenario as S

FILES = sorted((REPO / "scenarios").glob("*.toml"))


def test_there_are_scenarios():
    names = {f.name for f in FILES}
    assert {"dcf-saturation.toml", "dcf-saturation-rts.toml", "quick-check.toml"} <= names


@requires_core
@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_scenario_validates(path):
    items = S.check_all(S.load(path))
    assert items


def test_dcf_saturation_shape():
    scn = S.load(REPO / "scenarios" / "dcf-saturation.toml")
    assert scn.n_runs == 6 * 3 * 5
    assert [r.config["mac"]["rts_threshold_bytes"] for r in scn.runs()[:1]] == [65535]
    rts = S.load(REPO / "scenarios" / "dcf-saturation-rts.toml")
    assert rts.runs()[0].config["mac"]["rts_threshold_bytes"] == 0
    assert rts.n_runs == scn.n_runs

"""Model curves for the figures (wifitcp.models.overlay)."""

import pytest

from wifitcp.models import overlay as O
from wifitcp.models.errors import ModelError

QUICK = {"p_ws": (0.0, 0.3), "retry_limits": (4,)}


@pytest.mark.parametrize("fig", [f for f in O.FIGURES if f != "dcf-saturation"])
def test_every_figure_has_curves(fig):
    kw = QUICK if fig in ("pokhrel-fig3", "pokhrel-fig9", "pokhrel-fig10", "pokhrel-fig11",
                          "pokhrel-fig13", "pokhrel-fig14", "pokhrel-fig15",
                          "pokhrel-fig16") else {}
    cs = O.model_curves(fig, **kw)
    assert cs
    for c in cs:
        assert c["figure"] == fig and len(c["x"]) == len(c["y"]) > 0
        assert all(isinstance(v, float) for v in c["y"])


def test_fig11_class2_falls_behind_at_limit_4():
    c1, c2 = O.model_curves("pokhrel-fig11", **QUICK)
    assert c1["y"][0] == pytest.approx(c2["y"][0])
    assert c2["y"][1] < 0.75 * c1["y"][1]


def test_fig7_tol_is_one_over_b_squared_at_slope_2():
    (c,) = O.model_curves("pokhrel-fig7")
    assert dict(zip(c["x"], c["y"]))[2.0] == pytest.approx(1e-4)


def test_differences():
    c = {"x": [0.0, 0.3], "y": [2.0, 1.0]}
    rows = O.differences(c, [(0, 2.2), (0.3, 0.9), (0.1, 5)])
    assert rows == [(0.0, 2.2, 2.0, pytest.approx(0.2), pytest.approx(10.0)),
                    (0.3, 0.9, 1.0, pytest.approx(-0.1), pytest.approx(-10.0))]


def test_unknown_figure_and_dcf_without_config():
    with pytest.raises(ModelError, match="^figure_id"):
        O.model_curves("pokhrel-fig99")
    with pytest.raises(ModelError, match="^config"):
        O.model_curves("dcf-saturation")

"""VBS stability (wifitcp.models.vbs_stability): eqs. (25)-(30) against a
numerical integration of eq. (24), the paper's stated cases, Algorithm 1's
fixed point from many starts, and the Fig. 18 reaction-time reader."""

import math

import pytest

from wifitcp.models import pokhrel as P
from wifitcp.models import vbs_stability as V
from wifitcp.models.errors import ModelError


@pytest.mark.parametrize("a,b", [(0.0, 1.4), (0.0, 1.7), (0.1, 1.5), (0.1, 1.7), (0.5, 1.8),
                                 (0.5, 2.0), (1.0, 2.2), (1.0, 2.6)])
def test_exact_condition_agrees_with_integration(a, b):
    margin = math.acos(-a / b) - math.sqrt(b * b - a * a)
    ratio = V.simulate_linear(a, b)
    assert (margin > 0) == (ratio < 1.0)


def test_sufficient_condition_is_sufficient():
    for h in (0.1, 0.3, 0.5):
        for w in (2, 10, 45):
            s = V.check(0.6, h, 100, w)
            if s.sufficient:
                assert s.stable


def test_paper_case_iii_statement():
    """'when alpha = 0.125 and B_ap = 100, then for c = 0.6, h* = 2/15, the
    stability is always guaranteed for large W*' (eq. 29)."""
    for w in (1, 2, 10, 45, 1000):
        s = V.check(0.6, 2 / 15, 100, w)
        assert s.sufficient_lhs == pytest.approx(1.0 * w ** -0.25)
        assert s.sufficient and s.stable


def test_case_ii_alpha_one_over_b_always_stable():
    for c in (0.5, 0.9, 1.0):
        s = V.check(c, 1.0, 100, 7, alpha=1 / 100, kappa=1.0)
        assert s.sufficient_lhs == pytest.approx(c)
        assert s.sufficient


def test_equal_shares_at_the_model_window_are_unstable():
    """Two classes of five flows, h* = 1/2: each flow holds c h* B / 5 = 6
    packets, where c = 0.6 fails both eq. (25) and eq. (26)."""
    s = V.check(0.6, 0.5, 100, 6)
    assert not s.sufficient and not s.stable
    c = V.critical_c(0.5, 100, 6)
    assert 0.3 < c < 0.6
    assert V.check(c * 0.99, 0.5, 100, 6).stable
    assert not V.check(c * 1.01, 0.5, 100, 6).stable
    assert V.critical_c(0.5, 100, 6, exact=False) <= c


def test_hopf_period():
    s = V.check(0.6, 0.5, 100, 6)
    assert s.period_rtt == pytest.approx(2 * math.pi / math.acos(-s.a_rtt / s.b_rtt))


def test_algorithm1_fixed_point_from_many_starts():
    r = V.fixed_point_starts([P.SnrClass(5), P.SnrClass(5, 0.3)], starts=8, retry_limit=4)
    assert r["max_spread_mbps"] < 1e-6


@pytest.mark.parametrize("kw,param", [({"c": 0}, "c"), ({"c": 1.2}, "c"), ({"h_star": 1.5}, "h_star"),
                                      ({"b_ap": 0}, "b_ap"), ({"w_star": 0.5}, "w_star"),
                                      ({"kappa": 2.5}, "kappa"), ({"p_star": -1}, "p_star")])
def test_bad_input(kw, param):
    args = {"c": 0.6, "h_star": 0.5, "b_ap": 100, "w_star": 10, **kw}
    with pytest.raises(ModelError) as e:
        V.check(args.pop("c"), args.pop("h_star"), args.pop("b_ap"), args.pop("w_star"), **args)
    assert e.value.param == param


def _result(series1, series2, done=(58.0, 62.0)):
    flows = [{"name": "c1/sta0", "series": series1, "tcp": {}},
             {"name": "c2/sta5", "series": series2, "tcp": {}}]
    flows += [{"name": f"c2leave/sta{8 + k}", "series": [], "tcp": {"completion_s": t}}
              for k, t in enumerate(done)]
    return {"flows": flows}


def test_fig18_reaction_time_reader():
    ts = [float(t) for t in range(1, 301)]
    # class-1 share 0.4 until 60 s, then 0.5 after a 20 s ramp, 0.6 from 170 s
    def share(t):
        if t <= 60:
            return 0.4
        if t <= 80:
            return 0.4 + 0.1 * (t - 60) / 20
        if t <= 150:
            return 0.5
        return 0.6 if t > 170 else 0.5 + 0.1 * (t - 150) / 20
    s1 = [[t, share(t)] for t in ts]
    s2 = [[t, 1 - share(t)] for t in ts]
    ev = V.fig18(_result(s1, s2), smooth_s=1, band=0.01)
    assert [e["event_s"] for e in ev] == [60.0, 150.0]
    assert ev[0]["share_level"] == pytest.approx(0.5)
    assert ev[0]["reaction_s"] == pytest.approx(20.0, abs=1.0)
    assert ev[1]["reaction_s"] == pytest.approx(20.0, abs=1.0)


def test_fig18_never_settling_is_none():
    ts = [float(t) for t in range(1, 301)]
    s1 = [[t, 0.5 + (0.2 if int(t) % 2 else -0.2)] for t in ts]
    s2 = [[t, 1 - v] for t, v in s1]
    ev = V.fig18(_result(s1, s2), smooth_s=1, band=0.05)
    assert all(e["reaction_s"] is None for e in ev)

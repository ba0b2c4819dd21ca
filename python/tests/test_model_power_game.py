"""The power-control game of paper 000 (wifitcp.models.power_game)."""

import pytest

from wifitcp.models import power_game as G
from wifitcp.models.errors import ModelError


def test_best_response_maximises_the_payoff():
    h = G.geometry(6, cross_gain_db=25.0, seed=3)
    n0, c = G.noise_w(), [0.2] * 6
    p = [1.0, 2.0, 0.5, 3.0, 0.0, 1.5]
    for i in range(6):
        b = G.best_response(i, p, h, n0, c, 4.0)
        best = G.payoff(i, p[:i] + [b] + p[i + 1:], h, n0, c)
        for trial in (0.0, 0.5, 1.0, 2.0, 3.0, 4.0):
            q = p[:i] + [trial] + p[i + 1:]
            assert G.payoff(i, q, h, n0, c) <= best + 1e-12


def test_equilibrium_is_a_nash_point():
    h = G.geometry(30, cross_gain_db=20.0)
    e = G.nash(h, p_max=4.0)
    n0, c = G.noise_w(), [0.2] * 30
    for i in range(30):
        assert G.best_response(i, e.powers, h, n0, c, 4.0) == pytest.approx(e.powers[i], abs=1e-9)
    j = G.nash(h, p_max=4.0, update="jacobi", max_iter=100000)
    assert j.powers == pytest.approx(e.powers, abs=1e-8)


def test_fig1_with_the_papers_antennas():
    """Directional antennas (33 dB on the link, 0 dBi across): interference
    is small, so every player sits at min(cap, 1/c)."""
    e = G.fig1()
    assert e.mean_power_w == pytest.approx(4.0, abs=1e-9)
    assert all(p <= 4.0 for p in e.powers)


def test_fig1_powers_never_exceed_one_over_c():
    e = G.fig1(p_max=100.0)
    assert max(e.powers) <= 1 / 0.2 + 1e-12


def test_fig2_capacity_rises_with_cap_then_flattens():
    rows = G.fig2()
    caps = [r[1] for r in rows]
    assert all(b >= a - 1e-9 for a, b in zip(caps, caps[1:]))
    assert caps[4] > caps[0]                       # 4 W above 0.5 W
    assert caps[-1] == pytest.approx(caps[-4])     # no gain past 1/c = 5 W


def test_noise_is_ktb():
    assert G.noise_w(20e6, 0.0) == pytest.approx(1.380649e-23 * 290 * 20e6)


@pytest.mark.parametrize("kw,param", [({"p_max": 0}, "p_max"), ({"c": 0}, "c[0]"),
                                      ({"n0": -1}, "n0"), ({"update": "random"}, "update"),
                                      ({"c": [0.2]}, "c")])
def test_bad_input(kw, param):
    with pytest.raises(ModelError) as e:
        G.nash(G.geometry(3), **kw)
    assert e.value.param == param


def test_bad_gain_matrix():
    with pytest.raises(ModelError, match=r"^h\[0\]\[0\]"):
        G.nash([[0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ModelError, match="^h:"):
        G.nash([[1.0, 1.0]])


def test_cycling_names_max_iter():
    # interference stronger than the direct links: Jacobi oscillates
    h = [[1.0, 5.0], [5.0, 1.0]]
    with pytest.raises(ModelError, match="^max_iter"):
        G.nash(h, n0=1e-3, c=[0.5, 0.5], update="jacobi", max_iter=50, p0=[0.0, 0.0])

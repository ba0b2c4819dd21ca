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
    e = G.nash(h, p_max=4.0, c=0.2)
    n0, c = G.noise_w(), [0.2] * 30
    for i in range(30):
        assert G.best_response(i, e.powers, h, n0, c, 4.0) == pytest.approx(e.powers[i], abs=1e-9)
    j = G.nash(h, p_max=4.0, c=0.2, update="jacobi", max_iter=100000)
    assert j.powers == pytest.approx(e.powers, abs=1e-8)


def test_fig1_with_the_papers_antennas():
    """Independent pairs, directional antennas (33 dB on the link, 0 dBi
    across): interference is small, so every player sits at min(cap, 1/c)."""
    e = G.fig1(setting="pairs", c=0.2)
    assert e.mean_power_w == pytest.approx(4.0, abs=1e-9)
    assert all(p <= 4.0 for p in e.powers)


def test_fig1_powers_never_exceed_one_over_c():
    e = G.fig1(setting="pairs", p_max=100.0, c=0.2)
    assert max(e.powers) <= 1 / 0.2 + 1e-12


def test_fig2_capacity_rises_with_cap_then_flattens():
    """With a cost fixed in W the game stops at 1/c whatever the cap."""
    rows = G.fig2(setting="pairs", c=0.2)
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


# -- the paper's setting and the Nash check by unilateral deviations ---------

def test_cost_follows_the_cap():
    assert G.cost_for_cap(4.0) == 0.25
    h = G.geometry(5)
    assert G.nash(h, p_max=2.0).powers == G.nash(h, p_max=2.0, c=0.5).powers


def test_cell_is_the_papers_deployment():
    c = G.cell()
    assert (c.near, c.far) == (22, 8)           # 30 in the cell's 61:22
    assert all(200 <= (x * x + y * y) ** 0.5 <= 300 for x, y in c.positions[:22])
    assert all(5000 <= (x * x + y * y) ** 0.5 <= 6000 for x, y in c.positions[22:])
    # 33 dB of antennas less free space at 5.5 GHz (47.2 dB at 1 m): a near
    # link is 60.3-63.8 dB down, a far one 88.8-90.4 dB
    import math
    db = [10 * math.log10(c.h[i][i]) for i in range(30)]
    assert all(-63.9 < g < -60.2 for g in db[:22]) and all(-90.5 < g < -88.7 for g in db[22:])
    # every far station is hidden from every near one at 4 W
    assert all(c.h[j][i] > 0 for j in range(22) for i in range(22, 30))


def _no_profitable_deviation(h, e, p_max):
    gain, who, q = G.max_deviation_gain(h, e.powers, p_max=p_max, points=40_001)
    assert gain <= 1e-12, f"player {who} gains {gain} by moving to {q} W"


def test_paper_setting_is_a_nash_equilibrium_on_a_fine_grid():
    """30 users of the paper's cell, 4 W cap, c = 1/4 per W: the near
    stations at the cap less n0/h (interior, by at most 0.4 mW), the far
    ones silenced by the hidden near stations; average 2.93 W."""
    c = G.cell()
    e = G.nash(c.h, p_max=4.0)
    assert e.mean_power_w == pytest.approx(4.0 * 22 / 30, abs=1e-5)
    assert all(4.0 - 4e-4 < p < 4.0 for p in e.powers[:22])
    assert all(p == 0.0 for p in e.powers[22:])
    _no_profitable_deviation(c.h, e, 4.0)


def test_interior_equilibrium_is_a_nash_equilibrium_on_a_fine_grid():
    """Pairs whose cross gains are 20 dB: most players strictly inside
    (0, cap), every one at a stationary point of eq. (2)."""
    h = G.geometry(30, cross_gain_db=20.0)
    e = G.nash(h, p_max=4.0)
    interior = [p for p in e.powers if 0.01 < p < 3.99]
    assert len(interior) >= 20
    _no_profitable_deviation(h, e, 4.0)
    # the check can fail: a profile off the equilibrium has a profitable move
    off = list(e.powers)
    k = e.powers.index(interior[0])
    off[k] = min(4.0, off[k] + 0.5)
    gain, who, _ = G.max_deviation_gain(h, off, p_max=4.0)
    assert gain > 1e-3 and who == k


def test_all_at_one_receiver_only_the_strongest_transmits():
    """Eq. (1) literally, all 30 into the AP at once: interior best
    responses need sum of received powers = h_i/c - n0 for each, so only
    the strongest link transmits, at 1/c - n0/h_max."""
    c = G.cell(interference="all")
    e = G.nash(c.h, p_max=4.0)
    k = max(range(30), key=lambda i: c.h[i][i])
    assert e.powers[k] == pytest.approx(4.0 - G.noise_w() / c.h[k][k], abs=1e-12)
    assert sum(1 for p in e.powers if p > 0) == 1
    _no_profitable_deviation(c.h, e, 4.0)


def test_fig2_in_the_cell_rises_with_the_cap():
    rows = G.fig2()
    caps = [r[1] for r in rows]
    assert all(b > a for a, b in zip(caps, caps[1:]))


def test_cell_bad_input():
    with pytest.raises(ModelError, match="^interference"):
        G.cell(interference="some")
    with pytest.raises(ModelError, match="^n"):
        G.cell(n=100)
    with pytest.raises(ModelError, match="^setting"):
        G.fig1(setting="ring")

"""Pokhrel & Williamson's fixed point (wifitcp.models.pokhrel): the window
DTMC against a dense linear solve, the MAC identities, the paper's
qualitative claims (Figs. 9-11, 13-15, 17) and bad input."""

import math

import numpy as np
import pytest

from conftest import REPO, requires_core
from wifitcp.models import pokhrel as P
from wifitcp.models.errors import ModelError

DD = [P.SnrClass(5, 0.0), P.SnrClass(5, 0.3)]


def dense_distribution(p_m, w_max=45, increment="ctcp"):
    """Stationary distribution by a dense eigen-solve of eq. (3)'s matrix."""
    T = np.zeros((w_max, w_max))
    for lvl in range(1, w_max + 1):
        up = (1 - p_m) ** P.acks_per_step(lvl, increment=increment)
        T[lvl - 1, min(lvl + 1, w_max) - 1] += up
        T[lvl - 1, math.ceil(lvl / 2) - 1] += 1 - up
    A = T.T - np.eye(w_max)
    A[-1, :] = 1.0
    b = np.zeros(w_max)
    b[-1] = 1.0
    return np.linalg.solve(A, b)


@pytest.mark.parametrize("p_m", [1e-4, 0.003, 0.02, 0.1, 0.4])
@pytest.mark.parametrize("increment", ["ctcp", "literal"])
def test_window_dtmc_matches_dense_solve(p_m, increment):
    got = P.window_distribution(p_m, increment=increment)
    want = dense_distribution(p_m, increment=increment)
    assert np.allclose(got, want, atol=1e-10)
    assert sum(got) == pytest.approx(1.0, abs=1e-12)


def test_window_limits_and_monotone():
    assert P.mean_window(0.0) == 45
    assert P.mean_window(1.0) == 1
    ws = [P.mean_window(p) for p in (1e-5, 1e-3, 1e-2, 0.05, 0.2, 0.6)]
    assert all(a > b for a, b in zip(ws, ws[1:]))
    # extreme loss stays finite (rescaling / underflow paths)
    assert 1.0 <= P.mean_window(0.999999) < 1.01


def test_ctcp_reading_is_reno_below_16_and_faster_above():
    assert P.acks_per_step(10) == 10          # alpha 10^0.75 = 0.70 < 1: Reno
    assert P.acks_per_step(45) == pytest.approx(45 / (0.125 * 45 ** 0.75))
    assert P.acks_per_step(45, increment="literal") == pytest.approx(1 / (0.125 * 45 ** 0.75))


def test_symmetric_classes_share_equally_and_fill_the_buffer():
    r = P.solve([P.SnrClass(5), P.SnrClass(5)])
    assert r.h[0] == pytest.approx(0.5, abs=1e-9)
    assert r.goodput_mbps[0] == pytest.approx(r.goodput_mbps[1], rel=1e-9)
    assert r.occupancy == pytest.approx(100, abs=1e-6)   # eq. (19)
    assert 0 < r.p_b < 0.1
    assert r.residual < 1e-10


def test_mac_identities_at_the_fixed_point():
    r = P.solve(DD, retry_limit=4)
    windows = [min(32 << i, 1024) for i in range(4)]
    # eq. (13)/(14) rebuilt from the returned attempt probabilities
    q = (1 - r.beta_sta[0]) ** 5 * (1 - r.beta_sta[1]) ** 5
    assert r.f_ap[1] == pytest.approx(1 - 0.7 * q, abs=1e-8)
    assert r.f_sta[0] == pytest.approx(1 - (1 - r.beta_ap) * q / (1 - r.beta_sta[0]), abs=1e-8)
    # eq. (10) over the HOL mix
    def sums(f):
        return (sum(f ** s for s in range(4)), sum(f ** s * (w + 1) / 2 for s, w in enumerate(windows)))
    a = [sums(f) for f in r.f_ap]
    assert r.beta_ap == pytest.approx(sum(r.h[k] * a[k][0] for k in (0, 1))
                                      / sum(r.h[k] * a[k][1] for k in (0, 1)), rel=1e-7)
    # rate equilibrium: AP data deliveries = station ACK deliveries (per slot)
    num = sum(r.h[k] * a[k][0] for k in (0, 1))
    for k in (0, 1):
        ap_attempts = r.beta_ap * r.h[k] * a[k][0] / num
        acks_generated = ap_attempts * (1 - r.f_ap[k])
        acks_delivered = 5 * r.beta_sta[k] * (1 - r.f_sta[k])
        assert acks_delivered == pytest.approx(acks_generated * (1 - r.f_sta[k] ** 4), rel=1e-6)
    # eq. (16) with K attempts
    assert r.p_d[1] == pytest.approx(r.f_ap[1] ** 4, rel=1e-12)


def test_paper_claims_figs_9_to_13():
    """Fig. 9: f_ap of class 2 grows about linearly with p_w, class 1's does
    not grow; Fig. 10: p_d grows sharply; Fig. 11: class 2 falls behind
    (retry limit 4); Fig. 13: buffer loss falls as p_w grows."""
    rs = [P.solve([P.SnrClass(5), P.SnrClass(5, pw)], retry_limit=4)
          for pw in (0.0, 0.1, 0.2, 0.3)]
    f2 = [r.f_ap[1] for r in rs]
    steps = [b - a for a, b in zip(f2, f2[1:])]
    assert max(steps) / min(steps) < 1.1                    # linear
    assert all(b <= a + 1e-9 for a, b in zip([r.f_ap[0] for r in rs], [r.f_ap[0] for r in rs[1:]]))
    pd = [r.p_d[1] for r in rs]
    assert pd[3] / pd[1] > 20                                # sharp
    assert rs[3].goodput_mbps[1] < 0.75 * rs[3].goodput_mbps[0]
    pb = [r.p_b for r in rs]
    assert all(b < a for a, b in zip(pb, pb[1:]))


def test_retry_limit_7_vs_4_divergence():
    """The model's answer to docs/validation.md 5.1.1: at limit 7 the classes
    stay within 2 %, at limit 4 class 1 / class 2 > 1.3 at p_w = 0.3."""
    r7 = P.solve(DD, retry_limit=7)
    r4 = P.solve(DD, retry_limit=4)
    assert r7.goodput_mbps[0] / r7.goodput_mbps[1] < 1.02
    assert r4.goodput_mbps[0] / r4.goodput_mbps[1] > 1.3
    r8 = P.solve(DD, retry_limit=8)   # the paper's k = 7 read as eq. (16)'s k + 1
    assert r8.goodput_mbps[0] / r8.goodput_mbps[1] < 1.01


def test_vbs_holds_shares_and_c_b():
    r = P.solve(DD, retry_limit=4, qdisc="vbs")
    assert r.occupancy == pytest.approx(60, abs=1e-6)
    assert r.h == pytest.approx([0.5, 0.5], abs=1e-9)
    assert r.goodput_mbps[0] / r.goodput_mbps[1] < 1.02
    r2 = P.solve(DD, retry_limit=4, qdisc="vbs", h_star=[0.526, 0.474])
    assert r2.h[0] == pytest.approx(0.526, abs=1e-9)


def test_any_number_of_classes():
    cls = [P.SnrClass(2, pw) for pw in (0.0, 0.1, 0.2, 0.3)] + [P.SnrClass(1, 0.4)]
    r = P.solve(cls, retry_limit=4)
    assert sum(r.h) == pytest.approx(1.0)
    per_flow = r.per_flow_mbps
    assert all(a > b for a, b in zip(per_flow, per_flow[1:]))


def test_upload_download_fig17_mechanism():
    """Small buffers: the uploads' windows fill the AP with ACKs and the
    downloads starve; a buffer above 10 x 45 is fair (Fig. 17)."""
    small = P.solve([P.SnrClass(5, 0.2, 0.2, "up"), P.SnrClass(5, 0.2, 0.2, "down")], b_ap=50)
    assert small.goodput_mbps[1] < 0.05 * small.goodput_mbps[0]
    big = P.solve([P.SnrClass(5, 0.2, 0.2, "up"), P.SnrClass(5, 0.2, 0.2, "down")], b_ap=500)
    assert big.p_b == 0.0
    assert big.goodput_mbps[0] == pytest.approx(big.goodput_mbps[1], rel=0.03)


def test_propagation_delay_eq20_lowers_buffer_loss():
    a = P.solve(DD, retry_limit=4)
    b = P.solve(DD, retry_limit=4, rtt_prop_s=0.05)
    assert b.p_b < a.p_b


def test_converges_from_any_start():
    base = P.solve(DD, retry_limit=4)
    for h0, b0, a0 in (([0.9, 0.1], [0.001, 0.2], 0.001), ([0.05, 0.95], [0.3, 0.0], 0.3)):
        r = P.solve(DD, retry_limit=4, h0=h0, beta0=b0, beta_ap0=a0)
        assert r.goodput_mbps == pytest.approx(base.goodput_mbps, abs=1e-7)


@pytest.mark.parametrize("kw,param", [
    ({"classes": [P.SnrClass(5, 1.5)]}, "classes[0].p_w"),
    ({"classes": [P.SnrClass(5, -0.1)]}, "classes[0].p_w"),
    ({"classes": [P.SnrClass(0)]}, "classes[0].n"),
    ({"classes": [P.SnrClass(5, direction="sideways")]}, "classes[0].direction"),
    ({"classes": []}, "classes"),
    ({"b_ap": 0}, "b_ap"),
    ({"b_ap": 8}, "b_ap"),
    ({"w_max": 0}, "w_max"),
    ({"retry_limit": 0}, "retry_limit"),
    ({"cw_max": 15}, "cw_max"),
    ({"alpha": 0}, "alpha"),
    ({"damping": 0}, "damping"),
    ({"qdisc": "red"}, "qdisc"),
    ({"qdisc": "vbs", "c": 1.5}, "c"),
    ({"qdisc": "vbs", "h_star": [0.7, 0.7]}, "h_star"),
    ({"qdisc": "vbs", "c": 0.05}, "b_ap"),
    ({"increment": "fast"}, "increment"),
    ({"max_iter": 2}, "max_iter"),
])
def test_bad_input_names_the_parameter(kw, param):
    args = {"classes": DD, **kw}
    with pytest.raises(ModelError) as e:
        P.solve(args.pop("classes"), **args)
    assert isinstance(e.value, ValueError)
    assert e.value.param == param
    assert str(e.value).startswith(param + ":")


def test_window_bad_input():
    with pytest.raises(ValueError, match="^p_m:"):
        P.mean_window(1.2)
    with pytest.raises(ValueError, match="^w_max:"):
        P.mean_window(0.1, w_max=0)


def test_table2_timing_matches_the_simulators_tables_by_hand():
    t = P.table2_timing()
    # data 192 + 8*1528/36 us, MAC ACK 192 + 112/2 = 248 us
    assert t.t_data_ns == pytest.approx(50_000 + 531_555.6 + 10_000 + 248_000, abs=1)
    assert t.t_ack_ns == pytest.approx(50_000 + 207_111.1 + 10_000 + 248_000, abs=1)


@requires_core
def test_from_scenario_uses_the_simulators_timing():
    import tomllib

    cfg = tomllib.loads((REPO / "scenarios" / "pokhrel-download.toml").read_text())
    cfg.pop("sweep")
    t = P.timing_from_scenario(cfg)
    assert t.t_data_ns == pytest.approx(P.table2_timing().t_data_ns, abs=1)
    assert t.t_ack_ns == pytest.approx(P.table2_timing().t_ack_ns, abs=1)
    cls = P.classes_from_scenario(cfg)
    assert [(c.n, c.direction) for c in cls] == [(5, "down"), (5, "down")]
    r = P.from_scenario(cfg)
    assert r.params["retry_limit"] == 7 and r.params["b_ap"] == 100


@requires_core
def test_from_scenario_refuses_a_beta_the_dtmc_cannot_model():
    import tomllib

    cfg = tomllib.loads((REPO / "scenarios" / "pokhrel-download.toml").read_text())
    cfg.pop("sweep")
    cfg["tcp"]["compound"] = {"beta": 0.7}
    with pytest.raises(ModelError) as e:
        P.from_scenario(cfg)
    assert e.value.param == "tcp.compound.beta"

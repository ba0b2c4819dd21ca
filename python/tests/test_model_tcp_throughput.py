"""Mathis and Padhye formulas (wifitcp.models.tcp_throughput)."""

import math

import pytest

from wifitcp.models import tcp_throughput as T
from wifitcp.models.errors import ModelError


def test_mathis_is_paper_000_eq4():
    # W = 1.22 MSS / sqrt(p): sqrt(3/2) = 1.2247
    assert T.mathis_window(0.01) == pytest.approx(math.sqrt(1.5) / 0.1)
    assert T.mathis(0.01, 0.1, 1460) == pytest.approx(8 * 1460 * 12.247449 / 0.1, rel=1e-6)
    assert T.mathis_window(0.01, b=2) == pytest.approx(math.sqrt(0.75) / 0.1)


def test_padhye_tends_to_mathis_at_small_loss():
    for p in (1e-5, 1e-6):
        ratio = T.padhye_pps(p, 0.1, 1.0) / (T.mathis(p, 0.1, 1) / 8)
        assert ratio == pytest.approx(1.0, abs=0.02)


def test_padhye_full_close_to_approximate_model():
    for p in (0.001, 0.01, 0.05, 0.1):
        full = T.padhye_pps(p, 0.2, 1.0)
        approx = T.padhye_approx_pps(p, 0.2, 1.0)
        assert full == pytest.approx(approx, rel=0.25)


def test_padhye_timeouts_and_window_limit():
    # timeouts: a longer T0 lowers throughput at high loss, not at low loss
    assert T.padhye_pps(0.1, 0.1, 2.0) < 0.7 * T.padhye_pps(0.1, 0.1, 0.2)
    assert T.padhye_pps(1e-5, 0.1, 2.0) == pytest.approx(T.padhye_pps(1e-5, 0.1, 0.2), rel=0.01)
    # receiver window: at tiny loss the rate approaches W_max / RTT
    assert T.padhye_pps(1e-7, 0.1, 1.0, w_max=45) == pytest.approx(450, rel=0.01)
    assert T.padhye_pps(0.01, 0.1, 1.0, w_max=45) <= 450
    # the window-limited branch never exceeds the unlimited one
    for p in (0.0003, 0.0007, 0.001):
        assert T.padhye_pps(p, 0.1, 1.0, w_max=45) < T.padhye_pps(p, 0.1, 1.0)


def test_section_5_2_number():
    """docs/validation.md 5.2: p = 0.105, RTT 80 ms, T0 200 ms -> 26 packets/s
    per flow is the approximate model; the full model gives 30.7."""
    assert T.padhye_approx_pps(0.105, 0.08, 0.2, w_max=45) == pytest.approx(26.26, abs=0.01)
    assert T.padhye_pps(0.105, 0.08, 0.2, w_max=45) == pytest.approx(30.75, abs=0.01)


def test_from_flow():
    flow = {"name": "down/sta0", "goodput_mbps": 0.6, "packets_generated": 10000,
            "tcp": {"fast_retransmits": 150, "timeouts": 50, "srtt_ms": 150.0}}
    r = T.from_flow(flow, w_max=45)
    assert r["p"] == pytest.approx(0.02)
    assert r["t0_s"] == pytest.approx(0.2)
    assert r["padhye_mbps"] == pytest.approx(T.padhye(0.02, 0.15, 0.2, 45) / 1e6)
    assert T.from_flow({"packets_generated": 10, "tcp": {"srtt_ms": 5}}) is None


@pytest.mark.parametrize("fn,args,param", [
    (T.mathis, (0.0, 0.1), "p"), (T.mathis, (1.5, 0.1), "p"), (T.mathis, (0.1, 0.0), "rtt_s"),
    (T.padhye_pps, (0.1, 0.1, 0.0), "t0_s"), (T.padhye_pps, (0.1, 0.1, 1.0, 0.5), "w_max"),
])
def test_bad_input(fn, args, param):
    with pytest.raises(ModelError) as e:
        fn(*args)
    assert e.value.param == param and isinstance(e.value, ValueError)

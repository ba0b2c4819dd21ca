"""Bianchi DCF saturation model: closed forms, the paper's eq. (7), shape."""

import math

import pytest

from fakecore import A54
from wifitcp.models import bianchi as B

T54 = B.Timing.from_dict(A54(1500))  # 802.11a 54 Mbit/s, 1500-byte MSDU


def eq7_tau(p, W, m):
    """Bianchi 2000 eq. (7): tau for infinite retries, W = CWmin+1, m stages."""
    return 2 * (1 - 2 * p) / ((1 - 2 * p) * (W + 1) + p * W * (1 - (2 * p) ** m))


def test_stage_windows():
    assert B.stage_windows(15, 1023, 6) == [16, 32, 64, 128, 256, 512, 1024]
    assert B.stage_windows(31, 1023, 7) == [32, 64, 128, 256, 512, 1024, 1024, 1024]
    assert B.stage_windows(7, 7, 2) == [8, 8, 8]
    with pytest.raises(ValueError):
        B.stage_windows(15, 7, 3)


@pytest.mark.parametrize("p", [0.01, 0.1, 0.3, 0.45, 0.6])
def test_long_retry_limit_reduces_to_bianchi_eq7(p):
    # W = 32, m = 5 (CWmax + 1 = 1024), R -> infinity
    got = B.tau_of_p(p, B.stage_windows(31, 1023, 400))
    assert got == pytest.approx(eq7_tau(p, 32, 5), rel=1e-12)


def test_n1_closed_form_802_11a():
    r = B.saturation(1, T54, 1500, 15, 1023, 6)
    assert r["p"] == 0.0
    assert r["tau"] == pytest.approx(2 / 17, rel=1e-15)
    # T_s = 248 (data) + 16 + 28 (ack) + 34 = 326 us; mean backoff 7.5 slots of 9 us
    assert r["ts_ns"] == 326_000
    assert r["throughput_mbps"] == pytest.approx(12000 / 393.5, rel=1e-12)  # 30.4957


def test_n1_rts_closed_form():
    r = B.saturation(1, T54, 1500, 15, 1023, 6, access="rts")
    # RTS 28 + SIFS + CTS 28 + SIFS + DATA 248 + SIFS + ACK 28 + DIFS 34 = 414 us
    assert r["ts_ns"] == 414_000
    assert r["throughput_mbps"] == pytest.approx(12000 / 481.5, rel=1e-12)


def test_no_doubling_is_closed_form():
    # CWmin == CWmax or a single stage: tau = 2/(W+1) whatever p is.
    for cw_max, R in [(15, 6), (1023, 0)]:
        r = B.saturation(10, T54, 1500, 15, cw_max, R)
        assert r["tau"] == pytest.approx(2 / 17, rel=1e-14)
        assert r["p"] == pytest.approx(1 - (15 / 17) ** 9, abs=1e-11)


@pytest.mark.parametrize("n", [2, 5, 20, 50])
def test_fixed_point_residual_and_independent_iteration(n):
    w = B.stage_windows(15, 1023, 6)
    tau, p = B.solve(n, w)
    assert abs(p - (1 - (1 - B.tau_of_p(p, w)) ** (n - 1))) < 1e-11
    # damped fixed-point iteration converges to the same point
    q = 0.5
    for _ in range(5000):
        q = 0.5 * q + 0.5 * (1 - (1 - B.tau_of_p(q, w)) ** (n - 1))
    assert p == pytest.approx(q, abs=1e-9)


def test_durations_variants():
    ts, tc = B.durations(T54, "basic", "eifs")
    assert (ts, tc) == (326_000, 248_000 + 94_000)
    assert B.durations(T54, "basic", "difs")[1] == 248_000 + 75_000 + 34_000
    assert B.durations(T54, "basic", "classic")[1] == 248_000 + 34_000
    assert B.durations(T54, "rts", "eifs")[1] == 28_000 + 94_000
    assert B.durations(T54, "rts", "difs")[1] == 28_000 + 75_000 + 34_000
    with pytest.raises(ValueError):
        B.durations(T54, "cts-to-self")


def test_monotone_in_n():
    rs = [B.saturation(n, T54, 1500, 15, 1023, 6) for n in range(1, 60)]
    ps = [r["p"] for r in rs]
    taus = [r["tau"] for r in rs]
    assert all(a < b for a, b in zip(ps, ps[1:]))
    assert all(a > b for a, b in zip(taus, taus[1:]))
    # basic access at 54 Mbit/s: throughput peaks at small n then falls
    s = [r["throughput_mbps"] for r in rs]
    peak = s.index(max(s))
    assert peak < 5
    assert all(a > b for a, b in zip(s[peak:], s[peak + 1:]))
    # RTS/CTS loses less to collisions: flatter decline
    r50 = B.saturation(50, T54, 1500, 15, 1023, 6, access="rts")["throughput_mbps"]
    r5 = B.saturation(5, T54, 1500, 15, 1023, 6, access="rts")["throughput_mbps"]
    b50, b5 = s[49], s[4]
    assert (r5 - r50) / r5 < (b5 - b50) / b5


def test_monotone_in_retry_limit_and_window():
    # more attempts -> more time in large windows -> lower tau
    t = [B.solve(20, B.stage_windows(15, 1023, R))[0] for R in range(0, 8)]
    assert all(a > b for a, b in zip(t, t[1:]))
    # larger CWmin -> fewer collisions
    p = [B.solve(20, B.stage_windows(cw, 1023, 6))[1] for cw in (7, 15, 31, 63)]
    assert all(a > b for a, b in zip(p, p[1:]))


def test_throughput_bounded_by_single_station_airtime():
    for n in (1, 2, 10, 50):
        r = B.saturation(n, T54, 1500, 15, 1023, 6)
        assert 0 < r["throughput_mbps"] < 12000 / 326
        assert 0 < r["p_s"] <= 1 and 0 < r["p_tr"] <= 1
        assert math.isclose(r["drop_probability"], r["p"] ** 7)


def test_contenders():
    cfg = {"wlan": {"stations": 5},
           "traffic": [{"pattern": "saturated", "direction": "uplink", "stations": "all",
                        "msdu_bytes": 1500}]}
    assert B.contenders(cfg) == (5, 1500)
    cfg["traffic"].append({"pattern": "saturated", "direction": "downlink", "stations": [0],
                           "msdu_bytes": 1500})
    assert B.contenders(cfg) == (6, 1500)
    cfg["traffic"][1]["msdu_bytes"] = 500
    assert B.contenders(cfg) is None
    cfg["traffic"] = [{"pattern": "cbr", "stations": "all", "msdu_bytes": 1500}]
    assert B.contenders(cfg) is None


def test_from_scenario_uses_core_timing(fake_core):
    cfg = {"scenario": {"name": "x"}, "wlan": {"stations": 10},
           "traffic": [{"name": "sat", "msdu_bytes": 1500}]}
    r = B.from_scenario(cfg)
    # short retry limit 7 = 7 attempts = 6 retransmissions in the model
    ref = B.saturation(10, T54, 1500, 15, 1023, 6)
    assert r["n"] == 10 and r["access"] == "basic"
    assert r["throughput_mbps"] == pytest.approx(ref["throughput_mbps"], rel=1e-12)
    assert r["timing"]["data_ns"] == 248_000

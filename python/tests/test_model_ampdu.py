"""802.11n A-MPDU saturation model: the PPDU time limit, its shape, and ns-3."""

import pytest

from wifitcp.models import ampdu


def test_aggregate_capped_by_ppdu_max_time():
    # 1530-octet MPDUs at MCS 7, 20 MHz, long GI: 28 subframes take 5.332 ms,
    # 29 would take 5.520 ms > aPPDUMaxTime 5.484 ms (ns-3 also sends 28).
    assert ampdu.timing(1)["mpdus_fit"] == 28
    r = ampdu.saturation(1, 64)
    assert r["mpdus_per_ampdu"] == 28
    assert ampdu.saturation(1, 8)["mpdus_per_ampdu"] == 8


def test_one_station_by_hand():
    # n = 1, k = 1: T_s = TXTIME(1530 B) 228 us (36 + 48 symbols) + SIFS 16
    # + ACK at 24 Mbit/s 28 us + AIFS 43 us, plus 7.5 idle slots of 9 us.
    t = ampdu.timing(1)
    assert (t["data_ns"], t["ack_ns"], t["difs_ns"]) == (228_000, 28_000, 43_000)
    s = 1500 * 8 / (228 + 16 + 28 + 43 + 7.5 * 9)
    assert ampdu.saturation(1, 1)["throughput_mbps"] == pytest.approx(s, rel=1e-9)


def test_throughput_grows_with_aggregation_and_falls_with_stations():
    for n in (1, 10, 50):
        s = [ampdu.saturation(n, k)["throughput_mbps"] for k in (1, 8, 16, 64)]
        assert s == sorted(s)
    for k in (1, 64):
        s = [ampdu.saturation(n, k)["throughput_mbps"] for n in (1, 5, 20, 50)]
        assert s == sorted(s, reverse=True)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="mpdus"):
        ampdu.saturation(1, 0)
    with pytest.raises(ValueError, match="n must"):
        ampdu.saturation(0, 8)

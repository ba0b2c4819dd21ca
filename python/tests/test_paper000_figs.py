"""Paper 000's polling figures (docs/validation.md 1.7, 1.8 and 1.11): the scenario
files build the cell they say (the 83-station outdoor cell, n stations in
its near/far mix), polling runs over the HT PHY without aggregation, and the
802.11n pairs that stay refused are one-line errors with exit status 2."""

from __future__ import annotations

import json
import math

import pytest

from conftest import REPO, one_line_error, requires_core
from wifitcp import scenario as S
from wifitcp.cli import main

SCN = REPO / "scenarios"


def _far(p) -> bool:
    return math.hypot(*p) > 5000.0


def test_fig4_takes_n_stations_in_the_cells_mix():
    cell = S.load(SCN / "paper000-hidden.toml").runs()[0].config["wlan"]["positions"]
    scn = S.load(SCN / "paper000-fig4.toml")
    # 3 MACs x 2 directions x 5 station counts x 3 seeds
    assert scn.n_runs == 3 * 2 * 5 * 3
    seen = set()
    for r in scn.runs():
        w = r.config["wlan"]
        n, pos = w["stations"], w["positions"]
        assert len(pos) == n
        near = round(61 * n / 83)
        assert not any(_far(p) for p in pos[:near]) and all(_far(p) for p in pos[near:])
        # the first stations of each kind of the paper000-hidden cell
        assert pos[:near] == cell[:near] and pos[near:] == cell[61:61 + n - near]
        seen.add((n, r.config["mac"]["kind"], r.config["traffic"][0]["direction"]))
    assert len(seen) == 30 and {n for n, _, _ in seen} == {10, 20, 40, 60, 83}


def test_fig3_is_fig4_at_60_and_fig7_8_is_the_whole_cell():
    f3 = S.load(SCN / "paper000-fig3.toml").runs()[0].config
    f4 = [r.config for r in S.load(SCN / "paper000-fig4.toml").runs() if r.config["wlan"]["stations"] == 60][0]
    assert f3["wlan"]["positions"] == f4["wlan"]["positions"]
    assert f3["channel"] == f4["channel"] and f3["phy"] == f4["phy"]
    f78 = S.load(SCN / "paper000-fig7-8.toml").runs()[0].config
    cell = S.load(SCN / "paper000-hidden.toml").runs()[0].config["wlan"]["positions"]
    assert f78["wlan"]["positions"] == cell and sum(map(_far, cell)) == 22
    pingers = [t for t in f78["traffic"] if t.get("pattern") == "ping"][0]["stations"]
    assert [_far(cell[i]) for i in pingers] == [False, True]


def test_figs_9_to_11_poll_over_802_11n_with_the_filter_swept():
    f9 = S.load(SCN / "paper000-fig9.toml")
    assert sorted({len(r.config["traffic"]) for r in f9.runs()}) == [1, 2, 4, 8]
    for name in ("paper000-fig9.toml", "paper000-fig10.toml", "paper000-fig11.toml"):
        for r in S.load(SCN / name).runs():
            c = r.config
            assert c["phy"]["standard"] == "802.11n" and c["mac"]["kind"] in ("pcf", "multipoll")
            assert c["ap"]["beacons"] is True and c["links"][0]["rate_mbps"] == 100.0
    f11 = {r.config["wlan"]["station_qdisc"]["kind"] for r in S.load(SCN / "paper000-fig11.toml").runs()}
    assert f11 == {"drop-tail", "ack-first"}


HT_POLL = """
[scenario]
name = "htpoll"
duration_s = 1.0
[phy]
standard = "802.11n"
ht_mcs = 7
[mac]
kind = "pcf"
[wlan]
stations = 2
[[traffic]]
name = "u"
kind = "udp"
pattern = "saturated"
direction = "uplink"
stations = "all"
msdu_bytes = 1500
"""


@requires_core
@pytest.mark.parametrize("sets,message", [
    (["mac.kind=\"dcf\""], "mac.kind: 802.11n sends QoS Data under the HCF"),
    (["channel.model=\"snr\"", "wlan.distance_m=10.0"], "channel: the channel models judge legacy rates"),
])
def test_refused_802_11n_pairs_are_one_line(real_core, write, capsys, sets, message):
    f = write("s.toml", HT_POLL)
    argv = [a for s in sets for a in ("--set", s)]
    err = one_line_error(capsys, ["validate", f, *argv])
    assert err.startswith(f"error: {f}: {message}"), err
    err = one_line_error(capsys, ["run", f, "--no-store", *argv])
    assert err.startswith(f"error: {f}: {message}"), err


@requires_core
@pytest.mark.parametrize("kind", ["pcf", "multipoll"])
def test_polling_runs_over_the_ht_phy(real_core, write, capsys, kind):
    f = write("s.toml", HT_POLL)
    assert main(["run", f, "--no-store", "--json", "--quiet", "--set", f"mac.kind=\"{kind}\""]) == 0
    out = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("{")]
    r = json.loads(out[-1])
    assert r["effective"]["phy"]["standard"] == "802.11n"
    # MCS 7 (65 Mbit/s), one 1500-byte MPDU per HT PPDU (228 us), no
    # A-MPDU: well below the PHY rate.
    assert 25 < r["aggregate_msdu_mbps"] < 50, r["aggregate_msdu_mbps"]
    assert r["ledger"]["dropped"]["retry_limit"] == 0

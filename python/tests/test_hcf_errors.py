"""802.11n and HCF scenarios: a valid one runs and reports its aggregates; the
bad inputs of the HT and HCF keys (an MCS the stream count cannot carry, a block size over
the BlockAck agreement, a TXOP limit shorter than one frame exchange, No Ack
with RTS/CTS, also per member with ``mac.no_ack_nodes``) are one line ``error: FILE: dotted.key: reason`` with exit status
2, through ``validate`` and ``run``."""

from __future__ import annotations

import json

import pytest

from conftest import one_line_error, requires_core

from wifitcp.cli import main

BASE = """
[scenario]
name = "hcf"
duration_s = 1.0
[phy]
standard = "802.11n"
ht_mcs = 7
[mac]
kind = "edca"
max_mpdus = 16
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


CASES = [
    ("phy.spatial_streams=1", "phy.ht_mcs=15",
     "phy.ht_mcs: MCS 15 needs 2 spatial streams, but phy.spatial_streams = 1"),
    ("phy.channel_width_mhz=40", "phy.ht_mcs=40", "phy.ht_mcs: must be in [0, 31]"),
    ("mac.block_ack_window=8", "mac.max_mpdus=16",
     "mac.max_mpdus: 16 MPDUs exceed the BlockAck agreement's buffer (mac.block_ack_window = 8)"),
    ("mac.txop_limit_us=100", "mac.max_mpdus=16", "mac.txop_limit_us: 100 us is shorter than one frame exchange"),
    ("mac.ack_policy=\"noack\"", "mac.rts_threshold_bytes=500",
     "mac.ack_policy: \"noack\" sends no RTS/CTS"),
    ("mac.kind=\"dcf\"", "mac.max_mpdus=16", "mac.max_mpdus: only for mac.kind \"edca\""),
    ("mac.no_ack_nodes=[\"sta0\"]", "mac.rts_threshold_bytes=500",
     "mac.no_ack_nodes: No Ack frames are sent without RTS/CTS"),
    ("mac.no_ack_nodes=[\"sta5\"]", "mac.max_mpdus=16",
     "mac.no_ack_nodes[0]: \"sta5\" is not a WLAN member"),
]


@requires_core
@pytest.mark.parametrize("first,second,message", CASES)
def test_bad_ht_and_hcf_input_is_one_line(real_core, write, capsys, first, second, message):
    f = write("s.toml", BASE)
    argv = ["--set", first, "--set", second]
    err = one_line_error(capsys, ["validate", f, *argv])
    assert err.startswith(f"error: {f}: {message}"), err
    err = one_line_error(capsys, ["run", f, "--no-store", *argv])
    assert err.startswith(f"error: {f}: {message}"), err


@requires_core
def test_an_ht_cell_runs_and_reports_its_aggregates(real_core, write, capsys):
    f = write("s.toml", BASE)
    assert main(["run", f, "--no-store", "--json", "--quiet"]) == 0
    out = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("{")]
    r = json.loads(out[-1])
    assert r["effective"]["phy"]["standard"] == "802.11n"
    h = r["stations"][1]["hcf"]
    assert 1 < h["mean_mpdus_per_ppdu"] <= 16 and h["block_acks"] > 0
    assert 40 < r["aggregate_msdu_mbps"] < 65

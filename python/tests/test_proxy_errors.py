"""Bad [ap.proxy] settings (crates/pep): a proxy at a node with no wireless
interface, a zero or negative buffer, re-request multipliers out of order,
a key of another kind: one line ``error: FILE: dotted.key: reason``, exit
status 2, through ``validate`` and ``run``."""

from __future__ import annotations

import pytest

from conftest import requires_core

from wifitcp.cli import main

BASE = """
[scenario]
name = "proxy-errors"
duration_s = 1.0
[phy]
standard = "802.11a"
data_rate_mbps = 54.0
[wlan]
stations = 1
[[nodes]]
name = "srv"
[[links]]
a = "ap"
b = "srv"
rate_mbps = 100.0
delay_ms = 1.0
[[traffic]]
name = "d"
kind = "tcp"
direction = "downlink"
peer = "srv"
"""

CASES = [
    ('ap.proxy={kind="dproxy", node="srv"}',
     'ap.proxy.node: "srv" has no wireless interface (a proxy runs at an AP)'),
    ('ap.proxy={kind="dproxy", buffer_packets=0}',
     "ap.proxy.buffer_packets: must be in [1, 1e6] packets, got 0"),
    ('ap.proxy={kind="dproxy", buffer_packets=-3}',
     "ap.proxy.buffer_packets: must be in [1, 1e6] packets, got -3"),
    ('ap.proxy={kind="dproxy", rerequest_multipliers=[2.0, 4.0, 3.0]}',
     "ap.proxy.rerequest_multipliers: must be strictly increasing, got [2.0, 4.0, 3.0]"),
    ('ap.proxy={kind="snoop", relay_buffer_bytes=1000}',
     'ap.proxy.relay_buffer_bytes: unknown key for kind "snoop"'),
]


@requires_core
@pytest.mark.parametrize("setting,message", CASES)
def test_bad_proxy_settings_are_one_line_errors(real_core, write, capsys, setting, message):
    f = write("s.toml", BASE)
    for argv in (["validate", f, "--set", setting], ["run", f, "--no-store", "--set", setting]):
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.strip().startswith(f"error: {f}: {message}"), err

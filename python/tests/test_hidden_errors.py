"""Bad hidden-node and power-control settings (crates/wifi/src/medium/sense.rs,
crates/wifi/src/channel/power.rs): a carrier-sense threshold without station
positions, a power cap or cost at or below zero, a coverage class out of
range: one line ``error: FILE: dotted.key: reason``, exit status 2, through
``validate`` and ``run``."""

from __future__ import annotations

import pytest

from conftest import requires_core

from wifitcp.cli import main

BASE = """
[scenario]
name = "hidden-errors"
duration_s = 0.5
[phy]
standard = "802.11a"
data_rate_mbps = 6.0
[wlan]
stations = 2
{positions}
[channel]
model = "snr"
cs_threshold_dbm = -82.0
[[traffic]]
name = "up"
kind = "udp"
pattern = "saturated"
direction = "uplink"
stations = "all"
"""

POS = "positions = [[40.0, 0.0], [-40.0, 0.0]]"

CASES = [
    ("", None, "wlan.distance_m: an SNR or threshold channel needs station positions"),
    (POS, 'channel.power_control="game"', None),
    (POS, "channel.power_max_w=0.0", "channel.power_max_w: must be"),
    (POS, "channel.power_max_w=-1.0", "channel.power_max_w: must be"),
    (POS, "channel.power_cost_per_w=0.0", "channel.power_cost_per_w: must be"),
    (POS, 'channel.sta_antenna="dish"', "channel.sta_antenna: unknown variant `dish`, expected one of `omni`, `toward_ap`, `beam`"),
    (POS, 'channel.power_control="max"', "channel.power_control: unknown variant `max`, expected `none` or `game`"),
    ("positions = [[40.0, 0.0, 1.0], [-40.0, 0.0]]", None,
     "wlan.positions[0]: expected 2 numbers ([x, y] in metres), got 3"),
    (POS, "phy.coverage_class=32", "phy.coverage_class: must be"),
]


@requires_core
@pytest.mark.parametrize("positions,setting,message", CASES)
def test_bad_hidden_node_settings_are_one_line_errors(real_core, write, capsys, positions, setting, message):
    f = write("s.toml", BASE.format(positions=positions))
    extra = ["--set", setting] if setting else []
    for argv in (["validate", f, *extra], ["run", f, "--no-store", *extra]):
        rc = main(argv)
        err = capsys.readouterr().err
        if message is None:
            assert rc == 0, err
            continue
        assert rc == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.strip().startswith(f"error: {f}: {message}"), err

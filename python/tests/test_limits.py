"""Values at and beyond the documented limits: every one the core cannot
run is one line ``error: FILE: dotted.key: reason`` with exit status 2,
never a panic, a traceback, a run that does not end, or a MemoryError."""

from __future__ import annotations

import pytest

from conftest import one_line_error, requires_core

from wifitcp import scenario as scn_mod

BASE = """
[scenario]
name = "limits"
duration_s = 1.0
[phy]
standard = "802.11b"
data_rate_mbps = 11.0
[wlan]
stations = 2
[[nodes]]
name = "srv"
[[links]]
a = "ap"
b = "srv"
rate_mbps = 100.0
delay_ms = 1.0
[[traffic]]
name = "u"
kind = "udp"
pattern = "cbr"
rate_mbps = 1.0
"""


CASES = [
    # (--set, expected message after "error: FILE: ")
    ("links[0].rate_mbps=1e-300", "links[0].rate_mbps: must be in [1e-3, 1e6] Mbit/s, got 1e-300"),
    ("traffic[0].rate_mbps=2.5e7", "traffic[0].rate_mbps: must be in (0, 1e4] Mbit/s, got 25000000.0"),
    ("ap.qdisc={kind=\"airtime\", quantum_us=1e300}",
     "ap.qdisc.quantum_us: must be in [1, 1e6] us, got 1e+300"),
    ("links[0].rate_mbps=nan", "links[0].rate_mbps: NaN is not a number; give a finite value"),
    ("wlan.per_uplink=inf", "wlan.per_uplink: inf is not finite; give a finite value"),
    ("scenario.duration_s=-inf", "scenario.duration_s: -inf is not finite; give a finite value"),
    ("ap.qdisc={kind=\"codel\", targte_ms=5}",
     "ap.qdisc.targte_ms: unknown key for kind \"codel\" (expected kind, target_ms, interval_ms, ecn)"),
    ("mac.queue_packets=0", "mac.queue_packets: must be in [1, 1e6] packets, got 0"),
]


@requires_core
@pytest.mark.parametrize("setting,message", CASES)
def test_values_the_core_cannot_run_are_one_line_errors(real_core, write, capsys,
                                                        setting, message):
    f = write("s.toml", BASE)
    err = one_line_error(capsys, ["validate", f, "--set", setting])
    assert err.startswith(f"error: {f}: {message}"), err
    # the same through `run`, before anything runs
    err = one_line_error(capsys, ["run", f, "--no-store", "--set", setting])
    assert err.startswith(f"error: {f}: {message}"), err


def test_deep_nesting_is_an_error_naming_the_key(fake_core, write, capsys):
    for depth in (40, 1000, 100_000):
        f = write("deep.toml", BASE + "[wlan.extra]\nx = " + "[" * depth + "]" * depth + "\n")
        err = one_line_error(capsys, ["validate", f])
        assert err.startswith(f"error: {f}: wlan.extra.x"), err
        assert "nested" in err and f"at most {scn_mod.MAX_DEPTH}" in err, err


def test_huge_seed_lists_and_sweeps_are_errors_not_memory_errors(fake_core, write, capsys):
    f = write("s.toml", BASE)
    err = one_line_error(capsys, ["validate", f, "--seeds", "1..1000000000"])
    assert err == ("error: --seeds: range 1..1000000000 has 1000000000 values, "
                   f"more than a campaign may run ({scn_mod.MAX_VALUES})")
    err = one_line_error(capsys, ["validate", f, "--sweep", "wlan.stations=1..1000000000"])
    assert err.startswith("error: --sweep: range 1..1000000000 has 1000000000 values"), err
    # each list small, the product too large
    err = one_line_error(capsys, ["validate", f, "--sweep", "wlan.stations=1..1000",
                                  "--seeds", "1..1000"])
    assert err == (f"error: {f}: sweep: 1000 x 1000 seeds = 1000000 runs, more than a "
                   f"campaign may expand to ({scn_mod.MAX_RUNS}); split the sweep"), err
    # the limit itself is accepted
    scn = scn_mod.load(f, sets=scn_mod.sweep_sets(["wlan.stations=1..100"], "1..1000"))
    assert scn.n_runs == scn_mod.MAX_RUNS


SWEPT = BASE + """
[sweep]
"wlan.stations" = [1, 2]
[[sweep.cases]]
"ap.qdisc.kind" = "drop-tail"
[[sweep.cases]]
"ap.qdisc.kind" = "codel"
"""


@requires_core
def test_a_bad_set_is_blamed_on_the_set_not_on_the_sweep(real_core, write, capsys):
    f = write("s.toml", SWEPT)
    # wrong for every case
    err = one_line_error(capsys, ["validate", f, "--set", "ap.qdisc.target=5"])
    assert err == (f"error: {f}: ap.qdisc.target: unknown key: kind \"drop-tail\" takes no "
                   "other keys (from --set ap.qdisc.target=5)"), err
    # wrong for some cases: the set and the sweep point are named
    err = one_line_error(capsys, ["validate", f, "--set", "ap.qdisc.target_ms=5"])
    assert err.startswith(f"error: {f}: ap.qdisc.target_ms: unknown key: kind \"drop-tail\" "
                          "takes no other keys (from --set ap.qdisc.target_ms=5, with "
                          "wlan.stations=1 ap.qdisc.kind=drop-tail)"), err
    # a bad value the sweep itself sets is still the sweep's
    bad = SWEPT.replace('"ap.qdisc.kind" = "codel"', '"ap.qdisc.kind" = "codle"')
    f = write("b.toml", bad)
    err = one_line_error(capsys, ["validate", f])
    assert err.startswith(f'error: {f}: sweep.cases[1]."ap.qdisc.kind": '), err

"""wifitcp.Network: one run stepped from Python, with packet callbacks."""

import json

import pytest

import wifitcp
from wifitcp import core

pytestmark = pytest.mark.sim

DOC = {
    "scenario": {"name": "net", "duration_s": 1.0},
    "phy": {"standard": "802.11a", "data_rate_mbps": 54},
    "wlan": {"stations": 2},
    "nodes": [{"name": "server"}],
    "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 2}],
    "traffic": [{"name": "up", "kind": "udp", "pattern": "cbr", "rate_mbps": 1.0, "peer": "server"}],
}


def strip(r):
    r = dict(r)
    r.pop("wall_time_s", None)
    return json.dumps(r, sort_keys=True)


def test_stepping_gives_the_same_result_as_run():
    whole = core.run(DOC, 3)
    net = wifitcp.Network(DOC, seed=3)
    t = 0.0
    while net.next_wakeup is not None:
        t += 0.0937
        net.step_until(t)
        assert net.now <= t
    assert strip(net.finish()) == strip(whole)


def test_callbacks_see_packets_and_may_drop_them():
    net = wifitcp.Network(DOC, seed=1)
    seen = []

    def cb(t, node, local, p):
        seen.append((t, local, p["proto"], p["size"]))
        return "drop" if p["id"] % 2 == 0 else None

    net.on_packet("ap", cb)
    net.step_until(0.5)
    assert seen and all(not local and proto == "udp" and size == 1492 for _, local, proto, size in seen)
    assert [x[0] for x in seen] == sorted(x[0] for x in seen)
    r = net.finish()
    assert 0 < r["ledger"]["dropped"]["proxy"] < len(seen)


def test_callback_errors_surface_at_the_step():
    net = wifitcp.Network(DOC, seed=1)
    net.on_packet("ap", lambda t, node, local, p: "explode")
    with pytest.raises(ValueError, match="expected None, 'pass', 'drop' or 'consume'"):
        net.step_until(0.2)


def test_bad_input():
    with pytest.raises(wifitcp.InputError):
        wifitcp.Network({**DOC, "wlan": {"stations": -1}})
    net = wifitcp.Network(DOC)
    with pytest.raises(ValueError, match="no node named"):
        net.on_packet("nowhere", print)
    with pytest.raises(ValueError, match="run: the scenario has 1 runs"):
        wifitcp.Network(DOC, run=3)
    net.finish()
    with pytest.raises(RuntimeError, match="finished"):
        net.step_until(0.1)


def test_finish_runs_on_to_the_end():
    whole = core.run(DOC, 2)
    net = wifitcp.Network(DOC, seed=2)
    net.step_until(0.25)
    assert strip(net.finish()) == strip(whole)


def test_live_state_of_queues_macs_and_tcp():
    """A TCP download stepped in halves: the state reports each member's
    queue and MAC counters and the sender's window, RTT and bytes in flight;
    its counters grow between two steps, match the result at the end, and
    asking for the state leaves the result unchanged."""
    doc = dict(DOC, traffic=[{"name": "down", "kind": "tcp", "direction": "downlink", "stations": [0],
                              "peer": "server"}])
    whole = core.run(doc, 2)
    net = wifitcp.Network(doc, seed=2)
    net.step_until(0.5)
    s = net.state()
    assert s["time_s"] == pytest.approx(net.now)
    assert [x["name"] for x in s["stations"]] == ["ap", "sta0", "sta1"]
    (t,) = s["tcp"]
    assert t["flow"].startswith("down") and t["sender"] == "server" and t["state"] == "Established"
    assert t["cwnd_bytes"] > 0 and t["srtt_ms"] > 4.0 and t["in_flight_bytes"] >= 0
    ap = s["stations"][0]
    assert ap["attempts"] > 0 and ap["successes"] > 0 and s["stations"][2]["attempts"] == 0
    assert net.stations().height == 3 and net.tcp()["cwnd_bytes"][0] == t["cwnd_bytes"]
    net.step_until(1.0)
    later = net.state()
    assert later["stations"][0]["successes"] > ap["successes"]
    r = net.finish()
    for got, want in zip(later["stations"], r["stations"]):
        assert (got["name"], got["attempts"], got["successes"]) == \
            (want["name"], want["attempts"], want["successes"])
    assert strip(r) == strip(whole)


def test_live_state_reports_where_moving_stations_are():
    """A station walking along x at 10 m/s from x = 5 m: its position in the
    live state follows the walk; the AP stands at the origin; without a
    channel with positions every position is None."""
    doc = dict(DOC, channel={"model": "snr"},
               wlan={"stations": 1, "positions": [[5.0, 0.0]],
                     "mobility": [{"stations": [0], "model": "waypoints",
                                   "waypoints": [[0.0, 5.0, 0.0], [1.0, 15.0, 0.0]]}]})
    net = wifitcp.Network(doc, seed=1)
    net.step_until(0.5)
    s = net.state()
    ap, sta = s["stations"]
    assert ap["position_m"][:2] == [0.0, 0.0]
    assert sta["position_m"][0] == pytest.approx(5.0 + 10.0 * s["time_s"], abs=1e-6)
    net.step_until(0.8)
    later = net.state()
    assert later["time_s"] > 0.7
    assert later["stations"][1]["position_m"][0] == pytest.approx(5.0 + 10.0 * later["time_s"], abs=1e-6)
    assert strip(net.finish()) == strip(core.run(doc, 1)), "asking for positions changed the run"
    plain = wifitcp.Network(DOC, seed=1)
    plain.step_until(0.1)
    assert all(x["position_m"] is None for x in plain.state()["stations"])


def test_a_network_shows_its_live_state_as_html():
    doc = dict(DOC, traffic=[{"name": "down", "kind": "tcp", "direction": "downlink", "stations": [0],
                              "peer": "server"}])
    net = wifitcp.Network(doc, seed=2)
    net.step_until(0.5)
    html = net._repr_html_()
    assert html.startswith(f"<p>wifitcp.Network at t = {net.now:.6f} s of 1 s</p>") and html.count("<table>") == 2
    assert "<td>sta1</td>" in html and "<th>cwnd_bytes</th>" in html and "<td>Established</td>" in html

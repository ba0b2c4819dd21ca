"""Paper 004's upload-download unfairness at campus scale
(`wifitcp.repro.p004_pokhrel`'s ``campus`` part, docs/validation.md 24.5):
per-AP and campus-wide statistics and the claims' verdicts from small
hand-made runs (no simulation), and the scenario's layout that the
statistics assume."""

from __future__ import annotations

import math
import tomllib

from conftest import REPO
from wifitcp.repro import p004_pokhrel as P

QDISCS = {  # the sweep cases of pokhrel-campus.toml, by `qdisc_label`
    "drop-tail": {"ap.qdisc.kind": "drop-tail"},
    "vbs-above-target": {"ap.qdisc.kind": "vbs", "ap.qdisc.update": "above-target"},
    "vbs-above-target/delivered/w20000": {"ap.qdisc.kind": "vbs", "ap.qdisc.update": "above-target",
                                          "ap.qdisc.measure": "delivered", "ap.qdisc.window": 20000},
}
CHANNELS = {"one AP": [36], "own channels": [36, 40, 44, 48], "one channel": [1, 1, 1, 1]}


def run(layout: str, qdisc: str, per_ap: list, seed: int = 1, summarised: bool = False) -> dict:
    """A run as the campaign (or bench/campus-updown) records it: AP k has
    stations 10k..10k+9, the first five upload; ``per_ap[k]`` = (Mbit/s of
    each upload, of each download)."""
    key = "goodput" if summarised else "goodput_mbps"
    flows = []
    for k, (u, d) in enumerate(per_ap):
        flows += [{"name": f"up/sta{10 * k + i}", key: u} for i in range(5)]
        flows += [{"name": f"down/sta{10 * k + i}", key: d} for i in range(5, 10)]
    return {"params": {"wlan.ap_channels": CHANNELS[layout], **QDISCS[qdisc]}, "seed": seed, "flows": flows}


def campaign(delivered_one_channel: list) -> list:
    """Drop-tail: the downloads starve; VBS (services): 4.8 times; VBS
    (delivered): fair on one AP and own channels, ``delivered_one_channel``
    per AP on one channel."""
    per = {"drop-tail": (1.3, 0.004), "vbs-above-target": (1.07, 0.22),
           "vbs-above-target/delivered/w20000": (0.58, 0.53)}
    out = []
    for lay in CHANNELS:
        for q, (u, d) in per.items():
            n = len(CHANNELS[lay])
            if lay == "one channel":
                u, d = u / 4, d / 4
                aps = delivered_one_channel if q.endswith("w20000") else [(u, d)] * n
            else:
                aps = [(u, d)] * n
            out += [run(lay, q, aps, seed=s) for s in (1, 2)]
    return out


def verdicts(runs: list) -> list:
    return [c.verdict for c in P.campus_claims(P.campus_agg(runs), "cmd", "where")]


def test_per_ap_and_campus_statistics():
    r = run("own channels", "drop-tail", [(1.0, 0.5), (1.0, 0.0), (0.5, 0.5), (0.2, 0.8)])
    s = P.campus_run_stats(r)
    assert [a["up"] for a in s["aps"]] == [5.0, 5.0, 2.5, 1.0]
    assert [a["down"] for a in s["aps"]] == [2.5, 0.0, 2.5, 4.0]
    assert s["aps"][0]["ratio"] == 2.0 and math.isinf(s["aps"][1]["ratio"])
    assert s["aps"][2]["jain"] == 1.0 and abs(s["aps"][1]["jain"] - 0.5) < 1e-12
    assert math.isclose(s["up"], 13.5) and math.isclose(s["down"], 9.0) and math.isclose(s["ratio"], 1.5)
    # the association, when the record has one, decides the AP
    r["association"] = [k % 2 for k in range(40)]
    assert len(P.campus_run_stats(r)["aps"]) == 2
    # summarised records (`common.summarise`) carry "goodput"
    r2 = run("one AP", "drop-tail", [(1.0, 0.5)], summarised=True)
    assert P.campus_run_stats(r2)["ratio"] == 2.0
    assert [P.campus_layout(run(x, "drop-tail", [(1, 1)])) for x in CHANNELS] == list(CHANNELS)
    assert P.campus_layout({"params": {}}) == "one AP"  # pokhrel-updown.toml's runs


def test_aggregate_over_seeds_and_the_table():
    runs = campaign([(0.58 / 4, 0.53 / 4)] * 4)
    agg = P.campus_agg(runs)
    a = agg[("own channels", "vbs-above-target")]
    assert a["aps"] == 4 and a["seeds"] == 2
    assert abs(a["up"] - 4 * 5 * 1.07) < 1e-9 and abs(a["ratio"] - 1.07 / 0.22) < 1e-9
    assert math.isinf(agg[("one AP", "drop-tail")]["ratio"])
    txt, _ = P.campus_report(runs)
    rows = [x for x in txt.splitlines() if x.startswith("| one") or x.startswith("| own")]
    assert len(rows) == 9 and "> 100" in rows[0]


def test_claims_verdicts():
    fair = [(0.58 / 4, 0.53 / 4)] * 4
    assert verdicts(campaign(fair)) == ["holds", "partial", "holds"]
    # one AP of four unfair on the shared channel: fair over the campus only
    uneven = [(0.2, 0.1), (0.1, 0.15), (0.15, 0.15), (0.15, 0.15)]
    v = P.campus_claims(P.campus_agg(campaign(uneven)), "cmd", "where")
    assert [c.verdict for c in v] == ["holds", "partial", "partial"]
    assert v[2].cause and "24.5" == v[2].validation
    # the uploads well ahead over the whole campus: differs
    assert verdicts(campaign([(0.3, 0.1)] * 4))[2] == "differs"
    # without the one-channel runs nothing can hold
    runs = [r for r in campaign(fair) if r["params"]["wlan.ap_channels"] != [1, 1, 1, 1]]
    assert verdicts(runs) == ["differs", "differs", "differs"]


def test_scenario_layout_is_what_the_statistics_assume():
    doc = tomllib.loads((REPO / "scenarios" / "pokhrel-campus.toml").read_text())
    w = doc["wlan"]
    assert w["aps"] == 4 and w["stations"] == 40
    assert w["association"] == [i // 10 for i in range(40)]  # campus_run_stats' fallback
    up, down = (t["stations"] for t in doc["traffic"])
    assert up == [i for i in range(40) if i % 10 < 5] and down == [i for i in range(40) if i % 10 >= 5]
    ups, downs = (c["stations"] for c in doc["channel"]["classes"])
    assert ups == [f"sta{i}" for i in up] and downs == [f"sta{i}" for i in down]
    assert [lk["a"] for lk in doc["links"]] == ["ap", "ap1", "ap2", "ap3"]
    assert doc["sweep"]["wlan.ap_channels"] == [CHANNELS["own channels"], CHANNELS["one channel"]]
    labels = [P.qdisc_label({k: v for k, v in c.items()}) for c in doc["sweep"]["cases"]]
    assert labels == P.CAMPUS_QDISCS == list(QDISCS)

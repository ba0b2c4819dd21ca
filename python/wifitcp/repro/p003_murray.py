"""Murray, Koziniec & Dixon, *Solving Ack Inefficiencies in 802.11 Networks*
(paper 003, ``../shared/seeds/003_e84a4e0e3c456d54.txt``): NoAck 802.11,
802.11e BlockAck and performance-enhancing proxies.

* Section II.B (``noack``): acknowledged against NoAck 802.11 on one
  802.11a 54 Mbit/s link, saturated UDP and one TCP flow (paper: 27.4
  against 33.5 Mbit/s, ACK overhead 22 %; ``scenarios/murray-noack.toml``).
* Section II.A (``blockack``): 802.11e immediate BlockAck with blocks of
  1-64 frames against the DCF, and the delay a block imposes on another
  station's ping (paper, quoting Cabral et al.: about 10 % for bulk
  transfers, blocks of 12-16 frames when delay matters;
  ``scenarios/murray-ba.toml``).
* Figs. 6-7 (``proxies``): five TCP flows each downloading 144 MB over a
  reliable and an unreliable link, standard and NoAck 802.11, without a
  proxy and with Snoop, I-TCP and D-Proxy at the AP, wired RTT 0.1-100 ms
  (paper: D-Proxy with NoAck about 21.5 % above standard 802.11; TCP over
  NoAck collapses as the RTT grows; ``scenarios/murray_reliable.toml``,
  ``scenarios/murray_unreliable.toml``), and the unreliable link with
  standard 802.11 and one transmission per frame (NoAck's loss behaviour
  without its airtime saving).

Reproduce::

    python -m wifitcp.repro.p003_murray [--only noack,blockack,proxies] [--quick] [--jobs 2]
                                        [--store] [--cache DIR]

prints one Markdown table per section or figure (per configuration, mean
over seeds; for Figs. 6-7 the aggregate goodput of the five transfers,
bytes over the last completion, by proxy). ``--quick`` runs one seed and,
for Figs. 6-7, a tenth of the file. The full Figs. 6-7 campaign is 400 runs
of up to 600 simulated seconds. docs/validation.md sections 20 (NoAck), 28
(BlockAck) and 22 (proxies) compare with the paper; ``wifitcp plot ...
--y tcp.completion_s --cdf`` draws the completion-time CDFs (section 22.2).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

from .common import parse_args, config_table, fmt, group, mean, run_scenario, summarise, table, transfer_mbps

PAPER = "Murray, Koziniec & Dixon, Solving Ack Inefficiencies in 802.11 Networks (paper 003)"
#: part -> the scenario files it runs (``--only`` names parts)
PARTS = {
    "noack": ["murray-noack"],
    "blockack": ["murray-ba"],
    "proxies": ["murray_reliable", "murray_unreliable"],
}
SCENARIOS = [s for names in PARTS.values() for s in names]
PROXIES = ["none", "snoop", "itcp", "dproxy"]
PROXY_LABEL = {"none": "none", "snoop": "Snoop", "itcp": "I-TCP", "dproxy": "D-Proxy"}

CLAIMS = {
    "murray-noack": ("section II.B: acknowledged against NoAck 802.11, 802.11a 54 Mbit/s",
                     "27.4 Mbit/s acknowledged, 33.5 Mbit/s NoAck: the ACKs cost 22 %."),
    "murray-ba": ("section II.A: 802.11e immediate BlockAck against the DCF, blocks of k frames",
                  "about 10 % for bulk transfers with large packets; blocks of 12-16 frames "
                  "when delay matters."),
}


def section_report(name: str, runs: list) -> str:
    what, claim = CLAIMS[name]
    seeds = sorted({r["seed"] for r in runs})
    return (f"### Murray, Koziniec & Dixon {what} (scenarios/{name}.toml, seeds {seeds})\n\n"
            f"Paper: {claim}\n\n" + config_table(runs))


def proxy_table(runs: list, title: str) -> str:
    """Figs. 6-7: per MAC and wired RTT, the five transfers' bytes over the
    last completion (Mbit/s, mean over the seeds where every transfer
    completed; in brackets how many did) for each proxy."""
    g = group(runs, lambda r: (r["params"].get("mac.ack_policy", "normal"),
                               r["params"].get("links[0].delay_ms"),
                               r["params"].get("ap.proxy.kind", "none")))
    keys = sorted({k[:2] for k in g}, key=lambda k: (k[0] != "normal", k[1] or 0.0))
    rows = []
    for ack, delay in keys:
        row = [ack, "-" if delay is None else f"{2 * delay:g}"]
        for px in PROXIES:
            rs = g.get((ack, delay, px), [])
            done = [transfer_mbps(r) for r in rs if r["completion"] is not None]
            row.append(f"{fmt(mean(done))} ({len(done)}/{len(rs)})" if rs else "-")
        rows.append(row)
    return (f"### Murray, Koziniec & Dixon {title}\n\n"
            "Paper: D-Proxy with NoAck about 21.5 % above standard 802.11 without a proxy; TCP over"
            " NoAck without a proxy collapses as the RTT grows. Aggregate goodput of the five"
            " transfers, bytes over the last completion (Mbit/s; runs where all five completed /"
            " runs).\n\n"
            + table(["MAC ACK policy", "wired RTT (ms)"] + [PROXY_LABEL[p] for p in PROXIES], rows))


def main(argv: Optional[list] = None) -> int:
    a, want = parse_args("p003_murray", __doc__, PARTS, argv, quick_help="one seed (and 14.4 MB transfers for Figs. 6-7): a smoke test")
    seeds = ["scenario.seeds=[1]"] if a.quick else []
    kw = dict(jobs=a.jobs, cache=Path(a.cache) if a.cache else None, reduce=summarise)
    t0 = time.monotonic()
    for part in ("noack", "blockack"):
        if part in want:
            name = PARTS[part][0]
            print(section_report(name, run_scenario(name, sets=seeds, store=a.store, **kw)) + "\n",
                  flush=True)
    if "proxies" in want:
        small = ["traffic[0].bytes=14400000"] if a.quick else []
        for name, fig in (("murray_reliable", "Fig. 6, reliable link"),
                          ("murray_unreliable", "Fig. 7, unreliable link")):
            runs = run_scenario(name, sets=seeds + small, store=a.store, **kw)
            print(proxy_table(runs, fig) + "\n", flush=True)
        one = ['sweep.mac.ack_policy=["normal"]', "mac.short_retry_limit=1", "mac.long_retry_limit=1"]
        runs = run_scenario("murray_unreliable", sets=seeds + small + one, **kw)
        print(proxy_table(runs, "Fig. 7's link, standard 802.11 with one transmission per frame "
                                "(retry limits 1)") + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the claims beside the paper (``wifitcp report``) ---------------------------

def _agg(runs: list, **want) -> float:
    """Mean total goodput over the runs whose params match ``want`` (keys
    with dots written with double underscores)."""
    rs = [r for r in runs if all(r["params"].get(k.replace("__", "."), None) == v
                                 for k, v in want.items())]
    return mean(r["agg"] for r in rs)


def proxy_goodput(runs: list) -> dict:
    """(MAC ACK policy, one-way wired delay ms, proxy) -> mean over the runs
    where all five transfers completed of their bytes over the last
    completion (Mbit/s; the cells of `proxy_table`)."""
    g = group(runs, lambda r: (r["params"].get("mac.ack_policy", "normal"),
                               r["params"].get("links[0].delay_ms"),
                               r["params"].get("ap.proxy.kind", "none")))
    return {k: mean(transfer_mbps(r) for r in rs if r["completion"] is not None) for k, rs in g.items()}


def claims(full: bool = False, jobs: int = 2, cache: Optional[Path] = None):
    """The paper's claims beside this module's runs (`claims.PaperClaims`):
    sections II.A-B always; Figs. 6-7 (the proxies) on the reliable link,
    with 14.4 MB transfers and one seed unless ``full``."""
    from .claims import Claim, PaperClaims, pct, quick_sets, verdict, within

    cmd = f"python -m {__name__}" + ("" if full else " --quick")
    seeds = quick_sets(full)
    how = "scenario's seeds" if full else "seed 1"
    kw = dict(jobs=jobs, cache=cache, reduce=summarise)
    out = PaperClaims("003", PAPER, __name__, cmd)
    noack = run_scenario("murray-noack", sets=seeds, **kw)
    out.tables.append(section_report("murray-noack", noack))
    udp_na = _agg(noack, mac__ack_policy="noack", **{"traffic[0]__kind": "udp"})
    udp_n = _agg(noack, mac__ack_policy="normal", **{"traffic[0]__kind": "udp"})
    runs = f"scenarios/murray-noack.toml, {how}"
    v, c = verdict(within(udp_na, 33.5 * 0.97, 33.5 * 1.03), within(udp_na, 33.5 * 0.85, 33.5 * 1.15),
                   "the simulated PHY's airtime per frame differs from the testbed's")
    out.claims.append(Claim("003", "No Ack throughput on one 802.11a 54 Mbit/s link (UDP)", "33.5 Mbit/s",
                            f"{udp_na:.2f} Mbit/s", v, c, f"{cmd} --only noack", runs, "4.1"))
    over = pct(udp_na, udp_n)
    v, c = verdict(within(udp_n, 27.4 * 0.97, 27.4 * 1.03), within(udp_n, 27.4 * 0.85, 27.4 * 1.15),
                   "the ACK at the 24 Mbit/s control-response rate costs 44 us of 393.5")
    out.claims.append(Claim("003", "Acknowledged 802.11a link and the ACK overhead (UDP)",
                            "27.4 Mbit/s, No Ack +22 %", f"{udp_n:.2f} Mbit/s, No Ack {over:+.1f} %", v, c,
                            f"{cmd} --only noack", runs, "4.1"))
    ba = run_scenario("murray-ba", sets=seeds, **kw)
    out.tables.append(section_report("murray-ba", ba))
    dcf = _agg(ba, **{"traffic[0]__kind": "udp", "mac__kind": "dcf"})
    b16 = _agg(ba, **{"traffic[0]__kind": "udp", "mac__kind": "edca", "mac__max_mpdus": 16})
    gain = pct(b16, dcf)
    v, c = verdict(within(gain, 5.0, 15.0), within(gain, 0.0, 20.0),
                   "at 54 Mbit/s a block removes 145.5 of 393.5 us of overhead per frame")
    out.claims.append(Claim("003", "802.11e BlockAck gains about 10 % for bulk transfers (UDP, blocks of 16)",
                            "about +10 % (Cabral et al.)", f"{gain:+.1f} % ({b16:.2f} against {dcf:.2f} Mbit/s)",
                            v, c, f"{cmd} --only blockack", f"scenarios/murray-ba.toml, {how}", "4.2"))
    small = [] if full else ["traffic[0].bytes=14400000"]
    rel = run_scenario("murray_reliable", sets=seeds + small, **kw)
    out.tables.append(proxy_table(rel, "Fig. 6, reliable link" + ("" if full else " (14.4 MB transfers)")))
    g = proxy_goodput(rel)
    delays = sorted({k[1] for k in g if k[1] is not None})
    gains = [pct(g[("noack", d, "dproxy")], g[("normal", d, "none")]) for d in delays
             if ("noack", d, "dproxy") in g and ("normal", d, "none") in g]
    runs = f"scenarios/murray_reliable.toml, {how}" + ("" if full else ", 14.4 MB transfers")
    lo, hi = (min(gains), max(gains)) if gains else (float("nan"), float("nan"))
    v, c = verdict(within(lo, 15.0, 30.0) and within(hi, 15.0, 30.0), lo > 0,
                   "it follows No Ack's smaller airtime saving here (12.6 % against 22 %)")
    out.claims.append(Claim("003", "D-Proxy with No Ack above standard 802.11 without a proxy (Fig. 6)",
                            "+21.5 %", f"{lo:+.1f} % to {hi:+.1f} % over wired RTTs "
                            f"{2 * delays[0]:g}-{2 * delays[-1]:g} ms", v, c, f"{cmd} --only proxies",
                            runs, "4.3.2"))
    first, last = g.get(("noack", delays[0], "none")), g.get(("noack", delays[-1], "none"))
    v, c = verdict(first > 2 * last, first > last,
                   "data/TCP-ACK collisions are lost for good; worst at the shortest RTT")
    out.claims.append(Claim("003", "TCP over No Ack without a proxy collapses as the RTT grows (Fig. 6)",
                            "direction: a few Mbit/s with latency", f"{first:.2f} -> {last:.2f} Mbit/s from "
                            f"{2 * delays[0]:g} to {2 * delays[-1]:g} ms", v, c, f"{cmd} --only proxies",
                            runs, "4.3.2"))
    return out

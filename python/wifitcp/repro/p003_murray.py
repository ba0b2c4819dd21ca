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

"""802.11n saturation throughput with A-MPDU aggregation and immediate BlockAck.

Bianchi's model (``wifitcp.models.bianchi``) with an aggregate as the frame:
``n`` saturated EDCA best-effort stations (AIFSN 3, CWmin 15, CWmax 1023,
IEEE 802.11-2020 Table 9-155) each send A-MPDUs of ``k`` MPDUs, where ``k``
is the configured aggregate size capped by what fits in aPPDUMaxTime (5.484
ms, Table 19-25). A collision destroys the whole A-MPDU; a success delivers
all ``k`` MPDUs (no channel errors). Durations come from the simulator's
own HT PHY tables (``_core.ht_ampdu_timing``)::

    T_s = TXTIME(A-MPDU) + SIFS + BlockAck + AIFS
    T_c = TXTIME(A-MPDU) + AIFS            (collision="classic", default)
    T_c = TXTIME(A-MPDU) + EIFS            (collision="eifs")

with ``k = 1`` sent as a single MPDU answered by a normal ACK. The default
collision duration follows the standard as the simulator and ns-3 model it:
stations that pick the same slot destroy each other's PLCP headers, so the
bystanders see energy only and defer AIFS, not EIFS, after it (10.3.2.3.7;
``docs/validation.md`` section 6, where the same choice brings Bianchi's
model within 2.3 % of the simulated standard DCF). The BlockAck
(32 octets) and ACK go at 24 Mbit/s; AIFS replaces DIFS and EIFS is
``SIFS + ACK at 6 Mbit/s + AIFS`` (10.3.2.3.7). Throughput counts MSDU bits.
"""

from __future__ import annotations

import json
from typing import Optional

from . import bianchi

QOS_HEADER_BYTES = 26
FCS_BYTES = 4


def timing(mpdus: int, mcs: int = 7, width_mhz: int = 20, short_gi: bool = False,
           band_ghz: float = 5.0, msdu_bytes: int = 1500) -> dict:
    """The exchange's durations in ns and ``mpdus_fit``, from the core."""
    from .. import _core

    if mpdus < 1 or mpdus > 64:
        raise ValueError("mpdus must be in 1..64")
    if msdu_bytes < 1:
        raise ValueError("msdu_bytes must be at least 1")
    req = {"mcs": mcs, "width_mhz": width_mhz, "short_gi": short_gi, "band_ghz": band_ghz,
           "mpdu_bytes": QOS_HEADER_BYTES + msdu_bytes + FCS_BYTES, "mpdus": mpdus}
    return json.loads(_core.ht_ampdu_timing(json.dumps(req)))


def saturation(n: int, mpdus: int, mcs: int = 7, width_mhz: int = 20, short_gi: bool = False,
               band_ghz: float = 5.0, msdu_bytes: int = 1500, retry_limit: int = 7,
               collision: str = "classic") -> dict:
    """Saturation throughput of ``n`` stations sending aggregates of at most
    ``mpdus`` MPDUs; ``retry_limit`` counts attempts (ns-3's MaxSsrc, 7)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    if retry_limit < 1:
        raise ValueError("retry_limit must be at least 1")
    fit = timing(1, mcs, width_mhz, short_gi, band_ghz, msdu_bytes)["mpdus_fit"]
    k = min(mpdus, fit)
    t = timing(k, mcs, width_mhz, short_gi, band_ghz, msdu_bytes)
    tm = bianchi.Timing.from_dict(t)
    r = bianchi.saturation(n, tm, k * msdu_bytes, int(t["cw_min"]), int(t["cw_max"]),
                           retry_limit - 1, access="basic", collision=collision)
    r.update({"mpdus_per_ampdu": k, "mpdus_fit": fit, "mcs": mcs, "width_mhz": width_mhz})
    return r


def curve(ns: list[int], mpdus: int, **kw) -> list[dict]:
    """``saturation`` for each station count in ``ns``."""
    return [saturation(n, mpdus, **kw) for n in ns]


def _main(argv: Optional[list[str]] = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m wifitcp.models.ampdu",
                                 description="802.11n A-MPDU saturation throughput (Bianchi with aggregates)")
    ap.add_argument("--n", type=int, nargs="+", default=[1, 5, 10, 20, 50])
    ap.add_argument("--mpdus", type=int, nargs="+", default=[1, 8, 16, 64])
    ap.add_argument("--mcs", type=int, default=7)
    a = ap.parse_args(argv)
    for k in a.mpdus:
        for n in a.n:
            r = saturation(n, k, mcs=a.mcs)
            print(f"n={n:3d} k={k:2d} (sent {r['mpdus_per_ampdu']:2d}) S={r['throughput_mbps']:.2f} Mbit/s p={r['p']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())

"""Slot-level Monte Carlo of DCF contention: the reference for ``p``.

Bianchi's model (`bianchi`) makes two approximations: every station sees the
same constant collision probability, independent of its own state
(decoupling), and a station's backoff counter moves one step in every
"virtual slot", busy ones included. In the standard (IEEE 802.11-2020
10.3.4.3) the counter is decremented only at the end of an *idle* slot and
is frozen while the medium is busy, so the stations that did not transmit
keep their count across a busy period.

This module plays the contention itself, one virtual slot at a time, with no
decoupling and a choice of rule:

* ``rule="standard"``: counters of stations that did not transmit are frozen
  during busy slots (10.3.4.3);
* ``rule="bianchi"``: they are decremented in busy slots too, as in the
  Markov chain of Bianchi (2000).

``n`` saturated stations, stage windows and the retry limit as in
`bianchi.stage_windows` (``R + 1`` attempts). Idle runs are skipped in one
step (the cost is per transmission, not per slot). It ignores everything but
the backoff: all stations resume counting at the same instant after a busy
period (so it does not model the EIFS/ACKTimeout asymmetry after a
collision). Results are deterministic for a given ``seed``.
"""

from __future__ import annotations

import random
from typing import Optional

from .bianchi import Timing, durations, stage_windows

RULES = ("standard", "bianchi")


def contention(n: int, cw_min: int, cw_max: int, retry_limit: int, *,
               transmissions: int = 200_000, rule: str = "standard", seed: int = 1) -> dict:
    """Play ``transmissions`` busy slots; count attempts and collisions.

    Returns ``p`` (collided attempts / attempts), ``tau`` (attempts per
    station per virtual slot), counts of ``idle`` slots, ``successes`` and
    ``collision_slots``, and ``drops`` (retry-limit discards).
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}")
    if n < 1:
        raise ValueError("n must be >= 1")
    windows = stage_windows(cw_min, cw_max, retry_limit)
    rng = random.Random(seed)
    stage = [0] * n
    count = [rng.randrange(windows[0]) for _ in range(n)]
    idle = attempts = collided = successes = coll_slots = drops = 0
    freeze = rule == "standard"
    for _ in range(transmissions):
        m = min(count)
        if m:
            idle += m
            count = [c - m for c in count]
        tx = [i for i in range(n) if count[i] == 0]
        attempts += len(tx)
        if len(tx) == 1:
            successes += 1
            i = tx[0]
            stage[i] = 0
            count[i] = rng.randrange(windows[0])
        else:
            coll_slots += 1
            collided += len(tx)
            for i in tx:
                if stage[i] < retry_limit:
                    stage[i] += 1
                else:
                    stage[i] = 0
                    drops += 1
                count[i] = rng.randrange(windows[stage[i]])
        if not freeze:
            txs = set(tx)
            count = [c if i in txs else c - 1 for i, c in enumerate(count)]
    slots = idle + transmissions
    return {"n": n, "rule": rule, "p": collided / attempts, "tau": attempts / (n * slots),
            "idle": idle, "successes": successes, "collision_slots": coll_slots,
            "attempts": attempts, "drops": drops}


def saturation(n: int, timing: Timing, msdu_bytes: int, cw_min: int, cw_max: int,
               retry_limit: int, access: str = "basic", collision: str = "eifs",
               transmissions: int = 200_000, rule: str = "standard",
               seed: Optional[int] = 1) -> dict:
    """Throughput from the played contention with Bianchi's slot durations."""
    c = contention(n, cw_min, cw_max, retry_limit, transmissions=transmissions, rule=rule,
                   seed=1 if seed is None else seed)
    ts, tc = durations(timing, access, collision)
    total_ns = c["idle"] * timing.slot_ns + c["successes"] * ts + c["collision_slots"] * tc
    c["throughput_mbps"] = c["successes"] * 8.0 * msdu_bytes / total_ns * 1e3
    return c

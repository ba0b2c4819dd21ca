"""DCF saturation throughput: Bianchi's Markov model with a retry limit.

Reference: G. Bianchi, "Performance Analysis of the IEEE 802.11 Distributed
Coordination Function", IEEE JSAC 18(3), 2000, extended with a finite retry
limit (the frame is discarded after its last attempt, IEEE 802.11-2020
clause 10.3.4.4; the station then starts over at stage 0).

Model. ``n`` saturated stations, each attempt collides with a constant,
independent probability ``p``. Backoff stage ``i`` (0..R) draws its counter
uniformly from ``[0, W_i - 1]`` with ``W_i = min(2^i (CWmin+1), CWmax+1)``
(clause 10.3.3: CW doubles as ``2(CW+1)-1`` up to CWmax). A frame gets
``R + 1`` attempts, stages 0..R, where ``R`` is the number of
retransmissions. The simulator's (and 802.11's, ns-2's and ns-3's)
``dot11ShortRetryLimit`` counts attempts, so ``R = limit - 1``
(``from_scenario`` converts; see ``crates/wifi/src/mac/dcf``). An attempt at stage ``i`` costs on average
``(W_i + 1) / 2`` backoff slots including the transmission slot, and stage
``i`` is reached with probability ``p^i``, hence the per-slot attempt
probability::

    tau = sum_{i=0}^{R} p^i / sum_{i=0}^{R} p^i (W_i + 1) / 2
    p   = 1 - (1 - tau)^(n - 1)

solved by bisection on ``p`` to 1e-12 (``p - (1-(1-tau(p))^(n-1))`` is
strictly increasing, so the root is unique). For ``n = 1``, ``p = 0`` and
``tau = 2 / (W_0 + 1)``. For ``R -> infinity`` this reduces to Bianchi's
eq. (7).

Throughput (Bianchi eq. 13, propagation delay 0)::

    P_tr = 1 - (1 - tau)^n
    P_s  = n tau (1 - tau)^(n-1) / P_tr
    S    = P_s P_tr L / ((1 - P_tr) sigma + P_tr P_s T_s + P_tr (1 - P_s) T_c)

with ``L`` the MSDU in bits and durations:

* basic access: ``T_s = DATA + SIFS + ACK + DIFS``;
* RTS/CTS:      ``T_s = RTS + SIFS + CTS + SIFS + DATA + SIFS + ACK + DIFS``.

``T_c`` depends on the ``collision`` variant:

* ``"eifs"`` (default): ``T_c = DATA + EIFS`` (``RTS + EIFS`` with RTS/CTS).
  The stations that did not transmit receive a corrupted frame and defer
  EIFS (clause 10.3.2.3.7) before counting down again; this is what bounds
  the idle time after a collision for most of the BSS.
* ``"difs"``: ``T_c = DATA + ACKTimeout + DIFS`` (``RTS + CTSTimeout +
  DIFS``): the time the colliding stations themselves lose.
* ``"classic"``: Bianchi's original ``T_c = DATA + DIFS`` (``RTS + DIFS``),
  which ignores EIFS; for reproducing the paper's numbers.

The retry limit is the short retry limit: with basic access the frames are
no longer than the RTS threshold, and with RTS/CTS the collisions happen on
RTS frames, which count against the short retry counter (clause 10.3.4.4).
Timings come from the simulator's own PHY tables via ``_core.phy_timing``
(``from_scenario``), or explicitly (``saturation``) for tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

COLLISION_VARIANTS = ("eifs", "difs", "classic")
ACCESS_MODES = ("basic", "rts")
TOL = 1e-12


@dataclass(frozen=True)
class Timing:
    """Durations in nanoseconds (as returned by ``_core.phy_timing``)."""

    slot_ns: float
    sifs_ns: float
    difs_ns: float
    eifs_ns: float
    data_ns: float
    ack_ns: float
    ack_timeout_ns: float = 0.0
    rts_ns: float = 0.0
    cts_ns: float = 0.0
    cts_timeout_ns: float = 0.0

    @classmethod
    def from_dict(cls, d: dict) -> "Timing":
        names = cls.__dataclass_fields__.keys()
        return cls(**{k: float(d[k]) for k in names if k in d})


def stage_windows(cw_min: int, cw_max: int, retry_limit: int) -> list[int]:
    """``W_i = min(2^i (CWmin+1), CWmax+1)`` for stages ``i = 0..R``."""
    if cw_min < 0 or cw_max < cw_min:
        raise ValueError("need 0 <= cw_min <= cw_max")
    if retry_limit < 0:
        raise ValueError("retry_limit must be >= 0")
    return [min((cw_min + 1) << i, cw_max + 1) for i in range(retry_limit + 1)]


def tau_of_p(p: float, windows: Sequence[int]) -> float:
    """Attempt probability per slot given the collision probability ``p``."""
    num = 0.0
    den = 0.0
    pi = 1.0
    for w in windows:
        num += pi
        den += pi * (w + 1) / 2.0
        pi *= p
    return num / den


def solve(n: int, windows: Sequence[int], tol: float = TOL) -> tuple[float, float]:
    """Fixed point ``(tau, p)`` for ``n`` saturated stations (bisection)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    if n == 1:
        return tau_of_p(0.0, windows), 0.0

    def f(p: float) -> float:
        return p - (1.0 - (1.0 - tau_of_p(p, windows)) ** (n - 1))

    lo, hi = 0.0, 1.0
    if f(hi) <= 0.0:  # tau == 1 everywhere (CWmin = 0): every slot collides
        return tau_of_p(1.0, windows), 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if f(mid) < 0.0:
            lo = mid
        else:
            hi = mid
    p = 0.5 * (lo + hi)
    return tau_of_p(p, windows), p


def durations(t: Timing, access: str = "basic", collision: str = "eifs") -> tuple[float, float]:
    """``(T_s, T_c)`` in ns for an access mode and collision variant."""
    if access not in ACCESS_MODES:
        raise ValueError(f"access must be one of {ACCESS_MODES}")
    if collision not in COLLISION_VARIANTS:
        raise ValueError(f"collision must be one of {COLLISION_VARIANTS}")
    if access == "basic":
        ts = t.data_ns + t.sifs_ns + t.ack_ns + t.difs_ns
        first, timeout = t.data_ns, t.ack_timeout_ns
    else:
        ts = (t.rts_ns + t.sifs_ns + t.cts_ns + t.sifs_ns + t.data_ns + t.sifs_ns
              + t.ack_ns + t.difs_ns)
        first, timeout = t.rts_ns, t.cts_timeout_ns
    if collision == "eifs":
        tc = first + t.eifs_ns
    elif collision == "difs":
        tc = first + timeout + t.difs_ns
    else:
        tc = first + t.difs_ns
    return ts, tc


def saturation(n: int, timing: Timing, msdu_bytes: int, cw_min: int, cw_max: int,
               retry_limit: int, access: str = "basic", collision: str = "eifs") -> dict:
    """Saturation throughput of ``n`` stations from explicit timings.

    Returns a dict with ``throughput_mbps`` (MSDU bits per second / 1e6),
    ``tau``, ``p``, ``p_tr``, ``p_s``, ``ts_ns``, ``tc_ns``,
    ``mean_slot_ns``, ``drop_probability`` (``p^(R+1)``) and the inputs.
    """
    windows = stage_windows(cw_min, cw_max, retry_limit)
    tau, p = solve(n, windows)
    ts, tc = durations(timing, access, collision)
    p_tr = 1.0 - (1.0 - tau) ** n
    p_s = n * tau * (1.0 - tau) ** (n - 1) / p_tr if p_tr > 0 else 0.0
    mean_slot = (1.0 - p_tr) * timing.slot_ns + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc
    bits = 8.0 * msdu_bytes
    s_bits_per_ns = p_s * p_tr * bits / mean_slot
    return {
        "n": n, "throughput_mbps": s_bits_per_ns * 1e3, "tau": tau, "p": p,
        "p_tr": p_tr, "p_s": p_s, "ts_ns": ts, "tc_ns": tc, "mean_slot_ns": mean_slot,
        "drop_probability": p ** (retry_limit + 1), "access": access,
        "collision": collision, "msdu_bytes": msdu_bytes, "cw_min": cw_min,
        "cw_max": cw_max, "retry_limit": retry_limit,
    }


# --------------------------------------------------------------------------
# from a scenario, with the simulator's own timing tables

def contenders(config: dict) -> Optional[tuple[int, int]]:
    """``(n, msdu_bytes)`` if every flow of a normalised config is a
    saturated flow with one MSDU size (the model's assumptions), else None.

    Uplink flows contend from their stations, downlink flows from the AP.
    """
    traffic = config.get("traffic") or []
    n_sta = int((config.get("wlan") or {}).get("stations", 0))
    senders: set = set()
    sizes: set = set()
    for t in traffic:
        if t.get("pattern") != "saturated":
            return None
        sizes.add(t.get("msdu_bytes"))
        if t.get("direction", "uplink") == "downlink":
            senders.add("ap")
        else:
            st = t.get("stations", "all")
            senders.update(range(n_sta) if st == "all" else st)
    if not senders or len(sizes) != 1 or None in sizes:
        return None
    return len(senders), int(sizes.pop())


def from_scenario(config: dict, n: Optional[int] = None, msdu_bytes: Optional[int] = None,
                  collision: str = "eifs", access: Optional[str] = None) -> dict:
    """Bianchi prediction for a scenario document (a parsed scenario file;
    ``[sweep]`` and ``scenario.seeds`` are ignored).

    ``n`` and ``msdu_bytes`` default to the scenario's saturated flows;
    ``access`` defaults to RTS/CTS when the MPDU exceeds the RTS threshold.
    Timing, CW and retry limits come from ``_core.phy_timing`` so the model
    uses exactly the simulator's tables. Adds ``timing`` to the result.
    """
    from .. import core
    from ..scenario import from_dict

    base = from_dict(config).base  # drops scenario.seeds and [sweep] if present
    norm = core.check_config(base)
    if n is None or msdu_bytes is None:
        found = contenders(norm)
        if found is None:
            raise ValueError("scenario is not a saturated single-size workload; "
                             "give n and msdu_bytes")
        n = found[0] if n is None else n
        msdu_bytes = found[1] if msdu_bytes is None else msdu_bytes
    timing = core.phy_timing(norm, msdu_bytes)
    if access is None:
        access = "rts" if timing["mpdu_bytes"] > timing["rts_threshold_bytes"] else "basic"
    # the short retry limit counts attempts: R = limit - 1 retransmissions
    out = saturation(n, Timing.from_dict(timing), msdu_bytes, int(timing["cw_min"]),
                     int(timing["cw_max"]), int(timing["short_retry_limit"]) - 1,
                     access=access, collision=collision)
    out["timing"] = timing
    return out

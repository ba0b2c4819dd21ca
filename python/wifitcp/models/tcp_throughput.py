"""TCP throughput formulas: Mathis et al. (1997) and Padhye et al. (2000).

* **Mathis**, "The macroscopic behavior of the TCP congestion avoidance
  algorithm" (CCR 27(3), 1997), the paper 000 eq. (4):
  ``W = C MSS / sqrt(p)`` per RTT, ``C = sqrt(3 / (2 b))`` (1.22 for one
  ACK per segment, ``b = 1``; 0.87 with delayed ACKs, ``b = 2``), so
  ``B = C MSS / (RTT sqrt(p))`` bytes/s. Periodic losses, no timeouts, no
  receiver window.
* **Padhye**, "Modeling TCP Reno performance: a simple model and its
  empirical validation" (ToN 8(2), 2000), the full model eq. (31) with
  timeouts and the receiver window ``W_max``, in packets/s::

    E[W_u] = (2 + b)/(3b) + sqrt(8 (1 - p)/(3 b p) + ((2 + b)/(3b))^2)   (13)
    Q(w)   = min(1, (1 - (1-p)^3)(1 + (1-p)^3 (1 - (1-p)^(w-3)))
                    / (1 - (1-p)^w))                                     (24)
    f(p)   = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6                   (28)

    E[W_u] < W_max:
      B = ((1-p)/p + E[W_u] + Q(E[W_u])/(1-p))
          / (RTT (b E[W_u]/2 + 1) + Q(E[W_u]) T0 f(p)/(1-p))
    otherwise:
      B = ((1-p)/p + W_max + Q(W_max)/(1-p))
          / (RTT (b W_max/8 + (1-p)/(p W_max) + 2) + Q(W_max) T0 f(p)/(1-p))

  and the approximate model (the paper's closing formula),
  ``B = min(W_max/RTT, 1/(RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))``.

``p`` is the loss-indication rate (loss events per segment sent), ``RTT``
and ``T0`` (the first retransmission timeout) in seconds. `from_flow` takes
them from a run's flow record: ``p = (fast_retransmits + timeouts) /
packets_generated`` (both whole-run counters), ``RTT = srtt_ms`` (the
sender's smoothed RTT at the end of the run) and ``T0 = max(min RTO,
RTT)``, the lower bound of RFC 6298's ``SRTT + 4 RTTVAR`` (the run does not
report RTTVAR).
"""

from __future__ import annotations

import math
from typing import Optional

from .errors import ModelError, check_positive, check_prob


def _check(p: float, rtt_s: float) -> tuple[float, float]:
    p = check_prob("p", p)
    if p <= 0.0:
        raise ModelError("p", "must be > 0 (the formulas diverge at p = 0)")
    return p, check_positive("rtt_s", rtt_s)


def mathis_window(p: float, b: int = 1) -> float:
    """Paper 000 eq. (4): mean window in segments, ``sqrt(3 / (2 b p))``."""
    p = check_prob("p", p)
    if p <= 0.0:
        raise ModelError("p", "must be > 0 (the formula diverges at p = 0)")
    check_positive("b", b)
    return math.sqrt(3.0 / (2.0 * b * p))


def mathis(p: float, rtt_s: float, mss: int = 1460, b: int = 1) -> float:
    """Mathis et al.: throughput in bit/s, ``MSS sqrt(3/(2bp)) / RTT``."""
    p, rtt_s = _check(p, rtt_s)
    check_positive("mss", mss)
    return 8.0 * mss * mathis_window(p, b) / rtt_s


def _q(p: float, w: float) -> float:
    """Padhye eq. (24)."""
    q = 1.0 - p
    den = 1.0 - q ** w
    if den <= 0.0:
        return 1.0
    return min(1.0, (1.0 - q ** 3) * (1.0 + q ** 3 * (1.0 - q ** (w - 3.0))) / den)


def _f(p: float) -> float:
    """Padhye eq. (28)."""
    return 1 + p + 2 * p ** 2 + 4 * p ** 3 + 8 * p ** 4 + 16 * p ** 5 + 32 * p ** 6


def padhye_pps(p: float, rtt_s: float, t0_s: float, w_max: Optional[float] = None,
               b: int = 1) -> float:
    """Padhye et al. full model, eq. (31): packets per second."""
    p, rtt_s = _check(p, rtt_s)
    t0_s = check_positive("t0_s", t0_s)
    check_positive("b", b)
    if p >= 1.0:
        return 0.0
    if w_max is not None:
        w_max = check_positive("w_max", w_max, minimum=1.0, strict=False)
    x = (2.0 + b) / (3.0 * b)
    ewu = x + math.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + x * x)
    if w_max is None or ewu < w_max:
        qq = _q(p, ewu)
        num = (1.0 - p) / p + ewu + qq / (1.0 - p)
        den = rtt_s * (b * ewu / 2.0 + 1.0) + qq * t0_s * _f(p) / (1.0 - p)
    else:
        qq = _q(p, w_max)
        num = (1.0 - p) / p + w_max + qq / (1.0 - p)
        den = (rtt_s * (b * w_max / 8.0 + (1.0 - p) / (p * w_max) + 2.0)
               + qq * t0_s * _f(p) / (1.0 - p))
    return num / den


def padhye(p: float, rtt_s: float, t0_s: float, w_max: Optional[float] = None,
           mss: int = 1460, b: int = 1) -> float:
    """Padhye et al. full model in bit/s of payload (``MSS`` per packet)."""
    check_positive("mss", mss)
    return 8.0 * mss * padhye_pps(p, rtt_s, t0_s, w_max, b)


def padhye_approx_pps(p: float, rtt_s: float, t0_s: float, w_max: Optional[float] = None,
                      b: int = 1) -> float:
    """Padhye et al. approximate model: packets per second."""
    p, rtt_s = _check(p, rtt_s)
    t0_s = check_positive("t0_s", t0_s)
    v = 1.0 / (rtt_s * math.sqrt(2.0 * b * p / 3.0)
               + t0_s * min(1.0, 3.0 * math.sqrt(3.0 * b * p / 8.0)) * p * (1.0 + 32.0 * p * p))
    return v if w_max is None else min(w_max / rtt_s, v)


def from_flow(flow: dict, *, mss: int = 1460, w_max: Optional[float] = None,
              min_rto_s: float = 0.2, b: int = 1) -> Optional[dict]:
    """Both formulas for one TCP flow record of a run (``flows[]`` of the
    result JSON), beside its measured goodput. None when the flow saw no
    loss event (the formulas need ``p > 0``) or has no RTT sample."""
    tcp = flow.get("tcp") or {}
    sent = flow.get("packets_generated") or 0
    events = (tcp.get("fast_retransmits") or 0) + (tcp.get("timeouts") or 0)
    rtt_ms = tcp.get("srtt_ms")
    if not sent or not events or not rtt_ms:
        return None
    p = min(events / sent, 1.0)
    rtt = rtt_ms / 1e3
    t0 = max(min_rto_s, rtt)
    sim = flow.get("goodput_mbps")
    out = {"name": flow.get("name"), "p": p, "rtt_s": rtt, "t0_s": t0, "sim_mbps": sim,
           "mathis_mbps": mathis(p, rtt, mss, b) / 1e6,
           "padhye_mbps": padhye(p, rtt, t0, w_max, mss, b) / 1e6}
    return out

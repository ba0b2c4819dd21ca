"""Compound TCP over 802.11: the fixed-point model of Pokhrel & Williamson.

Reference: S. R. Pokhrel and C. Williamson, "Modeling Compound TCP over WiFi
for IoT" (the project's paper 004), sec. IV, eqs. (2)-(20), and sec. V for
the VBS variant (``h_i`` held at ``h*_i``, the buffer at ``c B_ap``).

Setting. One AP, SNR classes ``i`` of ``n_i`` stations with one long-lived
TCP flow each, downloads (the AP sends TCP data, the stations TCP ACKs; the
paper's case) or uploads (the footnote-1 extension: the stations send data,
the AP forwards the TCP ACKs). The AP is saturated (Assumption 1) and holds
almost all of every window (sec. IV-C); a frame of class ``i`` is lost on
the air with probability ``p_w`` per attempt (data frames from the AP,
``p_w_up`` for frames from the stations; MAC ACKs are error-free,
Assumption 2). DCF with ``retry_limit`` transmission attempts per frame.

Components and the reading chosen where the paper is ambiguous:

* **Window DTMC, eqs. (2)-(4).** States 1..W_max; from ``l`` the window
  grows to ``l + 1`` when ``N(l)`` consecutive packets get through, else it
  halves to ``ceil(l / 2)`` (beta = 0.5: ``W_loss / 2 + W_delay (1 - beta)``
  = ``W / 2``). ``P(up) = (1 - p_m)^N(l)``. Eq. (2) prints the per-ACK
  increment as ``delta = alpha l^kappa``, which is Compound TCP's per-*RTT*
  increment (eq. 1 and the fluid model eq. 23, ``alpha W^(kappa-1)`` per
  ACK); footnote 3 says ``delta`` plays the role of Reno's ``1/w`` per ACK.
  Reading ``"ctcp"`` (default): eq. (1)'s per-RTT growth
  ``max(1, alpha l^kappa)`` spread over the ``l`` ACKs of a window, so
  ``N(l) = l / max(1, alpha l^kappa)`` (Reno's ``l`` below l = 16).
  Reading ``"literal"``: ``N(l) = 1 / (alpha l^kappa)`` as printed. The
  delay-based decrease (``dif > th``) is not in the paper's DTMC and not here.
  ``E[W] = sum l Pi(l)`` over the embedded chain (eq. 4). The stationary
  distribution is solved exactly by the cut equations
  ``Pi(l) P(up | l) = sum_{m=l+1}^{min(2l, W_max)} Pi(m) P(down | m)``.
* **Attempt probability of the AP, eq. (10).** ``beta_ap = G(f_ap)`` with
  ``G`` Bianchi's saturation map with a retry limit (`bianchi.tau_of_p`:
  attempts per packet over backoff slots per packet, windows CW 31..1023).
  With classes failing differently, the packets of class ``i`` (a share
  ``h_i`` of the services) fail with their own ``f_ap,i``, so ``G`` is the
  renewal-reward ratio over the mix:
  ``beta_ap = sum_i h_i A(f_ap,i) / sum_i h_i S(f_ap,i)`` with
  ``A(f) = sum_{s<K} f^s`` attempts and ``S(f) = sum_{s<K} f^s (W_s+1)/2``
  slots per packet (``K`` = attempts). For one class this is ``G(f_ap)``.
* **Eq. (11)**, ``beta_ap,i = h_i beta_ap``, with ``h_i`` the share of
  services (Table I). The attempts are shared as ``h_i A(f_ap,i)``, so
  here ``beta_ap,i = beta_ap h_i A_i / sum_j h_j A_j``; it equals eq. (11)
  when the classes fail alike.
* **Failure probabilities, eqs. (13)-(15).** ``f_ap,i = 1 - (1 - p_w,i)
  prod_j (1 - beta_j)^n_j`` (eq. 13 with class ``i``'s channel) and
  ``f_i = 1 - (1 - p_w_up,i)(1 - beta_ap)(1 - beta_i)^(n_i - 1)
  prod_{j != i}(1 - beta_j)^n_j`` (eq. 14). Eq. (15) writes
  ``f_ap,i = G^-1(beta_ap,i)``; the failure of a class-``i`` frame depends
  on the others' attempts and on its channel, not on its own share, so
  eq. (15) is read as this ``f_ap,i``.
* **Rate equilibrium, eq. (12).** Each delivered data packet produces one
  TCP ACK: ``n_i beta_i = beta_ap,i (1 - f_ap,i)(1 - f_i^K) / (1 - f_i)``
  for a download class: ``beta_ap,i (1 - f_ap,i)`` data packets delivered
  per slot, times ``(1 - f_i^K) / (1 - f_i)`` attempts per TCP ACK. This is
  not eq. (12) as printed: the paper's right-hand side has a further factor
  ``1 / (1 - f_ap^(k+1))``, i.e. it sets the TCP ACKs equal to the data
  packets the AP *serves* per slot (``beta_ap,i`` over the attempts per
  data packet), the ones discarded after ``k + 1`` attempts included; a
  discarded packet reaches no station and produces no TCP ACK, so the
  factor is left out (with ``f_ap,i`` for ``f_ap``). Leaving it out changes
  little at the paper's parameters (Table II: retry limit 7, CW 31-1023;
  two classes of 5 downloads, class 1 error-free, class 2 at ``p_w``,
  ``B_ap`` = 100): ``1 / (1 - f_ap,2^7)`` - 1 is 1.5e-6, 4.0e-5 and
  3.8e-4 at ``p_w`` = 0.1, 0.2, 0.3 (``f_ap,2`` = 0.147, 0.235, 0.324),
  and with the factor class 2's goodput would be higher by 1.2e-6,
  3.4e-5 and 3.2e-4 of itself (2.7086 instead of 2.7078 Mbit/s at 0.3),
  the total by at most 1.4e-4; at ``p_w`` = 0.5, 0.8 % for class 2. For
  an upload class the AP forwards one TCP ACK per data packet it receives
  and keeps (a fraction ``1 - p_b`` passes its buffer):
  ``n_i beta_i = beta_ap,i (1 - f_ap,i) / ((1 - f_ap,i^K)(1 - f_i)(1 - p_b))``,
  capped at a saturated station's ``G(f_i)``.
* **Throughput, eqs. (5)-(9).** ``Theta_i = n_i beta_i (1 - f_i) / E[X]``
  packets/s for the class (``beta_i`` is per station, eq. 7 raises it to
  ``n_i``); for downloads these are the delivered TCP ACKs (= delivered
  data), for uploads the delivered data. ``E[X] = P_0 sigma + P_s T_ack +
  P_l T_data``: ``P_0`` idle (eq. 7); ``P_l`` a slot with at least one data
  frame on the air (for downloads ``beta_ap``); ``P_s`` the rest (only TCP
  ACK frames). Eq. (8) prints a ``(1 - p_w)`` factor inside ``P_s``, which
  would count errored data slots as ACK slots; it is read as a typo.
  Failed and successful slots have the same duration (Table II's EIFS =
  SIFS + ACK + DIFS), as eq. (6) assumes.
* **MAC discard, eq. (16).** ``p_d,i = f^K`` with ``K`` = attempts. The
  paper's ``k = 7`` retransmissions give ``K = 8``; ns-2.35 (and the
  simulator, and 802.11's dot11ShortRetryLimit) count the limit 7 as 7
  attempts. ``retry_limit`` here is attempts, as in the scenario files.
  Download data is discarded at the AP (``f_ap,i``), upload data at the
  station (``f_i``).
* **HOL share, eq. (17).** ``h_i = n_i E[W_i] / sum_j n_j E[W_j]`` (same
  RTT for every flow, dominated by the AP queue).
* **Buffer loss, eqs. (18)-(20).** ``B_ap + sum_i n_i Theta_i T_i =
  sum_i n_i E[W](p_m,i)`` with ``p_m,i = p_b + (1 - p_b) p_d,i`` for a
  download (its data meets the buffer). An upload's TCP ACKs meet the
  buffer; losing one is harmless (cumulative ACKs), so ``p_m,i = p_d,i``
  and its window's packets count as ACKs in the AP buffer (the AP is the
  bottleneck). Solved for ``p_b`` in [0, 1]; ``p_b = 0`` when every window
  fits; ``p_b = 1`` when the uploads alone fill the buffer (downloads at
  one packet each). ``T_i`` (``rtt_prop_s``) is the round-trip propagation
  delay (eq. 20); with 0 it is eq. (19).
* **VBS (sec. V).** ``qdisc="vbs"``: each class holds at most
  ``c h*_i B_ap`` packets (eq. 21's "buffer space" of a class, the
  simulator's ``partition`` rule). Per class ``p_i`` solves
  ``c h*_i B_ap = n_i E[W](p_i + (1 - p_i) p_d,i)`` (downloads; 0 when the
  class cannot fill its share), uploads fill theirs with refused ACKs,
  and ``h_i`` is the share of the occupancy.

Fixed point, sec. IV-D: ``x = (h_i, beta_ap, beta_i)``; each iteration runs
the MAC equations (7)-(16) at the current ``h`` and then (3)-(4), (17)-(20),
with damping ``x <- (1 - d) x + d F(x)``, ``d = 0.7`` by default and
multiplied by 0.7 (down to 0.02) whenever the largest change grows from
one iteration to the next (the up/down case at small buffers oscillates
otherwise). Converged when the largest change
of any component is below ``tol`` (default 1e-10); else `ModelError` naming
``max_iter``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .bianchi import stage_windows
from .errors import ModelError, check_int, check_positive, check_prob

# Compound TCP (P&W sec. III-A, [9])
ALPHA = 0.125
BETA = 0.5
KAPPA = 0.75
GAMMA = 30            # th, packets (enters the stability analysis only)
W_MAX = 45
B_AP = 100
INCREMENTS = ("ctcp", "literal")
QDISCS = ("drop-tail", "vbs")
DIRECTIONS = ("down", "up")
TOL = 1e-10


# --------------------------------------------------------------------------
# timing

@dataclass(frozen=True)
class SlotTiming:
    """Durations (ns) of the three kinds of virtual slot in eq. (6)."""

    slot_ns: float
    t_data_ns: float   # DIFS + data frame + SIFS + MAC ACK
    t_ack_ns: float    # DIFS + TCP ACK frame + SIFS + MAC ACK


# MAC data frame overhead: 24-byte header + 4-byte FCS (no LLC/SNAP, as ns-2);
# checked against the simulator's own table (`_core.phy_timing`) by
# tests/test_model_pokhrel.py.
MAC_OVERHEAD_BYTES = 28


def table2_timing(data_msdu_bytes: int = 1500, ack_msdu_bytes: int = 40,
                  mac_overhead_bytes: int = MAC_OVERHEAD_BYTES) -> SlotTiming:
    """Table II: 36 Mbit/s data, 2 Mbit/s control (MAC ACK 14 bytes),
    192 us PLCP (144 us preamble + 48 us header), ns-2's linear airtime
    ``PLCP + 8 L / rate``, slot 20 us, SIFS 10 us, DIFS 50 us."""
    plcp, slot, sifs, difs = 192_000.0, 20_000.0, 10_000.0, 50_000.0

    def air(nbytes: float, mbps: float) -> float:
        return plcp + 8.0 * nbytes * 1e3 / mbps

    mack = air(14, 2.0)
    data = air(data_msdu_bytes + mac_overhead_bytes, 36.0)
    ack = air(ack_msdu_bytes + mac_overhead_bytes, 36.0)
    return SlotTiming(slot, difs + data + sifs + mack, difs + ack + sifs + mack)


def timing_from_scenario(config: dict, data_msdu_bytes: int = 1500,
                         ack_msdu_bytes: int = 40) -> SlotTiming:
    """The same durations from the simulator's PHY tables for a scenario."""
    from .. import core
    from ..scenario import from_dict

    norm = core.check_config(from_dict(config).base)
    d = core.phy_timing(norm, data_msdu_bytes)
    a = core.phy_timing(norm, ack_msdu_bytes)
    return SlotTiming(float(d["slot_ns"]),
                      float(d["difs_ns"] + d["data_ns"] + d["sifs_ns"] + d["ack_ns"]),
                      float(a["difs_ns"] + a["data_ns"] + a["sifs_ns"] + a["ack_ns"]))


# --------------------------------------------------------------------------
# window DTMC, eqs. (2)-(4)

def acks_per_step(level: int, alpha: float = ALPHA, kappa: float = KAPPA,
                  increment: str = "ctcp") -> float:
    """``N(l)``: packets that must get through for the window to grow by one."""
    if increment == "ctcp":
        return level / max(1.0, alpha * level ** kappa)
    return 1.0 / (alpha * level ** kappa)


def window_distribution(p_m: float, w_max: int = W_MAX, alpha: float = ALPHA,
                        kappa: float = KAPPA, increment: str = "ctcp") -> list[float]:
    """Stationary distribution ``Pi(1..W_max)`` of the DTMC of eq. (3)
    (index 0 is window 1)."""
    p_m = check_prob("p_m", p_m)
    w_max = check_int("w_max", w_max, minimum=1)
    if increment not in INCREMENTS:
        raise ModelError("increment", f"must be one of {INCREMENTS}, got {increment!r}")
    steps = [acks_per_step(lvl, alpha, kappa, increment) for lvl in range(1, w_max + 1)]
    return _distribution(p_m, steps)


def _distribution(p_m: float, steps: Sequence[float], normalise: bool = True) -> list[float]:
    """The cut-equation solution for ``steps[l-1] = N(l)``."""
    w_max = len(steps)
    if w_max == 1:
        return [1.0]
    if p_m >= 1.0:
        return [1.0] + [0.0] * (w_max - 1)
    if p_m <= 0.0:
        return [0.0] * (w_max - 1) + [1.0]
    log_ok = math.log1p(-p_m)
    exp = math.exp
    up = [0.0] + [exp(n * log_ok) for n in steps]
    pi = [0.0] * (w_max + 2)
    suffix = [0.0] * (w_max + 3)  # suffix[m] = sum_{x >= m} pi[x] * down[x]
    pi[w_max] = 1.0
    suffix[w_max] = 1.0 - up[w_max]
    for lvl in range(w_max - 1, 0, -1):
        top = 2 * lvl if 2 * lvl < w_max else w_max
        flow = suffix[lvl + 1] - suffix[top + 1]
        u = up[lvl]
        if u < 1e-280:
            # nothing climbs past this level: the chain lives below it
            for m in range(lvl + 1, w_max + 1):
                pi[m] = 0.0
            pi[lvl] = 1.0
            for m in range(lvl, w_max + 2):
                suffix[m] = 0.0
            suffix[lvl] = 1.0 - u
            continue
        v = flow / u
        pi[lvl] = v
        suffix[lvl] = suffix[lvl + 1] + v * (1.0 - u)
        if v > 1e150:  # rescale to stay finite
            for m in range(lvl, w_max + 1):
                pi[m] *= 1e-150
            for m in range(lvl, w_max + 2):
                suffix[m] *= 1e-150
    if not normalise:
        return pi[1:w_max + 1]
    total = sum(pi[1:w_max + 1])
    return [pi[lvl] / total for lvl in range(1, w_max + 1)]


def _mean(p_m: float, steps: Sequence[float]) -> float:
    """``E[W]`` from `_distribution` (one pass, no normalised list)."""
    dist = _distribution(p_m, steps, normalise=False)
    tot = 0.0
    acc = 0.0
    lvl = 1
    for q in dist:
        tot += q
        acc += lvl * q
        lvl += 1
    return acc / tot


class _Window:
    """``E[W](p_m)`` for one parameter set, memoised (the fixed point asks
    for the same ``p_m`` more than once)."""

    def __init__(self, w_max: int, alpha: float, kappa: float, increment: str):
        self.steps = [acks_per_step(lvl, alpha, kappa, increment) for lvl in range(1, w_max + 1)]
        self.memo: dict = {}

    def __call__(self, p: float) -> float:
        p = 0.0 if p < 0.0 else (1.0 if p > 1.0 else p)
        v = self.memo.get(p)
        if v is None:
            v = _mean(p, self.steps)
            if len(self.memo) < 4096:
                self.memo[p] = v
        return v


def mean_window(p_m: float, w_max: int = W_MAX, alpha: float = ALPHA, kappa: float = KAPPA,
                increment: str = "ctcp") -> float:
    """``E[W]`` of eq. (4)."""
    dist = window_distribution(p_m, w_max, alpha, kappa, increment)
    return sum((i + 1) * q for i, q in enumerate(dist))


# --------------------------------------------------------------------------
# the fixed point

@dataclass(frozen=True)
class SnrClass:
    """``n`` stations with one TCP flow each; ``p_w`` per attempt on the
    AP's frames to them, ``p_w_up`` on their frames to the AP."""

    n: int
    p_w: float = 0.0
    p_w_up: float = 0.0
    direction: str = "down"
    name: str = ""


@dataclass
class Result:
    classes: list
    h: list
    throughput_pps: list          # Theta_i per class (packets/s)
    goodput_mbps: list            # Theta_i * MSS * 8
    per_flow_mbps: list
    total_mbps: float
    p_b: float
    p_d: list
    p_m: list
    p_block: list                 # VBS blocking per class (drop-tail: p_b)
    mean_window: list
    f_ap: list                    # per class, the AP's per-attempt failure
    f_ap_mean: float              # over the AP's attempts (Fig. 9)
    f_sta: list
    beta_ap: float
    beta_sta: list
    mean_slot_ns: float
    occupancy: float              # packets in the AP buffer (eq. 19's left side)
    iterations: int
    residual: float
    pb_equation: float = 0.0      # eq. (19)'s p_b at the final state
    params: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["classes"] = [c.__dict__ for c in self.classes]
        return d


def _attempt_sums(f: float, windows: Sequence[int]) -> tuple[float, float]:
    """``A(f)`` attempts and ``S(f)`` backoff slots per packet."""
    a = s = 0.0
    fi = 1.0
    for w in windows:
        a += fi
        s += fi * (w + 1) / 2.0
        fi *= f
    return a, s


def _check_classes(classes) -> list:
    out = []
    if not classes:
        raise ModelError("classes", "need at least one class")
    for k, c in enumerate(classes):
        if isinstance(c, dict):
            c = SnrClass(**c)
        check_int(f"classes[{k}].n", c.n, minimum=1)
        check_prob(f"classes[{k}].p_w", c.p_w, open_top=True)
        check_prob(f"classes[{k}].p_w_up", c.p_w_up, open_top=True)
        if c.direction not in DIRECTIONS:
            raise ModelError(f"classes[{k}].direction", f"must be one of {DIRECTIONS}, "
                             f"got {c.direction!r}")
        out.append(c)
    return out


def solve(classes: Sequence, **kw) -> Result:
    """Solve the fixed point for ``classes`` (`SnrClass` or dicts); keywords
    as `_solve` (``b_ap``, ``w_max``, ``retry_limit`` (attempts, the paper's
    ``k + 1``), ``cw_min``, ``cw_max``, ``alpha``, ``kappa``,
    ``increment``, ``timing``, ``mss``, ``qdisc``, ``c``, ``h_star``,
    ``rtt_prop_s``, ``damping``, ``tol``, ``max_iter``, ``h0``, ``beta0``,
    ``beta_ap0``).

    Raises `ModelError` (a ``ValueError``) naming the parameter for input
    outside the model's domain, or ``max_iter`` when no scheme converges.
    With drop-tail, when the damped iteration does not settle (uploads that
    nearly fill the buffer make ``p_b`` a very steep function of the
    uploads' discard rate), ``p_b`` is taken out of the iteration: for a
    given ``p_b`` the rest converges, and ``p_b`` is the root of
    ``p_b - eq19(p_b)`` (increasing in ``p_b``), found by regula falsi.
    ``params["p_b_outer"]`` says which scheme answered.
    """
    dt = kw.get("qdisc", "drop-tail") == "drop-tail"
    first = dict(kw)
    if dt:  # leave early for the outer scheme when the plain iteration stalls
        first["max_iter"] = min(kw.get("max_iter", 2000), 300)
    try:
        r = _solve(classes, **first)
        r.params["p_b_outer"] = False
        return r
    except ModelError as e:
        if e.param != "max_iter" or not dt:
            raise
    tol = kw.get("tol", TOL)
    last: dict = {}

    def g(x: float) -> float:
        warm = {}
        if "r" in last:
            warm = {"h0": last["r"].h, "beta0": last["r"].beta_sta, "beta_ap0": last["r"].beta_ap}
        r = _solve(classes, fixed_pb=x, **{**kw, **warm})
        last["r"] = r
        return r.pb_equation - x       # decreasing in x

    x = _solve_monotone(g, tol=max(tol, 1e-12))
    r = _solve(classes, fixed_pb=x, **kw)
    if abs(r.pb_equation - x) > 1e-6:
        raise ModelError("max_iter", f"no fixed point found for p_b (|p_b - eq. 19| = "
                         f"{abs(r.pb_equation - x):.3g})")
    r.params["p_b_outer"] = True
    return r


def _solve(classes: Sequence, *, b_ap: int = B_AP, w_max: int = W_MAX, retry_limit: int = 7,
          cw_min: int = 31, cw_max: int = 1023, alpha: float = ALPHA, kappa: float = KAPPA,
          increment: str = "ctcp", timing: Optional[SlotTiming] = None, mss: int = 1460,
          qdisc: str = "drop-tail", c: float = 0.6, h_star: Optional[Sequence[float]] = None,
          rtt_prop_s: float = 0.0, damping: float = 0.7, tol: float = TOL,
          max_iter: int = 2000, h0: Optional[Sequence[float]] = None,
          beta0: Optional[Sequence[float]] = None, beta_ap0: Optional[float] = None,
          fixed_pb: Optional[float] = None) -> Result:
    """The damped iteration (``fixed_pb``: hold ``p_b`` there instead of
    solving eq. 19 each round; ``Result.pb_equation`` is eq. 19's answer)."""
    cls = _check_classes(classes)
    b_ap = check_int("b_ap", b_ap, minimum=1)
    w_max = check_int("w_max", w_max, minimum=1)
    attempts = check_int("retry_limit", retry_limit, minimum=1)
    check_int("cw_min", cw_min, minimum=0)
    if check_int("cw_max", cw_max, minimum=0) < cw_min:
        raise ModelError("cw_max", f"must be >= cw_min ({cw_min}), got {cw_max}")
    check_positive("alpha", alpha)
    check_positive("kappa", kappa, strict=False)
    if increment not in INCREMENTS:
        raise ModelError("increment", f"must be one of {INCREMENTS}, got {increment!r}")
    if qdisc not in QDISCS:
        raise ModelError("qdisc", f"must be one of {QDISCS}, got {qdisc!r}")
    check_positive("mss", mss)
    check_positive("rtt_prop_s", rtt_prop_s, strict=False)
    if not (0.0 < float(damping) <= 1.0):
        raise ModelError("damping", f"must be in (0, 1], got {damping!r}")
    check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    timing = timing or table2_timing()
    ncls = len(cls)
    n_flows = sum(x.n for x in cls)
    down = [x.direction == "down" for x in cls]
    if qdisc == "vbs":
        if not (0.0 < float(c) <= 1.0):
            raise ModelError("c", f"must be in (0, 1], got {c!r}")
        hs = list(h_star) if h_star is not None else [1.0 / ncls] * ncls
        if len(hs) != ncls:
            raise ModelError("h_star", f"needs one share per class ({ncls}), got {len(hs)}")
        for k, v in enumerate(hs):
            check_prob(f"h_star[{k}]", v)
        if abs(sum(hs) - 1.0) > 1e-9:
            raise ModelError("h_star", f"shares must sum to 1, got {sum(hs)!r}")
        for k, x in enumerate(cls):
            if down[k] and c * hs[k] * b_ap < x.n:
                raise ModelError("b_ap", f"c h*_{k} b_ap = {c * hs[k] * b_ap:g} packets is less "
                                 f"than one packet per flow of class {k} ({x.n})")
    elif sum(x.n for k, x in enumerate(cls) if down[k]) > b_ap:
        raise ModelError("b_ap", f"{b_ap} packets is less than one packet per download flow "
                         f"({sum(x.n for k, x in enumerate(cls) if down[k])})")
    windows = stage_windows(cw_min, cw_max, attempts - 1)
    K = attempts

    ew = _Window(w_max, alpha, kappa, increment)

    # state (start: shares by flow count, or h0 / beta0 / beta_ap0)
    h = [x.n / n_flows for x in cls]
    beta_sta = [0.01] * ncls
    beta_ap = 2.0 / (windows[0] + 1)
    if h0 is not None:
        if len(h0) != ncls or abs(sum(h0) - 1.0) > 1e-9:
            raise ModelError("h0", f"needs {ncls} shares summing to 1")
        h = [check_prob(f"h0[{k}]", v) for k, v in enumerate(h0)]
    if beta0 is not None:
        if len(beta0) != ncls:
            raise ModelError("beta0", f"needs {ncls} values")
        beta_sta = [check_prob(f"beta0[{k}]", v, open_top=True) for k, v in enumerate(beta0)]
    if beta_ap0 is not None:
        beta_ap = check_prob("beta_ap0", beta_ap0, open_top=True)
    p_b = 0.0
    p_block = [0.0] * ncls
    theta_flow = [0.0] * ncls
    it = 0
    pb_eq = 0.0
    resid = last_resid = math.inf
    d_now = float(damping)
    damping_used = d_now
    while it < max_iter:
        it += 1
        # ---- MAC, eqs. (7)-(16), at the current state
        q_all = 1.0
        for k, x in enumerate(cls):
            q_all *= (1.0 - beta_sta[k]) ** x.n
        f_ap = [1.0 - (1.0 - x.p_w) * q_all for x in cls]
        f_sta = []
        for k, x in enumerate(cls):
            others = q_all / (1.0 - beta_sta[k]) if beta_sta[k] < 1.0 else 0.0
            f_sta.append(1.0 - (1.0 - x.p_w_up) * (1.0 - beta_ap) * others)
        sums = [_attempt_sums(f, windows) for f in f_ap]
        num = sum(h[k] * sums[k][0] for k in range(ncls))
        den = sum(h[k] * sums[k][1] for k in range(ncls))
        new_beta_ap = num / den
        new_beta_sta = []
        for k, x in enumerate(cls):
            b_api = beta_ap * h[k] * sums[k][0] / num
            fa, fs = f_ap[k], f_sta[k]
            if down[k]:
                # delivered data x attempts per TCP ACK; eq. (12)'s further
                # 1 / (1 - fa^K) would count discarded data (module docstring)
                tot = b_api * (1.0 - fa) * (1.0 - fs ** K) / (1.0 - fs)
            else:
                keep = 1.0 - p_block[k]
                tot = b_api * (1.0 - fa) / ((1.0 - fa ** K) * (1.0 - fs) * max(keep, 1e-12))
                a_s, s_s = _attempt_sums(fs, windows)
                tot = min(tot, x.n * a_s / s_s)  # a saturated station at most
            new_beta_sta.append(min(tot / x.n, 0.999999))
        p_d = [(f_ap[k] if down[k] else f_sta[k]) ** K for k in range(ncls)]
        # ---- throughput, eqs. (5)-(6)
        q_all = 1.0
        for k, x in enumerate(cls):
            q_all *= (1.0 - beta_sta[k]) ** x.n
        p0 = (1.0 - beta_ap) * q_all
        ap_data = sum(beta_ap * h[k] * sums[k][0] / num for k in range(ncls) if down[k])
        no_data = 1.0 - ap_data
        for k, x in enumerate(cls):
            if not down[k]:
                no_data *= (1.0 - beta_sta[k]) ** x.n
        p_l = 1.0 - no_data
        p_s = no_data - p0
        mean_slot = p0 * timing.slot_ns + p_s * timing.t_ack_ns + p_l * timing.t_data_ns
        theta = []
        for k, x in enumerate(cls):
            others = 1.0 - f_sta[k]
            theta.append(x.n * beta_sta[k] * others / mean_slot * 1e9)
        theta_flow = [theta[k] / cls[k].n for k in range(ncls)]
        # ---- TCP side, eqs. (3)-(4), (17)-(20)
        inflight = sum(cls[k].n * theta_flow[k] * rtt_prop_s for k in range(ncls))
        if qdisc == "drop-tail":
            pb_eq = _buffer_loss(cls, down, p_d, b_ap + inflight, ew, p_b if fixed_pb is None else pb_eq)
            p_b = pb_eq if fixed_pb is None else fixed_pb
            p_m = [p_b + (1.0 - p_b) * p_d[k] if down[k] else p_d[k] for k in range(ncls)]
            p_block = [p_b] * ncls
            occ = [cls[k].n * ew(p_m[k]) for k in range(ncls)]
        else:
            p_block_prev, p_block, p_m, occ = p_block, [], [], []
            for k, x in enumerate(cls):
                cap = c * hs[k] * b_ap + x.n * theta_flow[k] * rtt_prop_s
                free = x.n * ew(p_d[k])
                if free <= cap:
                    pb, pm, q = 0.0, p_d[k], free
                elif not down[k]:
                    pb, pm, q = 1.0 - cap / free, p_d[k], cap  # refused ACKs: no TCP loss
                else:
                    pb = _solve_block(x.n, p_d[k], cap, ew, p_block_prev[k])
                    pm = pb + (1.0 - pb) * p_d[k]
                    q = cap
                p_block.append(pb)
                p_m.append(pm)
                occ.append(q)
        tot_occ = sum(occ)
        new_h = [o / tot_occ for o in occ]
        # ---- damped update and convergence test
        resid = max([abs(new_h[k] - h[k]) for k in range(ncls)]
                    + [abs(new_beta_sta[k] - beta_sta[k]) for k in range(ncls)]
                    + [abs(new_beta_ap - beta_ap)])
        if resid > last_resid:  # oscillating: damp harder (down to 1/50)
            d_now = max(0.7 * d_now, 0.02)
        last_resid = resid
        damping_used = d_now
        h = [(1.0 - d_now) * h[k] + d_now * new_h[k] for k in range(ncls)]
        beta_sta = [(1.0 - d_now) * beta_sta[k] + d_now * new_beta_sta[k]
                    for k in range(ncls)]
        beta_ap = (1.0 - d_now) * beta_ap + d_now * new_beta_ap
        if resid < tol:
            break
    else:
        raise ModelError("max_iter", f"fixed point not converged after {max_iter} iterations "
                         f"(largest change {resid:.3g} > tol {tol:g}); raise max_iter or "
                         "lower damping")
    gp = [t * mss * 8 / 1e6 for t in theta]
    sums = [_attempt_sums(f, windows) for f in f_ap]
    att = [h[k] * sums[k][0] for k in range(ncls)]
    f_ap_mean = sum(att[k] * f_ap[k] for k in range(ncls)) / sum(att)
    return Result(
        classes=cls, h=h, throughput_pps=theta, goodput_mbps=gp,
        per_flow_mbps=[gp[k] / cls[k].n for k in range(ncls)], total_mbps=sum(gp),
        p_b=p_b if qdisc == "drop-tail" else 0.0, p_d=p_d, p_m=p_m, p_block=p_block,
        mean_window=[ew(p) for p in p_m], f_ap=f_ap, f_ap_mean=f_ap_mean, f_sta=f_sta,
        beta_ap=beta_ap, beta_sta=beta_sta, mean_slot_ns=mean_slot, occupancy=tot_occ,
        iterations=it, residual=resid, pb_equation=pb_eq,
        params={"b_ap": b_ap, "w_max": w_max, "retry_limit": attempts, "cw_min": cw_min,
                "cw_max": cw_max, "alpha": alpha, "kappa": kappa, "increment": increment,
                "qdisc": qdisc, "c": c if qdisc == "vbs" else None, "mss": mss,
                "rtt_prop_s": rtt_prop_s, "tol": tol, "damping": damping,
                "damping_final": damping_used})


def _solve_monotone(g, guess: Optional[float] = None, tol: float = 1e-13) -> float:
    """Root of a decreasing ``g`` on [0, 1] with ``g(0) > 0 > g(1)``
    (Illinois regula falsi, bisection fallback), bracketed tightly around
    ``guess`` (the previous iteration's root) when that brackets."""
    lo, hi = 0.0, 1.0
    glo = ghi = None
    if guess is not None and 0.0 < guess < 1.0:
        a, b = max(0.0, guess * (1 - 1e-3) - 1e-9), min(1.0, guess * (1 + 1e-3) + 1e-9)
        ga, gb = g(a), g(b)
        if ga > 0.0 > gb:
            lo, hi, glo, ghi = a, b, ga, gb
        elif ga <= 0.0:
            hi, ghi = a, ga
        else:
            lo, glo = b, gb
    glo = g(lo) if glo is None else glo
    ghi = g(hi) if ghi is None else ghi
    side = 0
    for _ in range(200):
        x = (lo * ghi - hi * glo) / (ghi - glo) if ghi != glo else 0.5 * (lo + hi)
        if not (lo < x < hi):
            x = 0.5 * (lo + hi)
        gx = g(x)
        if gx > 0:
            lo, glo = x, gx
            if side == 1:
                ghi *= 0.5
            side = 1
        else:
            hi, ghi = x, gx
            if side == -1:
                glo *= 0.5
            side = -1
        if hi - lo < tol or gx == 0.0:
            return x
    return 0.5 * (lo + hi)


def _buffer_loss(cls, down, p_d, room: float, ew, guess: Optional[float] = None) -> float:
    """``p_b`` of eq. (19)/(20): the buffer holds what the windows ask for."""
    fixed = sum(cls[k].n * ew(p_d[k]) for k in range(len(cls)) if not down[k])
    ks = [k for k in range(len(cls)) if down[k]]
    if not ks:
        return 0.0

    def g(pb: float) -> float:
        return fixed + sum(cls[k].n * ew(pb + (1.0 - pb) * p_d[k]) for k in ks) - room

    if g(0.0) <= 0.0:
        return 0.0
    if g(1.0) >= 0.0:
        return 1.0
    return _solve_monotone(g, guess)


def _solve_block(n: int, p_d: float, cap: float, ew, guess: Optional[float] = None) -> float:
    """VBS blocking of a download class holding ``cap`` packets."""
    def g(pb: float) -> float:
        return n * ew(pb + (1.0 - pb) * p_d) - cap

    if g(1.0) >= 0.0:
        return 1.0
    return _solve_monotone(g, guess)


# --------------------------------------------------------------------------
# from a scenario

def classes_from_scenario(config: dict) -> list:
    """The `SnrClass` list of a normalised scenario with ``channel.model =
    "fixed"`` classes (the pokhrel-*.toml files): one class per channel class
    and traffic direction, ``p_w`` = ``per_down``, ``p_w_up`` = ``per_up``."""
    chan = config.get("channel") or {}
    stations = int((config.get("wlan") or {}).get("stations", 0))
    names = {f"sta{i}": i for i in range(stations)}
    flows: dict = {}
    for t in config.get("traffic") or []:
        if t.get("kind", "tcp") != "tcp":
            continue
        d = "down" if t.get("direction", "uplink") == "downlink" else "up"
        st = t.get("stations", "all")
        idx = range(stations) if st == "all" else [names.get(s, s) for s in st]
        for i in idx:
            flows[int(i)] = d
    out = []
    for c in chan.get("classes") or []:
        members = [names.get(s, s) for s in c.get("stations", [])]
        for d in DIRECTIONS:
            n = sum(1 for m in members if flows.get(int(m)) == d)
            if n:
                out.append(SnrClass(n=n, p_w=float(c.get("per_down", 0.0)),
                                    p_w_up=float(c.get("per_up", 0.0)), direction=d,
                                    name=f"{c.get('name', '')}/{d}"))
    if not out:
        raise ModelError("channel.classes", "no TCP flows in the scenario's SNR classes")
    return out


def from_scenario(config: dict, **kw) -> Result:
    """The model for a parsed scenario document (first sweep point ignored:
    give a concrete config). Retry limit, CW, AP buffer, W_max, MSS, Compound
    TCP parameters, VBS c and shares, and slot timing come from the config;
    ``kw`` overrides ``solve``'s arguments."""
    from .. import core
    from ..scenario import from_dict

    norm = core.check_config(from_dict(config).base)
    mac = norm.get("mac") or {}
    ap = norm.get("ap") or {}
    tcp = norm.get("tcp") or {}
    q = ap.get("qdisc") or {}
    ctcp = tcp.get("compound") or {}
    if float(ctcp.get("beta", BETA)) != BETA:
        raise ModelError("tcp.compound.beta", "the model's window DTMC halves on a loss "
                         f"(beta = {BETA}); got {ctcp.get('beta')!r}")
    args = dict(b_ap=int(ap.get("queue_packets", B_AP)), w_max=int(tcp.get("rwnd_packets", W_MAX)),
                retry_limit=int(mac.get("short_retry_limit", 7)), cw_min=int(mac.get("cw_min", 31)),
                cw_max=int(mac.get("cw_max", 1023)), mss=int(tcp.get("mss", 1460)),
                alpha=float(ctcp.get("alpha", ALPHA)), kappa=float(ctcp.get("k", KAPPA)),
                timing=timing_from_scenario(config, int(tcp.get("mss", 1460)) + 40, 40))
    if q.get("kind") == "vbs":
        args["qdisc"] = "vbs"
        args["c"] = float(q.get("c", 0.6))
    args.update(kw)
    return solve(classes_from_scenario(norm), **args)

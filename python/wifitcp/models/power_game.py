"""The transmit-power game of Cuzanauskas & Anskaitis (paper 000, sec. III).

``N`` players (Tx-Rx pairs) choose powers ``p_i`` in ``[0, p_max]``:

* utility, eq. (1): ``u_i = log(1 + h_ii p_i / (n_0 + sum_{j != i} h_ji p_j))``
  (natural log: eq. (3) is the maximiser of eq. (2) only for ``ln``);
* payoff, eq. (2): ``pi_i = u_i - c_i p_i``;
* best response, eq. (3): ``b_i = 1/c_i - (I_i + n_0) / h_ii``, here clipped
  to ``[0, p_max]`` (the payoff is concave in ``p_i``, so the clipped
  stationary point is the constrained maximiser).

The Nash equilibrium is found by iterating best responses, players in
turn (Gauss-Seidel; ``update="jacobi"``: all at once) until no power moves
by more than ``tol`` (1e-12 W). The Jacobi map is a contraction when
``sum_{j != i} h_ji / h_ii < 1`` for every ``i`` (diagonal dominance of the
gains); otherwise it may cycle, and `ModelError` names ``max_iter``.

The paper gives neither the gains, the noise nor the costs. The defaults
(`geometry`) are chosen from the deployment the paper describes, not fitted
to its figures:

* 30 pairs (Fig. 2). Transmitters uniform in a 2 km x 2 km square; each
  receiver 200-300 m from its transmitter in a uniform direction (the
  paper's near group, sec. IV); seed 1.
* Log-distance path loss, exponent 3.0 (outdoor, between free space and
  urban), free-space loss at 1 m at 5.5 GHz (47.2 dB).
* Antennas (sec. IV): 18 dBi at the AP side, 15 dBi at the station side,
  aligned on each pair's own link (33 dB) and 0 dBi towards other pairs'
  receivers.
* Noise ``n_0 = kTB`` at 290 K over 20 MHz with a 7 dB noise figure
  (-94 dBm, 4.0e-13 W).
* Cost ``c_i = 0.2`` per W for every player: an unconstrained player's power
  is at most ``1/c = 5 W``, above the 4 W cap of Fig. 1, so the cap binds
  for players whose interference is small.

Capacity (Fig. 2) is ``sum_i log2(1 + SINR_i)`` in bit/s/Hz at the
equilibrium.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Optional, Sequence

from .errors import ModelError, check_int, check_positive

K_BOLTZMANN = 1.380649e-23
UPDATES = ("gauss-seidel", "jacobi")


@dataclass
class Equilibrium:
    powers: list
    sinr: list
    capacity_bps_hz: float
    mean_power_w: float
    iterations: int
    p_max: float


def noise_w(bandwidth_hz: float = 20e6, noise_figure_db: float = 7.0,
            temperature_k: float = 290.0) -> float:
    """Thermal noise ``k T B`` times the noise figure, in W."""
    return K_BOLTZMANN * temperature_k * bandwidth_hz * 10 ** (noise_figure_db / 10)


def geometry(n: int = 30, *, seed: int = 1, side_m: float = 2000.0,
             link_m: tuple = (200.0, 300.0), exponent: float = 3.0,
             freq_hz: float = 5.5e9, link_gain_db: float = 33.0,
             cross_gain_db: float = 0.0) -> list:
    """Gain matrix ``h[j][i]`` (transmitter ``j`` to receiver ``i``)."""
    n = check_int("n", n, minimum=1)
    check_positive("side_m", side_m)
    check_positive("exponent", exponent)
    check_positive("freq_hz", freq_hz)
    lo, hi = link_m
    check_positive("link_m", lo)
    if hi < lo:
        raise ModelError("link_m", f"need min <= max, got {link_m!r}")
    rng = random.Random(seed)
    tx, rx = [], []
    for _ in range(n):
        x, y = rng.uniform(0, side_m), rng.uniform(0, side_m)
        d, a = rng.uniform(lo, hi), rng.uniform(0, 2 * math.pi)
        tx.append((x, y))
        rx.append((x + d * math.cos(a), y + d * math.sin(a)))
    pl1 = 20 * math.log10(4 * math.pi * freq_hz / 299_792_458.0)

    def gain(j: int, i: int) -> float:
        d = max(1.0, math.dist(tx[j], rx[i]))
        g = link_gain_db if i == j else cross_gain_db
        return 10 ** ((g - pl1 - 10 * exponent * math.log10(d)) / 10)

    return [[gain(j, i) for i in range(n)] for j in range(n)]


def _interference(h: Sequence[Sequence[float]], p: Sequence[float], i: int) -> float:
    return sum(h[j][i] * p[j] for j in range(len(p)) if j != i)


def payoff(i: int, p: Sequence[float], h, n0: float, c: Sequence[float]) -> float:
    """Eq. (2) for player ``i``."""
    return math.log1p(h[i][i] * p[i] / (n0 + _interference(h, p, i))) - c[i] * p[i]


def best_response(i: int, p: Sequence[float], h, n0: float, c: Sequence[float],
                  p_max: float) -> float:
    """Eq. (3), clipped to ``[0, p_max]``."""
    b = 1.0 / c[i] - (_interference(h, p, i) + n0) / h[i][i]
    return min(max(b, 0.0), p_max)


def nash(h, *, p_max: float = 4.0, c=0.2, n0: Optional[float] = None,
         p0: Optional[Sequence[float]] = None, tol: float = 1e-12,
         max_iter: int = 10_000, update: str = "gauss-seidel") -> Equilibrium:
    """Iterate best responses from ``p0`` (default all 0) to the equilibrium:
    ``"gauss-seidel"`` (default; players respond in turn, each to the latest
    powers) or ``"jacobi"`` (all respond at once to the last round)."""
    n = len(h)
    if n < 1 or any(len(row) != n for row in h):
        raise ModelError("h", "must be a square N x N gain matrix, N >= 1")
    for j in range(n):
        for i in range(n):
            if not (h[j][i] >= 0.0 and math.isfinite(h[j][i])):
                raise ModelError(f"h[{j}][{i}]", f"gain must be finite and >= 0, got {h[j][i]!r}")
        if h[j][j] <= 0.0:
            raise ModelError(f"h[{j}][{j}]", "direct gain must be > 0")
    p_max = check_positive("p_max", p_max)
    n0 = noise_w() if n0 is None else check_positive("n0", n0, strict=False)
    cs = [c] * n if isinstance(c, (int, float)) else list(c)
    if len(cs) != n:
        raise ModelError("c", f"needs one cost per player ({n}), got {len(cs)}")
    for k, v in enumerate(cs):
        check_positive(f"c[{k}]", v)
    check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    p = [0.0] * n if p0 is None else [min(max(float(x), 0.0), p_max) for x in p0]
    if update not in UPDATES:
        raise ModelError("update", f"must be one of {UPDATES}, got {update!r}")
    for it in range(1, max_iter + 1):
        if update == "jacobi":
            new = [best_response(i, p, h, n0, cs, p_max) for i in range(n)]
            moved = max(abs(a - b) for a, b in zip(new, p))
            p = new
        else:
            moved = 0.0
            for i in range(n):
                b = best_response(i, p, h, n0, cs, p_max)
                moved = max(moved, abs(b - p[i]))
                p[i] = b
        if moved < tol:
            break
    else:
        raise ModelError("max_iter", f"best responses did not settle in {max_iter} rounds "
                         f"(last move {moved:.3g} W)")
    sinr = [h[i][i] * p[i] / (n0 + _interference(h, p, i)) for i in range(n)]
    cap = sum(math.log2(1.0 + s) for s in sinr)
    return Equilibrium(p, sinr, cap, sum(p) / n, it, p_max)


def fig1(n: int = 30, p_max: float = 4.0, **kw) -> Equilibrium:
    """Fig. 1: the players' powers at equilibrium under a ``p_max`` cap."""
    geo = {k: kw.pop(k) for k in list(kw) if k in ("seed", "side_m", "link_m", "exponent",
                                                    "freq_hz", "link_gain_db",
                                                    "cross_gain_db")}
    return nash(geometry(n, **geo), p_max=p_max, **kw)


def fig2(caps: Sequence[float] = (0.5, 1, 2, 3, 4, 5, 6, 8, 10), n: int = 30, **kw) -> list:
    """Fig. 2: ``(cap, capacity bit/s/Hz, mean power W)`` as the cap rises."""
    geo = {k: kw.pop(k) for k in list(kw) if k in ("seed", "side_m", "link_m", "exponent",
                                                    "freq_hz", "link_gain_db",
                                                    "cross_gain_db")}
    h = geometry(n, **geo)
    out = []
    for cap in caps:
        e = nash(h, p_max=cap, **kw)
        out.append((float(cap), e.capacity_bps_hz, e.mean_power_w))
    return out

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

The paper gives neither the gains, the noise nor the costs; they are
derived here from what it states, nothing is fitted to its figures.

* Cost, ``c_i = 1 / p_max`` for every player (`cost_for_cap`; ``nash``'s
  default). Eq. (3) is the maximiser of eq. (2) only with the natural log,
  so the utility is in nats and ``c_i`` in nats per W; ``1/c_i`` is then a
  power: the best response of a player without interference, less its
  noise term ``n_0 / h_ii``. The paper names one power scale, the 4 W cap
  (the regulatory EIRP limit), and calls ``c_i`` what stops the stations
  raising their power; ``c = 1/p_max`` makes the cost and the cap agree (a
  lone player wants the cap, less ``n_0/h_ii``: at most 0.4 mW on the
  paper's links). It also follows Fig. 2: the capacity keeps rising as the
  cap is lifted, which a cost fixed in W cannot give (the powers would stop
  at ``1/c`` whatever the cap).
* Noise ``n_0 = kTB`` at 290 K over 20 MHz with a 7 dB noise figure
  (-94 dBm, 4.0e-13 W).
* The paper's setting, `cell` (``fig1``/``fig2``'s default): 30 players
  drawn from the paper's 83-station cell in its proportion (22 of the 61
  stations at 200-300 m, 8 of the 22 at 5-6 km; the positions of
  ``scenarios/paper000-hidden.toml``, file order), each a station-to-AP
  pair; gains from the paper's antennas (18 dBi at the AP, 15 dBi at the
  station, aimed at each other) and free-space loss at 5.5 GHz, as that
  scenario has them. Whose transmissions overlap at the AP is the MAC's:
  ``interference="hidden"`` (default) counts the stations that do not
  hear player ``i`` (received below -82 dBm at ``sense_power_w``, 0 dBi
  between stations), as a CSMA cell (and the simulator's power control)
  has it; ``"all"`` takes eq. (1)'s sum over every other player literally
  (all 30 at once into one receiver).
* `geometry` (``setting="pairs"``): 30 independent pairs, transmitters
  uniform in a 2 km x 2 km square, each receiver 200-300 m away; log-distance
  loss, exponent 3.0; 33 dB of antenna gain on the link and
  ``cross_gain_db`` (0 dBi) towards other pairs' receivers; seed 1.

`max_deviation_gain` checks an equilibrium: the most any player gains by
moving alone to any power of a fine grid over ``[0, p_max]``.

Capacity (Fig. 2) is ``sum_i log2(1 + SINR_i)`` in bit/s/Hz at the
equilibrium.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from .errors import ModelError, check_int, check_positive

K_BOLTZMANN = 1.380649e-23
UPDATES = ("gauss-seidel", "jacobi")
INTERFERENCE = ("hidden", "all", "none")
CELL_SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "paper000-hidden.toml"
SPEED_OF_LIGHT = 299_792_458.0


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


def cost_for_cap(p_max: float) -> float:
    """``c = 1/p_max`` per W (the module's note on the cost)."""
    return 1.0 / check_positive("p_max", p_max)


def _fspl_db(d_m: float, freq_hz: float = 5.5e9, exponent: float = 2.0) -> float:
    """Log-distance loss, free space (Friis) at 1 m."""
    return 20 * math.log10(4 * math.pi * freq_hz / SPEED_OF_LIGHT) + 10 * exponent * math.log10(max(1.0, d_m))


@dataclass
class Cell:
    """The paper's cell as a game: ``h[j][i]``, the positions, how many
    players are near (200-300 m) and far (5-6 km), and the hidden pairs."""
    h: list
    positions: list
    near: int
    far: int
    hidden_pairs: int


def cell(n: int = 30, *, interference: str = "hidden", sense_power_w: float = 4.0,
         cs_threshold_dbm: float = -82.0, link_gain_db: float = 33.0,
         cross_gain_db: float = 0.0, freq_hz: float = 5.5e9,
         scenario: Optional[Path] = None) -> Cell:
    """The paper's setting (module note): ``n`` stations of its cell, in its
    near:far proportion 61:22, each a pair with the AP at the origin."""
    import tomllib

    n = check_int("n", n, minimum=1)
    if interference not in INTERFERENCE:
        raise ModelError("interference", f"must be one of {INTERFERENCE}, got {interference!r}")
    check_positive("sense_power_w", sense_power_w)
    with open(scenario or CELL_SCENARIO, "rb") as f:
        pos = [tuple(p) for p in tomllib.load(f)["wlan"]["positions"]]
    near_all = [p for p in pos if math.hypot(*p) < 1000.0]
    far_all = [p for p in pos if math.hypot(*p) >= 1000.0]
    n_near = min(len(near_all), round(n * len(near_all) / len(pos)))
    if n - n_near > len(far_all):
        raise ModelError("n", f"the cell has {len(pos)} stations, got {n}")
    sel = near_all[:n_near] + far_all[:n - n_near]
    up = [10 ** ((link_gain_db - _fspl_db(math.hypot(*p), freq_hz)) / 10) for p in sel]
    sense_dbm = 10 * math.log10(sense_power_w * 1e3)

    def hears(a, b) -> bool:
        return sense_dbm + cross_gain_db - _fspl_db(math.dist(a, b), freq_hz) >= cs_threshold_dbm

    hidden = [[j != i and not hears(sel[j], sel[i]) for i in range(n)] for j in range(n)]
    overlaps = {"hidden": lambda j, i: hidden[j][i], "all": lambda j, i: True,
                "none": lambda j, i: False}[interference]
    h = [[up[j] if (i == j or overlaps(j, i)) else 0.0 for i in range(n)] for j in range(n)]
    pairs = sum(hidden[j][i] for j in range(n) for i in range(j + 1, n))
    return Cell(h, sel, n_near, n - n_near, pairs)


def max_deviation_gain(h, p: Sequence[float], *, p_max: float, c=None,
                       n0: Optional[float] = None, points: int = 40_001) -> tuple:
    """The largest payoff gain (eq. 2) any single player gets by moving
    alone from ``p`` to one of ``points`` evenly spaced powers over
    ``[0, p_max]``: ``(gain, player, power)``. At a Nash equilibrium the
    gain is never positive (up to rounding)."""
    n = len(h)
    n0 = noise_w() if n0 is None else n0
    c = cost_for_cap(p_max) if c is None else c
    cs = [c] * n if isinstance(c, (int, float)) else list(c)
    points = check_int("points", points, minimum=2)
    best = (-math.inf, -1, 0.0)
    for i in range(n):
        noise = n0 + _interference(h, p, i)
        a = h[i][i] / noise
        here = math.log1p(a * p[i]) - cs[i] * p[i]
        for k in range(points):
            q = p_max * k / (points - 1)
            g = math.log1p(a * q) - cs[i] * q - here
            if g > best[0]:
                best = (g, i, q)
    return best


def nash(h, *, p_max: float = 4.0, c=None, n0: Optional[float] = None,
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
    c = cost_for_cap(p_max) if c is None else c
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


GEOMETRY_KEYS = ("seed", "side_m", "link_m", "exponent", "freq_hz", "link_gain_db", "cross_gain_db")
CELL_KEYS = ("interference", "sense_power_w", "cs_threshold_dbm", "link_gain_db", "cross_gain_db",
             "freq_hz", "scenario")


def gains(n: int = 30, setting: str = "cell", **kw) -> list:
    """The gain matrix of ``setting``: ``"cell"`` (`cell`) or ``"pairs"``
    (`geometry`); ``kw`` are that function's keywords."""
    if setting == "cell":
        return cell(n, **kw).h
    if setting == "pairs":
        return geometry(n, **kw)
    raise ModelError("setting", f"must be 'cell' or 'pairs', got {setting!r}")


def _split(setting: str, kw: dict) -> dict:
    keys = CELL_KEYS if setting == "cell" else GEOMETRY_KEYS
    return {k: kw.pop(k) for k in list(kw) if k in keys}


def fig1(n: int = 30, p_max: float = 4.0, setting: str = "cell", **kw) -> Equilibrium:
    """Fig. 1: the players' powers at equilibrium under a ``p_max`` cap
    (``c`` defaults to ``1/p_max``)."""
    geo = _split(setting, kw)
    return nash(gains(n, setting, **geo), p_max=p_max, **kw)


def fig2(caps: Sequence[float] = (0.5, 1, 2, 3, 4, 5, 6, 8, 10), n: int = 30,
         setting: str = "cell", **kw) -> list:
    """Fig. 2: ``(cap, capacity bit/s/Hz, mean power W)`` as the cap rises;
    the cost follows the cap (``c = 1/cap``) unless ``c`` is given. In the
    cell the carrier sense is at each cap's power."""
    geo = _split(setting, kw)
    out = []
    h = None if setting == "cell" and "sense_power_w" not in geo else gains(n, setting, **geo)
    for cap in caps:
        hh = h if h is not None else gains(n, setting, sense_power_w=float(cap), **geo)
        e = nash(hh, p_max=cap, **kw)
        out.append((float(cap), e.capacity_bps_hz, e.mean_power_w))
    return out

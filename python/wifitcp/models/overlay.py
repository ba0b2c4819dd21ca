"""Model curves to draw on the reproduced figures, and their differences
from simulated points.

``model_curves(figure_id, **kw)`` returns a list of curves, each a dict
``{"figure", "label", "model", "x", "y", "xlabel", "ylabel"}`` (plain
lists of floats), for the figures a model predicts:

=====================  =====================================================
figure_id              curves
=====================  =====================================================
``pokhrel-fig3``       per-class throughput (Mbit/s, class sum) vs p_w,
``pokhrel-fig11``      download-download, drop-tail, one pair per retry
                       limit (``retry_limits``, default (7, 4))
``pokhrel-fig15``      the same, drop-tail and VBS (c B per class)
``pokhrel-fig9``       the AP's per-attempt failure ``f_ap,i`` vs p_w
``pokhrel-fig10``      MAC discard ``p_d,i`` vs p_w
``pokhrel-fig13``      AP buffer loss ``p_b`` vs p_w
``pokhrel-fig14``      AP occupancy vs p_w, drop-tail and VBS
``pokhrel-fig16``      uploads / downloads vs p_w, B_ap = 500
``pokhrel-fig17``      uploads / downloads vs B_ap, p_w = 0.2
``pokhrel-fig8``       total throughput vs number of downloads (one class)
``pokhrel-fig7``       VBS ``tol`` vs ``dErr/dc`` (sec. V-B)
``pokhrel-fig18``      class-1 throughput share by phase of
                       scenarios/pokhrel-join-leave.toml
``dcf-saturation``     Bianchi throughput vs n (needs ``config``)
``cuzanauskas-fig1``   equilibrium power per player (power game)
``cuzanauskas-fig2``   capacity vs power cap (power game)
=====================  =====================================================

Each curve also has ``keys``: what tells it from the figure's other curves
(``retry_limit``, ``qdisc``, ``class`` (1-based), ``collision``), for the
report to pick curves and pair them with simulated lines.

Pokhrel curves use Table II timing unless ``config`` (a scenario document)
is given, then the simulator's PHY tables. `differences` tabulates a
curve against simulated ``(x, y)`` points.
"""

from __future__ import annotations

from typing import Optional, Sequence

from . import pokhrel as P
from .errors import ModelError

P_W = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
BUFFERS = (50, 100, 200, 300, 400, 500)


def _curve(fig: str, label: str, model: str, x, y, xlabel: str, ylabel: str,
           **keys) -> dict:
    return {"figure": fig, "label": label, "model": model, "x": [float(v) for v in x],
            "y": [float(v) for v in y], "xlabel": xlabel, "ylabel": ylabel, "keys": keys}


def _timing(config: Optional[dict]):
    return P.timing_from_scenario(config) if config is not None else P.table2_timing()


def _dd(p_w: float, limit: int, timing, qdisc: str = "drop-tail", **kw):
    return P.solve([P.SnrClass(5, 0.0, name="class1"), P.SnrClass(5, p_w, name="class2")],
                   retry_limit=limit, timing=timing, qdisc=qdisc, **kw)


def _ud(p_w: float, b_ap: int, limit: int, timing, qdisc: str = "drop-tail"):
    return P.solve([P.SnrClass(5, p_w, p_w, "up", "uploads"),
                    P.SnrClass(5, p_w, p_w, "down", "downloads")],
                   b_ap=b_ap, retry_limit=limit, timing=timing, qdisc=qdisc)


def model_curves(figure_id: str, *, config: Optional[dict] = None,
                 retry_limits: Sequence[int] = (7, 4), p_ws: Sequence[float] = P_W,
                 buffers: Sequence[int] = BUFFERS) -> list:
    """The model's curves for one figure (see the module table)."""
    t = None if figure_id in ("pokhrel-fig7", "dcf-saturation", "cuzanauskas-fig1",
                              "cuzanauskas-fig2") else _timing(config)
    out = []
    fig = figure_id
    if fig in ("pokhrel-fig3", "pokhrel-fig11", "pokhrel-fig15"):
        qds = ("drop-tail", "vbs") if fig == "pokhrel-fig15" else ("drop-tail",)
        for lim in retry_limits:
            for q in qds:
                rs = [_dd(p, lim, t, q) for p in p_ws]
                for k in (0, 1):
                    out.append(_curve(fig, f"class {k + 1}, {q}, retry limit {lim} (model)",
                                      "pokhrel", p_ws, [r.goodput_mbps[k] for r in rs],
                                      "p_w of class 2", "throughput per class (Mbit/s)",
                                      retry_limit=lim, qdisc=q, **{"class": k + 1}))
    elif fig in ("pokhrel-fig9", "pokhrel-fig10", "pokhrel-fig13", "pokhrel-fig14"):
        for lim in retry_limits:
            qds = ("drop-tail", "vbs") if fig == "pokhrel-fig14" else ("drop-tail",)
            for q in qds:
                rs = [_dd(p, lim, t, q) for p in p_ws]
                if fig == "pokhrel-fig9":
                    for k in (0, 1):
                        out.append(_curve(fig, f"f_ap class {k + 1}, retry limit {lim} (model)",
                                          "pokhrel", p_ws, [r.f_ap[k] for r in rs],
                                          "p_w of class 2", "AP transmission failure",
                                          retry_limit=lim, **{"class": k + 1}))
                elif fig == "pokhrel-fig10":
                    for k in (0, 1):
                        out.append(_curve(fig, f"p_d class {k + 1}, retry limit {lim} (model)",
                                          "pokhrel", p_ws, [r.p_d[k] for r in rs],
                                          "p_w of class 2", "MAC discard probability",
                                          retry_limit=lim, **{"class": k + 1}))
                elif fig == "pokhrel-fig13":
                    out.append(_curve(fig, f"p_b, retry limit {lim} (model)", "pokhrel", p_ws,
                                      [r.p_b for r in rs], "p_w of class 2",
                                      "AP buffer loss probability", retry_limit=lim))
                else:
                    out.append(_curve(fig, f"occupancy, {q}, retry limit {lim} (model)",
                                      "pokhrel", p_ws, [r.occupancy for r in rs],
                                      "p_w of class 2", "AP buffer occupancy (packets)",
                                      retry_limit=lim, qdisc=q))
    elif fig == "pokhrel-fig16":
        for lim in retry_limits:
            for q in ("drop-tail", "vbs"):
                rs = [_ud(p, 500, lim, t, q) for p in p_ws]
                for k, nm in ((0, "uploads"), (1, "downloads")):
                    out.append(_curve(fig, f"{nm}, {q}, retry limit {lim} (model)", "pokhrel",
                                      p_ws, [r.goodput_mbps[k] for r in rs], "p_w",
                                      "throughput (Mbit/s)", retry_limit=lim, qdisc=q,
                                      **{"class": k + 1}))
    elif fig == "pokhrel-fig17":
        for lim in retry_limits:
            for q in ("drop-tail", "vbs"):
                rs = [_ud(0.2, b, lim, t, q) for b in buffers]
                for k, nm in ((0, "uploads"), (1, "downloads")):
                    out.append(_curve(fig, f"{nm}, {q}, retry limit {lim} (model)", "pokhrel",
                                      buffers, [r.goodput_mbps[k] for r in rs],
                                      "AP buffer B_ap (packets)", "throughput (Mbit/s)",
                                      retry_limit=lim, qdisc=q, **{"class": k + 1}))
    elif fig == "pokhrel-fig8":
        ns = list(range(1, 11))
        for lim in retry_limits:
            rs = [P.solve([P.SnrClass(n)], retry_limit=lim, timing=t) for n in ns]
            out.append(_curve(fig, f"total, retry limit {lim} (model)", "pokhrel", ns,
                              [r.total_mbps for r in rs], "downloading devices",
                              "aggregate throughput (Mbit/s)", retry_limit=lim))
    elif fig == "pokhrel-fig7":
        b = 100
        gs = [0.5, 1, 2, 4, 8, 16]
        out.append(_curve(fig, "tol = (dErr/dc / 2B)^2, B = 100 (model)", "vbs", gs,
                          [(g / (2 * b)) ** 2 for g in gs], "dErr/dc", "tol", b=b))
    elif fig == "pokhrel-fig18":
        for lim in retry_limits:
            for q in ("drop-tail", "vbs"):
                ys = []
                for n1, n2 in ((3, 5), (3, 3), (5, 3)):
                    kw = {"h_star": [0.526, 0.474]} if q == "vbs" else {}
                    r = P.solve([P.SnrClass(n1, 0.0), P.SnrClass(n2, 0.3)], retry_limit=lim,
                                timing=t, qdisc=q, **kw)
                    ys.append(r.goodput_mbps[0] / r.total_mbps)
                out.append(_curve(fig, f"class 1 share, {q}, retry limit {lim} (model)",
                                  "pokhrel", [0, 60, 150], ys, "phase start (s)",
                                  "class 1 throughput share", retry_limit=lim, qdisc=q))
    elif fig == "dcf-saturation":
        if config is None:
            raise ModelError("config", "dcf-saturation needs the scenario document")
        from . import bianchi

        ns = list(range(1, 51))
        for v in ("eifs", "classic"):
            ys = [bianchi.from_scenario(config, n=n, collision=v)["throughput_mbps"] for n in ns]
            out.append(_curve(fig, f"Bianchi/{v}", "bianchi", ns, ys, "stations n",
                              "MSDU throughput (Mbit/s)", collision=v))
    elif fig == "cuzanauskas-fig1":
        from . import power_game

        e = power_game.fig1()
        out.append(_curve(fig, "equilibrium power, cap 4 W (model)", "power-game",
                          range(1, len(e.powers) + 1), e.powers, "player", "power (W)"))
    elif fig == "cuzanauskas-fig2":
        from . import power_game

        rows = power_game.fig2()
        out.append(_curve(fig, "capacity at equilibrium (model)", "power-game",
                          [r[0] for r in rows], [r[1] for r in rows], "power cap (W)",
                          "sum capacity (bit/s/Hz)"))
    else:
        raise ModelError("figure_id", f"no model for {figure_id!r}; known: {', '.join(FIGURES)}")
    return out


FIGURES = ("pokhrel-fig3", "pokhrel-fig7", "pokhrel-fig8", "pokhrel-fig9", "pokhrel-fig10",
           "pokhrel-fig11", "pokhrel-fig13", "pokhrel-fig14", "pokhrel-fig15", "pokhrel-fig16",
           "pokhrel-fig17", "pokhrel-fig18", "dcf-saturation", "cuzanauskas-fig1",
           "cuzanauskas-fig2")


def differences(curve: dict, points: Sequence[tuple]) -> list:
    """``(x, sim, model, sim - model, % of model)`` for simulated ``(x, y)``
    points at the curve's x values (points elsewhere are skipped)."""
    at = dict(zip(curve["x"], curve["y"]))
    rows = []
    for x, y in points:
        m = at.get(float(x))
        if m is None:
            continue
        pct = 100.0 * (y / m - 1.0) if m else None
        rows.append((float(x), float(y), m, float(y) - m, pct))
    return rows

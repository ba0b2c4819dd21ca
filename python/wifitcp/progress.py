"""Progress of a campaign on stderr: runs done, failures, ETA.

On a terminal a tqdm bar (``12/450 [00:30<17:15, 0.4run/s, failed=1]``), in a Jupyter
kernel the same as a notebook widget (``tqdm.auto``); otherwise (a
log file, CI) a plain line at every tenth of the campaign and at least
every 30 s: ``[120/450] 1 failed, 52 s elapsed, eta 143 s``.

Within a run that runs in this process the bar also advances with the
run's simulated time (`Progress.within`), and a run expected to take more
than ``ESTIMATE_ABOVE_S`` of wall time gets one line with that estimate
as soon as its first ``CALIBRATE_S`` of wall time have been measured.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Optional


def _secs(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (where a progress bar is a
    widget in the cell's output, not text on a terminal)."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


class Progress:
    """Counts finished runs; ``update(ok)`` once per run."""

    PLAIN_EVERY_S = 30.0
    #: wall time measured before a run's duration is estimated
    CALIBRATE_S = 0.5
    #: runs estimated to take longer than this get a line with the estimate
    ESTIMATE_ABOVE_S = 30.0

    def __init__(self, total: int, enabled: bool = True, label: str = "",
                 stream: Optional[IO] = None, tty: Optional[bool] = None):
        self.total, self.done, self.failed = total, 0, 0
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.label = label
        self.t0 = time.perf_counter()
        self.last_tick, self.last_t = -1, self.t0
        self.bar = None
        self.estimated: set = set()   # labels of runs whose estimate was printed
        self.last_within = self.t0
        notebook = in_notebook()
        if tty is None:
            tty = self.stream.isatty()
        if self.enabled and (tty or notebook):
            try:
                if notebook:   # a widget in Jupyter, drawn in the cell's output
                    from tqdm.auto import tqdm
                else:
                    from tqdm import tqdm

                self.bar = tqdm(total=total, unit="run", file=None if notebook else self.stream,
                                leave=notebook, desc=label or None, dynamic_ncols=True,
                                postfix="failed=0")
            except ImportError:
                pass

    def eta(self) -> Optional[float]:
        if not self.done:
            return None
        elapsed = time.perf_counter() - self.t0
        return elapsed / self.done * (self.total - self.done)

    def update(self, ok: bool = True) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if not self.enabled:
            return
        if self.bar is not None:
            if not ok:
                self.bar.set_postfix_str(f"failed={self.failed}", refresh=False)
            self.bar.update(self.done - self.bar.n)  # n may hold a run's fraction
            return
        now = time.perf_counter()
        tick = self.done * 10 // self.total
        if tick != self.last_tick or self.done == self.total or \
                now - self.last_t >= self.PLAIN_EVERY_S:
            self.last_tick, self.last_t = tick, now
            eta = self.eta()
            print(f"[{self.done}/{self.total}] {self.failed} failed, "
                  f"{_secs(now - self.t0)} elapsed"
                  + (f", eta {_secs(eta)}" if eta is not None and self.done < self.total
                     else ""), file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def within(self, label: str, sim_s: float, end_s: float, events: int,
               wall_s: float) -> None:
        """A run under way (`label`) has simulated ``sim_s`` of ``end_s``."""
        if not self.enabled or end_s <= 0:
            return
        frac = min(max(sim_s / end_s, 0.0), 1.0)
        if label not in self.estimated and wall_s >= self.CALIBRATE_S and 0 < sim_s < end_s:
            self.estimated.add(label)
            est = wall_s * end_s / sim_s
            if est > self.ESTIMATE_ABOVE_S:
                rate = events / wall_s if wall_s > 0 else 0.0
                self._line(f"{self.label or 'run'} {label}: {end_s:g} s simulated will take "
                           f"about {_secs(est)} of wall time (first {sim_s:.3g} s simulated "
                           f"in {wall_s:.1f} s, {rate:.3g} events/s)")
        now = time.perf_counter()
        if self.bar is not None:
            if now - self.last_within >= 0.2:
                self.last_within = now
                self.bar.n = self.done + frac
                self.bar.refresh()
            return
        if now - self.last_t >= self.PLAIN_EVERY_S:
            self.last_t = self.last_within = now
            print(f"[{self.done}/{self.total}] run {label}: {100 * frac:.0f} % simulated "
                  f"({sim_s:.6g} of {end_s:g} s), {_secs(now - self.t0)} elapsed",
                  file=self.stream, flush=True)

    def _line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

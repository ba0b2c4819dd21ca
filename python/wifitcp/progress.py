"""Progress of a campaign on stderr: runs done, failures, ETA.

On a terminal a tqdm bar (``12/450 [00:30<17:15, 0.4run/s, failed=1]``); otherwise (a
log file, CI) a plain line at every tenth of the campaign and at least
every 30 s: ``[120/450] 1 failed, 52 s elapsed, eta 143 s``.
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


class Progress:
    """Counts finished runs; ``update(ok)`` once per run."""

    PLAIN_EVERY_S = 30.0

    def __init__(self, total: int, enabled: bool = True, label: str = "",
                 stream: Optional[IO] = None, tty: Optional[bool] = None):
        self.total, self.done, self.failed = total, 0, 0
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.label = label
        self.t0 = time.perf_counter()
        self.last_tick, self.last_t = -1, self.t0
        self.bar = None
        if tty is None:
            tty = self.stream.isatty()
        if self.enabled and tty:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="run", file=self.stream, leave=False,
                                desc=label or None, dynamic_ncols=True,
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
            self.bar.update(1)
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

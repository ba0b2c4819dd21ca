"""The seed lists the bench scripts take: ``1-30``, ``1,4,7`` or ``1-5,9``
(a range includes both ends)."""
from __future__ import annotations


def seed_list(spec: str) -> list[int]:
    """The seeds of ``spec``, in the order given."""
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out

"""`Record`: a plain class of named fields, compared and shown by them.

What `dataclasses` would give the few record classes every command line
builds (`scenario.RunSpec`, `scenario.Scenario`, `campaign.Planned`,
`campaign.CampaignResult`), without its import (``inspect``, ``ast``,
``dis``: about a tenth of ``wifitcp validate``'s start-up). A subclass
lists its fields in ``FIELDS`` and writes its own ``__init__``; two records
are equal when they are of the same class and their fields are equal.
"""

from __future__ import annotations


class Record:
    FIELDS: tuple = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # mutable, as a dataclass with eq and without frozen

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.FIELDS)
        return f"{type(self).__name__}({shown})"

"""Errors raised for bad input.

`InputError` carries the file, the dotted path of the offending field and a
reason; the CLI prints it as ONE line ``error: FILE: dotted.key: reason``
and exits with status 2. Nothing user-facing should surface as a traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad user input: a file, a dotted field path (may be empty), a reason."""

    def __init__(self, file: str, path: str, reason: str):
        super().__init__(file, path, reason)
        self.file = str(file)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.path, self.reason) if p]
        return ": ".join(parts)


class RunError(Exception):
    """A simulation run failed (not a configuration problem)."""


def split_core_message(message: str) -> tuple[str, str]:
    """Split a core ValueError message "dotted.path: reason" into its parts.

    Messages without a path give ("", message).
    """
    head, sep, tail = message.partition(": ")
    if sep and head and " " not in head:
        return head, tail
    return "", message

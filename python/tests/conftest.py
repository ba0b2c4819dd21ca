"""Shared fixtures: a fake core for unit tests, the real core for sim tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from fakecore import FakeCore  # noqa: E402

from wifitcp import core  # noqa: E402


@pytest.fixture
def fake_core(monkeypatch):
    """Replace the compiled core with `FakeCore` for this test."""
    monkeypatch.setattr(core, "_impl", FakeCore)
    return FakeCore


def _real_core_ready() -> bool:
    saved = core._impl
    try:
        core._impl = None
        return core.available()
    finally:
        core._impl = saved


REAL_CORE = _real_core_ready()

requires_core = pytest.mark.skipif(
    not REAL_CORE, reason="simulator core not implemented yet (stub api)")


@pytest.fixture
def real_core(monkeypatch):
    if not REAL_CORE:
        pytest.skip("simulator core not implemented yet (stub api)")
    monkeypatch.setattr(core, "_impl", None)
    return core.impl()


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a file under tmp_path."""

    def _write(name: str, text: str) -> str:
        p = tmp_path / name
        p.write_text(text)
        return str(p)

    return _write


def one_line_error(capsys, argv) -> str:
    """Run the CLI on `argv`; assert exit status 2 and a one-line error
    without a traceback; return that line."""
    from wifitcp.cli import main

    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()

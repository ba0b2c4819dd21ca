"""Bad input from the command line and scenario files: one line naming the
file or option, the field and the reason; exit status 2; no traceback."""

from __future__ import annotations

import pytest

from conftest import REPO, requires_core
from test_apps import _write

from wifitcp.cli import main

QUICK = str(REPO / "scenarios" / "quick-check.toml")


def _one_line(capsys, rc, start):
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.strip().startswith(start), err


@requires_core
@pytest.mark.parametrize("value,reason", [
    ("5", "traffic: invalid type: integer `5`, expected a sequence"),
    ('"x"', "traffic: invalid type: string"),
    ("{a=1}", "traffic: invalid type: map, expected a sequence"),
])
def test_set_traffic_to_a_scalar_is_one_line(capsys, value, reason):
    rc = main(["run", QUICK, "--no-store", "--set", f"traffic={value}"])
    _one_line(capsys, rc, f"error: {QUICK}: {reason}")


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf"])
def test_emulate_max_lag_must_be_positive(capsys, value):
    rc = main(["emulate", QUICK, f"--max-lag-ms={value}", "--no-store"])
    _one_line(capsys, rc, "error: --max-lag-ms: ")


@requires_core
def test_core_refuses_a_negative_max_lag_without_panicking(real_core):
    with pytest.raises(ValueError, match="max_lag_ms: -1"):
        real_core.emulate("{}", 1, [], max_lag_ms=-1.0)


@requires_core
def test_trace_with_every_frame_at_one_time_is_refused(tmp_path, capsys):
    f = _write(tmp_path, "0.5 100\n0.5 200\n0.5 300\n")
    rc = main(["run", str(f), "--no-store"])
    _one_line(capsys, rc, f"error: {f}: traffic[0].trace_file: ")

"""bench/dense-cli: a round's ratio is the large cell's cost over the
mean of the reference runs beside it; costs per event and per data frame
come from a result's wall time, events and stations' attempts; bad
arguments are one line and exit status 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import dense_cli  # noqa: E402


def test_a_round_is_paired_with_the_reference_runs_around_it():
    # reference 100 before and 120 after, the large cell 220: x2.0 (not
    # x2.2 against the first reference alone, nor x1.83 against the last)
    assert dense_cli.paired(100.0, 220.0, 120.0) == pytest.approx(2.0)


def test_cost_per_event_and_per_frame():
    result = {"wall_time_s": 0.5, "events": 2_000_000,
              "stations": [{"attempts": 400_000}, {"attempts": 600_000}]}
    assert dense_cli.cost(result) == (250.0, 500.0, 2_000_000, 1_000_000)


def test_quartiles():
    assert dense_cli.quartiles([3.0, 1.0, 2.0, 4.0]) == (2.5, 2.0, 4.0)


@pytest.mark.parametrize("arg", ["50", "50,x", "50,50", "0,1000"])
def test_bad_sizes_are_one_line_and_exit_2(arg, capsys):
    with pytest.raises(SystemExit) as e:
        dense_cli.sizes(arg)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bench/dense-cli: --stations:")


def test_sizes_keep_the_reference_first():
    assert dense_cli.sizes("50,5000,1000") == [50, 5000, 1000]


def test_a_run_record_is_read_from_the_last_json_line():
    out = "progress\n" + '{"result": {"wall_time_s": 1.0, "events": 4, "stations": [{"attempts": 2}]}}\n'
    assert dense_cli.parse(out, "cmd") == (2.5e8, 5e8, 4, 2)


@pytest.mark.parametrize("out", ["", "not json\n", "{broken\n", '{"result": {"events": 4}}\n',
                                 '{"result": {"wall_time_s": 1.0, "events": 0, "stations": []}}\n'])
def test_output_without_a_result_is_one_line_and_exit_2(out, capsys):
    with pytest.raises(SystemExit) as e:
        dense_cli.parse(out, "wifitcp run X")
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bench/dense-cli: wifitcp run X: no result record")


def test_two_clis_take_turns_going_first():
    assert [dense_cli.in_turn(r, "a", "b") for r in range(3)] == [("a", "b"), ("b", "a"), ("a", "b")]


def test_vs_names_a_file_other_than_cli(tmp_path, capsys):
    cli = tmp_path / "wifitcp"
    cli.write_text("#!/bin/sh\n")
    for vs, why in ((tmp_path / "missing", "no such file"), (cli, "is --cli itself")):
        with pytest.raises(SystemExit) as e:
            dense_cli.main(["--cli", str(cli), "--vs", str(vs)])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("bench/dense-cli: --vs:") and why in err

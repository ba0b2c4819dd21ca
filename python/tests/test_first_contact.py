"""First contact: help for every command, `run --json` on stored runs, shell
completion, provenance of stored runs."""

import json
import shutil
import socket
import subprocess

import duckdb
import pytest

from conftest import REPO
from test_cli import GOOD, cli
from wifitcp import cli as cli_mod
from wifitcp.cli import build_parser, main


def subcommands():
    import argparse

    for a in build_parser()._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices
    raise AssertionError("no subcommands")


def test_top_level_help_lists_every_command_one_line_each():
    for flag in ("--help", "-h"):
        p = cli(flag)
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in p.stderr and p.stderr == ""
        lines = p.stdout.splitlines()
        for name in subcommands():
            hits = [x for x in lines if x.strip().startswith(name + " ")]
            assert len(hits) == 1, (name, p.stdout)
            assert len(hits[0].split(name, 1)[1].strip()) > 10  # a real one-line help


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_every_subcommand_help(name, capsys):
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: wifitcp {name}")
    # argparse expands %-sequences in help texts: none may be left raw
    assert "%(" not in out and "%%" not in out


def test_help_in_a_subprocess_for_every_subcommand():
    for name in subcommands():
        p = cli(name, "-h")
        assert p.returncode == 0 and "Traceback" not in p.stderr, (name, p.stderr)
        assert p.stdout.startswith(f"usage: wifitcp {name}"), name


def test_run_json_prints_stored_runs(fake_core, write, capsys, tmp_path):
    f = write("s.toml", GOOD)
    db = str(tmp_path / "j.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--json"]) == 0
    first = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(first) == 4
    # everything stored: the same runs again, from the store, in run order
    assert main(["run", f, "--out", db, "--jobs", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    again = [json.loads(x) for x in out.splitlines()]
    assert len(again) == 4
    assert [r["run_index"] for r in again] == sorted(r["run_index"] for r in first)
    assert all(r["stored"] for r in again) and not any("stored" in r for r in first)
    by_index = {r["run_index"]: r for r in first}
    for r in again:
        old = by_index[r["run_index"]]
        assert (r["params"], r["seed"], r["run_id"]) == (old["params"], old["seed"],
                                                          old["run_id"])
        assert r["aggregate_mbps"] == old["aggregate_mbps"]
    assert "4 of 4 runs already in" in err and "--rerun" in err
    # partly stored: the new seed runs, the stored ones are printed too
    assert main(["run", f, "--out", db, "--jobs", "1", "--json", "--seeds", "1..3"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert sorted((r["params"]["wlan.stations"], r["seed"]) for r in rows) == \
        [(n, s) for n in (1, 3) for s in (1, 2, 3)]


# -- completion -------------------------------------------------------------

def bash_complete(script: str, words: list) -> list:
    prog = (script + "\nCOMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + ")\n"
            f"COMP_CWORD={len(words) - 1}\n_wifitcp\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    p = subprocess.run(["bash", "-c", prog], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion(capsys, tmp_path, monkeypatch):
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    assert set(bash_complete(script, ["wifitcp", ""])) >= set(subcommands())
    assert bash_complete(script, ["wifitcp", "com"]) == ["compare", "completion"]
    opts = bash_complete(script, ["wifitcp", "run", "--s"])
    assert set(opts) == {"--seed", "--seeds", "--set", "--sweep"}
    assert bash_complete(script, ["wifitcp", "completion", ""]) == ["bash", "zsh"]
    assert bash_complete(script, ["wifitcp", "plot", "x.duckdb", "--series", ""]) == \
        ["flows", "queues", "cwnd"]
    assert bash_complete(script, ["wifitcp", "run", "x.toml", "--seed", ""]) == []
    (tmp_path / "a.toml").write_text("")
    (tmp_path / "b.duckdb").write_text("")
    monkeypatch.chdir(tmp_path)
    script_in = f"cd {tmp_path}\n" + script
    assert bash_complete(script_in, ["wifitcp", "run", ""]) == ["a.toml"]
    assert bash_complete(script_in, ["wifitcp", "plot", ""]) == ["b.duckdb"]


def test_zsh_completion(capsys):
    assert main(["completion", "zsh"]) == 0
    script = capsys.readouterr().out
    assert script.startswith("#compdef wifitcp")
    for name in subcommands():
        assert f"\n        '{name}:" in script and f"\n        {name})" in script
    assert "'--sweep[" in script and "*.toml" in script
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.skip("zsh is not installed: the script's syntax is not checked")
    p = subprocess.run([zsh, "-n", "-c", script], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_completion_bad_shell(capsys):
    assert main(["completion", "fish"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


# -- provenance ---------------------------------------------------------------

def test_every_stored_run_has_provenance(fake_core, write, capsys, tmp_path):
    f = write("s.toml", GOOD)
    db = str(tmp_path / "p.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--seed", "1"]) == 0
    con = duckdb.connect(db, read_only=True)
    rows = con.execute("SELECT source, command, host, config_json FROM runs").fetchall()
    con.close()
    assert len(rows) == 2
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    for source, command, host, config in rows:
        assert source.startswith(f"git:{head}")
        assert command == f"wifitcp run {f} --out {db} --jobs 1 --seed 1"
        assert host.startswith(socket.gethostname() + " (")
        assert json.loads(config)["mac"]["cw_min"] == 15   # the defaults, filled in


def test_provenance_of_an_installed_package(monkeypatch, tmp_path):
    from wifitcp import provenance

    monkeypatch.setattr(provenance, "_ROOT", tmp_path)  # no git work tree here
    import wifitcp

    assert provenance.source() == f"wifitcp {wifitcp.__version__}"


def test_schema_2_store_gets_provenance_columns(fake_core, write, capsys, tmp_path):
    from wifitcp.store import Store

    db = str(tmp_path / "old.duckdb")
    with Store(db) as st:
        for col in ("source", "command", "host"):
            st.con.execute(f"ALTER TABLE runs DROP COLUMN {col}")
    f = write("s.toml", GOOD)
    assert main(["run", f, "--out", db, "--jobs", "1", "--seed", "1"]) == 0
    con = duckdb.connect(db, read_only=True)
    assert con.execute("SELECT count(*) FROM runs WHERE source LIKE 'git:%'").fetchone()[0] == 2
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] \
        == "3"
    con.close()


def test_version_flag_still_works(capsys):
    with pytest.raises(SystemExit):
        cli_mod.main(["--version"])
    assert capsys.readouterr().out.startswith("wifitcp ")

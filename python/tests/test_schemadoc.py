"""docs/scenarios.md's key reference and file list are what the code
generates (`wifitcp schema --write docs/scenarios.md`)."""

from __future__ import annotations

import json

from conftest import REPO, requires_core

from wifitcp import schemadoc
from wifitcp.cli import main


@requires_core
def test_docs_scenarios_md_is_generated_from_the_schema(real_core):
    doc = REPO / "docs" / "scenarios.md"
    text = doc.read_text(encoding="utf-8")
    assert schemadoc.render(text, REPO / "scenarios") == text, \
        "docs/scenarios.md is out of date: run `wifitcp schema --write docs/scenarios.md`"


@requires_core
def test_every_key_has_type_default_and_a_range_with_unit_if_numeric(real_core, capsys):
    assert main(["schema"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) > 140
    for r in rows:
        assert r["type"] and r["default"] and r["doc"], r
        if r["type"] in ("float", "integer", "array of floats", "array of integers"):
            assert r["range"] and r["min"] is not None and r["max"] is not None, r
    md = schemadoc.keys_markdown(rows)
    # every key appears, per qdisc kind and channel model
    for r in rows:
        assert f"`{r['key'].split('.', 1)[-1]}`" in md or f"`{r['key']}`" in md, r["key"]
    for kind in ("codel", "fq-codel", "airtime", "vbs", "keceli-grouped", "pilosof"):
        assert f'kind = `"{kind}"`:' in md
    for model in ("fixed", "snr", "threshold"):
        assert f'model = `"{model}"`:' in md
    assert "| `rate_mbps` | float | required | `[1e-3, 1e6]` | Mbit/s |" in md


def test_every_scenario_file_has_one_line(tmp_path):
    files = sorted(p.name for p in (REPO / "scenarios").glob("*.toml"))
    listed = schemadoc.files_markdown(REPO / "scenarios").splitlines()[2:]
    assert [line.split("`")[1] for line in listed] == [f"scenarios/{f}" for f in files]
    assert all(line.split("|")[2].strip() for line in listed)  # a description each


@requires_core
def test_write_rewrites_only_the_generated_blocks(real_core, tmp_path, capsys):
    doc = tmp_path / "docs" / "scenarios.md"
    doc.parent.mkdir()
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "a.toml").write_text('[scenario]\nname = "a"\ndescription = "A."\n')
    doc.write_text(f"# T\n\nkept\n\n{schemadoc.KEYS_BEGIN}\nstale\n{schemadoc.KEYS_END}\n\n"
                   f"{schemadoc.FILES_BEGIN}\n{schemadoc.FILES_END}\n")
    assert main(["schema", "--write", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("# T\n\nkept\n\n") and "stale" not in text
    assert "| `scenarios/a.toml` | A. |" in text
    assert main(["schema", "--write", str(doc)]) == 0
    assert "up to date" in capsys.readouterr().err

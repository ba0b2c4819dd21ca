"""`wifitcp compare` with the Pokhrel fixed point and the TCP formulas on a
short real run of scenarios/pokhrel-download.toml."""

import json
import tomllib

import pytest

from conftest import REPO, requires_core
from wifitcp.cli import main
from wifitcp.compare import compare, render

pytestmark = [requires_core, pytest.mark.sim]


def test_pokhrel_rows(tmp_path, capsys):
    doc = tomllib.loads((REPO / "scenarios" / "pokhrel-download.toml").read_text())
    doc["scenario"].update(duration_s=40.0, warmup_s=10.0, seeds=[1])
    doc["sweep"] = {"mac.short_retry_limit": [4], "channel.classes[1].per_down": [0.0, 0.3]}
    db = str(tmp_path / "p.duckdb")
    import wifitcp

    wifitcp.run(doc, out=db, jobs=1, frame="records")
    rows = compare(db)
    assert len(rows) == 2
    for r in rows:
        assert r["pokhrel_classes"] == ["class1/down", "class2/down"]
        assert len(r["pokhrel_model_mbps"]) == 2
        # within 25 % per class on a 30 s window (docs/validation.md 17.2)
        for e in r["pokhrel_err_pct"]:
            assert abs(e) < 25
        assert r["tcp_flows"] == 10 and r["padhye_mbps"] > 0
    text = render(rows)
    assert "Pokhrel" in text and "Padhye" in text
    assert main(["compare", db, "--json"]) == 0
    js = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert js and "pokhrel_model_mbps" in js[0]

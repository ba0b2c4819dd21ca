"""Every run records the configuration it used, every default resolved
(`effective` in the result): no null stands for a default in any shipped
scenario (the delayed-ACK count and timer are null only when delayed ACKs
are off, where they do not apply)."""

import glob
import os

import pytest

from conftest import REPO, requires_core
from wifitcp import core, scenario


def nulls(d, p=""):
    if isinstance(d, dict):
        return [n for k, v in d.items() for n in nulls(v, f"{p}.{k}" if p else k)]
    if isinstance(d, list):
        return [n for i, v in enumerate(d) for n in nulls(v, f"{p}[{i}]")]
    return [p] if d is None else []


@requires_core
@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(str(REPO), "scenarios", "*.toml"))),
                         ids=os.path.basename)
def test_effective_config_has_no_null_default(path):
    # short runs, but a swept duration is kept (a --set would replace the
    # sweep's: mobility_walk's first case needs its own)
    plain = scenario.load(path)
    swept = {p for p, _ in plain.grid} | {p for case in plain.cases for p in case}
    sets = ["scenario.warmup_s=0"] + ([] if "scenario.duration_s" in swept
                                      else ["scenario.duration_s=0.2"])
    scn = scenario.load(path, sets)
    spec = scn.runs()[0]
    eff = core.run(spec.config, spec.seed)["effective"]
    assert {"phy", "mac", "wlan_queues", "tcp"} <= set(eff)
    for flow in eff["tcp"]:
        for end in ("sender", "receiver"):
            c = flow[end]
            if not c["delayed_ack"]:
                assert c["delayed_ack_count"] is None and c["delayed_ack_ms"] is None
    rest = [n for n in nulls(eff) if not n.endswith(("delayed_ack_count", "delayed_ack_ms"))]
    assert rest == []
    assert eff["phy"]["slot_us"] > 0 and eff["mac"]["cw_min"] > 0

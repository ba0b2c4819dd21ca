"""The worker body: canonical result text, store rows, lazily parsed outcomes."""

import json
import pickle
import random
import re

import pytest

from conftest import REPO, requires_core
from wifitcp import campaign, core, runner, scenario as S
from wifitcp.store import Store, result_rows, result_rows_of_text


def slow(text):
    """What the stored text must be: json.dumps of the result without wall_time_s."""
    r = json.loads(text)
    if isinstance(r, dict):
        r.pop("wall_time_s", None)
    return json.dumps(r, separators=(",", ":"))


# (text, whether json.dumps is known to give it back unchanged)
TEXTS = [
    ('{"a":1,"b":[1.5,0.25,-0.0,1234567890123456.0,0.0001],"flows":[{"name":"up/sta0",'
     '"x":null}],"t":true,"u":false,"version":"0.1.0","wall_time_s":0.0123,'
     '"warmup_s":0.0}', True),
    ('{"name":"Eve e-1 E+2","wall_time_s":0.5}', True),       # e, E, spaces in strings
    ('{"a":{"wall_time_s":2.0},"b":1}', True),                 # nested only: kept
    ('{"a":{"wall_time_s":2.0},"wall_time_s":1.0,"z":{"wall_time_s":3.0}}', True),
    ('{"wall_time_s":1.0,"a":1}', True),                       # first key
    ('{"wall_time_s":1.0}', True),
    ('[1,2]', True),
    ('{"a":0.00002907874888,"wall_time_s":1.0}', False),       # Python: 2.907874888e-05
    ('{"a":[-0.00001],"wall_time_s":1.0}', False),
    ('{"a":9.395774263991487e-9,"wall_time_s":1.0}', False),  # Python: e-09
    ('{"a":1e+16,"wall_time_s":1.0}', False),
    ('{"a":1E5,"wall_time_s":1.0}', False),
    ('{"a":"caf\u00e9","wall_time_s":1.0}', False),            # Python escapes it
    ('{"a":"q\\"x","wall_time_s":1.0}', False),
    ('{"a":"\x7f","wall_time_s":1.0}', False),
    ('{"a": 1, "wall_time_s": 1.0}', False),                   # another writer
]


@pytest.mark.parametrize("text,keeps", TEXTS)
def test_canonical_text_is_what_json_dumps_writes(text, keeps):
    assert runner._dumps_keeps(text) is keeps
    assert runner.canonical_result(text) == slow(text)


# texts ending as the core's do (`runner._CORE_TAIL`)
CORE_TAILED = [
    '{"a":[1,2],"scenario":"s","seed":1,"version":"V","wall_time_s":0.25,"warmup_s":0.0}',
    # the tail's text also ends a nested object, before the top-level one
    '{"a":{"x":1,"version":"V","wall_time_s":0.25,"warmup_s":0.0},"version":"V",'
    '"wall_time_s":0.25,"warmup_s":0.0}',
    '{"a":{"x":1,"version":"V","wall_time_s":0.5,"warmup_s":0.0},"version":"V",'
    '"wall_time_s":0.25,"warmup_s":0.0}',
]


@pytest.mark.parametrize("text", CORE_TAILED)
def test_cheap_canonical_text_cuts_only_the_top_level_wall_time(text):
    got = runner._canonical_unparsed(text)
    assert got == (slow(text), "V")


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64])
def test_outside_strings_block_by_block_is_the_whole_split(block):
    """Blocks that end inside a string, on a quote or between two quotes
    give what one split of the whole text gives, and so do the fixed texts."""
    rng = random.Random(block)
    texts = [t for t, _ in TEXTS] + ["".join(rng.choice('ab":,') for _ in range(rng.randint(0, 200)))
                                     for _ in range(300)]
    for t in texts:
        assert runner._outside_strings(t, block) == "".join(t.split('"')[0::2]), t


@requires_core
def test_core_writes_floats_as_json_dumps_does(real_core):
    """Every double the core writes that `_dumps_keeps` lets through is
    written exactly as Python writes it (what the cheap path relies on)."""
    rng = random.Random(7)
    n = 3000
    # positions may be anywhere within +-1e6 m (the schema's range)
    pos = [[rng.uniform(-1, 1) * 10 ** rng.uniform(-12, 6),
            rng.uniform(-1, 1) * 10 ** rng.uniform(-7, 6)] for _ in range(n)]
    doc = {"scenario": {"name": "floats"}, "phy": {"standard": "802.11a", "data_rate_mbps": 54.0},
           "wlan": {"stations": n, "positions": pos},
           "traffic": [{"name": "u", "kind": "udp", "pattern": "saturated"}]}
    text = real_core.check_config(json.dumps(doc))
    i = text.index('"positions":')
    block = text[text.index("[[", i):text.index("]]", i) + 2]
    tokens = re.findall(r"-?[\d.]+(?:[eE][-+]?\d+)?", block)
    assert len(tokens) == 2 * n
    passed = [t for t in tokens if runner._dumps_keeps(f"[{t}]")]
    assert len(passed) > n  # most doubles take the cheap path
    assert [json.dumps(float(t)) for t in passed] == passed


@requires_core
def test_core_results_take_the_cheap_path_unchanged(real_core):
    scn = S.load(REPO / "scenarios" / "keceli-fairness.toml",
                 sets=[("scenario.duration_s", 3.0), ("scenario.seeds", [1])])
    items = S.check_all(scn)
    cheap = 0
    for spec, _ in items[::9]:
        text = real_core.run(core.to_json(spec.config), spec.seed)
        assert '"wall_time_s":' in text
        cheap += runner._dumps_keeps(text)
        assert runner.canonical_result(text) == slow(text)
    assert cheap >= 3


@requires_core
def test_rows_of_the_core_text_are_the_rows_of_the_parsed_result(real_core):
    """`result_rows_of_text` on the core's results (TCP and UDP flows,
    several cells) gives the rows of the parsed result."""
    docs = [S.load(REPO / "scenarios" / "keceli-fairness.toml",
                   sets=[("scenario.duration_s", 1.0), ("scenario.seeds", [1])]),
            S.load(REPO / "scenarios" / "bench-r2.toml",
                   sets=[("scenario.duration_s", 0.2), ("wlan.stations", 40), ("wlan.aps", 4)])]
    for scn in docs:
        for spec, _ in S.check_all(scn)[:2]:
            text = real_core.run(core.to_json(spec.config), spec.seed)
            rows = result_rows_of_text(text, whole_below=0)
            assert rows == result_rows(json.loads(text))
            assert rows[1] and rows[2]


def test_a_stored_run_leaves_its_result_unparsed(fake_core, monkeypatch, tmp_path):
    """A campaign in this process stores a run's rows made from its text
    (`RunOutcome.store_rows`) and keeps the outcome unparsed; its result
    is parsed when asked."""
    real_run = fake_core.run
    monkeypatch.setattr(fake_core, "run", staticmethod(
        lambda t, s, *a: json.dumps({**json.loads(real_run(t, s)), "version": "0.0.0-fake",
                                     "wall_time_s": 0.25, "warmup_s": 0.0},
                                    separators=(",", ":"))))
    doc = {"scenario": {"name": "kept", "seeds": [1]}, "wlan": {"stations": 3},
           "traffic": [{"name": "sat"}]}
    scn = S.from_dict(doc, file="kept.toml")
    with Store(tmp_path / "kept.duckdb") as st:
        res = campaign.execute(scn, S.check_all(scn), jobs=1, store=st)
        (o, rid), = res.outcomes
        assert o.ok and o._result is runner._UNPARSED
        stored = st.query("SELECT station_index, name, attempts FROM stations ORDER BY station_index")
    assert [(r["station_index"], r["name"], r["attempts"]) for r in stored] == [
        (r[0], r[1], r[2]) for r in result_rows(o.result)[2]]
    assert len(stored) == 3


def test_execute_returns_the_store_rows_and_version(fake_core, monkeypatch):
    real_run = fake_core.run
    monkeypatch.setattr(fake_core, "run", staticmethod(
        lambda t, s: json.dumps({**json.loads(real_run(t, s)), "version": "9.9",
                                 "wall_time_s": 0.25})))
    cfg = {"scenario": {"name": "x"}, "wlan": {"stations": 3}, "traffic": [{"name": "sat"}]}
    text, wall, err, rows, version = runner._execute(json.dumps(cfg), 4)
    assert err is None and wall >= 0 and version == "9.9"
    result = json.loads(text)
    assert "wall_time_s" not in result
    assert rows == result_rows(result)
    assert len(rows[1]) == 3 and len(rows[2]) == 3

    monkeypatch.setattr(fake_core, "run", staticmethod(lambda t, s: "[1, 2]"))
    text, _, err, rows, version = runner._execute(json.dumps(cfg), 4)
    assert (text, err, rows, version) == ("[1,2]", None, None, None)
    monkeypatch.setattr(fake_core, "run", staticmethod(lambda t, s: "{nope"))
    text, _, err, rows, version = runner._execute(json.dumps(cfg), 4)
    assert err.startswith("core returned invalid JSON") and rows is None


def test_outcome_result_is_parsed_when_asked(fake_core):
    spec = S.RunSpec(0, "x", {}, 1, {})
    o = runner._outcome(spec, {}, '{"a":1,"version":"v"}', 0.1, None, ([], [], []), "v")
    assert o.ok and o._result is runner._UNPARSED and o.result_version == "v"
    assert o._result is runner._UNPARSED  # known without parsing
    assert o.result == {"a": 1, "version": "v"}
    o2 = pickle.loads(pickle.dumps(runner._outcome(spec, {}, '{"b":2}', 0.1, None)))
    assert o2._result is runner._UNPARSED and o2.result == {"b": 2}
    o = runner._outcome(spec, {}, '{"a":1,"version":"w"}', 0.1, None)  # an older worker
    assert o.rows is None and o.result_version == "w"
    o = runner._outcome(spec, {}, "", 0.1, "boom")
    assert not o.ok and o.result is None and o.rows is None


def test_worker_with_another_core_version_is_a_failure(fake_core, monkeypatch, tmp_path):
    real_run = fake_core.run
    monkeypatch.setattr(fake_core, "run", staticmethod(
        lambda t, s: json.dumps({**json.loads(real_run(t, s)), "version": "9.9"})))
    scn = S.from_dict({"scenario": {"name": "v", "seeds": [1, 2]}, "wlan": {"stations": 1},
                       "traffic": [{"name": "sat"}]})
    with Store(tmp_path / "v.duckdb") as st:
        res = campaign.execute(scn, jobs=1, store=st)
        assert len(res.failed) == 2
        assert "the worker's core is version 9.9, this one 0.0.0-fake" in res.failed[0].error
        assert res.failed[0].result is None
        assert st.query("SELECT count(*) AS n FROM runs")[0]["n"] == 0
        assert len(st.failures()) == 2

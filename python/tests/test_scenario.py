"""Scenario loading, --set overrides and sweep expansion."""

import pytest

from wifitcp import scenario as S
from wifitcp.errors import InputError

BASE = """
[scenario]
name = "t"
seeds = [1, 2]

[wlan]
stations = 3

[[traffic]]
name = "sat"
msdu_bytes = 1500
"""


def test_split_and_join_paths():
    assert S.split_path("wlan.stations") == ["wlan", "stations"]
    assert S.split_path("traffic[0].rate_mbps") == ["traffic", 0, "rate_mbps"]
    assert S.split_path("traffic.1.rate_mbps") == ["traffic", 1, "rate_mbps"]
    assert S.join_path(["traffic", 0, "rate_mbps"]) == "traffic[0].rate_mbps"
    for bad in ["", "a..b", "a[x]", "."]:
        with pytest.raises(ValueError):
            S.split_path(bad)


def test_parse_value_toml_or_bare_string():
    assert S.parse_value("10") == 10
    assert S.parse_value("54.0") == 54.0
    assert S.parse_value("[1, 2]") == [1, 2]
    assert S.parse_value("true") is True
    assert S.parse_value('"x y"') == "x y"
    assert S.parse_value("802.11a") == "802.11a"
    assert S.parse_value("saturated") == "saturated"


def test_parse_set_errors():
    assert S.parse_set("wlan.stations=5") == ("wlan.stations", 5)
    for bad in ["wlan.stations", "=5", "a..b=1"]:
        with pytest.raises(ValueError):
            S.parse_set(bad)


def test_set_path_creates_tables_and_indexes_arrays():
    doc = {"traffic": [{"a": 1}]}
    S.set_path(doc, "mac.cw_min", 31)
    S.set_path(doc, "traffic[0].a", 2)
    assert doc == {"traffic": [{"a": 2}], "mac": {"cw_min": 31}}
    with pytest.raises(ValueError, match="out of range"):
        S.set_path(doc, "traffic[3].a", 1)
    with pytest.raises(ValueError, match="not a table"):
        S.set_path(doc, "mac.cw_min.x", 1)


def test_no_sweep_one_run_per_seed(write):
    scn = S.load(write("a.toml", BASE))
    runs = scn.runs()
    assert [r.seed for r in runs] == [1, 2]
    assert all(r.params == {} for r in runs)
    assert "seeds" not in runs[0].config["scenario"]
    assert "sweep" not in runs[0].config
    assert scn.name == "t"


def test_default_seed_is_one(write):
    scn = S.load(write("a.toml", BASE.replace("seeds = [1, 2]", "")))
    assert scn.seeds == [1]


def test_grid_times_cases_times_seeds_in_order(write):
    text = BASE + """
[sweep]
"wlan.stations" = [1, 2, 5]
"traffic[0].msdu_bytes" = [500, 1500]
[[sweep.cases]]
"phy.standard" = "802.11a"
"phy.data_rate_mbps" = 54
[[sweep.cases]]
"phy.standard" = "802.11b"
"phy.data_rate_mbps" = 11
"""
    scn = S.load(write("s.toml", text))
    runs = scn.runs()
    assert scn.n_runs == len(runs) == 3 * 2 * 2 * 2
    assert scn.n_configs == 12
    first = runs[0]
    assert first.params == {"wlan.stations": 1, "traffic[0].msdu_bytes": 500,
                            "phy.standard": "802.11a", "phy.data_rate_mbps": 54}
    assert first.config["wlan"]["stations"] == 1
    assert first.config["traffic"][0]["msdu_bytes"] == 500
    assert first.config["phy"] == {"standard": "802.11a", "data_rate_mbps": 54}
    # seeds innermost, then cases, then the grid (last axis fastest)
    assert [r.seed for r in runs[:4]] == [1, 2, 1, 2]
    assert runs[2].params["phy.standard"] == "802.11b"
    assert runs[4].params["traffic[0].msdu_bytes"] == 1500
    assert runs[8].params["wlan.stations"] == 2
    assert [r.index for r in runs] == list(range(len(runs)))
    # configs are independent copies
    assert runs[0].config is not runs[4].config
    assert len({(tuple(sorted((k, str(v)) for k, v in r.params.items())), r.seed)
                for r in runs}) == len(runs)


def test_unquoted_dotted_sweep_keys_are_flattened(write):
    text = BASE + "\n[sweep]\nwlan.stations = [1, 4]\n"
    runs = S.load(write("s.toml", text)).runs()
    assert [r.params for r in runs[::2]] == [{"wlan.stations": 1}, {"wlan.stations": 4}]


def test_set_overrides_before_expansion(write):
    text = BASE + '\n[sweep]\n"wlan.stations" = [1, 4]\n'
    scn = S.load(write("s.toml", text), sets=["scenario.seeds=[7]", "mac.cw_min=31",
                                                 "sweep.wlan.stations=[2, 3, 9]"])
    runs = scn.runs()
    assert [r.seed for r in runs] == [7, 7, 7]
    assert [r.config["wlan"]["stations"] for r in runs] == [2, 3, 9]
    assert runs[0].config["mac"]["cw_min"] == 31


SWEPT = BASE + """
[sweep]
"wlan.stations" = [1, 2, 5]
[[sweep.cases]]
"traffic[0].msdu_bytes" = 500
"phy.standard" = "802.11a"
[[sweep.cases]]
"traffic[0].msdu_bytes" = 1000
"phy.standard" = "802.11a"
"""


def test_set_of_a_grid_axis_wins_over_the_sweep(write):
    scn = S.load(write("s.toml", SWEPT), sets=["wlan.stations=4"])
    assert scn.grid == [("wlan.stations", [4])] and scn.n_configs == 2
    assert scn.collapsed == {"wlan.stations": ("--set wlan.stations=4", [1, 2, 5])}
    runs = scn.runs()
    assert {r.config["wlan"]["stations"] for r in runs} == {4}
    assert runs[0].params["wlan.stations"] == 4
    assert runs[0].origins["wlan.stations"] == "--set wlan.stations=4"


def test_set_of_a_case_key_wins_and_equal_cases_merge(write):
    scn = S.load(write("s.toml", SWEPT), sets=["traffic.0.msdu_bytes=700"])
    assert scn.cases == [{"traffic[0].msdu_bytes": 700, "phy.standard": "802.11a"}]
    assert scn.collapsed == {"traffic[0].msdu_bytes": ("--set traffic.0.msdu_bytes=700",
                                                        [500, 1000])}
    assert {r.config["traffic"][0]["msdu_bytes"] for r in scn.runs()} == {700}
    # a key no sweep sets collapses nothing; equal cases of the file stay
    plain = S.load(write("p.toml", SWEPT.replace("1000", "500")), sets=["mac.cw_min=31"])
    assert plain.collapsed == {} and len(plain.cases) == 2


def test_seed_option_runs_only_that_seed(write):
    scn = S.load(write("a.toml", BASE), seed=42)
    assert [r.seed for r in scn.runs()] == [42]


@pytest.mark.parametrize("text,path", [
    ('[scenario]\nname="t"\nseeds = []\n', "scenario.seeds"),
    ('[scenario]\nname="t"\nseeds = ["a"]\n', "scenario.seeds[0]"),
    ('[scenario]\nname="t"\nseeds = [-1]\n', "scenario.seeds[0]"),
    ('[scenario]\nname="t"\nseeds = [1, 1]\n', "scenario.seeds"),
    ('[scenario]\nname="t"\n[sweep]\n"wlan.stations" = 5\n', 'sweep."wlan.stations"'),
    ('[scenario]\nname="t"\n[sweep]\n"wlan.stations" = []\n', 'sweep."wlan.stations"'),
    ('[scenario]\nname="t"\n[sweep]\n"scenario.seeds" = [[1]]\n', 'sweep."scenario.seeds"'),
    ('[scenario]\nname="t"\n[sweep]\ncases = [1]\n', "sweep.cases[0]"),
    ('[scenario]\nname="t"\n[sweep]\n"a" = [1]\n[[sweep.cases]]\n"a" = 2\n',
     'sweep.cases[0]."a"'),
    ('sweep = 3\n', "sweep"),
])
def test_python_side_errors_name_the_field(write, text, path):
    f = write("bad.toml", text)
    with pytest.raises(InputError) as e:
        S.load(f).runs()
    assert e.value.path == path
    assert e.value.file == f


def test_missing_file_and_bad_toml(write, tmp_path):
    with pytest.raises(InputError, match="no such file"):
        S.load(str(tmp_path / "nope.toml"))
    with pytest.raises(InputError, match="not valid TOML"):
        S.load(write("x.toml", "[scenario\nname = 1"))
    with pytest.raises(InputError, match="directory"):
        S.load(str(tmp_path))


def test_bad_set(write):
    f = write("a.toml", BASE)
    with pytest.raises(InputError) as e:
        S.load(f, sets=["nonsense"])
    assert e.value.path == "--set"
    with pytest.raises(InputError) as e:
        S.load(f, sets=["wlan.stations.x=1"])
    assert e.value.path == "wlan.stations.x"


def test_check_all_maps_core_errors_to_fields(fake_core, write):
    f = write("a.toml", BASE + "[mac]\ncw_mni = 3\n")
    with pytest.raises(InputError) as e:
        S.check_all(S.load(f))
    assert (e.value.path, e.value.reason) == ("mac.cw_mni", "unknown key")


def test_check_all_points_at_the_sweep_entry(fake_core, write):
    f = write("a.toml", BASE + '[sweep]\n"wlan.statons" = [1, 2]\n')
    with pytest.raises(InputError) as e:
        S.check_all(S.load(f))
    assert e.value.path == 'sweep."wlan.statons"'
    assert "unknown key" in e.value.reason
    f = write("b.toml", BASE + '[sweep]\n"wlan.stations" = [1, 0]\n')
    with pytest.raises(InputError) as e:
        S.check_all(S.load(f))
    assert e.value.path == 'sweep."wlan.stations"'
    assert "(value 0)" in e.value.reason
    f = write("c.toml", BASE + '[[sweep.cases]]\n"phy.standard" = "802.11z"\n')
    with pytest.raises(InputError) as e:
        S.check_all(S.load(f))
    assert e.value.path == 'sweep.cases[0]."phy.standard"'


def test_check_all_validates_each_config_once(fake_core, write, monkeypatch):
    calls = []
    orig = fake_core.check_config
    monkeypatch.setattr(fake_core, "check_config", lambda t: calls.append(t) or orig(t))
    f = write("a.toml", BASE + '[sweep]\n"wlan.stations" = [1, 2, 3]\n')
    items = S.check_all(S.load(f))
    assert len(items) == 6 and len(calls) == 3
    assert items[0][1]["mac"]["cw_min"] == 15  # normalised, defaults filled


def test_set_quoted_sweep_key(write):
    f = write("a.toml", BASE)
    scn = S.load(f, sets=['sweep."mac.cw_min"=[15, 31]', "sweep.'wlan.stations'=[2]"])
    assert scn.grid == [("mac.cw_min", [15, 31]), ("wlan.stations", [2])]


def test_error_common_to_every_point_has_no_sweep_context(fake_core, write):
    f = write("a.toml", BASE + '[mac]\ncw_min = "x"\n[sweep]\n"wlan.stations" = [1, 2]\n')
    with pytest.raises(InputError) as e:
        S.check_all(S.load(f))
    assert e.value.reason == "expected int, got str"


def test_error_of_one_point_names_the_point(fake_core, write):
    text = BASE.replace('name = "sat"', 'name = "sat"\nstations = [1]')
    f = write("a.toml", text + '[sweep]\n"wlan.stations" = [4, 1]\n')
    with pytest.raises(InputError) as e:
        S.check_all(S.load(f))
    assert e.value.path == "traffic[0].stations[0]"
    assert e.value.reason == "station 1 does not exist (with wlan.stations=1)"
